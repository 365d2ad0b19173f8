"""Independent brute force for minimum pure decision trees on tiny data (tests only).

Recursion over feature splits with memoisation on the row subset (a bitmask): the minimum
size of a pure tree on rows S is 1 if S has one class, else
min over features r that split S into two non-empty parts of 1 + size(S0) + size(S1).
(A split with an empty side is never in a minimum tree: removing it gives a smaller tree.)
``count_minimum_trees`` counts the distinct minimum trees (tests on features, leaf labels):
the product of the children's counts, summed over the features that reach the minimum.
Shares no code with the encoder; usable for <= ~12 rows and <= ~6 features.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import strategies as st

INFEASIBLE = float("inf")


def _solver(X: np.ndarray, y: np.ndarray):
    X = np.asarray(X, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n_rows, n_features = X.shape
    columns = [sum(1 << q for q in range(n_rows) if X[q, r]) for r in range(n_features)]
    labels = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in set(y.tolist())]

    @cache
    def best(rows: int) -> tuple[float, int]:
        """(minimum size, number of minimum trees) of a pure tree on the row set ``rows``."""
        if any((rows & ~mask) == 0 for mask in labels):
            return 1, 1
        size, count = INFEASIBLE, 0
        for col in columns:
            ones, zeros = rows & col, rows & ~col
            if not ones or not zeros:
                continue
            (s0, c0), (s1, c1) = best(zeros), best(ones)
            total = 1 + s0 + s1
            if total < size:
                size, count = total, c0 * c1
            elif total == size and total < INFEASIBLE:
                count += c0 * c1
        return size, count

    return best((1 << n_rows) - 1)


def minimum_tree_size(X: np.ndarray, y: np.ndarray) -> float:
    """Nodes of a minimum pure tree on (X, y); ``inf`` if identical rows disagree."""
    return _solver(X, y)[0]


def count_minimum_trees(X: np.ndarray, y: np.ndarray) -> int:
    """How many distinct minimum pure trees (features at nodes, leaf labels) exist."""
    size, count = _solver(X, y)
    return count if size < INFEASIBLE else 0


@st.composite
def tiny_data(draw):
    """Hypothesis strategy: (X, y, n_classes) with 2-10 rows, 1-5 binary features, 2 or 3
    classes, and no conflicts (identical rows get the label of the first of them)."""
    n_classes = draw(st.sampled_from([2, 3]))
    rows, features = draw(st.integers(2, 10)), draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=rows * features,
                               max_size=rows * features))).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    return X, y[first][inverse.ravel()], n_classes


def minimum_trees_with_errors(X: np.ndarray, y: np.ndarray, n_classes: int,
                              max_errors: int) -> tuple[int, set]:
    """(size, trees): every smallest tree misclassifying at most ``max_errors`` rows.

    A tree is a nested tuple, ``("leaf", k)`` or ``(feature, left, right)`` (rows with 0 go
    left), so two trees are equal iff they test the same features in the same places and
    their leaves predict the same classes; any of the ``n_classes`` labels may sit on any
    leaf. Splits leave both sides non-empty (a tree with an empty side is never smallest).
    Grows the size 1, 3, 5, ... until some tree fits: exhaustive, for tiny data only.
    """
    X = np.asarray(X, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n_rows, n_features = X.shape
    columns = [sum(1 << q for q in range(n_rows) if X[q, r]) for r in range(n_features)]
    per_class = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in range(n_classes)]

    @cache
    def trees(rows: int, size: int, budget: int) -> tuple:
        """((tree, errors), ...) of exactly ``size`` nodes on ``rows`` within ``budget``."""
        total = rows.bit_count()
        if size == 1:
            return tuple((("leaf", k), total - (rows & mask).bit_count())
                         for k, mask in enumerate(per_class)
                         if total - (rows & mask).bit_count() <= budget)
        found = []
        for r, col in enumerate(columns):
            ones, zeros = rows & col, rows & ~col
            if not ones or not zeros:
                continue
            for left_size in range(1, size - 1, 2):
                for left, left_errors in trees(zeros, left_size, budget):
                    found += [((r, left, right), left_errors + right_errors)
                              for right, right_errors in trees(ones, size - 1 - left_size,
                                                               budget - left_errors)]
        return tuple(found)

    everyone = (1 << n_rows) - 1
    for size in range(1, 2 * n_rows + 2, 2):
        found = trees(everyone, size, int(max_errors))
        if found:
            return size, {tree for tree, _ in found}
    raise ValueError(f"no tree within max_errors={max_errors}: identical rows disagree")


def minimum_size_with_errors(X, y, n_classes: int, budget: int) -> float:
    """Fewest nodes of a tree with <= budget errors: the fewest leaves over every feature and
    every split of the budget between the subtrees, memoised on (row bitmask, budget); rows
    one by one (no grouping), a leaf predicting its majority. Exhaustive, for tiny data only."""
    n_rows, n_features = X.shape
    columns = [sum(1 << q for q in range(n_rows) if X[q, j]) for j in range(n_features)]
    masks = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in range(n_classes)]

    @cache
    def leaves(rows: int, budget: int) -> float:
        total = rows.bit_count()
        if total - max((rows & m).bit_count() for m in masks) <= budget:
            return 1
        best = float("inf")
        for col in columns:
            ones, zeros = rows & col, rows & ~col
            if ones and zeros:
                for b in range(budget + 1):
                    best = min(best, leaves(zeros, b) + leaves(ones, budget - b))
        return best

    return 2 * leaves((1 << n_rows) - 1, budget) - 1


def nested_tree(tree, node: int = 0) -> tuple:
    """A fitted ``Tree`` in the nested-tuple form of ``minimum_trees_with_errors``."""
    if tree.feature[node] < 0:
        return ("leaf", int(tree.label[node]))
    return (int(tree.feature[node]), nested_tree(tree, int(tree.left[node])),
            nested_tree(tree, int(tree.right[node])))


@st.composite
def weighted_data(draw, min_rows=2, max_rows=7, weights=(0, 0.5, 1, 1.5, 2, 3)):
    """(X, y, n_classes, weight): min_rows-max_rows rows over 1-3 features, 2-3 classes,
    weights drawn from binary fractions (exact in float64), at least one positive."""
    n_classes = draw(st.sampled_from([2, 3]))
    n_rows, n_features = draw(st.integers(min_rows, max_rows)), draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n_rows * n_features,
                               max_size=n_rows * n_features))).reshape(n_rows, n_features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    weight = np.array(draw(st.lists(st.sampled_from(weights), min_size=n_rows,
                                    max_size=n_rows)), dtype=float)
    if not (weight > 0).any():
        weight[0] = 1.0
    return X, y, n_classes, weight


def threshold_tree_optimum(X, y, w, n_classes: int, depth: int) -> tuple:
    """(fewest weighted errors, then fewest tests) of any tree of depth <= ``depth`` over a
    numeric table, testing ``x_f >= t`` for every threshold t between adjacent distinct values
    of the rows at the node. Shares no code with the ordered engine."""

    def best(rows, d):
        totals = np.bincount(y[rows], weights=w[rows], minlength=n_classes)
        answer = (totals.sum() - totals.max(), 0)
        if d == 0 or len(rows) < 2:
            return answer
        for f in range(X.shape[1]):
            for t in np.unique(X[rows, f])[1:]:
                high = X[rows, f] >= t
                (e0, s0), (e1, s1) = best(rows[~high], d - 1), best(rows[high], d - 1)
                answer = min(answer, (e0 + e1, s0 + s1 + 1))
        return answer

    return best(np.arange(len(y)), depth)


@st.composite
def numeric_weighted_data(draw, max_rows=9, max_depth=3, whole=None):
    """Tiny numeric tables: few distinct values (ties), 2-3 classes, depth 0-3, weights
    whole (0-3) or float (0-2; below the engines' tolerance: zero), drawn unless ``whole``
    fixes it; zeros included, never all zero."""
    n_classes = draw(st.integers(2, 3))
    rows, features = draw(st.integers(1, max_rows)), draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.sampled_from([-1.5, 0.0, 0.25, 1.0, 2.0, 7.0]),
                               min_size=rows * features, max_size=rows * features)))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    if whole is None:
        whole = draw(st.booleans())
    weight = st.integers(0, 3) if whole else st.floats(0.0, 2.0).map(
        lambda v: 0.0 if v < 1e-6 else v)
    w = np.array(draw(st.lists(weight, min_size=rows, max_size=rows)), dtype=float)
    if not (w > 0).any():
        w[0] = 1.0
    return X.reshape(rows, features), y, w, n_classes, draw(st.integers(0, max_depth))


def table_tests(columns, rows):
    """Every test a DT(max) tree may make at a node holding ``rows`` of a raw table: for a
    numeric column (floats, NaN missing) ``x >= t``, ``x >= t or missing`` for t between two
    adjacent present values of those rows, and ``x is missing``; for a categorical column
    (objects, None missing) ``x == v`` per value present and ``x is missing``. Each test is
    a boolean mask over ``rows``."""
    masks = []
    for values in columns:
        column = values[rows]
        if column.dtype.kind == "f":
            absent = np.isnan(column)
            present = np.unique(column[~absent])
            for t in present[1:]:
                masks += [~absent & (column >= t), absent | (column >= t)]
        else:
            absent = np.array([v is None for v in column])
            present = {v for v in column if v is not None}
            masks += [np.array([v == value for v in column]) for value in present]
        masks.append(absent)
    return masks


def table_tree_optimum(columns, y, w, n_classes: int, depth: int) -> tuple:
    """(fewest weighted errors, then fewest tests) of any tree of depth <= ``depth`` over the
    raw table ``columns`` (``table_tests``): missing values as their own code. Shares no
    code with the engines; for a handful of rows."""

    def best(rows, d):
        totals = np.bincount(y[rows], weights=w[rows], minlength=n_classes)
        answer = (totals.sum() - totals.max(), 0)
        if d == 0 or len(rows) < 2:
            return answer
        for mask in table_tests(columns, rows):
            if mask.all() or not mask.any():
                continue
            (e0, s0), (e1, s1) = best(rows[~mask], d - 1), best(rows[mask], d - 1)
            answer = min(answer, (e0 + e1, s0 + s1 + 1))
        return answer

    return best(np.arange(len(y)), depth)


@st.composite
def raw_tables(draw, max_rows=8, max_depth=3):
    """Tiny raw tables: 1-3 columns, numeric with few distinct values and NaN, or
    categorical with None; 2-3 classes; whole weights 0-3 (never all zero); depth 0-3.
    Returns (DataFrame, y, weight, n_classes, depth)."""
    import pandas as pd

    n_classes = draw(st.integers(2, 3))
    rows, n_columns = draw(st.integers(1, max_rows)), draw(st.integers(1, 3))
    frame = {}
    for j in range(n_columns):
        if draw(st.integers(0, 3)) == 0:
            values = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=rows,
                                   max_size=rows))
            frame[f"c{j}"] = pd.Series(values, dtype=object)
        else:
            values = draw(st.lists(st.sampled_from([np.nan, -1.5, 0.0, 0.25, 2.0, 7.0]),
                                   min_size=rows, max_size=rows))
            frame[f"n{j}"] = np.array(values, dtype=float)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)), dtype=float)
    if not (w > 0).any():
        w[0] = 1.0
    return pd.DataFrame(frame), y, w, n_classes, draw(st.integers(0, max_depth))


def brute_curve(X, y, n_classes, weight, max_leaves):
    """E(L) for L = 1 .. max_leaves: the fewest weighted errors of a tree with at most L
    leaves, by exhaustive recursion over splits and leaf counts."""
    n_rows = len(y)
    columns = [sum(1 << q for q in range(n_rows) if X[q, r]) for r in range(X.shape[1])]

    def leaf_errors(rows):
        per_class = [sum(weight[q] for q in range(n_rows) if rows >> q & 1 and y[q] == k)
                     for k in range(n_classes)]
        return sum(per_class) - max(per_class)

    @cache
    def errors(rows, leaves):
        best = leaf_errors(rows)
        for col in columns:
            one, zero = rows & col, rows & ~col
            if not one or not zero:
                continue
            for left in range(1, leaves):
                best = min(best, errors(zero, left) + errors(one, leaves - left))
        return best

    everyone = (1 << n_rows) - 1
    return [errors(everyone, leaves) for leaves in range(1, max_leaves + 1)]


def best_bounded_tree(X, y, n_classes, depth):
    """(most correctly classified rows, fewest decision nodes among those) over every tree of
    depth <= ``depth``: tries every feature at every node, memoised on the row subset."""
    X, y = np.asarray(X), np.asarray(y)

    @cache
    def best(rows: frozenset, budget: int) -> tuple[int, int]:
        # (correct rows, minus decision nodes): tuples compare lexicographically
        idx = np.array(sorted(rows), dtype=np.int64)
        result = (int(np.bincount(y[idx], minlength=n_classes).max()), 0)   # a leaf
        if budget == 0:
            return result
        for j in range(X.shape[1]):
            zeros = frozenset(int(q) for q in idx if X[q, j] == 0)
            ones = rows - zeros
            if zeros and ones:
                (c0, s0), (c1, s1) = best(zeros, budget - 1), best(ones, budget - 1)
                result = max(result, (c0 + c1, s0 + s1 - 1))
        return result

    correct, neg_splits = best(frozenset(range(len(y))), depth)
    return correct, -neg_splits


def random_matrix(rng, max_rows=12, max_features=4, max_classes=3):
    """(X, y, n_classes): a random 0/1 matrix with 1 to ``max_rows`` rows and random labels."""
    n = int(rng.integers(1, max_rows + 1))
    n_features = int(rng.integers(1, max_features + 1))
    n_classes = int(rng.integers(2, max_classes + 1))
    X = rng.integers(0, 2, (n, n_features))
    y = rng.integers(0, n_classes, n)
    return X, y, n_classes
