"""The binarisers' shortcuts past scikit-learn's and pandas' generic look-ups answer what
those look-ups answer."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.validation import _num_samples

from occamlearn.binarize._base import _row_count
from occamlearn.binarize._columns import column_dtypes

NAMES = ["a", "fit", "shape", "__len__", "__array__", "columns"]


@settings(max_examples=100, deadline=None)
@given(rows=st.integers(0, 5), names=st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
def test_row_count_is_scikit_learns(rows, names):
    """A frame's row count, also with columns named like the attributes ``_num_samples``
    looks for, and for arrays and lists (handed to scikit-learn)."""
    frame = pd.DataFrame({name: np.arange(rows) for name in names}, index=range(rows))
    for X in (frame, frame.to_numpy(), frame.to_numpy().tolist()):
        assert _row_count(X) == _num_samples(X)


DTYPES = ["int64", "int8", "uint16", "float32", "float64", "bool", "object", "category",
          "string", "datetime64[ns]", "Int64", "boolean"]


@settings(max_examples=100, deadline=None)
@given(kinds=st.lists(st.sampled_from(DTYPES), max_size=8), rows=st.integers(0, 3))
def test_column_dtypes_are_the_frames(kinds, rows):
    """The dtypes of a frame's columns, in order, for every kind of column (several blocks,
    extension dtypes, no column)."""
    frame = pd.DataFrame({f"c{j}": pd.Series(np.arange(rows) % 2, dtype="int64").astype(kind)
                          for j, kind in enumerate(kinds)}, index=range(rows))
    assert column_dtypes(frame) == list(frame.dtypes)
    assert column_dtypes(frame.iloc[:, ::-1]) == list(frame.iloc[:, ::-1].dtypes)
