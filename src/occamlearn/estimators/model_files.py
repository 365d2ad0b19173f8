"""Model files of fitted estimators: ``save_model``, ``load_model`` and external-solver files.

A model file is a ``FittedModel`` record as JSON (``occamlearn.model.record_json`` writes and
reads every version and checks every field; its docstring describes the format). Here the
record meets the estimators: ``save_model`` writes ``estimator.to_record()`` and
``load_model`` unwraps the record into the fitted estimator that wrote it
(``estimators._record``). The three estimators, their ``FittedModel`` records and a bare
``DecisionList`` all go through these functions. From Python::

    save_model(clf, "model.json")          # any fitted occamlearn estimator
    clf = load_model("model.json")         # predicts exactly what the saved one did

``write_wcnf_instance`` and ``decode_solution`` are the two ends of an external solver's run
(``occamlearn encode`` / ``occamlearn decode``): the MaxSAT instance of a minimum pure tree
with a sidecar that keeps the data, and the fitted estimator from the solver's answer.
"""

from __future__ import annotations

from occamlearn.estimators._record import data_info_dict, estimator_from_record
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.fitted import FittedModel
from occamlearn.model.record_json import (
    FORMAT,
    read_json_file,
    record_from_dict,
    record_to_dict,
    write_record,
)
from occamlearn.trees.greedy import greedy_upper_bound
from occamlearn.trees.mpdt.maxsat_route.wcnf_file import decoded_model_file, write_instance

__all__ = ["decode_solution", "load_model", "model_from_dict", "model_to_dict", "save_model",
           "write_wcnf_instance"]


def _record(model):
    if isinstance(model, (DecisionList, FittedModel)):
        return model
    to_record = getattr(model, "to_record", None)
    if to_record is None:
        raise TypeError(f"cannot save a {type(model).__name__}: expected a fitted occamlearn "
                        "estimator, its FittedModel or a DecisionList")
    return to_record()  # NotFittedError before fit


def model_to_dict(model) -> dict:
    """JSON-ready dict of a fitted estimator, a ``FittedModel`` or a bare ``DecisionList``
    (NotFittedError for an unfitted estimator)."""
    return record_to_dict(_record(model))


def save_model(model, path) -> None:
    """Write ``model`` (any fitted occamlearn estimator, a ``FittedModel`` or a bare
    ``DecisionList``) as JSON to ``path``."""
    write_record(_record(model), path)


def model_from_dict(data: dict):
    """The fitted estimator (or bare ``DecisionList``) a parsed model file describes, of any
    version; ValueError naming the field if it is not one."""
    record = record_from_dict(data)
    return record if isinstance(record, DecisionList) else estimator_from_record(record)


def load_model(path):
    """Read any occamlearn JSON model file; FileNotFoundError / ValueError name the file
    (and the field at fault: ``model file m.json: "tree.left[3]" = 0 points back to an
    ancestor``)."""
    data = read_json_file(path)
    try:
        return model_from_dict(data)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("model file: "):
            text = f"model file {path}: {text[len('model file: '):]}"
        raise ValueError(text) from None


def write_wcnf_instance(estimator, X, y, path, *, upper_bound: int | None = None,
                        wcnf_format: str = "new") -> dict:
    """Write the MaxSAT instance whose optimum is a minimum pure tree of ``(X, y)`` as the
    unfitted ``MinimumPureTreeClassifier`` ``estimator`` would binarise them, to ``path``
    and its sidecar to ``path.json``; return the sidecar. ``upper_bound`` (nodes) defaults
    to the greedy tree's size. ValueError if the data have a single class (the minimum tree
    is one leaf: nothing to encode)."""
    data = estimator._prepare(X, y)
    if len(data.classes) < 2:
        raise ValueError("a single class: the minimum tree is one leaf, there is nothing to "
                         "encode")
    if upper_bound is None:
        upper_bound = greedy_upper_bound(data.X_bin, data.y, len(data.classes)).size
    return write_instance(path, data.X_bin, data.y, upper_bound=upper_bound,
                          wcnf_format=wcnf_format, model_info=data_info_dict(estimator))


def decode_solution(sidecar: dict, solver_text: str):
    """Fitted ``MinimumPureTreeClassifier`` from a WCNF sidecar and an external solver's
    output text (``trees.mpdt.maxsat_route.wcnf_file``; the sidecar keeps version 1's
    fields)."""
    data = decoded_model_file(sidecar, solver_text)
    return model_from_dict({"format": FORMAT, "version": 1,
                            "model": "MinimumPureTreeClassifier", **data})
