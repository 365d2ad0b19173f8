"""``trees.exact.data``: distinct rows by packed bytes give exactly ``np.unique``'s."""

import numpy as np
import pytest

from occamlearn.trees.exact.data import distinct_rows, group_examples


@pytest.mark.parametrize("n_rows, n_columns", [(1, 1), (5, 3), (40, 8), (300, 9), (500, 17),
                                               (200, 70), (0, 4), (6, 0)])
def test_distinct_rows_match_numpy_unique(n_rows, n_columns):
    rng = np.random.default_rng(n_rows * 100 + n_columns)
    X = rng.integers(0, 2, size=(n_rows, n_columns))
    if n_rows > 3:
        X[n_rows // 2:] = X[:n_rows - n_rows // 2]          # repeated rows
    patterns, inverse = distinct_rows(X)
    expected, expected_inverse = np.unique(X.astype(np.uint8), axis=0, return_inverse=True)
    assert patterns.dtype == np.uint8
    assert np.array_equal(patterns, expected)
    assert np.array_equal(inverse, expected_inverse.reshape(-1))


def test_groups_count_every_row_once():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(400, 6))
    y = rng.integers(0, 3, size=400)
    groups = group_examples(X, y)
    assert groups.count.sum() == 400
    back_X, back_y = groups.rows()
    assert sorted(map(tuple, np.column_stack([X, y]))) == sorted(
        map(tuple, np.column_stack([back_X, back_y])))
