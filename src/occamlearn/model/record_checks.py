"""Checks of a model file's fields, each failure a ValueError naming the field.

A model file is JSON a person may edit. Whatever one edit does, reading it gives a working
model or a ``ValueError`` that says which field is wrong and why (``model file: "status" =
'maybe' is not one of optimal, feasible``) -- never a KeyError, a hang or a model that
crashes later. ``model.record_json`` calls these while it builds a ``FittedModel``.
"""

from __future__ import annotations

import math

import numpy as np

from occamlearn.model.conditions import OPERATORS, Conjunction, condition_from_dict
from occamlearn.model.fitted import STATUSES
from occamlearn.model.tree import Tree

__all__ = [
    "array_from_json",
    "check_bounds",
    "check_names",
    "classes_from_json",
    "conditions_from_json",
    "fail",
    "is_int",
    "is_real",
    "leaf_weights_from_json",
    "optional_text",
    "require",
    "short",
    "wrap",
]


def fail(field: str, problem: str):
    raise ValueError(f'model file: "{field}" {problem}')


def is_int(value) -> bool:
    """An integer that fits an int64."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def is_real(value) -> bool:
    return is_int(value) or isinstance(value, float)


def _is_finite(value) -> bool:
    return is_real(value) and math.isfinite(value)


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def require(data: dict, keys) -> None:
    for key in keys:
        if key not in data:
            raise ValueError(f'model file: the key "{key}" is missing')


def wrap(build):
    """Run ``build``; a ValueError about a field becomes a ``model file:`` error."""
    try:
        return build()
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith("model file") else f"model file: {text}") \
            from None


def array_from_json(data: dict) -> np.ndarray:
    if data["dtype"] == "object":
        out = np.empty(len(data["values"]), dtype=object)
        out[:] = data["values"]
        return out
    return np.asarray(data["values"], dtype=np.dtype(data["dtype"]))


def classes_from_json(data: dict) -> np.ndarray:
    spec = data["classes"]
    if not isinstance(spec, dict) or set(spec) != {"dtype", "values"}:
        fail("classes", 'must be an object {"dtype": ..., "values": [...]}')
    if not isinstance(spec["values"], list) or not spec["values"]:
        fail("classes.values", "must be a non-empty list of the class labels")
    try:
        if spec["dtype"] != "object":
            dtype = np.dtype(spec["dtype"])
            if dtype.kind not in "biufUSb":
                raise TypeError("not a label type")
        classes = array_from_json(spec)
    except (TypeError, ValueError, OverflowError) as exc:
        fail("classes", f"cannot be read as labels of dtype {spec['dtype']!r}: {exc}")
    if classes.ndim != 1 or len(set(classes.tolist())) != len(classes):
        fail("classes.values", "repeats a class")
    return classes


def check_names(data: dict) -> None:
    """Input column names and binary feature names agree with each other and the conditions."""
    n_in = data["n_features_in"]
    if not is_int(n_in) or n_in < 1:
        fail("n_features_in", f"= {short(n_in)} is not a positive count")
    names = data["feature_names_in"]
    if names is not None:
        if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
            fail("feature_names_in", "must be null or a list of strings")
        if len(names) != n_in:
            fail("feature_names_in", f"has {len(names)} names; \"n_features_in\" is {n_in}")
        if len(set(names)) != len(names):
            fail("feature_names_in", "repeats a column name")
    binary = data["binary_feature_names"]
    if not isinstance(binary, list) or not all(isinstance(v, str) for v in binary):
        fail("binary_feature_names", "must be a list of strings")
    conditions = data["conditions"]
    if conditions is None:
        if len(binary) != n_in:
            fail("binary_feature_names", f"has {len(binary)} names; without a binariser the "
                 f"model reads the n_features_in={n_in} input columns as they are")
        return
    if not isinstance(conditions, list):
        fail("conditions", "must be null or a list of conditions")
    if len(conditions) != len(binary):
        fail("conditions", f"has {len(conditions)} entries; \"binary_feature_names\" has "
             f"{len(binary)} (one condition per binary feature)")


def conditions_from_json(data: dict) -> tuple | None:
    """The parsed conditions (None for 0/1 input), each checked against the input columns."""
    if data["conditions"] is None:
        return None
    parsed = []
    for k, spec in enumerate(data["conditions"]):
        try:
            if not isinstance(spec, dict):
                raise ValueError("not an object")
            condition = condition_from_dict(spec)
        except (ValueError, TypeError, OverflowError) as exc:
            fail(f"conditions[{k}]", f"is not a condition: {exc}")
        leaves = condition.conditions if isinstance(condition, Conjunction) else (condition,)
        for leaf in leaves:
            _check_condition(leaf, k, data)
        parsed.append(condition)
    return tuple(parsed)


def _check_condition(c, k: int, data: dict) -> None:
    where = f"conditions[{k}]"
    names, n_in = data["feature_names_in"], data["n_features_in"]
    if not isinstance(c.column, str):
        fail(f"{where}.column", f"= {short(c.column)} is not a column name")
    if names is not None and c.column not in names:
        fail(f"{where}.column", f"= {c.column!r} is not an input column ({', '.join(names)})")
    if c.index is not None and not 0 <= c.index < n_in:
        fail(f"{where}.index", f"= {c.index} is not below n_features_in={n_in}")
    if names is not None and c.index is not None and names[c.index] != c.column:
        fail(f"{where}.index", f"= {c.index} is column {names[c.index]!r}, not {c.column!r}")
    if names is None and c.index is None:
        fail(f"{where}.index", "is missing: an array input is read by position")
    value = c.value
    if c.op in ("==", "!="):
        if not (_is_finite(value) or isinstance(value, str)):
            fail(f"{where}.value", f"= {short(value)} is not a number or a string")
    elif c.op in ("<", "<=", ">", ">="):
        if not _is_finite(value):
            fail(f"{where}.value", f"= {short(value)} is not a finite number (operator "
                 f"{c.op!r})")
    elif c.op in ("in", "between"):
        if not (isinstance(value, tuple) and len(value) == 2 and all(map(_is_finite, value))
                and value[0] <= value[1]):
            fail(f"{where}.value", f"= {short(value)} is not an interval [lo, hi] of numbers")
    elif c.op == "bit":
        if c.edges is not None:
            edges = c.edges if isinstance(c.edges, tuple) else (c.edges,)
            if not edges or not all(map(_is_finite, edges)) or list(edges) != sorted(edges):
                fail(f"{where}.edges", "must be a non-empty sorted list of numbers")
        else:
            domain = c.domain if isinstance(c.domain, tuple) else (c.domain,)
            if not domain or not (all(map(_is_finite, domain)) or all(
                    isinstance(v, str) for v in domain)) or len(set(domain)) != len(domain):
                fail(f"{where}.domain", "must be a non-empty list of distinct numbers or of "
                     "distinct strings")
    elif c.op == "missing":  # "col is missing": Condition checks that value is None
        pass
    else:  # pragma: no cover - Condition refuses other operators
        fail(f"{where}.op", f"= {short(c.op)} is not one of {', '.join(OPERATORS)}")


def tree_from_json(tree_dict, field: str, n_binary: int, n_classes: int) -> Tree:
    """A ``Tree`` whose features are the model's binary features and classes its classes."""
    tree = wrap(lambda: Tree.from_dict(tree_dict, where=field))
    if tree.n_features != n_binary:
        fail(f"{field}.n_features", f"= {tree.n_features}; the model has {n_binary} binary "
             "features (conditions)")
    if tree.n_classes != n_classes:
        fail(f"{field}.counts", f"has {tree.n_classes} columns; the model has {n_classes} "
             "classes")
    return tree


