"""How a raw cell is read: missing values, dates, numbers among text, decimal commas, labels.

The binarisers read a column one way, in ``fit`` and again for new data (``_columns``); the
pieces that decide *what a value is* live here:

* ``missing_mask`` (in ``model.conditions``): NaN, None, ``pd.NA`` and ``NaT`` alike.
* ``reading``: a training column is ``"text"``, ``"mixed text"`` (numbers and non-numeric
  text: every number read as the text it prints as, so ``2`` is the category ``'2'``),
  ``"numbers"`` (including an object column of numbers, numbers mixed with numeric text, and
  text whose every value is a number with a decimal comma, ``'1,5'``) or ``"dates"``
  (datetime64, ``pd.Timestamp``/``datetime``/``date`` objects); the mixed and decimal-comma
  cases warn.
* ``to_days``: dates as days since 1970-01-01 (``model.conditions.days_since_epoch``).
* ``column_label``: a non-string DataFrame label ``L`` prints as ``x[L]``;
  ``check_unique_names``: repeated names are a ``ValueError`` naming them.
* ``warn_new_missing``: the warning for missing values in a column that had none in fit.
"""

from __future__ import annotations

import datetime
import math
import numbers
import re
import warnings

import numpy as np
import pandas as pd

from occamlearn.model.conditions import days_since_epoch, missing_mask

__all__ = [
    "check_unique_names",
    "column_dtypes",
    "column_label",
    "decimal_points",
    "raw",
    "reading",
    "to_days",
    "to_text",
    "warn_new_missing",
    "where",
]


def where(name: str, row: int) -> str:
    return f"column {name!r} (row {row})"


def column_label(label) -> str:
    """The printed name of a DataFrame column: a string as itself, any other label ``L`` as
    ``x[L]`` (so a condition reads ``x[0] < 1``, not ``0 < 1``)."""
    return label if isinstance(label, str) else f"x[{label}]"


def check_unique_names(X) -> None:
    """ValueError naming the repeated column names of a DataFrame."""
    columns = X.columns if isinstance(X.columns, pd.Index) else pd.Index(X.columns)
    if columns.has_duplicates:
        repeated = list(dict.fromkeys(columns[columns.duplicated()]))
        raise ValueError(f"X repeats the column name(s) {', '.join(map(repr, repeated))}: "
                         "give every column its own name")


_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+(,\d+)?\s*$")


def raw(column) -> np.ndarray:
    return column.to_numpy() if isinstance(column, pd.Series) else np.asarray(column)


def decimal_points(values: np.ndarray) -> np.ndarray:
    """``values`` with each text like ``'1,5'`` rewritten ``'1.5'``."""
    out = np.array(values, dtype=object)
    for k, v in enumerate(out):
        if isinstance(v, str) and "," in v and _DECIMAL_COMMA.match(v):
            out[k] = v.replace(",", ".")
    return out


def _is_decimal_comma_text(present: np.ndarray) -> bool:
    """Every value is text like ``'3'`` or ``'1,5'``, at least one with a comma."""
    return bool(present.size) and all(
        isinstance(v, str) and _DECIMAL_COMMA.match(v) for v in present
    ) and any("," in v for v in present)


def _is_plain_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, (bool, np.bool_))


def _number_text(v) -> str:
    """A number as the text a person would type: ``2`` for 2 and 2.0, ``2.5`` for 2.5."""
    if isinstance(v, (bool, np.bool_)) or not _is_plain_number(v):
        return str(v)
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def is_datetime(column) -> bool:
    if isinstance(column, pd.Series) and pd.api.types.is_datetime64_any_dtype(column.dtype):
        return True
    values = raw(column)
    if values.dtype.kind == "M":
        return True
    if values.dtype.kind != "O" or isinstance(getattr(column, "dtype", None),
                                              pd.CategoricalDtype):
        return False
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind not in ("datetime", "datetime64", "date", "mixed"):
        return False
    present = values[~missing_mask(values)]
    return bool(present.size) and all(
        isinstance(v, (datetime.date, np.datetime64)) for v in present
    )


