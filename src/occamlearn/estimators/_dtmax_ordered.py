"""``MaxAccuracyTreeClassifier(method="ordered")``: the table's columns as ordered columns for
the exact engine of ``trees.dtmax.ordered``, and its tree back as readable conditions.

With the readable binariser (``ThresholdBinarizer``, the default) numeric columns go to the
engine as they are, so every threshold between adjacent training values is searched (not the
binariser's at most ``max_thresholds`` cuts); 0/1 flags and one-hot categories go as 2-valued
columns with the binariser's own conditions (``col == 1``, ``col == v``). The tree comes back
over the conditions it tests: a numeric test prints as the binariser prints its cuts
(``threshold_condition``: the shortest-printing number between the two adjacent training
values), and the fitted ``binarizer_`` is a ``ConditionBinarizer`` over exactly those
conditions, so ``predict`` evaluates what is printed. Any other binariser (or ``None``) gives
a 0/1 matrix whose columns the engine takes as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from occamlearn.binarize import ThresholdBinarizer, clean_column, read_columns
from occamlearn.binarize.conditions import ConditionBinarizer
from occamlearn.binarize.threshold import LABEL_BLIND_THRESHOLDS, threshold_condition
from occamlearn.estimators._base import (
    _take_rows,
    binarizer_to_fit,
    encode_labels,
    leaf_weights,
    prepare_training_data,
    row_weights,
    validate_table,
)
from occamlearn.estimators._dtmax_chains import UserUnits
from occamlearn.estimators._progress import UserProgress, fit_progress, watching_interrupts
from occamlearn.estimators._record import fit_date
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.ordered import OrderedData, best_tree_on
from occamlearn.trees.weights import integer_weights

__all__ = ["OrderedColumns", "fit_ordered", "ordered_columns", "prefers_ordered"]

NUMERIC = ("continuous", "discrete")


@dataclass(frozen=True)
class OrderedColumns:
    """The engine's input: ``matrix`` (rows x columns), and per column either a numeric
    ``ColumnSpec`` (tests are thresholds) or the ``Condition`` whose truth the 0/1 column
    holds; ``y`` class indices, ``classes``; ``specs`` the fitted binariser's columns."""

    matrix: np.ndarray
    meaning: tuple
    y: np.ndarray
    classes: np.ndarray
    specs: tuple
    handle_unknown: str
    binary_names: tuple | None = None     # 0/1 input without a binariser: the column names


def ordered_columns(estimator, X, y, binarizer, sample_weight=None, class_weight=None):
    """Read ``X, y`` as ``fit`` does (``prepare_training_data``'s rules: weights from
    ``row_weights``, rows of weight 0 dropped first) and lay out the ordered columns (see the
    module doc). Returns (columns, the rows' weights or None, the kept rows of X)."""
    if not isinstance(binarizer, ThresholdBinarizer):
        data = prepare_training_data(estimator, X, y, binarizer=binarizer,
                                     on_conflict="relax", sample_weight=sample_weight,
                                     class_weight=class_weight)
        fitted = data.binarizer
        conditions = getattr(fitted, "conditions_", None)
        names = tuple(str(n) for n in data.feature_names)
        meaning = tuple(conditions) if conditions is not None else names
        columns = OrderedColumns(np.asarray(data.X_bin, dtype=np.float64), meaning, data.y,
                                 data.classes, tuple(getattr(fitted, "columns_", ())),
                                 getattr(fitted, "handle_unknown", "error"),
                                 None if conditions is not None else names)
        kept = data.kept_rows if data.weight is not None else None
        return columns, data.weight, (X if kept is None else _take_rows(X, kept))
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target "
                         "y is None.")
    X, y = validate_table(estimator, X, y, reset=True)
    weight = row_weights(X, y, sample_weight, class_weight)
    if weight is not None and not weight.all():
        kept = np.flatnonzero(weight)
        X, y, weight = _take_rows(X, kept), y[kept], weight[kept]
    classes, y_index = encode_labels(y)
    # only the binariser's column kinds are read (its cuts are not used): one cut each
    fitted = clone(binarizer).set_params(max_thresholds=1, sides="upper").fit(X)
    _, columns = read_columns(fitted, X, reset=False)
    columns = dict(zip((spec.name for spec in fitted.columns_), columns))
    frame, parts, meaning = {}, [], []
    for spec in fitted.columns_:
        if spec.kind == "constant":
            continue
        values = clean_column(spec, columns[spec.name], handle_unknown="ignore")
        if spec.kind in NUMERIC:
            parts.append(values.astype(np.float64))
            meaning.append(spec)
        else:
            frame[spec.name] = values
    frame = pd.DataFrame(frame, copy=False)
    for condition in fitted.conditions_:
        if condition.column in frame:
            parts.append(np.asarray(condition.evaluate(frame), dtype=np.float64))
            meaning.append(condition)
    matrix = (np.column_stack(parts) if parts
              else np.zeros((len(y_index), 0), dtype=np.float64))
    return (OrderedColumns(matrix, tuple(meaning), y_index, classes,
                           tuple(fitted.columns_), fitted.handle_unknown), weight, X)


