"""The binarisers' shortcuts past scikit-learn's and pandas' generic look-ups answer what
those look-ups answer."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import config_context, get_config
from sklearn.utils.validation import _num_samples

from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer, ThresholdBinarizer
from occamlearn.binarize import _base as binarize_base
from occamlearn.binarize._fit_inputs import row_count
from occamlearn.binarize._values import column_dtypes

NAMES = ["a", "fit", "shape", "__len__", "__array__", "columns"]


@settings(max_examples=100, deadline=None)
@given(rows=st.integers(0, 5), names=st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
def test_row_count_is_scikit_learns(rows, names):
    """A frame's row count, also with columns named like the attributes ``_num_samples``
    looks for, and for arrays and lists (handed to scikit-learn)."""
    frame = pd.DataFrame({name: np.arange(rows) for name in names}, index=range(rows))
    for X in (frame, frame.to_numpy(), frame.to_numpy().tolist()):
        assert row_count(X) == _num_samples(X)


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


FLAG_DTYPES = ["int64", "int8", "uint8", "bool", "float64"]


@st.composite
def flag_frames(draw):
    """Frames of 0/1 columns of numpy dtypes, and others: constant, 0/1/2, NaN."""
    n = draw(st.integers(1, 25))
    columns = {}
    for j in range(draw(st.integers(1, 5))):
        dtype = draw(st.sampled_from(FLAG_DTYPES))
        values = np.array(draw(st.lists(st.sampled_from([0, 1, 1, 0, 2]), min_size=n,
                                        max_size=n)))
        if draw(st.booleans()):
            values = np.minimum(values, 1)
        column = pd.Series(values == 1) if dtype == "bool" else pd.Series(values.astype(dtype))
        if dtype == "float64" and draw(st.booleans()):
            column[0] = np.nan
        columns[f"c{j}"] = column
    return pd.DataFrame(columns)


def _same_fit(ours, theirs) -> None:
    assert sorted(vars(ours)) == sorted(vars(theirs))
    for name, value in vars(theirs).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(vars(ours)[name], value) and vars(ours)[name].dtype == value.dtype
        else:
            assert vars(ours)[name] == value, name


@settings(max_examples=80, deadline=None)
@given(frame=flag_frames(), make=st.sampled_from([ThresholdBinarizer, QuantileBinarizer,
                                                  FeatureBinarizer]),
       labelled=st.booleans(), weighted=st.booleans(), seed=st.integers(0, 3))
def test_flag_columns_fit_as_the_general_loop_fits_them(frame, make, labelled, weighted,
                                                        seed):
    """0/1 columns of numpy bool and integer dtypes skip ``fit_column`` (``_fit_inputs.is_flag``):
    every fitted attribute and the matrix are those of the loop without the shortcut, with
    labels and weights (some zero) or without, for every binariser."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, len(frame))
    weight = rng.integers(0, 3, len(frame)).astype(float) if weighted else None
    if weight is not None and not weight.any():
        weight[0] = 1.0

    def fitted(shortcut: bool):
        with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
            warnings.simplefilter("ignore")
            if not shortcut:
                patch.setattr(binarize_base, "is_flag", lambda column: False)
            binarizer = make()
            try:
                if make is ThresholdBinarizer and (labelled or weighted):
                    binarizer.fit(frame, y, sample_weight=weight)
                    matrix = binarizer.transform(frame)
                elif labelled:
                    matrix = binarizer.fit(frame, y).transform(frame)
                else:
                    matrix = binarizer.fit_transform(frame)
            except ValueError as error:
                return str(error), None
            return binarizer, matrix

    ours, theirs = fitted(True), fitted(False)
    if theirs[1] is None:
        assert ours == theirs
        return
    _same_fit(ours[0], theirs[0])
    assert np.array_equal(ours[1], theirs[1])


class _OwnFit(ThresholdBinarizer):
    """A subclass whose ``fit`` is its own: always called as such."""

    calls = 0

    def fit(self, X, y=None, sample_weight=None):
        type(self).calls += 1
        return super().fit(X, y, sample_weight)


@settings(max_examples=40, deadline=None)
@given(frame=flag_frames(), nested=st.booleans(),
       params=st.sampled_from([{}, {"sides": "both"}, {"max_thresholds": 2},
                               {"max_thresholds": 0}, {"sides": "sideways"}]))
def test_nested_fit_transform_fits_as_fit_does(frame, nested, params):
    """``fit_transform`` inside a fit that skips nested validation calls the binariser's
    ``fit`` past ``_fit_context``: the same fitted state, matrix, configuration after it
    and refusals (only where scikit-learn validates: not nested) as through the wrapper."""

    def run(shortcut: bool):
        binarizer = ThresholdBinarizer(**params)
        with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch, \
                config_context(skip_parameter_validation=nested):
            warnings.simplefilter("ignore")
            if not shortcut:
                patch.setattr(binarize_base, "_CONTEXT_FITS", set())
            try:
                matrix = binarizer.fit_transform(frame)
            except ValueError as error:
                return type(error), str(error), get_config()
            return binarizer, matrix, get_config()

    ours, theirs = run(True), run(False)
    assert ours[2] == theirs[2]
    if not isinstance(theirs[0], ThresholdBinarizer):
        assert ours == theirs
        return
    _same_fit(ours[0], theirs[0])
    assert np.array_equal(ours[1], theirs[1])


def test_a_subclass_fit_is_called_when_nested():
    frame = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1.5, 2.5, 0.5, 1.0]})
    with config_context(skip_parameter_validation=True):
        _OwnFit().fit_transform(frame)
    assert _OwnFit.calls == 1