def _amount(data: dict, key: str, default=None):
    """A count of rows, or (after a weighted fit) a total weight: finite and >= 0."""
    value = data.get(key, default)
    if value is not None and (not _is_finite(value) or value < 0):
        fail(key, f"= {short(value)} is not a count or a total weight")
    return value


def optional_text(data: dict, key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        fail(key, f"= {short(value)} is not a string")
    return value


def leaf_weights_from_json(data: dict, tree: Tree) -> np.ndarray | None:
    """The weights per node and class of a weighted fit (None when the file has none)."""
    rows = data.get("leaf_weights")
    if rows is None:
        return None
    shape = (tree.n_nodes, tree.n_classes)
    if not isinstance(rows, list) or len(rows) != shape[0] or not all(
            isinstance(row, list) and len(row) == shape[1]
            and all(_is_finite(v) and v >= 0 for v in row) for row in rows):
        fail("leaf_weights", f"must be {shape[0]} rows of {shape[1]} non-negative weights (one "
             "row per node of the tree, one weight per class)")
    return np.asarray(rows, dtype=np.float64).reshape(shape)


def check_bounds(data: dict, tree: Tree, *, minimum_size: bool, errors_optimised: bool,
                 selection: bool) -> None:
    """Status, size bounds and error counts agree with each other and with the tree.

    minimum_size : the bounds are on the minimum size (odd, around the tree's size)
    errors_optimised : the errors are what is optimised (DT(max)): the size bounds may be
        null and status optimal means the training errors are the proven minimum
    selection : Algorithm 3 chose the tree among candidates (its size may exceed the bound)
    """
    status = data["status"]
    if status not in STATUSES:
        fail("status", f"= {short(status)} is not one of {', '.join(STATUSES)}")
    errors = _amount(data, "training_errors", 0)
    if errors is None:
        fail("training_errors", "= None is not a count")
    if "errors_lower_bound" in data:
        bound = data["errors_lower_bound"]
        if not _is_finite(bound) or not 0 <= bound <= errors:
            fail("errors_lower_bound", f"= {short(bound)} is not a count at most "
                 f"training_errors={errors}")
        if status == "optimal" and bound != errors and errors_optimised:
            fail("errors_lower_bound", f"= {bound} but status optimal means the {errors} "
                 "training errors are proven minimum")
    lower, upper = data["lower_bound"], data["upper_bound"]
    if errors_optimised and lower is None and upper is None:
        return
    for key, value in (("lower_bound", lower), ("upper_bound", upper)):
        if not is_int(value) or value < 1:
            fail(key, f"= {short(value)} is not a tree size")
    if lower > upper:
        fail("lower_bound", f"= {lower} exceeds \"upper_bound\" = {upper}")
    if not minimum_size:
        return
    for key, value in (("lower_bound", lower), ("upper_bound", upper)):
        if value % 2 == 0:
            fail(key, f"= {value} is even: a binary tree has an odd number of nodes")
    if upper < tree.n_nodes and not selection:
        fail("upper_bound", f"= {upper} is below the size of the saved tree ({tree.n_nodes} "
             "nodes)")
    if lower > tree.n_nodes:
        fail("lower_bound", f"= {lower} exceeds the size of the saved tree ({tree.n_nodes} "
             "nodes)")
    if status == "optimal" and lower != upper:
        fail("status", f"is optimal but the bounds [{lower}, {upper}] differ")
