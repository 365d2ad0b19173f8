"""DT(max) on a 0/1 matrix for tests of other modules: ``trees.dtmax.entry.find_most_accurate_tree``
with its tree as a ``model.tree.Tree`` over the matrix's columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.entry import find_most_accurate_tree


@dataclass(frozen=True)
class MatrixResult:
    tree: Tree
    training_errors: float
    errors_lower_bound: float
    status: str
    decisions: int
    stats: dict


def _over_columns(nested: tuple, data: OrderedData) -> tuple:
    if nested[0] == "leaf":
        return nested
    f, t = nested[1], nested[2]
    assert data.values[f][t] == 1            # a 0/1 column: "rank >= 1" is "x = 1"
    return ("test", f, _over_columns(nested[3], data), _over_columns(nested[4], data))


def max_accuracy_on_matrix(X, y, n_classes: int, depth: int, *, prefer_small=True,
                           sample_weight=None, **options) -> MatrixResult:
    X = np.asarray(X)
    y = np.asarray(y)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    kept = slice(None) if weight is None else weight > 0
    data = OrderedData.from_matrix(X.astype(float), y, n_classes, weight)
    result = find_most_accurate_tree(data, max_depth=depth, prefer_small=prefer_small, **options)
    tree = Tree.from_nested(_over_columns(result.tree, data), X.shape[1], n_classes)
    tree = tree.with_counts(X[kept].astype(np.uint8), y[kept])
    return MatrixResult(tree, result.errors, result.errors_lower_bound, result.status,
                        tree.n_nodes - tree.n_leaves, result.stats)