def prefers_ordered(binarizer, X, prefer_small: bool) -> bool:
    """``method="auto"``'s choice: the ordered engine when the readable binariser would keep
    only some of a numeric column's thresholds (more distinct values than ``max_thresholds``
    + 1), so the binary search could not be exact over them; there it was also measured
    faster (``benchmarks/results/dtmax_continuous.md``). The dynamic programme otherwise."""
    if prefer_small:
        return False
    if isinstance(binarizer, str):
        if binarizer != "readable":
            return False
        binarizer = ThresholdBinarizer()
    if not isinstance(binarizer, ThresholdBinarizer):
        return False
    # every threshold kept (None): the dp is exact too, but over one column per cut, and the
    # ordered engine was measured faster wherever the default cap would cut a column
    kept = binarizer.max_thresholds  # DT(max) fits it without labels: "auto" is 32 cuts
    cap = (LABEL_BLIND_THRESHOLDS if kept in (None, "auto") else kept) + 1
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        columns = [X[c].to_numpy() for c in X.columns
                   if X[c].dtype.kind in "iuf"]
    else:
        array = np.asarray(X)
        if array.ndim != 2 or array.dtype.kind not in "iuf":
            return False
        columns = list(array.T)
    return any(len(np.unique(values)) > cap for values in columns)


def _condition(columns: OrderedColumns, values, feature: int, rank: int):
    """The condition a test ``rank of feature >= rank`` reads (its true side goes right)."""
    meaning = columns.meaning[feature]
    if isinstance(meaning, str) or not hasattr(meaning, "kind"):
        return meaning                          # a 0/1 column: value 1 is the true side
    distinct = values[feature]
    integral = bool(np.all(distinct == np.round(distinct)))
    return threshold_condition(meaning.name, meaning.index, float(distinct[rank - 1]),
                               float(distinct[rank]), integral=integral)


def tree_over_conditions(nested, columns: OrderedColumns, values):
    """(conditions tested, in preorder without repeats; the nested tree over their
    positions, as ``Tree.from_nested`` reads it)."""
    used: dict = {}

    def walk(node):
        if node[0] == "leaf":
            return node
        key = (node[1], node[2])
        if key not in used:
            used[key] = len(used)
        return ("test", used[key], walk(node[3]), walk(node[4]))

    tree = walk(nested)
    conditions = [None] * len(used)
    for (feature, rank), position in used.items():
        conditions[position] = (feature, _condition(columns, values, feature, rank))
    return conditions, tree


def _named_tree(nested, columns: OrderedColumns, values):
    """(Tree over the conditions it tests, without counts; those conditions, or None for
    0/1 input without a binariser; the binary feature names)."""
    used, nested = tree_over_conditions(nested, columns, values)
    if columns.binary_names is not None:                # 0/1 input: the original columns
        names = np.asarray(columns.binary_names, dtype=object)
        nested = _renumber(nested, [feature for feature, _ in used])
        conditions = None
    else:
        conditions = [condition for _, condition in used]
        names = np.asarray([str(c) for c in conditions], dtype=object)
    tree = Tree.from_nested(nested, len(names), len(columns.classes),
                            tuple(str(n) for n in names))
    return tree, conditions, names


