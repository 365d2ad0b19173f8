"""Fitted estimators from model files: one door for ``load_model``, ``predict`` and ``show``.

Every family writes ``{"format": "occamlearn-model", "model": NAME, ...}`` (trees:
``export.tree_json``; decision lists: ``export.decision_list``). Reading a file back means
rebuilding a fitted *estimator*, so it lives here, beside the estimators, and ``export`` never
imports them. ``READERS`` maps NAME to the function that rebuilds that model.
"""

from __future__ import annotations

import math
from importlib import import_module

import numpy as np

from occamlearn.binarize.conditions import condition_binarizer_from_dict
from occamlearn.estimators.decision_list import DecisionListClassifier
from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier
from occamlearn.estimators.mpdt import MinimumPureTreeClassifier
from occamlearn.export import decision_list as list_json
from occamlearn.export import tree_json
from occamlearn.export.model_file import read_json_file
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.tree import Tree
from occamlearn.trees.mpdt.maxsat_route.wcnf_file import decoded_model_file

__all__ = ["READERS", "decode_solution", "load_model", "model_from_dict"]

TREE_ESTIMATORS = {"MinimumPureTreeClassifier": MinimumPureTreeClassifier,
                   "MaxAccuracyTreeClassifier": MaxAccuracyTreeClassifier}
STATUSES = ("optimal", "feasible")
# keys every file of a family must have (others are optional or version-dependent)
TREE_KEYS = ("params", "classes", "n_features_in", "feature_names_in", "binary_feature_names",
             "conditions", "tree", "status", "lower_bound", "upper_bound", "solve_stats")
LIST_KEYS = ("params", "classes", "classes_dtype", "positive_index", "n_features_in",
             "feature_names_in", "binary_feature_names", "conditions", "list",
             "direction_chosen", "log_likelihoods", "stop_reason")


def _fail(field: str, problem: str):
    raise ValueError(f'model file: "{field}" {problem}')


