"""Model files of fitted estimators: ``save_model``, ``load_model`` and external-solver answers.

A model file is a ``FittedModel`` record as JSON (``occamlearn.model.record_json`` reads every
version and checks every field); here the record meets the estimators: ``save_model`` writes
``estimator.to_record()`` and ``load_model`` unwraps the record into the fitted estimator that
wrote it (``estimators._record``). The same three estimators and a bare ``DecisionList`` all
go through these functions. From Python::

    save_model(clf, "model.json")          # any fitted occamlearn estimator
    clf = load_model("model.json")         # predicts exactly what the saved one did
"""

from __future__ import annotations

from occamlearn.estimators._record import data_info_dict, estimator_from_record
from occamlearn.export.tree_json import model_to_dict, save_model
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.record_json import FORMAT, read_json_file, record_from_dict
from occamlearn.trees.mpdt.maxsat_route.wcnf_file import decoded_model_file

__all__ = ["data_info_dict", "decode_solution", "load_model", "model_from_dict", "model_to_dict",
           "save_model"]


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


def decode_solution(sidecar: dict, solver_text: str):
    """Fitted ``MinimumPureTreeClassifier`` from a WCNF sidecar and an external solver's
    output text (``trees.mpdt.maxsat_route.wcnf_file``; the sidecar keeps version 1's
    fields)."""
    data = decoded_model_file(sidecar, solver_text)
    return model_from_dict({"format": FORMAT, "version": 1,
                            "model": "MinimumPureTreeClassifier", **data})