def _traces(trace) -> dict:
    """The sink's (seconds, upper, lower) as the estimators' ``trace`` (seconds, errors) at
    each better tree and ``bound_trace`` (seconds, lower bound) at each rise of the bound."""
    best, bound, errors, bounds = None, None, [], []
    for seconds, upper, lower in trace:
        if upper is not None and upper != best:
            best = upper
            errors.append((float(seconds), float(upper)))
        if lower is not None and lower != bound:
            bound = lower
            bounds.append((float(seconds), float(lower)))
    return {"trace": errors, "bound_trace": bounds}


def _whole(value: float, weight) -> int | float:
    return float(value) if weight is not None else int(round(value))


def fit_ordered(estimator, X, y, sample_weight, deadline: Deadline):
    """``MaxAccuracyTreeClassifier.fit`` with ``method="ordered"``: the fitted attributes
    are set on ``estimator`` as the other methods set them; returns ``estimator``."""
    columns, weight, X = ordered_columns(estimator, X, y, binarizer_to_fit(
        estimator.binarizer), sample_weight, estimator.class_weight)
    # prefer_small's lexicographic cost needs whole weights: units of 1 / weight_scale
    search_weight, weight_scale = weight, 1
    if estimator.prefer_small and weight is not None:
        search_weight, weight_scale = integer_weights(weight, len(weight))
        search_weight = search_weight.astype(np.float64)
    data = OrderedData.from_matrix(columns.matrix, columns.y, len(columns.classes),
                                   search_weight)
    user = UserProgress(estimator, (), lambda tree, errors: (
        f"depth <= {estimator.max_depth} tree with {errors:g} training errors"))
    wanted = estimator.verbose or estimator.callback is not None

    def report(upper, lower, seconds, model):
        tree = None
        if model is not None and upper is not None:
            tree = _named_tree(model, columns, data.values)[0]
            user.feature_names = tree.feature_names
        user(upper, lower, seconds, tree)

    progress = fit_progress(user, lower=0)
    progress.callback = report if wanted else None   # trees are named only when shown
    with watching_interrupts(deadline, progress):
        result = best_tree_on(data, estimator.max_depth, deadline=deadline,
                              progress=UserUnits(progress, weight_scale, lambda model: model),
                              prefer_small=estimator.prefer_small)
    tree, conditions, names = _named_tree(result.tree, columns, data.values)
    if conditions is None:
        fitted, X_bin = None, columns.matrix
    else:
        specs = [spec for spec in columns.specs
                 if any(c.column == spec.name for c in conditions)]
        fitted = ConditionBinarizer(tuple(conditions), list(names), specs,
                                    columns.handle_unknown).fit(X)
        X_bin = fitted.transform(X) if conditions else np.zeros((len(columns.y), 0))
    estimator.classes_, estimator.binarizer_ = columns.classes, fitted
    estimator.fitted_at_ = fit_date()
    estimator.feature_names_ = names
    estimator.tree_ = tree.with_counts(X_bin, columns.y)
    estimator.leaf_weights_ = leaf_weights(estimator.tree_, X_bin, columns.y, weight)
    estimator.n_nodes_, estimator.depth_ = estimator.tree_.n_nodes, estimator.tree_.depth
    estimator.status_ = result.status
    estimator.training_errors_ = _whole(result.errors / weight_scale, weight)
    estimator.errors_lower_bound_ = _whole(result.lower_bound / weight_scale, weight)
    estimator.lower_bound_ = estimator.upper_bound_ = None
    estimator.solve_stats_ = dict(result.stats, method="ordered", **_traces(progress.trace),
                                  total_seconds=deadline.elapsed())
    if progress.interrupted_at is not None:  # Ctrl-C: the best tree is kept, raise again
        estimator.solve_stats_["interrupted"] = True
        raise KeyboardInterrupt
    return estimator


def _renumber(nested, features):
    if nested[0] == "leaf":
        return nested
    return ("test", features[nested[1]], _renumber(nested[2], features),
            _renumber(nested[3], features))
