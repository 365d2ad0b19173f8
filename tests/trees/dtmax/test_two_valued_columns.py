"""``OrderedData.from_matrix`` reads a column of at most two values without sorting it: the
same ranks, sorted rows and values as the general path (``np.unique`` and the end-run merge)."""

from __future__ import annotations

import numpy as np

from occamlearn.trees.dtmax.data import OrderedData, _end_runs_merged


def _general(column: np.ndarray, y: np.ndarray) -> tuple:
    distinct, inverse = np.unique(column, return_inverse=True)
    group = _end_runs_merged(inverse, y, len(distinct))
    rank = group[inverse]
    starts = np.r_[True, group[1:] != group[:-1]]
    return rank, np.argsort(rank, kind="stable"), distinct[starts]


def test_two_valued_columns_read_as_the_general_path_reads_them():
    rng = np.random.default_rng(5)
    seen_one_label, seen_two_ranks = False, False
    for _ in range(400):
        n, n_features = int(rng.integers(1, 14)), int(rng.integers(1, 5))
        X = rng.integers(0, int(rng.integers(1, 4)), size=(n, n_features)).astype(float)
        X *= rng.choice([1.0, -2.5, 0.5])
        y = rng.integers(0, int(rng.integers(1, 4)), size=n)
        data = OrderedData.from_matrix(X, y, 3)
        for f in range(n_features):
            rank, order, values = _general(X[:, f], y)
            assert np.array_equal(data.rank[f], rank)
            assert np.array_equal(data.order[f], order)
            assert np.array_equal(data.values[f], values)
            assert data.values[f].dtype == np.float64
            seen_one_label |= len(np.unique(X[:, f])) == 2 and len(values) == 1
            seen_two_ranks |= len(values) == 2
    assert seen_one_label and seen_two_ranks
