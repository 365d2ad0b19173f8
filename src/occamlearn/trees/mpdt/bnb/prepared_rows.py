"""The rows the branch and bound searches, and its first tree.

``prepare_rows`` reduces X, y to distinct rows (of positive weight) with one class each, and
the columns worth splitting on; ``greedy_start`` builds the greedy pure tree of those rows
before any search is set up, so a driver can offer a first tree at once.
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.exact.data import group_examples, reduce_columns
from occamlearn.trees.exact.nested import tree_of_greedy
from occamlearn.trees.exact.splits import greedy_tree

__all__ = ["greedy_start", "prepare_rows"]


def prepare_rows(X, y, n_classes, sample_weight=None):
    """Distinct rows (of positive weight), their classes, n_classes and the useful columns.
    A pure tree's size does not depend on the weights: they only drop rows of weight 0.
    Raises ValueError on conflicting rows."""
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X has shape {X.shape} but y has {y.shape[0]} entries.")
    if X.shape[0] == 0:
        raise ValueError("No rows: a tree needs at least one training example.")
    X = (X != 0).view(np.uint8)  # one byte a cell: the searches copy it several times
    if y.min() < 0:
        raise ValueError("Class indices must be >= 0.")
    n_classes = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if y.max() >= n_classes:
        raise ValueError(f"Class index {int(y.max())} is not below n_classes={n_classes}.")
    weight = None
    if sample_weight is not None:  # only which rows weigh more than 0 matters here
        weight = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weight.shape != y.shape or not np.isfinite(weight).all() or (weight < 0).any():
            raise ValueError(f"sample_weight must hold one finite value >= 0 per row "
                             f"({y.shape[0]}); got shape {weight.shape}.")
        weight = (weight > 0).astype(np.int64)
    groups = group_examples(X, y, weight)
    labels = np.empty(groups.n_patterns, dtype=np.int64)
    labels[groups.pattern] = groups.label
    conflicting = groups.n_groups - groups.n_patterns
    if conflicting:
        raise ValueError(f"{conflicting} groups of identical rows have different classes: "
                         "no pure tree exists (remove conflicts first, e.g. resolve_conflicts).")
    rows = groups.patterns.astype(np.uint8)
    return rows, labels, n_classes, reduce_columns(rows).column.tolist()


def greedy_start(rows, labels, n_classes, kept, patterns=None):
    """The greedy pure tree (``splits.greedy_tree``) of the prepared ``rows`` (distinct rows,
    one bit each), as a nested tuple over the original columns: needs none of a search's
    set-up, so a driver offers it before building one."""
    node = greedy_tree(rows[:, kept] == 1, np.eye(n_classes)[labels],
                       np.arange(len(labels) + 1), patterns)
    return tree_of_greedy(node, kept, lambda part: int(labels[(part & -part).bit_length() - 1]))
