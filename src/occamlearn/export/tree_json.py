"""A fitted tree classifier as JSON, and back, without pickle.

Two estimators share the format, named by the file's ``"model"``: ``MinimumPureTreeClassifier``
and ``MaxAccuracyTreeClassifier`` (DT(max)). The file holds everything ``predict`` needs and
everything a reader wants to know: the tree's arrays, the classes (with their dtype, so labels
come back exactly), the input column names, the binariser's conditions (each
``Condition.to_dict``), the binary feature names, status and bounds (size bounds for a
minimum tree; DT(max) optimises errors, so its size bounds are null and its proven error bound
is kept), training errors, the rows the conflict filter removed and the solver statistics.
Loading rebuilds a fitted estimator whose ``binarizer_`` is a ``ConditionBinarizer``: it
evaluates exactly the stored conditions, so the loaded model predicts what the saved one did.
"""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from occamlearn.model.conditions import condition_from_dict
from occamlearn.model.tree import Tree

__all__ = [
    "FORMAT",
    "ConditionBinarizer",
    "data_info_dict",
    "load_model",
    "model_from_dict",
    "model_to_dict",
    "save_model",
]

FORMAT = "occamlearn-model"
VERSION = 1
_ESTIMATORS = {  # model name in the file -> the class rebuilt on loading
    "MinimumPureTreeClassifier": "occamlearn.estimators.mpdt:MinimumPureTreeClassifier",
    "MaxAccuracyTreeClassifier": "occamlearn.estimators.dtmax:MaxAccuracyTreeClassifier",
}
_NOT_SAVED = ("binarizer", "callback")  # the binariser is saved apart; callables cannot be


class ConditionBinarizer(TransformerMixin, BaseEstimator):
    """Fixed binariser: column j of the output is ``conditions[j].evaluate(X)``.

    ``fit`` learns nothing from the data; it only records the input's shape and names.
    """

    def __init__(self, conditions=(), feature_names=None):
        self.conditions = conditions
        self.feature_names = feature_names

    def fit(self, X, y=None):
        validate_data(self, X, skip_check_array=True, reset=True)
        self.conditions_ = tuple(self.conditions)
        return self

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        validate_data(self, X, skip_check_array=True, reset=False)
        columns = [np.asarray(c.evaluate(X), dtype=bool) for c in self.conditions_]
        return np.column_stack(columns).astype(np.uint8) if columns else np.zeros(
            (len(X), 0), dtype=np.uint8)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self)
        names = self.feature_names or [str(c) for c in self.conditions_]
        return np.asarray(names, dtype=object)


def _array_to_json(values: np.ndarray) -> dict:
    values = np.asarray(values)
    dtype = "object" if values.dtype == object else values.dtype.str
    return {"dtype": dtype, "values": values.tolist()}


def _array_from_json(data: dict) -> np.ndarray:
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


def _binarizer_param_from_json(data, fitted):
    if data is None or isinstance(data, str):
        return data
    if data.get("class") and data["class"].startswith("occamlearn."):
        module, _, name = data["class"].rpartition(".")
        return getattr(import_module(module), name)(**data["params"])
    return fitted  # not rebuildable: refitting reuses the stored conditions


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
        "params": {**_plain_params(model),
                   "binarizer": _binarizer_param_to_json(model.binarizer)},
        "classes": _array_to_json(model.classes_),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "binary_feature_names": [str(n) for n in model.feature_names_],
        "conditions": None if conditions is None else [c.to_dict() for c in conditions],
        "conflict_rows": [int(r) for r in getattr(model, "conflict_rows_", ())],
    }


def _int_or_none(value):
    return None if value is None else int(value)


def model_to_dict(model) -> dict:
    """JSON-ready dict of a fitted ``MinimumPureTreeClassifier`` or ``MaxAccuracyTreeClassifier``."""
    check_is_fitted(model, "tree_")
    if type(model).__name__ not in _ESTIMATORS:
        raise TypeError(f"cannot save a {type(model).__name__} as a tree model file; this "
                        f"occamlearn saves {', '.join(sorted(_ESTIMATORS))}")
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
    }


def _check_header(data) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not an occamlearn model file (expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION or data.get("model") not in _ESTIMATORS:
        raise ValueError(
            f"unsupported model file: model {data.get('model')!r} version "
            f"{data.get('version')!r} (this occamlearn reads "
            f"{', '.join(sorted(_ESTIMATORS))} version {VERSION})"
        )


def model_from_dict(data: dict):
    """Fitted estimator (the file's ``"model"``) from ``model_to_dict``'s output."""
    _check_header(data)
    module, _, name = _ESTIMATORS[data["model"]].partition(":")
    estimator = getattr(import_module(module), name)
    tree = Tree.from_dict(data["tree"])
    binarizer_ = None
    if data["conditions"] is not None:
        conditions = tuple(condition_from_dict(c) for c in data["conditions"])
        binarizer_ = ConditionBinarizer(conditions, list(data["binary_feature_names"]))
        binarizer_.conditions_ = conditions
        _set_input_signature(binarizer_, data)
    accepted = estimator().get_params(deep=False)
    params = {k: v for k, v in data["params"].items() if k in accepted and k != "binarizer"}
    model = estimator(
        binarizer=_binarizer_param_from_json(data["params"]["binarizer"], binarizer_), **params)
    _set_input_signature(model, data)
    model.binarizer_ = binarizer_
    model.classes_ = _array_from_json(data["classes"])
    model.feature_names_ = np.asarray(data["binary_feature_names"], dtype=object)
    model.tree_ = tree
    model.n_nodes_, model.depth_ = tree.n_nodes, tree.depth
    model.status_ = data["status"]
    model.lower_bound_, model.upper_bound_ = data["lower_bound"], data["upper_bound"]
    model.training_errors_ = int(data.get("training_errors", 0))  # older files: pure trees
    if "errors_lower_bound" in data:
        model.errors_lower_bound_ = int(data["errors_lower_bound"])
    if data["model"] == "MinimumPureTreeClassifier":
        model.conflict_rows_ = np.asarray(data["conflict_rows"], dtype=np.int64)
        model.n_conflicts_removed_ = len(model.conflict_rows_)
    model.solve_stats_ = dict(data["solve_stats"])
    return model


def _set_input_signature(estimator, data: dict) -> None:
    estimator.n_features_in_ = data["n_features_in"]
    if data["feature_names_in"] is not None:
        estimator.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)


def save_model(model, path) -> None:
    """Write ``model`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(model_to_dict(model), indent=1) + "\n")


def load_model(path):
    """Read a model written by ``save_model``; ValueError if the file is not one."""
    from occamlearn.export.model_file import read_json_file

    return model_from_dict(read_json_file(path))
