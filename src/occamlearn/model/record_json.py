"""Model files: a ``FittedModel`` as versioned JSON, and back, without pickle.

Version 2 (written now) is one flat JSON object::

    {"format": "occamlearn-model", "version": 2, "model": "MinimumPureTreeClassifier",
     "provenance": {"occamlearn_version": "0.1.0", "fitted_at": "2026-12-01T22:30:00+00:00"},
     "params": {...},                                  # the estimator's, as JSON values
     "classes": {"dtype": "<U9", "values": [...]},     # labels come back with their dtype
     "n_features_in": 4, "feature_names_in": [...], "binary_feature_names": [...],
     "conditions": [...], "columns": [...], "handle_unknown": "error",
     "tree": {...}, "status": "optimal", "lower_bound": 5, "upper_bound": 5,
     "training_errors": 0, "conflict_rows": [], "solve_stats": {...},
     "optimal_over": "32 cuts per column on 'x'",     # only when restricted
     "leaf_weights": [[0.0, 0.0], [2.5, 0.0], ...],   # only after a weighted fit
     "selection": {"candidates": [[null, 1.0], [{...}, 0.9]], "best": [0], "stratified": true}}

After a weighted fit ``"training_errors"`` (and DT(max)'s ``"errors_lower_bound"``) are
total weights, written as numbers with a fraction. Files without ``"optimal_over"`` or
``"leaf_weights"`` (older ones, unweighted fits) read as unrestricted and unweighted.
Each tree is stored once: Algorithm 3's candidate that is the model is written ``null``, and
a plain fit has no ``"selection"``. DT(max) adds ``"errors_lower_bound"`` and has null size
bounds. A decision list holds ``"list"``, ``"positive_index"`` (which class is y = 1),
``"direction"``, ``"log_likelihoods"`` and ``"stop_reason"`` instead of the tree fields. A bare
``DecisionList`` is ``{"format", "version", "model": "DecisionList", "list": {...}}``.

Version 1 files (occamlearn before this record: the same fields, ``"candidate_trees"`` /
``"best_trees"`` holding the model's tree again, decision lists with ``"classes_dtype"`` and
``"direction_chosen"``) are read through ``model.record_v1``. Every field is checked; a bad
one is a ValueError naming it (``model.record_checks``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from occamlearn.model import record_checks as checks
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.fitted import FittedModel, Inputs, Provenance, Selection
from occamlearn.model.tree import Tree

__all__ = ["FORMAT", "MODELS", "VERSION", "array_to_json", "dumps", "inputs_to_dict",
           "read_json_file", "record_from_dict", "record_to_dict", "write_record"]

FORMAT = "occamlearn-model"
VERSION = 2
# estimator name -> (family, the size bounds are on the minimum size, errors are optimised)
MODELS = {
    "MinimumPureTreeClassifier": ("tree", True, False),
    "MaxAccuracyTreeClassifier": ("tree", False, True),
    "DecisionListClassifier": ("list", False, False),
    "DecisionList": ("bare list", False, False),
}
_INPUT_KEYS = ("params", "classes", "n_features_in", "feature_names_in",
               "binary_feature_names", "conditions")
_TREE_KEYS = ("tree", "status", "lower_bound", "upper_bound", "solve_stats")
_LIST_KEYS = ("list", "positive_index", "direction", "log_likelihoods", "stop_reason")


# -- writing --------------------------------------------------------------------------------
def array_to_json(values: np.ndarray) -> dict:
    values = np.asarray(values)
    dtype = "object" if values.dtype == object else values.dtype.str
    return {"dtype": dtype, "values": values.tolist()}


def inputs_to_dict(inputs: Inputs) -> dict:
    if inputs.opaque_binarizer is not None:
        raise TypeError(
            f"cannot save a model whose binariser ({inputs.opaque_binarizer}) has no "
            "conditions_; use occamlearn's binarisers or pickle the model instead")
    out = {
        "n_features_in": int(inputs.n_features_in),
        "feature_names_in": (None if inputs.feature_names_in is None
                             else [str(n) for n in inputs.feature_names_in]),
        "binary_feature_names": [str(n) for n in inputs.binary_feature_names],
        "conditions": (None if inputs.conditions is None
                       else [c.to_dict() for c in inputs.conditions]),
    }
    if inputs.columns is not None:
        out["columns"] = [dict(c) for c in inputs.columns]
        out["handle_unknown"] = inputs.handle_unknown
    return out


def _int_or_none(value):
    return None if value is None else int(value)


def _amount(value):
    """A count of rows as an int; a total weight (after a weighted fit) as a float."""
    value = value.item() if isinstance(value, np.generic) else value
    return int(value) if isinstance(value, int) else float(value)


def _selection_to_dict(selection: Selection) -> dict:
    candidates = [[None if k == selection.chosen else tree.to_dict(), float(accuracy)]
                  for k, (tree, accuracy) in enumerate(selection.candidates)]
    out = {"candidates": candidates, "best": [int(i) for i in selection.best],
           "stratified": bool(selection.stratified)}
    if selection.n_minimum_trees is not None:
        out["n_minimum_trees"] = int(selection.n_minimum_trees)
    return out


def record_to_dict(record) -> dict:
    """The JSON document of a ``FittedModel`` (or of a bare ``DecisionList``)."""
    if isinstance(record, DecisionList):
        return {"format": FORMAT, "version": VERSION, "model": "DecisionList",
                "list": record.to_dict()}
    provenance = record.provenance
    out = {"format": FORMAT, "version": VERSION, "model": provenance.estimator,
           "provenance": {"occamlearn_version": provenance.package_version,
                          "fitted_at": provenance.fitted_at},
           "params": dict(provenance.params),
           "classes": array_to_json(record.classes),
           **inputs_to_dict(record.inputs)}
    if record.is_list:
        out.update({"positive_index": int(record.positive_index),
                    "list": record.model.to_dict(), "direction": record.direction,
                    "log_likelihoods": list(record.log_likelihoods),
                    "stop_reason": record.stop_reason})
        if record.optimal_over is not None:
            out["optimal_over"] = record.optimal_over
        return out
    out.update({"tree": record.model.to_dict(), "status": record.status,
                "lower_bound": _int_or_none(record.lower_bound),
                "upper_bound": _int_or_none(record.upper_bound),
                "training_errors": _amount(record.training_errors or 0)})
    if record.errors_lower_bound is not None:
        out["errors_lower_bound"] = _amount(record.errors_lower_bound)
    if record.optimal_over is not None:
        out["optimal_over"] = record.optimal_over
    if record.leaf_weights is not None:
        out["leaf_weights"] = record.leaf_weights.tolist()
    out["conflict_rows"] = list(record.conflict_rows)
    out["solve_stats"] = dict(record.solve_stats)
    if record.selection is not None:
        out["selection"] = _selection_to_dict(record.selection)
    return out


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1) + "\n"


def write_record(record, path) -> None:
    """Write ``record`` (a ``FittedModel`` or a bare ``DecisionList``) as JSON to ``path``."""
    Path(path).write_text(dumps(record_to_dict(record)))


# -- reading --------------------------------------------------------------------------------
def read_json_file(path) -> dict:
    """The parsed content of a model file; FileNotFoundError / ValueError name the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None


