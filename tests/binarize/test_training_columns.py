"""``training_columns`` reads a DataFrame's plain numeric columns in one pass per dtype and its
category columns from their codes: each column's spec, cleaned values and errors from
``fit_column`` are those of reading its Series alone, on drawn tables of every numpy numeric
dtype and of categories of numbers, text, flags and a mix, with missing values, infinities,
constant and 0/1 columns and every override."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from occamlearn.binarize import ThresholdBinarizer
from occamlearn.binarize._columns import fit_column
from occamlearn.binarize._training_columns import ReadCategories, ReadNumbers, training_columns

DTYPES = ["int8", "int64", "uint16", "uint64", "float32", "float64", "bool", "Int64",
          "category", "object categories", "int categories", "float categories", "mixed categories",
          "bool categories", "object"]
VALUES = [0.0, 1.0, 2.0, -3.0, 0.5, 1e300, np.nan, np.inf, -np.inf, -0.0]


@st.composite
def frames(draw):
    n = draw(st.integers(1, 12))
    columns, overrides = {}, []
    for j in range(draw(st.integers(1, 6))):
        dtype = draw(st.sampled_from(DTYPES))
        picks = draw(st.lists(st.integers(0, len(VALUES) - 1), min_size=n, max_size=n))
        values = np.array([VALUES[k] for k in picks])
        if dtype == "bool":
            column = pd.Series(values == 1.0)
        elif dtype.startswith(("int", "uint")) and not dtype.endswith("categories"):
            finite = np.where(np.isfinite(values), values, 2.0)
            column = pd.Series((np.abs(finite) % 4).astype(dtype))
        elif dtype == "Int64":
            column = pd.array([None if not np.isfinite(v) else int(abs(v) % 3)
                               for v in values], dtype="Int64")
        elif dtype == "category":
            column = pd.Categorical([None if np.isnan(v) else str(v) for v in values])
        elif dtype == "object categories":
            column = pd.Categorical(pd.Series([None if np.isnan(v) else str(v)
                                               for v in values], dtype=object))
        elif dtype == "int categories":
            column = pd.Categorical([None if not np.isfinite(v) else int(abs(v) % 3)
                                     for v in values], categories=[2, 0, 1, 7])
        elif dtype == "float categories":
            column = pd.Categorical([None if np.isnan(v) else v for v in values])
        elif dtype == "mixed categories":
            column = pd.Categorical([None if np.isnan(v) else ("a" if v < 0 else 1)
                                     for v in values], categories=[1, "a", "b"])
        elif dtype == "bool categories":
            column = pd.Categorical([None if np.isnan(v) else bool(v > 0) for v in values])
        elif dtype == "object":
            column = pd.Series([None if np.isnan(v) else float(v) for v in values],
                               dtype=object)
        else:
            with np.errstate(over="ignore"):  # 1e300 is inf in float32
                column = pd.Series(values.astype(dtype))
        columns[f"c{j}"] = column
        overrides.append(draw(st.sampled_from([None, "continuous", "categorical"])))
    return pd.DataFrame(columns), overrides


def _fitted(name, index, column, override):
    """(spec, values as a list with NaN written out) or the error raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec, values = fit_column(name, index, column, override=override)
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return spec, values.dtype, [repr(v) for v in values.tolist()]


@settings(max_examples=150, deadline=None)
@given(frames())
def test_columns_read_at_once_are_read_as_the_series(table):
    frame, overrides = table
    read = training_columns(frame, overrides)
    assert len(read) == frame.shape[1]
    for j, (name, override) in enumerate(zip(frame.columns, overrides)):
        series = frame.iloc[:, j]
        plain = (isinstance(series.dtype, np.dtype) and series.dtype.kind in "biuf"
                 and override != "categorical")
        finite = not plain or not np.isinf(series.to_numpy(dtype=np.float64)).any()
        assert isinstance(read[j], ReadNumbers) == (plain and finite)
        categories = getattr(series.dtype, "categories", pd.Index([1]))
        assert isinstance(read[j], ReadCategories) == (
            isinstance(series.dtype, pd.CategoricalDtype) and override != "continuous"
            and categories.inferred_type in ("integer", "floating", "boolean", "string"))
        assert _fitted(name, j, read[j], override) == _fitted(name, j, series, override)


def test_every_dtype_of_one_frame_keeps_its_position():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, np.nan, 2.0], "c": ["x", "y", "x"],
                          "d": [True, False, True], "e": np.array([7, 7, 9], dtype=np.uint8)})
    read = training_columns(frame, [None] * 5)
    assert [type(c).__name__ for c in read] == ["ReadNumbers", "ReadNumbers", "Series",
                                                "ReadNumbers", "ReadNumbers"]
    assert np.array_equal(read[1].values, [0.5, np.nan, 2.0], equal_nan=True)
    assert read[4].values.tolist() == [7.0, 7.0, 9.0] and read[3].dtype_kind == "b"


def test_a_number_seen_once_beside_missing_values_is_no_condition():
    # its domain is its range, (1.5, 1.5): two entries but one distinct value
    frame = pd.DataFrame({"x": [1.5, np.nan, 1.5], "f": [1, 0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conditions = ThresholdBinarizer().fit(frame).conditions_
    assert [str(c) for c in conditions] == ["x is missing", "f == 1"]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 40), width=st.integers(1, 5),
       dtype=st.sampled_from(["int8", "int64", "uint8", "uint64", "bool", "float64"]),
       values=st.lists(st.sampled_from([0, 1, 1, 0, 2, -1, 0.5]), min_size=200,
                       max_size=200),
       override=st.sampled_from([None, "continuous"]))
@example(n=3, width=1, dtype="float64", values=[0, 0.5, 1] + [0] * 197, override=None)
def test_zero_one_columns_known_from_the_block_are_read_as_the_series(n, width, dtype,
                                                                       values, override):
    """Columns of a numpy integer or bool dtype mostly holding 0 and 1 (the distinct values
    ``training_columns`` knows from the block's least and largest): spec and values as the
    Series', whether 0 and 1 are both there, one is, or another value is too (0.5: in a
    float column, which is not read this way)."""
    drawn = np.array(values[:n * width]).reshape(n, width)
    if dtype == "bool":
        drawn = drawn == 1
    elif dtype.startswith("uint"):
        drawn = np.abs(drawn)
    frame = pd.DataFrame(drawn.astype(dtype), columns=[f"c{j}" for j in range(width)])
    read = training_columns(frame, [override] * width)
    for j, name in enumerate(frame.columns):
        assert _fitted(name, j, read[j], override) == _fitted(name, j, frame[name], override)
        known = read[j].distinct
        series_values = frame[name].to_numpy(dtype=np.float64)
        assert known is None or np.array_equal(known, np.unique(series_values))
