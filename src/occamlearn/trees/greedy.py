"""Size bounds for the MPDT query (Alós, Ansótegui and Torres Sec. 7, Alg. 3 line 3).

Upper bound: the smallest of several fully grown greedy trees on the binary matrix
(scikit-learn's ``DecisionTreeClassifier`` with both split criteria and a few random states;
its ties between equally good features are broken by the random state). Each is pure on
conflict-free data, so the smallest is a valid answer if the exact search finds nothing in
time. Lower bound: 3 nodes, or 1 when only one class is present (a single leaf).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn.model.tree import LEAF, Tree
from occamlearn.stopping import Deadline

__all__ = [
    "GreedyBound",
    "greedy_upper_bound",
    "greedy_upper_bound_within",
    "single_leaf",
    "sklearn_to_tree",
]

CRITERIA = ("gini", "entropy")


@dataclass(frozen=True)
class GreedyBound:
    """The smallest greedy pure tree found and how it was obtained."""

    tree: Tree
    size: int
    source: str  # e.g. "sklearn(entropy, random_state=2)"
    sizes: dict  # every candidate's size, keyed like ``source``


def sklearn_to_tree(estimator, n_features: int, n_classes: int, X, y) -> Tree:
    """Convert a fitted binary-feature ``DecisionTreeClassifier`` (class indices as labels)."""
    inner = estimator.tree_
    is_leaf = inner.children_left == -1
    feature = np.where(is_leaf, LEAF, inner.feature)
    left = np.where(is_leaf, -1, inner.children_left)
    right = np.where(is_leaf, -1, inner.children_right)
    classes = np.asarray(estimator.classes_)
    label = np.where(is_leaf, classes[inner.value[:, 0, :].argmax(axis=1)], -1)
    counts = np.zeros((inner.node_count, n_classes), dtype=np.int64)
    return Tree(feature, left, right, label, counts, n_features).with_counts(X, y)


def single_leaf(X: np.ndarray, y: np.ndarray, n_classes: int) -> Tree:
    """The one-node tree predicting the (only) class of y."""
    label = int(y[0]) if len(y) else 0
    counts = np.zeros((1, n_classes), dtype=np.int64)
    return Tree([LEAF], [-1], [-1], [label], counts, X.shape[1]).with_counts(X, y)


def greedy_upper_bound(X: np.ndarray, y: np.ndarray, n_classes: int,
                       criteria=CRITERIA, random_states=range(4)) -> GreedyBound:
    """Smallest pure greedy tree over ``criteria`` x ``random_states``.

    X must be a conflict-free 0/1 matrix (identical rows share a label), y class indices.
    """
    from sklearn.tree import DecisionTreeClassifier

    X = np.asarray(X)
    y = np.asarray(y)
    if len(np.unique(y)) <= 1:
        tree = single_leaf(X, y, n_classes)
        return GreedyBound(tree, 1, "single leaf", {"single leaf": 1})
    best, sizes = None, {}
    for criterion in criteria:
        for seed in random_states:
            model = DecisionTreeClassifier(criterion=criterion, random_state=seed).fit(X, y)
            source = f"sklearn({criterion}, random_state={seed})"
            sizes[source] = int(model.tree_.node_count)
            if best is None or sizes[source] < best[0]:
                best = (sizes[source], source, model)
    size, source, model = best
    tree = sklearn_to_tree(model, X.shape[1], n_classes, X, y)
    if not tree.is_pure_on(X, y):
        raise ValueError("X has identical rows with different labels: no pure tree exists "
                         "(resolve conflicts first).")
    return GreedyBound(tree, size, source, sizes)


# Seconds of one greedy tree per row x column x log2(rows), the slowest measured (1.1 s on
# 50,000 x 60, 13 s on 50,000 x 1,600): with a time limit, fewer greedy trees are grown
# when the 8 of ``greedy_upper_bound`` would not fit.
GREEDY_SECONDS_PER_CELL = 2.5e-8


def greedy_upper_bound_within(X, y, n_classes: int, deadline: Deadline | None) -> GreedyBound:
    """``greedy_upper_bound``'s smallest of 8 greedy trees; with a time limit, only what is
    predicted to take at most a quarter of the time left: the 8, else one, else one whose
    nodes try sqrt(columns) random columns each (a pure tree still: scikit-learn draws more
    columns until one splits). On 50,000 rows x 1,600 columns one greedy tree took 13 s."""
    if deadline is None or not deadline.limited:
        return greedy_upper_bound(X, y, n_classes)
    n_rows, n_columns = X.shape
    one = GREEDY_SECONDS_PER_CELL * n_rows * n_columns * max(1.0, np.log2(max(n_rows, 2)))
    left = deadline.remaining()
    if 8 * one <= left / 4 or len(np.unique(y)) <= 1:
        return greedy_upper_bound(X, y, n_classes)
    if one <= left / 4:
        return greedy_upper_bound(X, y, n_classes, criteria=CRITERIA[:1], random_states=[0])
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier(max_features="sqrt", random_state=0).fit(X, y)
    source = "sklearn(gini, max_features='sqrt', random_state=0)"
    tree = sklearn_to_tree(model, n_columns, n_classes, X, y)
    return GreedyBound(tree, tree.n_nodes, source, {source: tree.n_nodes})
