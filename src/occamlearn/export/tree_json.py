"""A fitted tree classifier as JSON, and back, without pickle.

Two estimators share the format, named by the file's ``"model"``: ``MinimumPureTreeClassifier``
and ``MaxAccuracyTreeClassifier`` (DT(max)). The file holds everything ``predict`` needs and
everything a reader wants to know: the tree's arrays, the classes (with their dtype, so labels
come back exactly), the input column names, the binariser's conditions (each
``Condition.to_dict``), the binary feature names, status and bounds (size bounds for a
minimum tree; DT(max) optimises errors, so its size bounds are null and its proven error bound
is kept), training errors, the rows the conflict filter removed and the solver statistics.
With Algorithm 3 it also holds the candidate trees (with their selection accuracies), the
kept ones and whether the split was stratified. Writing only: ``estimators.model_files``
rebuilds the fitted estimator, whose ``binarizer_`` is a ``ConditionBinarizer`` evaluating
exactly the stored conditions, so the loaded model predicts what the saved one did.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "FORMAT",
    "TREE_MODELS",
    "VERSION",
    "array_from_json",
    "data_info_dict",
    "model_to_dict",
    "save_model",
]

FORMAT = "occamlearn-model"
VERSION = 1
TREE_MODELS = ("MinimumPureTreeClassifier", "MaxAccuracyTreeClassifier")
_NOT_SAVED = ("binarizer", "callback")  # the binariser is saved apart; callables cannot be


def _array_to_json(values: np.ndarray) -> dict:
    values = np.asarray(values)
    dtype = "object" if values.dtype == object else values.dtype.str
    return {"dtype": dtype, "values": values.tolist()}


def array_from_json(data: dict) -> np.ndarray:
    if data["dtype"] == "object":
        out = np.empty(len(data["values"]), dtype=object)
        out[:] = data["values"]
        return out
    return np.asarray(data["values"], dtype=np.dtype(data["dtype"]))


def _binarizer_param_to_json(binarizer):
    if binarizer is None or isinstance(binarizer, str):
        return binarizer
    params = binarizer.get_params(deep=False)
    try:
        json.dumps(params)
    except TypeError:
        return {"class": None, "repr": repr(binarizer)}
    cls = type(binarizer)
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


def _plain_params(model) -> dict:
    """The estimator's parameters that JSON can hold (a RandomState object, e.g., cannot)."""
    out = {}
    for key, value in model.get_params(deep=False).items():
        if key in _NOT_SAVED:
            continue
        try:
            json.dumps(value)
        except TypeError:
            continue
        out[key] = value
    return out


def _jsonable_stats(stats: dict) -> dict:
    out = {}
    for key, value in stats.items():
        try:
            json.dumps(value)
        except TypeError:
            value = np.asarray(value).tolist() if isinstance(value, np.ndarray) else repr(value)
        out[str(key)] = value
    return out


def data_info_dict(model) -> dict:
    """The data-facing part of a model file: parameters, classes, names, conditions.

    Needs only what ``fit``'s preparation step sets (no tree), so the WCNF sidecar can hold it.
    """
    conditions = getattr(model.binarizer_, "conditions_", None)
    if model.binarizer_ is not None and conditions is None:
        raise TypeError(
            f"cannot save a model whose binariser ({type(model.binarizer_).__name__}) has no "
            "conditions_; use occamlearn's FeatureBinarizer or pickle the model instead"
        )
    names_in = getattr(model, "feature_names_in_", None)
    return {
        **_column_checks(model.binarizer_),
        "params": {**_plain_params(model),
                   "binarizer": _binarizer_param_to_json(model.binarizer)},
        "classes": _array_to_json(model.classes_),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "binary_feature_names": [str(n) for n in model.feature_names_],
        "conditions": None if conditions is None else [c.to_dict() for c in conditions],
        "conflict_rows": [int(r) for r in getattr(model, "conflict_rows_", ())],
    }


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _column_checks(binarizer) -> dict:
    """How the fitted binariser checks each input column (kind, known values), so that a
    loaded model refuses what the saved one refused; {} when the binariser has no
    ``columns_`` or its domains are not JSON values."""
    specs = getattr(binarizer, "columns_", None)
    if not specs or not all(hasattr(spec, "kind") for spec in specs):
        return {}
    columns = [{"name": str(spec.name), "index": int(spec.index), "kind": spec.kind,
                "domain": [_plain(v) for v in spec.domain]}
               for spec in specs if spec.kind not in ("constant", "identifier")]
    out = {"columns": columns,
           "handle_unknown": getattr(binarizer, "handle_unknown", "error")}
    try:
        json.dumps(out, allow_nan=False)
    except (TypeError, ValueError):
        return {}
    return out


def _int_or_none(value):
    return None if value is None else int(value)


def model_to_dict(model) -> dict:
    """JSON-ready dict of a fitted ``MinimumPureTreeClassifier`` or ``MaxAccuracyTreeClassifier``."""
    check_is_fitted(model, "tree_")
    if type(model).__name__ not in TREE_MODELS:
        raise TypeError(f"cannot save a {type(model).__name__} as a tree model file; this "
                        f"occamlearn saves {', '.join(sorted(TREE_MODELS))}")
    errors_bound = getattr(model, "errors_lower_bound_", None)
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": type(model).__name__,
        **data_info_dict(model),
        "tree": model.tree_.to_dict(),
        "status": model.status_,
        "lower_bound": _int_or_none(model.lower_bound_),
        "upper_bound": _int_or_none(model.upper_bound_),
        "training_errors": int(model.training_errors_),
        **({} if errors_bound is None else {"errors_lower_bound": int(errors_bound)}),
        "solve_stats": _jsonable_stats(model.solve_stats_),
        **_selection_dict(model),
    }


def _selection_dict(model) -> dict:
    """Algorithm 3's fitted attributes, when the model has them."""
    if not hasattr(model, "candidate_trees_"):
        return {}
    return {"candidate_trees": [[tree.to_dict(), float(accuracy)]
                                for tree, accuracy in model.candidate_trees_],
            "best_trees": [tree.to_dict() for tree in model.best_trees_],
            "selection_stratified": model.selection_stratified_}


def save_model(model, path) -> None:
    """Write ``model`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(model_to_dict(model), indent=1) + "\n")