def _is_int(value) -> bool:
    """An integer that fits an int64."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _require(data: dict, keys) -> None:
    for key in keys:
        if key not in data:
            raise ValueError(f'model file: the key "{key}" is missing')


def _check_type(data: dict, key: str, kind, what: str, *, none: bool = False):
    value = data[key]
    if value is None and none:
        return value
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        _fail(key, f"= {_short(value)} is not {what}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_names(data: dict) -> None:
    n_in = data["n_features_in"]
    if not _is_int(n_in) or n_in < 1:
        _fail("n_features_in", f"= {_short(n_in)} is not a positive count")
    names = data["feature_names_in"]
    if names is not None:
        if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
            _fail("feature_names_in", "must be null or a list of strings")
        if len(names) != n_in:
            _fail("feature_names_in", f"has {len(names)} names; \"n_features_in\" is {n_in}")
        if len(set(names)) != len(names):
            _fail("feature_names_in", "repeats a column name")
    binary = data["binary_feature_names"]
    if not isinstance(binary, list) or not all(isinstance(v, str) for v in binary):
        _fail("binary_feature_names", "must be a list of strings")
    conditions = data["conditions"]
    if conditions is None:
        if len(binary) != n_in:
            _fail("binary_feature_names", f"has {len(binary)} names; without a binariser the "
                  f"model reads the n_features_in={n_in} input columns as they are")
        return
    if not isinstance(conditions, list):
        _fail("conditions", "must be null or a list of conditions")
    if len(conditions) != len(binary):
        _fail("conditions", f"has {len(conditions)} entries; \"binary_feature_names\" has "
              f"{len(binary)} (one condition per binary feature)")


def _conditions(data: dict):
    """The parsed conditions, each checked against the input columns."""
    from occamlearn.model.conditions import Conjunction, condition_from_dict

    parsed = []
    for k, spec in enumerate(data["conditions"] or ()):
        try:
            if not isinstance(spec, dict):
                raise ValueError("not an object")
            condition = condition_from_dict(spec)
        except (ValueError, TypeError, OverflowError) as exc:
            _fail(f"conditions[{k}]", f"is not a condition: {exc}")
        leaves = condition.conditions if isinstance(condition, Conjunction) else (condition,)
        for leaf in leaves:
            _check_condition(leaf, k, data)
        parsed.append(condition)
    return parsed


def _check_condition(c, k: int, data: dict) -> None:
    from occamlearn.model.conditions import OPERATORS

    where = f"conditions[{k}]"
    names, n_in = data["feature_names_in"], data["n_features_in"]
    if not isinstance(c.column, str):
        _fail(f"{where}.column", f"= {_short(c.column)} is not a column name")
    if names is not None and c.column not in names:
        _fail(f"{where}.column", f"= {c.column!r} is not an input column "
              f"({', '.join(names)})")
    if c.index is not None and not 0 <= c.index < n_in:
        _fail(f"{where}.index", f"= {c.index} is not below n_features_in={n_in}")
    if names is not None and c.index is not None and names[c.index] != c.column:
        _fail(f"{where}.index", f"= {c.index} is column {names[c.index]!r}, not {c.column!r}")
    if names is None and c.index is None:
        _fail(f"{where}.index", "is missing: an array input is read by position")
    value = c.value
    if c.op in ("==", "!="):
        if not (_is_finite(value) or isinstance(value, str)):
            _fail(f"{where}.value", f"= {_short(value)} is not a number or a string")
    elif c.op in ("<", "<=", ">", ">="):
        if not _is_finite(value):
            _fail(f"{where}.value", f"= {_short(value)} is not a finite number (operator "
                  f"{c.op!r})")
    elif c.op in ("in", "between"):
        if not (isinstance(value, tuple) and len(value) == 2 and all(map(_is_finite, value))
                and value[0] <= value[1]):
            _fail(f"{where}.value", f"= {_short(value)} is not an interval [lo, hi] of numbers")
    elif c.op == "bit":
        if c.edges is not None:
            edges = c.edges if isinstance(c.edges, tuple) else (c.edges,)
            if not edges or not all(map(_is_finite, edges)) or list(edges) != sorted(edges):
                _fail(f"{where}.edges", "must be a non-empty sorted list of numbers")
        else:
            domain = c.domain if isinstance(c.domain, tuple) else (c.domain,)
            if not domain or not (all(map(_is_finite, domain)) or all(
                    isinstance(v, str) for v in domain)) or len(set(domain)) != len(domain):
                _fail(f"{where}.domain", "must be a non-empty list of distinct numbers or of "
                      "distinct strings")
    elif c.op == "missing":  # "col is missing": Condition checks that value is None
        pass
    else:  # pragma: no cover - Condition refuses other operators
        _fail(f"{where}.op", f"= {_short(c.op)} is not one of {', '.join(OPERATORS)}")


def _is_finite(value) -> bool:
    return _is_real(value) and math.isfinite(value)


def _is_real(value) -> bool:
    return _is_int(value) or isinstance(value, float)


def _classes(data: dict) -> np.ndarray:
    spec = data["classes"]
    if not isinstance(spec, dict) or set(spec) != {"dtype", "values"}:
        _fail("classes", 'must be an object {"dtype": ..., "values": [...]}')
    if not isinstance(spec["values"], list) or not spec["values"]:
        _fail("classes.values", "must be a non-empty list of the class labels")
    try:
        if spec["dtype"] != "object":
            dtype = np.dtype(spec["dtype"])
            if dtype.kind not in "biufUSb":
                raise TypeError("not a label type")
        classes = tree_json.array_from_json(spec)
    except (TypeError, ValueError, OverflowError) as exc:
        _fail("classes", f"cannot be read as labels of dtype {spec['dtype']!r}: {exc}")
    if classes.ndim != 1 or len(set(classes.tolist())) != len(classes):
        _fail("classes.values", "repeats a class")
    return classes


def _check_tree_against(tree_dict: dict, field: str, data: dict, n_classes: int) -> None:
    n_features = tree_dict["n_features"]
    n_binary = len(data["binary_feature_names"])
    if n_features != n_binary:
        _fail(f"{field}.n_features", f"= {n_features}; the model has {n_binary} binary "
              "features (conditions)")
    if len(tree_dict["counts"][0]) != n_classes:
        _fail(f"{field}.counts", f"has {len(tree_dict['counts'][0])} columns; the model has "
              f"{n_classes} classes")


def _tree(tree_dict, field: str, data: dict, n_classes: int) -> Tree:
    tree = _wrap(lambda: Tree.from_dict(tree_dict, where=field))
    _check_tree_against(tree_dict, field, data, n_classes)
    return tree


def _wrap(build):
    """Run ``build``; a ValueError about a field becomes a ``model file:`` error."""
    try:
        return build()
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith("model file") else f"model file: {text}") \
            from None


def _check_bounds(data: dict, tree: Tree) -> None:
    status = data["status"]
    if status not in STATUSES:
        _fail("status", f"= {_short(status)} is not one of {', '.join(STATUSES)}")
    lower, upper = data["lower_bound"], data["upper_bound"]
    errors = data.get("training_errors", 0)
    if not _is_int(errors) or errors < 0:
        _fail("training_errors", f"= {_short(errors)} is not a count")
    if "errors_lower_bound" in data:
        bound = data["errors_lower_bound"]
        if not _is_int(bound) or not 0 <= bound <= errors:
            _fail("errors_lower_bound", f"= {_short(bound)} is not a count at most "
                  f"training_errors={errors}")
        if status == "optimal" and bound != errors and data["model"] == \
                "MaxAccuracyTreeClassifier":
            _fail("errors_lower_bound", f"= {bound} but status optimal means the "
                  f"{errors} training errors are proven minimum")
    if data["model"] == "MaxAccuracyTreeClassifier" and lower is None and upper is None:
        return
    for key, value in (("lower_bound", lower), ("upper_bound", upper)):
        if not _is_int(value) or value < 1:
            _fail(key, f"= {_short(value)} is not a tree size")
    if lower > upper:
        _fail("lower_bound", f"= {lower} exceeds \"upper_bound\" = {upper}")
    if data["model"] == "MinimumPureTreeClassifier":
        for key, value in (("lower_bound", lower), ("upper_bound", upper)):
            if value % 2 == 0:
                _fail(key, f"= {value} is even: a binary tree has an odd number of nodes")
        if upper < tree.n_nodes and "candidate_trees" not in data:
            _fail("upper_bound", f"= {upper} is below the size of the saved tree "
                  f"({tree.n_nodes} nodes)")
        if lower > tree.n_nodes:
            _fail("lower_bound", f"= {lower} exceeds the size of the saved tree "
                  f"({tree.n_nodes} nodes)")
        if status == "optimal" and lower != upper:
            _fail("status", f"is optimal but the bounds [{lower}, {upper}] differ")


def _check_params(model) -> None:
    try:
        model._validate_params()
    except (ValueError, TypeError) as exc:
        raise ValueError(f'model file: "params": {exc}') from None


def _selection(data: dict, n_classes: int):
    if not isinstance(data["candidate_trees"], list) or not data["candidate_trees"]:
        _fail("candidate_trees", "must be a non-empty list of [tree, accuracy] pairs")
    candidates = []
    for k, pair in enumerate(data["candidate_trees"]):
        if not isinstance(pair, list) or len(pair) != 2 or not _is_real(pair[1]) \
                or not 0 <= pair[1] <= 1:
            _fail(f"candidate_trees[{k}]", "must be a [tree, accuracy in [0, 1]] pair")
        candidates.append((_tree(pair[0], f"candidate_trees[{k}][0]", data, n_classes),
                           float(pair[1])))
    if "best_trees" not in data or not isinstance(data["best_trees"], list):
        _fail("best_trees", "must be a list of trees")
    best = [_tree(t, f"best_trees[{k}]", data, n_classes)
            for k, t in enumerate(data["best_trees"])]
    if not isinstance(data.get("selection_stratified"), bool):
        _fail("selection_stratified", "must be true or false")
    return candidates, best


def _check_version(data: dict, version: int) -> None:
    if data.get("version") != version:
        raise ValueError(f"unsupported model file: model {data.get('model')!r} version "
                         f"{data.get('version')!r} (this occamlearn reads version {version})")


def _set_input_signature(estimator, data: dict) -> None:
    estimator.n_features_in_ = data["n_features_in"]
    if data["feature_names_in"] is not None:
        estimator.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)


def _binarizer_param(spec, fitted):
    """The estimator's ``binarizer`` parameter: a string, None, one of occamlearn's binariser
    classes rebuilt from its parameters, or (not rebuildable) the stored conditions."""
    if spec is None or isinstance(spec, str):
        return spec
    if spec.get("class") and spec["class"].startswith("occamlearn."):
        module, _, name = spec["class"].rpartition(".")
        return getattr(import_module(module), name)(**spec["params"])
    return fitted


def _params(data: dict) -> dict:
    params = data["params"]
    if not isinstance(params, dict) or "binarizer" not in params:
        _fail("params", "must be an object of the estimator's parameters, binarizer included")
    return params


def _binarizer(data: dict):
    conditions = _conditions(data)
    del conditions  # parsed again, identically, by the binariser
    return _wrap(lambda: condition_binarizer_from_dict(data))


def tree_model_from_dict(data: dict):
    """A fitted tree estimator from ``export.tree_json.model_to_dict``'s output; every field
    is checked first (ValueError naming the field)."""
    _check_version(data, tree_json.VERSION)
    _require(data, TREE_KEYS)
    estimator = TREE_ESTIMATORS[data["model"]]
    params_in = _params(data)
    _check_names(data)
    classes = _classes(data)
    tree = _tree(data["tree"], "tree", data, len(classes))
    _check_bounds(data, tree)
    conflict_rows = data.get("conflict_rows", [])
    if not isinstance(conflict_rows, list) or not all(_is_int(r) and r >= 0
                                                      for r in conflict_rows):
        _fail("conflict_rows", "must be a list of row numbers")
    _check_type(data, "solve_stats", dict, "an object")
    selection = _selection(data, len(classes)) if "candidate_trees" in data else None
    binarizer_ = _binarizer(data)
    accepted = estimator().get_params(deep=False)
    params = {k: v for k, v in params_in.items() if k in accepted and k != "binarizer"}
    spec = params_in["binarizer"]
    if isinstance(spec, dict) and not (spec.get("class") is None or (
            isinstance(spec.get("class"), str) and spec["class"].startswith("occamlearn."))):
        _fail("params.binarizer.class", f"= {_short(spec['class'])}: refusing to rebuild a "
              "class from outside occamlearn")
    try:
        model = estimator(binarizer=_binarizer_param(spec, binarizer_), **params)
    except (TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f'model file: "params.binarizer" cannot be rebuilt: {exc}') from None
    _check_params(model)
    _set_input_signature(model, data)
    model.binarizer_ = binarizer_
    model.classes_ = classes
    model.feature_names_ = np.asarray(data["binary_feature_names"], dtype=object)
    model.tree_ = tree
    model.n_nodes_, model.depth_ = tree.n_nodes, tree.depth
    model.status_ = data["status"]
    model.lower_bound_, model.upper_bound_ = data["lower_bound"], data["upper_bound"]
    model.training_errors_ = int(data.get("training_errors", 0))  # older files: pure trees
    if "errors_lower_bound" in data:
        model.errors_lower_bound_ = int(data["errors_lower_bound"])
    if data["model"] == "MinimumPureTreeClassifier":
        model.conflict_rows_ = np.asarray(conflict_rows, dtype=np.int64)
        model.n_conflicts_removed_ = len(model.conflict_rows_)
    if selection is not None:
        model.candidate_trees_, model.best_trees_ = selection
        model.selection_stratified_ = data["selection_stratified"]
    model.solve_stats_ = dict(data["solve_stats"])
    return model


def list_model_from_dict(data: dict):
    """A fitted ``DecisionListClassifier`` (or a bare ``DecisionList``) from
    ``export.decision_list.list_to_dict``'s output."""
    _check_version(data, list_json.VERSION)
    _require(data, ("list",))
    decision_list = _wrap(lambda: DecisionList.from_dict(data["list"]))
    if data["model"] == "DecisionList":
        return decision_list
    _require(data, LIST_KEYS)
    params = dict(_params(data))
    _check_names(data)
    n_binary = len(data["binary_feature_names"])
    if decision_list.n_features != n_binary:
        _fail("list.n_features", f"= {decision_list.n_features}; the model has {n_binary} "
              "binary features (conditions)")
    binarizer_ = _binarizer(data)
    spec = params.pop("binarizer")
    if isinstance(spec, dict) and not (spec.get("class") is None or (
            isinstance(spec.get("class"), str) and spec["class"].startswith("occamlearn."))):
        raise ValueError(f"refusing to rebuild binariser class {spec['class']!r} from a file")
    accepted = DecisionListClassifier().get_params(deep=False)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        _fail("params", f"has unknown parameter(s) {', '.join(map(str, unknown))}")
    try:
        model = DecisionListClassifier(binarizer=_binarizer_param(spec, binarizer_), **params)
    except (TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f'model file: "params.binarizer" cannot be rebuilt: {exc}') from None
    _check_params(model)
    _set_input_signature(model, data)
    classes = data["classes"]
    if not isinstance(classes, list) or len(classes) != 2 or classes[0] == classes[1]:
        _fail("classes", "must list the two classes of a decision list")
    try:
        dtype = np.dtype(object) if data["classes_dtype"] == "object" else np.dtype(
            data["classes_dtype"])
        model.classes_ = np.asarray(classes, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        _fail("classes", f"cannot be read with dtype {_short(data['classes_dtype'])}: {exc}")
    if not _is_int(data["positive_index"]) or data["positive_index"] not in (0, 1):
        _fail("positive_index", f"= {_short(data['positive_index'])} is not 0 or 1")
    if data["direction_chosen"] not in ("positive", "negative", None):
        _fail("direction_chosen", f"= {_short(data['direction_chosen'])} is not positive, "
              "negative or null")
    lls = data["log_likelihoods"]
    if not isinstance(lls, list) or not lls or not all(_is_real(v) for v in lls):
        _fail("log_likelihoods", "must be a non-empty list of numbers")
    if not isinstance(data["stop_reason"], str):
        _fail("stop_reason", "must be a string")
    model._positive_index_ = data["positive_index"]
    model.positive_class_ = model.classes_[model._positive_index_]
    model.binarizer_ = binarizer_
    model.feature_names_ = np.asarray(data["binary_feature_names"], dtype=object)
    model.list_ = decision_list
    model.rules_ = decision_list.rules
    model.default_probability_ = decision_list.default_probability
    model.direction_ = data["direction_chosen"]
    model.log_likelihoods_ = tuple(data["log_likelihoods"])
    model.log_likelihood_ = model.log_likelihoods_[-1]
    model.stop_reason_ = data["stop_reason"]
    return model


READERS = {
    "MinimumPureTreeClassifier": tree_model_from_dict,
    "MaxAccuracyTreeClassifier": tree_model_from_dict,
    "DecisionListClassifier": list_model_from_dict,
    "DecisionList": list_model_from_dict,
}


def model_from_dict(data: dict):
    """The fitted model a parsed model file describes; ValueError if it is not one."""
    if not isinstance(data, dict) or data.get("format") != tree_json.FORMAT:
        raise ValueError(f'not an occamlearn model file (expected "format": '
                         f'"{tree_json.FORMAT}")')
    name = data.get("model")
    if not isinstance(name, str) or name not in READERS:
        raise ValueError(f"unsupported model file: model {name!r} is unknown; this occamlearn reads "
                         f"{', '.join(sorted(READERS))}")
    return READERS[name](data)


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
    output text (``trees.mpdt.wcnf_file``)."""
    data = decoded_model_file(sidecar, solver_text)
    return model_from_dict({"format": tree_json.FORMAT, "version": tree_json.VERSION,
                            "model": "MinimumPureTreeClassifier", **data})
