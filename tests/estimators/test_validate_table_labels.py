"""``validate_table``'s shortcut for plain label arrays returns what scikit-learn's label
checks return, and raises what they raise."""

import contextlib
import re
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from occamlearn import DecisionListClassifier
from occamlearn.estimators._inputs import (
    _plain_labels,
    _unwrapped_labels,
    encode_labels,
    validate_table,
)


def _their_labels(X, y):
    y = column_or_1d(y, warn=True)
    y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
    check_consistent_length(X, y)
    return y


@settings(max_examples=100, deadline=None)
@given(rows=st.integers(1, 6), extra=st.integers(-2, 2),
       dtype=st.sampled_from(["int64", "int8", "uint8", "bool", "float64"]),
       step=st.integers(1, 2))
def test_plain_labels_pass_as_scikit_learn_passes_them(rows, extra, dtype, step):
    X = pd.DataFrame({"a": np.arange(rows)})
    y = (np.arange(step * max(rows + extra, 0)) % 3).astype(dtype)[::step]
    try:
        expected = _their_labels(X, y)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error)[:40])):
            validate_table(DecisionListClassifier(), X, y, reset=True)
        return
    _, ours = validate_table(DecisionListClassifier(), X, y, reset=True)
    assert _plain_labels(y) == (dtype != "float64")
    assert ours.dtype == expected.dtype and ours.tolist() == expected.tolist()


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.integers(-2, 3), min_size=1, max_size=30),
       dtype=st.sampled_from(["int64", "int32", "int8", "uint8", "uint64", "bool"]))
def test_encoded_labels_are_numpys_unique(labels, dtype):
    """``encode_labels``' shortcut for 0/1 labels gives ``np.unique``'s classes (values and
    dtype) and inverse indices (as int64), as every other label array does."""
    y = np.array(labels)
    y = (y != 0) if dtype == "bool" else (np.abs(y) if dtype.startswith("u") else y).astype(dtype)
    classes, index = encode_labels(y)
    expected, inverse = np.unique(y, return_inverse=True)
    assert classes.dtype == expected.dtype and classes.tolist() == expected.tolist()
    assert index.dtype == np.int64 and index.tolist() == inverse.tolist()



def _checked(X, y, *, shortcut: bool):
    """``validate_table``'s labels (or its ValueError), with the Series shortcut or without
    it (every Series through scikit-learn's checks, as before the shortcut)."""
    identity = mock.patch("occamlearn.estimators._inputs._unwrapped_labels", lambda y: y)
    with contextlib.nullcontext() if shortcut else identity:
        try:
            return validate_table(DecisionListClassifier(), X, y, reset=True)[1]
        except ValueError as error:
            return error


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(1, 6), extra=st.integers(-2, 2),
       dtype=st.sampled_from(["int64", "int8", "uint16", "bool", "float64", "Int64", "category",
                              "object"]),
       shuffled=st.booleans(), frame=st.booleans())
def test_series_labels_pass_as_scikit_learn_passes_them(rows, extra, dtype, shuffled, frame):
    """A Series of numpy integers or booleans is unwrapped to its array without scikit-learn's
    checks; the result (values, dtype) and the errors are what those checks give, for every
    kind of Series, with a shuffled index, beside a DataFrame or a numpy matrix."""
    n = max(rows + extra, 0)
    y = pd.Series(np.arange(n) % 3).astype(dtype)
    if shuffled:
        y.index = np.arange(n)[::-1] + 7
    X = pd.DataFrame({"a": np.arange(rows)}) if frame else np.arange(rows).reshape(-1, 1)
    taken = dtype in ("int64", "int8", "uint16", "bool") and n > 0
    assert (type(_unwrapped_labels(y)) is np.ndarray) == taken  # which Series it shortcuts
    expected, ours = _checked(X, y, shortcut=False), _checked(X, y, shortcut=True)
    if isinstance(expected, ValueError):
        assert type(ours) is ValueError and str(ours) == str(expected)
        return
    assert type(ours) is np.ndarray and type(expected) is np.ndarray
    assert ours.dtype == expected.dtype and ours.tolist() == expected.tolist()
