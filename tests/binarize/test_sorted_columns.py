"""The binarisers read numeric columns from one sorted copy per block (``sorted_columns``):
their output must be the one the column-at-a-time reading gives, bit for bit.

The reference run turns the block reading off (every column read as ``X[:, j]`` or its
Series, each summarised by ``np.unique``, ``np.unique(return_inverse=True)`` and
``np.searchsorted`` as ``_columns`` and ``cut_points`` do on their own) and the two fits are
compared: conditions (thresholds as printed), column specs, thinned columns and the 0/1
matrix, on random tables with NaN, ties, whole numbers, 0/1 flags and a few rows, with and
without labels and weights, in blocks of one column and of all.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.binarize import QuantileBinarizer, ThresholdBinarizer, _base, sorted_columns


def _column_at_a_time(X, overrides, deadline=None):
    if isinstance(X, pd.DataFrame):
        return [column for _, column in X.items()]
    return [X[:, j] for j in range(X.shape[1])]


def _reference(binarizer, X, y, weight, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(_base, "training_columns", _column_at_a_time)
        patch.setattr(_base, "sorted_summaries", lambda columns, labels, deadline=None: columns)
        return _fitted(binarizer, X, y, weight)


def _fitted(binarizer, X, y, weight):
    kwargs = {} if weight is None else {"sample_weight": weight}
    fitted = binarizer.fit(X, y, **kwargs) if y is not None else binarizer.fit(X)
    return fitted, fitted.transform(X)


def _column(draw, n_rows):
    kind = draw(st.sampled_from(["ties", "floats", "ints", "flags", "nan", "constant"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if kind == "ties":
        values = rng.integers(0, 4, n_rows) / 4 - 0.5
    elif kind == "floats":
        values = rng.normal(size=n_rows) * 10 ** draw(st.integers(-3, 3))
    elif kind == "ints":
        values = rng.integers(-5, 9, n_rows).astype(float)
    elif kind == "flags":
        values = rng.integers(0, 2, n_rows).astype(float)
    elif kind == "constant":
        values = np.full(n_rows, 2.5)
    else:
        values = rng.integers(0, 6, n_rows) * 0.3
        values[rng.random(n_rows) < 0.3] = np.nan
    return values


@st.composite
def _tables(draw):
    n_rows = draw(st.integers(1, 25))
    n_columns = draw(st.integers(1, 5))
    X = np.column_stack([_column(draw, n_rows) for _ in range(n_columns)])
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    y = rng.integers(0, draw(st.integers(1, 3)), n_rows) if draw(st.booleans()) else None
    weight = rng.integers(0, 3, n_rows).astype(float) if y is not None and draw(
        st.booleans()) else None
    if weight is not None and not weight.any():
        weight[0] = 1.0
    frame = draw(st.booleans())
    ints = draw(st.booleans()) and not np.isnan(X).any()
    if ints:
        X = np.round(X).astype(np.int64)
    return (pd.DataFrame(X, columns=[f"c{j}" for j in range(n_columns)]) if frame else X,
            y, weight)


def _same(ours, reference):
    (fitted, matrix), (expected, expected_matrix) = ours, reference
    assert fitted.conditions_ == expected.conditions_
    assert [str(c) for c in fitted.conditions_] == [str(c) for c in expected.conditions_]
    assert fitted.columns_ == expected.columns_
    assert fitted.dropped_columns_ == expected.dropped_columns_
    assert getattr(fitted, "thinned_columns_", None) == getattr(expected, "thinned_columns_",
                                                                None)
    np.testing.assert_array_equal(matrix, expected_matrix)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=_tables(), max_thresholds=st.sampled_from(["auto", 1, 2, None]),
       sides=st.sampled_from(["upper", "both"]), one_per_block=st.booleans())
def test_block_reading_matches_the_column_at_a_time(table, max_thresholds, sides,
                                                     one_per_block):
    X, y, weight = table
    with pytest.MonkeyPatch.context() as patch:
        if one_per_block:
            patch.setattr(sorted_columns, "SORT_BLOCK_BYTES", 1)
        binarizer = ThresholdBinarizer(max_thresholds=max_thresholds, sides=sides,
                                       drop_identifiers=False)
        ours = _fitted(binarizer, X, y, weight)
        _same(ours, _reference(ThresholdBinarizer(**binarizer.get_params()), X, y, weight,
                               patch))


@settings(max_examples=60, deadline=None)
@given(table=_tables())
def test_quantile_binarizer_reads_the_same(table):
    X, _, _ = table
    with pytest.MonkeyPatch.context() as patch:
        _same(_fitted(QuantileBinarizer(), X, None, None),
              _reference(QuantileBinarizer(), X, None, None, patch))


def test_a_wide_table_is_read_in_blocks(monkeypatch):
    """Blocks of 3 columns (the byte budget over the rows) give the output of one block."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 10)).round(1)
    y = rng.integers(0, 2, 50)
    whole = _fitted(ThresholdBinarizer(), X, y, None)
    monkeypatch.setattr(sorted_columns, "SORT_BLOCK_BYTES", 3 * 8 * 50)
    _same(_fitted(ThresholdBinarizer(), X, y, None), whole)


@pytest.mark.parametrize("labelled", [False, True])
def test_a_time_limit_reads_the_first_block_and_says_what_it_left_out(monkeypatch, labelled):
    """``time_limit=0``: the first block (2 columns here) is read and cut as a fit on those
    columns alone cuts them; the others are ``unread``, named, and never read at transform."""
    monkeypatch.setattr(sorted_columns, "SORT_BLOCK_BYTES", 2 * 8 * 40)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 7)).round(1)
    y = rng.integers(0, 2, 40) if labelled else None
    fitted, matrix = _fitted(ThresholdBinarizer(time_limit=0), X, y, None)
    alone, alone_matrix = _fitted(ThresholdBinarizer(), X[:, :2], y, None)
    assert fitted.unread_columns_ == [f"x{j}" for j in range(2, 7)]
    assert [s.kind for s in fitted.columns_][2:] == ["unread"] * 5
    assert fitted.conditions_ == alone.conditions_
    np.testing.assert_array_equal(matrix, alone_matrix)
    assert "5 columns not read within the time limit: 'x2', 'x3', 'x4' and 2 more" in \
        fitted.restriction()
    X_new = X.copy()
    X_new[:, 2:] = np.nan  # an unread column is never read: no warning about its NaN
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(fitted.transform(X_new), matrix)
    everything = ThresholdBinarizer(time_limit=None).fit(X, y)
    assert everything.unread_columns_ == []
    assert "not read" not in (everything.restriction() or "")
