"""A fitted model as a JSON model file, without pickle: ``save_model`` and ``model_to_dict``.

Every fitted occamlearn model is saved the same way: its record (``FittedModel``, from
``as_record``) written by ``occamlearn.model.record_json``, whose docstring describes the
format (version 2: each tree stored once, provenance, status and bounds). Reading a file back
into a fitted estimator is ``occamlearn.load_model`` (``estimators.model_files``).
"""

from __future__ import annotations

from occamlearn.export._view import as_record
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.record_json import FORMAT, VERSION, record_to_dict, write_record

__all__ = ["FORMAT", "VERSION", "model_to_dict", "save_model"]


def _record(model):
    if isinstance(model, DecisionList):
        return model
    try:
        return as_record(model)
    except TypeError:
        raise TypeError(f"cannot save a {type(model).__name__}: expected a fitted occamlearn "
                        "estimator, its FittedModel or a DecisionList") from None


def model_to_dict(model) -> dict:
    """JSON-ready dict of a fitted estimator, a ``FittedModel`` or a bare ``DecisionList``
    (NotFittedError for an unfitted estimator)."""
    return record_to_dict(_record(model))


def save_model(model, path) -> None:
    """Write ``model`` (any fitted occamlearn estimator, a ``FittedModel`` or a bare
    ``DecisionList``) as JSON to ``path``."""
    write_record(_record(model), path)
