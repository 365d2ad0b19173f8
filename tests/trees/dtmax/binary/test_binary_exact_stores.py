"""A depth-3 node whose depth-2 tree costs at least the caller's budget: what the search
stores and returns for it must be a lower bound, not that tree's cost as if proven best
(``kernels.search``). Reached again with a larger budget, or read by a sibling's similarity
bound, an overstated value prunes better trees: a search of depth 5 meets the same depth-3
row sets along several paths."""

from __future__ import annotations

from functools import cache

import numpy as np

from occamlearn.trees.dtmax.binary.solve import binary_search
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.result import nested_errors, nested_tests


def _fewest_errors_then_tests(X, y, weight, n_classes, depth):
    """(weighted errors, tests) of the best tree of depth <= ``depth``, every test tried at
    every node: row sets as the bits of a Python int, memoised."""
    n_rows = len(y)
    columns = [sum(1 << q for q in range(n_rows) if X[q, j]) for j in range(X.shape[1])]
    of_class = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in range(n_classes)]
    weights = [int(w) for w in weight]

    def total(rows):
        return sum(weights[q] for q in range(n_rows) if rows >> q & 1)

    @cache
    def best(rows, budget):
        per_class = [total(rows & members) for members in of_class]
        result = (sum(per_class) - max(per_class), 0)                       # a leaf
        if budget == 0 or result[0] == 0:
            return result
        for column in columns:
            one, zero = rows & column, rows & ~column
            if one and zero:
                (e0, t0), (e1, t1) = best(zero, budget - 1), best(one, budget - 1)
                result = min(result, (e0 + e1, t0 + t1 + 1))
        return result

    return best((1 << n_rows) - 1, depth)


def _noisy_concept(rng):
    """Weighted 0/1 rows labelled by x_a xor (x_b and x_c), some labels moved: no tree of
    depth 5 is error-free, and many depth-3 nodes cost more than their budgets."""
    n_rows, n_features = int(rng.integers(40, 90)), int(rng.integers(7, 9))
    X = (rng.random((n_rows, n_features)) < rng.uniform(0.2, 0.8)).astype(np.int64)
    a, b, c = rng.choice(n_features, size=3, replace=False)
    y = X[:, a] ^ (X[:, b] & X[:, c])
    n_classes = int(rng.integers(2, 4))
    if n_classes == 3:
        y = y + (rng.random(n_rows) < 0.2)
    moved = rng.random(n_rows) < rng.uniform(0.0, 0.15)
    y = np.where(moved, (y + 1) % n_classes, y)
    return X, y, rng.integers(1, 4, n_rows), n_classes


def test_depth5_searches_agree_with_brute_force():
    """The fewest weighted errors, then the fewest tests, of every tree of depth <= 5."""
    rng = np.random.default_rng(61)
    for case in range(CASES):
        X, y, weight, n_classes = _noisy_concept(rng)
        d = OrderedData.from_matrix(X.astype(float), y, n_classes, weight.astype(float))
        result = binary_search(d, 5)
        assert result.status == "optimal"
        assert result.errors == nested_errors(result.tree, d.rank, d.y, d.weight)
        expected = _fewest_errors_then_tests(X, y, weight, n_classes, 5)
        assert (result.errors, nested_tests(result.tree)) == expected, case


CASES = 60
