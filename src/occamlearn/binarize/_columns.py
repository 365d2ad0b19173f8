"""Column reading, kind detection and value checks shared by the binarisers.

A table comes in as a DataFrame (dtypes decide) or a 2-D array (values decide); each column is
classified once, in ``fit``, into one of

* ``"binary"``: bool, or numeric with exactly the values {0, 1} -- passed through;
* ``"categorical"``: pandas ``category``/object/string (or an all-string array column) --
  unordered;
* ``"continuous"``: float (for arrays: a float column whose values are not all integral) --
  binned or cut at quantiles;
* ``"discrete"``: other integer columns -- ordered, with the distinct training values as domain;
* ``"constant"``: one distinct value -- an error or dropped, as the binariser's ``constant``
  parameter says;
* ``"identifier"``: set by the binariser afterwards for a column that names rows rather than
  describing them (``column_roles``) -- dropped;
* ``"unread"``: set by the binariser for a numeric column it had no time to read
  (``ThresholdBinarizer(time_limit=...)``) -- left out, and named in ``restriction()``.

``continuous=``/``categorical=`` lists (names or positions) override the detection. Every bad
value (inf in fit, a string in a numeric column) raises a ``ValueError`` that names the column,
the value and its row.

Values are read the way users mean them (the pieces live in ``_values``):

* Missing values -- NaN, None, ``pd.NA``, ``NaT`` alike -- are kept as missing (NaN in a
  numeric column, None in a categorical one); the binarisers learn from them (see
  ``BaseBinarizer``). A column with none in fit but some later is warned about and every
  condition on it is false there (``Condition.missing is None``).
* Dates (datetime64, ``pd.Timestamp``/``datetime`` objects) are ordered numbers: days since
  1970-01-01 (``model.conditions.days_since_epoch``), printed back as dates.
* An object column mixing numbers and text is read one way: as numbers when every text is a
  number (``'2'`` and ``2`` are the number 2), else as text (``2`` is the category ``'2'``),
  with a ``UserWarning``. A categorical column of strings reads a number later as its text,
  so ``m == 2`` holds for ``'2'`` and ``2`` alike, as printed.
* A text column whose every value is a number with a decimal comma (``'1,5'``) is numeric
  (1.5), with a ``UserWarning``; numeric columns read ``'1,5'`` as 1.5 at any time.
* Non-string column labels print as ``x[label]`` (``x[0] < 1``, never ``0 < 1``) and
  repeated column names are a ``ValueError`` naming them.

How a column is read again at ``transform`` (unseen categories, new missing values) is
``_clean_columns.clean_column``; how ``fit`` fetches many columns' values at once before
``fit_column`` classifies each is ``_training_columns``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data

from occamlearn.binarize._training_columns import ReadCategories, ReadNumbers, is_frame
from occamlearn.binarize._values import (
    check_unique_names,
    column_label,
    decimal_points,
    raw,
    reading,
    to_days,
    to_text,
)
from occamlearn.binarize._values import where as _where
from occamlearn.binarize.fit_checks import record_frame_features
from occamlearn.binarize.printed_numbers import (  # noqa: F401 - re-exported, as before
    date_between,
    shortest_between,
    shortest_threshold,
)
from occamlearn.model.conditions import missing_mask

__all__ = [
    "ColumnSpec",
    "check_range",
    "check_unique_names",
    "column_label",
    "date_between",
    "fit_column",
    "read_columns",
    "shortest_between",
    "shortest_threshold",
]


@dataclass(frozen=True)
class ColumnSpec:
    """What ``fit`` learned about one input column."""

    name: str
    index: int
    kind: str
    domain: tuple  # observed distinct values, ordered (sorted; category order for categories)
    missing: bool = False  # had missing values in fit
    dates: bool = False  # a date column, read as days since 1970-01-01


def read_columns(estimator, X, *, reset: bool, split: bool = True) -> tuple[list[str], list]:
    """Validate ``X`` (sklearn's one door) and return ``(names, columns)``.

    Columns are pandas Series for DataFrames and 1-D arrays otherwise. Names are the
    DataFrame's column names at fit, ``x0, x1, ...`` for arrays, and the fitted names later.
    ``split=False`` returns the validated table whole instead of its columns (the caller
    reads them, ``_training_columns.training_columns``).
    """
    if is_frame(X):
        check_unique_names(X)
        if not (reset and record_frame_features(estimator, X)):
            validate_data(estimator, X, skip_check_array=True, reset=reset)
        n_rows, n_cols = X.shape
        if n_rows == 0 or n_cols == 0:
            which = "0 sample(s)" if n_rows == 0 else "0 feature(s)"
            raise ValueError(
                f"Found array with {which} (shape={X.shape}) while a minimum of 1 is required."
            )
        if not split:
            return [column_label(c) for c in X.columns], X
        columns = [column for _, column in X.items()]  # by position; 2.5x iloc's speed
        if reset:
            names = [column_label(c) for c in X.columns]
        else:
            names = [spec.name for spec in estimator.columns_]
        return names, columns
    X = validate_data(estimator, X, dtype=None, ensure_all_finite=False, reset=reset)
    names = (
        [f"x{j}" for j in range(X.shape[1])]
        if reset
        else [spec.name for spec in estimator.columns_]
    )
    return names, X if not split else [X[:, j] for j in range(X.shape[1])]


def _to_float(name: str, column, *, allow_inf: bool = False) -> np.ndarray:
    """Numeric values of a column, NaN where missing; a string that is no number (a decimal
    comma is one) and, unless ``allow_inf``, +-inf raise naming column, value and row."""
    values = raw(column)
    if values.dtype.kind == "b":
        values = values.astype(np.float64)
    elif values.dtype.kind not in "iuf":
        absent = missing_mask(values)
        values = decimal_points(values)
        values[absent] = None
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
        bad = np.flatnonzero(np.isnan(numbers) & ~absent)
        if bad.size:
            first = values[bad[0]]
            if not isinstance(first, (str, bytes)):
                try:
                    float(first)
                except TypeError as exc:
                    raise TypeError(f"{_where(name, bad[0])}: {exc}") from None
            raise ValueError(f"{_where(name, bad[0])} is numeric but contains the string {first!r}")
        values = numbers
    values = values.astype(np.float64, copy=False)
    infinite = np.isinf(values)
    if infinite.any() and not allow_inf:
        row = int(np.flatnonzero(infinite)[0])
        what = "inf" if values[row] > 0 else "-inf"
        raise ValueError(f"{_where(name, row)} contains {what}: a threshold cannot be learned "
                         "next to it; clip or remove it")
    return values


def _to_objects(name: str, column) -> np.ndarray:
    """Values of a categorical column as objects, None where missing."""
    values = (
        column.to_numpy(dtype=object)
        if isinstance(column, pd.Series)
        else np.asarray(column, dtype=object)
    )
    absent = missing_mask(values)
    if absent.any():
        values = values.copy()
        values[absent] = None
    return values


def _looks_categorical(column) -> bool:
    if isinstance(column, pd.Series):
        dtype = column.dtype
        return (
            isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype)
        )
    values = np.asarray(column)
    if values.dtype.kind in "USa":
        return True
    if values.dtype.kind != "O":
        return False
    present = values[~missing_mask(values)]
    return any(isinstance(v, (str, bytes)) for v in present)


def _ordered_unique(column, values: np.ndarray) -> tuple:
    """Distinct values: category order for categories, else sorted (by repr if mixed)."""
    present = pd.unique(values)
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        seen = set(present)
        return tuple(c for c in column.cat.categories if c in seen)
    try:
        return tuple(sorted(present))
    except TypeError:
        return tuple(sorted(present, key=repr))


def _reading_of(name: str, column, override: str | None) -> str:
    textual = override == "categorical" or (override is None and _looks_categorical(column))
    return reading(name, column, override, textual=textual)


def fit_column(name, index, column, *, override: str | None) -> tuple[ColumnSpec, np.ndarray]:
    """Classify one training column; return its spec and its cleaned values (missing ones as
    NaN in numeric columns, None in categorical ones). ``column`` is a Series, a 1-D array
    or ``ReadNumbers`` / ``ReadCategories`` (``_training_columns``)."""
    if isinstance(column, ReadCategories):
        informative = len(column.domain) > 1 or (len(column.domain) == 1 and column.missing)
        return ColumnSpec(name, index, "categorical" if informative else "constant",
                          column.domain, missing=column.missing), column.values
    if isinstance(column, ReadNumbers):
        return _numeric_spec(name, index, column.values, override, dates=False,
                             is_bool=column.dtype_kind == "b",
                             frame_float=column.dtype_kind == "f" and column.from_frame,
                             distinct=column.distinct)
    reading = _reading_of(name, column, override)
    if reading in ("text", "mixed text"):
        values = _to_objects(name, column)
        if reading == "mixed text":
            values = to_text(values)
        absent = missing_mask(values)
        domain = _ordered_unique(column, values[~absent])
        informative = len(domain) > 1 or (len(domain) == 1 and absent.any())
        kind = "categorical" if informative else "constant"
        return ColumnSpec(name, index, kind, domain, missing=bool(absent.any())), values
    dates = reading == "dates"
    values = to_days(name, column) if dates else _to_float(name, column)
    return _numeric_spec(name, index, values, override, dates=dates,
                         is_bool=getattr(column, "dtype", None) is not None
                         and column.dtype.kind == "b",
                         frame_float=_is_frame_float(column))


def _numeric_spec(name, index, values, override, *, dates: bool, is_bool: bool,
                  frame_float: bool, distinct=None) -> tuple[ColumnSpec, np.ndarray]:
    """``fit_column`` for a column read as numbers (``values``, NaN where missing);
    ``is_bool``: of a bool dtype, ``frame_float``: a DataFrame column of a float dtype;
    ``distinct``: its present values' ``np.unique`` when already known (None: computed)."""
    absent = np.isnan(values)
    if distinct is None:
        distinct = np.unique(values[~absent])
    if distinct.size == 0 or (distinct.size < 2 and not absent.any()):
        kind = "constant"
    elif override == "continuous" or dates:
        kind = "continuous"
    elif is_bool or (distinct.size == 2 and distinct[0] == 0 and distinct[1] == 1):
        kind = "binary"
    elif frame_float or not np.array_equal(distinct, np.round(distinct)):
        kind = "continuous"
    else:
        kind = "discrete"
    # a continuous column's domain is its range; finite domains keep every value
    kept = distinct[[0, -1]] if kind == "continuous" and distinct.size else distinct
    domain = tuple(int(v) if float(v).is_integer() else float(v) for v in kept)
    return ColumnSpec(name, index, kind, domain, missing=bool(absent.any()), dates=dates), values


def _is_frame_float(column) -> bool:
    """A DataFrame float column is continuous by dtype, even if its values are integral."""
    return isinstance(column, pd.Series) and column.dtype.kind == "f"


def check_range(name: str, values: np.ndarray) -> None:
    """ValueError naming the column when its range overflows a float (max - min = inf)."""
    low, high = float(np.min(values)), float(np.max(values))
    if high / 2 - low / 2 > np.finfo(np.float64).max / 2:
        raise ValueError(
            f"column {name!r} spans [{low!r}, {high!r}], a range too wide for a float: "
            "rescale it, or use ThresholdBinarizer (binarizer='readable'), which cuts between "
            "values"
        )