def to_text(values: np.ndarray) -> np.ndarray:
    """Numbers among ``values`` as their text (``2`` -> ``'2'``); missing stays None."""
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        return values
    return np.array([v if v is None or isinstance(v, str) else _number_text(v)
                     for v in values], dtype=object)


def to_days(name: str, column) -> np.ndarray:
    values = raw(column)
    days = days_since_epoch(values)
    bad = np.flatnonzero(np.isnan(days) & ~missing_mask(values))
    if bad.size:
        raise ValueError(f"{where(name, int(bad[0]))} holds dates, but {values[bad[0]]!r} is "
                         "not one")
    return days


def reading(name: str, column, override: str | None, *, textual: bool) -> str:
    """How to read a training column: ``"text"`` (categorical), ``"numbers"`` or
    ``"dates"``, warning when a mixed or decimal-comma column is read as numbers or text."""
    if override is None and is_datetime(column):
        return "dates"
    if override == "continuous":
        return "numbers"
    if not textual:  # neither forced categorical nor of a text kind (``_columns``)
        return "numbers"
    values = raw(column)
    if isinstance(getattr(column, "dtype", None), pd.CategoricalDtype) or values.dtype.kind != "O":
        return "text"
    present = values[~missing_mask(values)]
    texts = [v for v in present if isinstance(v, str)]
    numbers_ = [v for v in present if _is_plain_number(v)]
    if override is None and present.size and all(
            _is_plain_number(v) or isinstance(v, (bool, np.bool_)) for v in present):
        return "numbers"  # an object column of numbers (and None, NaN, pd.NA): numeric
    if override is None and _is_decimal_comma_text(present):
        example = next(v for v in present if "," in v)
        warnings.warn(f"column {name!r} holds numbers written with a decimal comma "
                      f"({example!r}): read as numbers ({example.replace(',', '.')}); pass "
                      f"categorical=[{name!r}] to keep it as text", UserWarning, stacklevel=5)
        return "numbers"
    if texts and numbers_:
        numeric = all(_DECIMAL_COMMA.match(v) or _is_number_text(v) for v in texts)
        if override is None and numeric and len(texts) + len(numbers_) == len(present):
            warnings.warn(f"column {name!r} mixes numbers and numeric text ({numbers_[0]!r}, "
                          f"{texts[0]!r}): read as numbers", UserWarning, stacklevel=5)
            return "numbers"
        warnings.warn(f"column {name!r} mixes numbers and text ({numbers_[0]!r}, {texts[0]!r}):"
                      " read as text, a number as the text it prints as (2 is '2')",
                      UserWarning, stacklevel=5)
        return "mixed text"
    return "text"


def _is_number_text(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def warn_new_missing(spec, absent: np.ndarray) -> None:
    if spec.missing or not absent.any():
        return
    rows = np.flatnonzero(absent)
    shown = ", ".join(map(str, rows[:5])) + (", ..." if rows.size > 5 else "")
    warnings.warn(
        f"column {spec.name!r} had no missing values in fit but is missing in row(s) {shown}: "
        "every condition on it is false there (a tree takes each such test's 'no' branch, a "
        "rule on it does not fire)",
        UserWarning,
        stacklevel=4,
    )


def column_dtypes(X) -> list:
    """``list(X.dtypes)`` for a DataFrame ``X``, from its block manager's array of dtypes
    (what ``DataFrame.dtypes`` wraps in a Series, at 15-20 us a call on a small frame)
    when pandas has one of the right length; otherwise from ``X.dtypes``."""
    read = getattr(getattr(X, "_mgr", None), "get_dtypes", None)
    if type(X) is pd.DataFrame and read is not None:
        dtypes = read()
        if len(dtypes) == X.shape[1]:
            return list(dtypes)
    return list(X.dtypes)
