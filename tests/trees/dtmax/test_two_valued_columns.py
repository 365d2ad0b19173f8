"""``OrderedData.from_matrix`` reads a column of at most two values without sorting it: the
same ranks, sorted rows and values as the general path (``np.unique`` and the end-run merge);
a matrix of small integers (a 0/1 matrix as uint8) reads as its float64 copy does."""

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


def test_small_integer_matrices_read_as_their_float_copies():
    rng = np.random.default_rng(6)
    for dtype in (np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32):
        for _ in range(60):
            n, n_features = int(rng.integers(0, 14)), int(rng.integers(1, 5))
            top = 2 if dtype == np.bool_ else int(rng.integers(1, 5))
            X = rng.integers(0, top, size=(n, n_features)).astype(dtype)
            if dtype in (np.int8, np.int16, np.int32):
                X = X - np.asarray(1, dtype=dtype)
            y = rng.integers(0, 3, size=n)
            weight = rng.integers(0, 3, size=n).astype(float)
            exact, floats = (OrderedData.from_matrix(M, y, 3, weight)
                             for M in (X, X.astype(np.float64)))
            assert np.array_equal(exact.rank, floats.rank)
            assert exact.rank.dtype == np.int32
            assert np.array_equal(exact.order, floats.order)
            assert np.array_equal(exact.y, floats.y) and np.array_equal(exact.weight,
                                                                         floats.weight)
            for got, want in zip(exact.values, floats.values, strict=True):
                assert np.array_equal(got, want) and got.dtype == np.float64
