"""``trees.exact.data``: distinct rows by packed bytes give exactly ``np.unique``'s; useful
columns are exactly those of a plain column-by-column reading."""

import numpy as np
import pytest

from occamlearn.trees.exact.data import distinct_rows, group_examples, reduce_columns


@pytest.mark.parametrize("n_rows, n_columns", [(1, 1), (5, 3), (40, 8), (300, 9), (500, 17),
                                               (200, 70), (0, 4), (6, 0), (300, 63),
                                               (300, 64), (300, 65)])
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


def _reduced_plainly(X: np.ndarray) -> tuple:
    """(kept columns, flipped, matrix) read one column at a time: complement a column with
    more ones than zeros, or exactly half whose first row is 1; keep the first of each set
    of equal oriented columns that has both values."""
    kept, flipped, seen = [], [], set()
    for j in range(X.shape[1]):
        column = X[:, j].astype(np.uint8)
        ones = int(column.sum())
        flip = 2 * ones > len(column) or (2 * ones == len(column) and len(column) > 0
                                          and column[0] == 1)
        oriented = 1 - column if flip else column
        if 0 < ones < len(column) and oriented.tobytes() not in seen:
            seen.add(oriented.tobytes())
            kept.append(j)
            flipped.append(flip)
    matrix = np.column_stack([1 - X[:, j] if f else X[:, j] for j, f in zip(kept, flipped)]
                             ) if kept else np.zeros((X.shape[0], 0))
    return kept, flipped, matrix.astype(np.uint8)


def test_reduced_columns_are_the_plain_reading():
    rng = np.random.default_rng(4)
    for _ in range(300):
        n, m = int(rng.integers(0, 12)), int(rng.integers(0, 9))
        X = (rng.random((n, m)) < rng.random()).astype(np.uint8)
        if m >= 3 and n:
            X[:, 1], X[:, 2] = X[:, 0], 1 - X[:, 0]       # a duplicate and a complement
        before = X.copy()
        reduced = reduce_columns(X)
        kept, flipped, matrix = _reduced_plainly(X)
        assert reduced.column.tolist() == kept
        assert reduced.flipped.tolist() == flipped
        assert reduced.matrix.dtype == np.uint8 and reduced.matrix.flags.c_contiguous
        assert np.array_equal(reduced.matrix, matrix.reshape(n, len(kept)))
        assert np.array_equal(X, before)   # the source is read, never written


def test_validated_rows_as_bytes():
    """``validate_binary_data(..., np.uint8)``: the same values, a byte a cell."""
    from occamlearn.trees.exact.data import validate_binary_data

    X = np.random.default_rng(0).integers(0, 2, (30, 5))
    as_bytes, y = validate_binary_data(X.astype(float), np.zeros(30, dtype=int), 2, np.uint8)
    assert as_bytes.dtype == np.uint8 and np.array_equal(as_bytes, X)
    assert validate_binary_data(X, y, 2)[0].dtype == np.int64


def test_both_validators_name_a_bad_shape():
    from occamlearn.trees.dtmax.data import OrderedData
    from occamlearn.trees.exact.data import validate_binary_data

    with pytest.raises(ValueError, match=r"X must be a 2-D 0/1 matrix; got .* shape \(3,\)"):
        validate_binary_data(np.zeros(3), np.zeros(3, dtype=int), 2)
    with pytest.raises(ValueError, match=r"X must be a 2-D matrix; got .* shape \(3,\)"):
        OrderedData.from_matrix(np.zeros(3), np.zeros(3, dtype=int), 2)
    for validate in (lambda X, y: validate_binary_data(X, y, 2),
                     lambda X, y: OrderedData.from_matrix(X, y, 2)):
        with pytest.raises(ValueError, match=r"one class index per row of X \(3\); got shape"):
            validate(np.zeros((3, 2)), np.zeros(2, dtype=int))