def record_from_dict(data) -> FittedModel | DecisionList:
    """The ``FittedModel`` (or bare ``DecisionList``) a parsed model file describes, from any
    version this occamlearn reads; ValueError naming the field if it is not one."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'not an occamlearn model file (expected "format": "{FORMAT}")')
    name = data.get("model")
    if not isinstance(name, str) or name not in MODELS:
        raise ValueError(f"unsupported model file: model {name!r} is unknown; this occamlearn "
                         f"reads {', '.join(sorted(MODELS))}")
    version = data.get("version")
    if version == 1:
        from occamlearn.model.record_v1 import upgrade

        data = upgrade(data)
    elif version != VERSION:
        raise ValueError(f"unsupported model file: model {name!r} version {version!r} (this "
                         f"occamlearn reads versions 1 and {VERSION})")
    family = MODELS[name][0]
    if family == "bare list":
        checks.require(data, ("list",))
        return checks.wrap(lambda: DecisionList.from_dict(data["list"]))
    checks.require(data, _INPUT_KEYS + (_TREE_KEYS if family == "tree" else _LIST_KEYS))
    classes = checks.classes_from_json(data)
    common = {"classes": classes, "inputs": _inputs(data), "provenance": _provenance(data)}
    if family == "tree":
        return _tree_record(data, name, common)
    return _list_record(data, common)


def _provenance(data: dict) -> Provenance:
    params = data["params"]
    if not isinstance(params, dict) or "binarizer" not in params:
        checks.fail("params", "must be an object of the estimator's parameters, binarizer "
                    "included")
    about = data.get("provenance", {})
    if not isinstance(about, dict):
        checks.fail("provenance", "must be an object")
    for key in ("occamlearn_version", "fitted_at"):
        if not isinstance(about.get(key), (str, type(None))):
            checks.fail(f"provenance.{key}", f"= {checks.short(about.get(key))} is not a "
                        "string or null")
    return Provenance(data["model"], dict(params), about.get("occamlearn_version"),
                      about.get("fitted_at"))


def _inputs(data: dict) -> Inputs:
    checks.check_names(data)
    conditions = checks.conditions_from_json(data)
    columns = data.get("columns")
    if columns is not None and not (isinstance(columns, list)
                                    and all(isinstance(c, dict) for c in columns)):
        checks.fail("columns", "must be a list of column objects")
    handle_unknown = data.get("handle_unknown", "error")
    if handle_unknown not in ("error", "ignore"):
        checks.fail("handle_unknown", f'= {checks.short(handle_unknown)} is not "error" or '
                    '"ignore"')
    names_in = data["feature_names_in"]
    return Inputs(data["n_features_in"], None if names_in is None else tuple(names_in),
                  tuple(data["binary_feature_names"]), conditions,
                  None if columns is None else tuple(columns), handle_unknown)


def _rows(data: dict, key: str) -> tuple:
    rows = data.get(key, [])
    if not isinstance(rows, list) or not all(checks.is_int(r) and r >= 0 for r in rows):
        checks.fail(key, "must be a list of row numbers")
    return tuple(rows)


def _tree_record(data: dict, name: str, common: dict) -> FittedModel:
    _, minimum_size, errors_optimised = MODELS[name]
    n_binary, n_classes = len(data["binary_feature_names"]), len(common["classes"])
    tree = checks.tree_from_json(data["tree"], "tree", n_binary, n_classes)
    selection = (_selection(data["selection"], tree, n_binary, n_classes)
                 if "selection" in data else None)
    checks.check_bounds(data, tree, minimum_size=minimum_size,
                        errors_optimised=errors_optimised, selection=selection is not None)
    if not isinstance(data["solve_stats"], dict):
        checks.fail("solve_stats", f"= {checks.short(data['solve_stats'])} is not an object")
    return FittedModel(
        tree, **common, status=data["status"], lower_bound=data["lower_bound"],
        upper_bound=data["upper_bound"], training_errors=data.get("training_errors", 0),
        errors_lower_bound=data.get("errors_lower_bound"),
        conflict_rows=_rows(data, "conflict_rows"), selection=selection,
        solve_stats=dict(data["solve_stats"]),
        optimal_over=checks.optional_text(data, "optimal_over"),
        leaf_weights=checks.leaf_weights_from_json(data, tree))


def _selection(spec, model: Tree, n_binary: int, n_classes: int) -> Selection:
    if not isinstance(spec, dict) or not (
            {"candidates", "best", "stratified"} <= set(spec)
            <= {"candidates", "best", "stratified", "n_minimum_trees"}):
        checks.fail("selection", "must be an object with candidates, best, stratified and "
                    "optionally n_minimum_trees")
    pairs = spec["candidates"]
    if not isinstance(pairs, list) or not pairs:
        checks.fail("selection.candidates", "must be a non-empty list of [tree, accuracy] "
                    "pairs")
    chosen, candidates = [], []
    for k, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2 or not checks.is_real(pair[1]) \
                or not 0 <= pair[1] <= 1:
            checks.fail(f"selection.candidates[{k}]", "must be a [tree or null, accuracy in "
                        "[0, 1]] pair")
        if pair[0] is None:
            chosen.append(k)
            tree = model
        else:
            tree = checks.tree_from_json(pair[0], f"selection.candidates[{k}][0]", n_binary,
                                         n_classes)
        candidates.append((tree, float(pair[1])))
    if len(chosen) != 1:
        checks.fail("selection.candidates", f"has {len(chosen)} null trees; exactly one "
                    "(the model) is expected")
    best = spec["best"]
    if not isinstance(best, list) or not all(checks.is_int(i) and 0 <= i < len(pairs)
                                             for i in best):
        checks.fail("selection.best", "must be a list of candidate indices")
    if not isinstance(spec["stratified"], bool):
        checks.fail("selection.stratified", "must be true or false")
    count = spec.get("n_minimum_trees")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)
                              or count < 0):
        checks.fail("selection.n_minimum_trees", f"= {checks.short(count)} is not a count")
    return Selection(tuple(candidates), tuple(best), chosen[0], spec["stratified"], count)


def _list_record(data: dict, common: dict) -> FittedModel:
    decision_list = checks.wrap(lambda: DecisionList.from_dict(data["list"]))
    n_binary = len(data["binary_feature_names"])
    if decision_list.n_features != n_binary:
        checks.fail("list.n_features", f"= {decision_list.n_features}; the model has "
                    f"{n_binary} binary features (conditions)")
    if len(common["classes"]) != 2:
        checks.fail("classes", "must list the two classes of a decision list")
    positive = data["positive_index"]
    if not checks.is_int(positive) or positive not in (0, 1):
        checks.fail("positive_index", f"= {checks.short(positive)} is not 0 or 1")
    if data["direction"] not in ("positive", "negative", None):
        checks.fail("direction", f"= {checks.short(data['direction'])} is not positive, "
                    "negative or null")
    lls = data["log_likelihoods"]
    if not isinstance(lls, list) or not lls or not all(checks.is_real(v) for v in lls):
        checks.fail("log_likelihoods", "must be a non-empty list of numbers")
    if not isinstance(data["stop_reason"], str):
        checks.fail("stop_reason", "must be a string")
    return FittedModel(decision_list, **common, positive_index=positive,
                       direction=data["direction"], log_likelihoods=tuple(lls),
                       stop_reason=data["stop_reason"],
                       optimal_over=checks.optional_text(data, "optimal_over"))
