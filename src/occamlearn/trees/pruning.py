"""Prunings of a tree: the fewest errors with each number of leaves, and the smallest pruning
within an error budget.

A pruning of a tree replaces some of its subtrees by leaves (each predicting the heaviest
class of its rows). The fewest errors of a pruning with l leaves obey the min-plus recursion

    front(v)[1] = errors of v as a leaf,
    front(v)[l] = min over a + b = l of front(left)[a] + front(right)[b]   (l >= 2),

since a pruning of v with l >= 2 leaves keeps v's test and prunes its two subtrees with a and
b = l - a leaves each, independently (the errors of rows add up over the leaves). ``min_plus``
is one such product, in numpy: one vector operation per leaf count of the shorter side, so a
whole tree costs about the square of its leaves in compiled loops, not in Python (small fronts,
where a vector operation costs more than the pairs it adds, are combined in Python). The error-
budget branch and bound seeds its memo with the fronts of its greedy start this way, and the
MaxSAT route with an error budget starts from ``smallest_pruning`` of its greedy tree instead
of the unpruned tree (which makes only the forced errors, whatever the budget).
"""

from __future__ import annotations

import numpy as np

from occamlearn.model.tree import LEAF, Tree

__all__ = ["NO_ERRORS_BOUND", "min_plus", "smallest_pruning"]

NO_ERRORS_BOUND = 1 << 62  # front[0] and every unreachable entry


# Fronts whose product has at most this many pairs are combined in plain Python: numpy's
# per-call cost passes the loop's there (a greedy tree's fronts are mostly that small).
SMALL_PRODUCT = 256


def min_plus(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(front, choice): front[l] = min over a + b = l of left[a] + right[b] (index 0 of each
    array unused), choice[l] the least such a; one vector operation per a (or per b, taken
    from the largest down, so that the least a still wins ties) of the shorter side, or
    every pair in Python (a increasing, a strict improvement only) when the fronts are
    small. Both ways add the same numbers and keep the same least a."""
    n_left, n_right = len(left) - 1, len(right) - 1
    if n_left * n_right <= SMALL_PRODUCT:
        return _min_plus_pairs(left, right)
    front = np.full(n_left + n_right + 1, NO_ERRORS_BOUND, dtype=left.dtype)
    choice = np.zeros(n_left + n_right + 1, dtype=np.int64)
    if n_left <= n_right:
        for a in range(1, n_left + 1):
            place = slice(a + 1, a + 1 + n_right)
            candidate = left[a] + right[1:]
            better = candidate < front[place]
            front[place] = np.where(better, candidate, front[place])
            choice[place] = np.where(better, a, choice[place])
    else:
        for b in range(n_right, 0, -1):
            place = slice(b + 1, b + 1 + n_left)
            candidate = right[b] + left[1:]
            better = candidate < front[place]
            front[place] = np.where(better, candidate, front[place])
            choice[place] = np.where(better, np.arange(1, n_left + 1), choice[place])
    return front, choice


def _min_plus_pairs(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``min_plus`` over every pair, in Python."""
    lefts, rights = left.tolist(), right.tolist()
    front = [NO_ERRORS_BOUND] * (len(lefts) + len(rights) - 1)
    choice = [0] * len(front)
    pairs = list(enumerate(rights))[1:]
    for a in range(1, len(lefts)):
        first = lefts[a]
        for b, second in pairs:
            value = first + second
            if value < front[a + b]:
                front[a + b], choice[a + b] = value, a
    return np.array(front, dtype=left.dtype), np.array(choice, dtype=np.int64)


def _node_weights(tree: Tree, X, y, weight, n_classes: int) -> np.ndarray:
    """(nodes, classes): the weight of the rows of each class reaching each node."""
    weights = np.zeros((tree.n_nodes, n_classes))
    node = np.zeros(len(y), dtype=np.int64)
    rows = np.arange(len(y))
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=float)
    np.add.at(weights, (node, y), w)
    is_leaf = tree.is_leaf
    while True:
        active = rows[~is_leaf[node]]
        if not len(active):
            return weights
        at = node[active]
        right = np.asarray(X)[active, tree.feature[at]] != 0
        node[active] = np.where(right, tree.right[at], tree.left[at])
        np.add.at(weights, (node[active], y[active]), w[active])


def smallest_pruning(tree: Tree, X, y, max_errors: float, sample_weight=None,
                     deadline=None) -> Tree:
    """The pruning of ``tree`` with the fewest leaves whose errors on (X, y) (weighted by
    ``sample_weight``) are at most ``max_errors``; ``tree`` itself when no pruning fits (a
    budget below its own errors), or when ``deadline`` (a ``stopping.Deadline``) passes
    first (it is looked at once per node). Leaves predict the heaviest class of their rows
    (ties: the lowest class), and the result carries the counts of (X, y)."""
    y = np.asarray(y, dtype=np.int64)
    n_classes = tree.n_classes
    weights = _node_weights(tree, X, y, sample_weight, n_classes)
    leaf_errors = weights.sum(axis=1) - weights.max(axis=1)
    is_leaf = tree.is_leaf.tolist()
    order, stack = [], [0]
    while stack:  # parents before children; taken in reverse below
        node = stack.pop()
        order.append(node)
        if not is_leaf[node]:
            stack += [int(tree.left[node]), int(tree.right[node])]
    fronts, choices = {}, {}
    for node in reversed(order):  # children before their parent
        if deadline is not None and deadline.expired():
            return tree
        if is_leaf[node]:
            fronts[node] = np.array([np.inf, leaf_errors[node]])
            continue
        front, choices[node] = min_plus(fronts.pop(int(tree.left[node])),
                                        fronts.pop(int(tree.right[node])))
        front[1] = leaf_errors[node]
        fronts[node] = front
    front = fronts[0]
    fits = np.flatnonzero(front[1:] <= max_errors + 1e-9)
    if not len(fits):
        return tree
    feature, left, right, label = [], [], [], []

    def build(node: int, leaves: int) -> int:
        at = len(feature)
        feature.append(LEAF)
        left.append(-1)
        right.append(-1)
        label.append(int(weights[node].argmax()))
        if leaves > 1:
            a = int(choices[node][leaves])
            feature[at], label[at] = int(tree.feature[node]), -1
            left[at] = build(int(tree.left[node]), a)
            right[at] = build(int(tree.right[node]), leaves - a)
        return at

    build(0, int(fits[0]) + 1)
    counts = np.zeros((len(feature), n_classes), dtype=np.int64)
    return Tree(np.array(feature), np.array(left), np.array(right), np.array(label), counts,
                tree.n_features, tree.feature_names).with_counts(X, y)
