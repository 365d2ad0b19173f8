"""A training table's columns read many at a time, for ``_columns.fit_column``.

Reading a wide table one pandas Series at a time costs more than the conversion itself, so
``fit`` reads a DataFrame's plain numeric columns in one pass per dtype (``ReadNumbers``:
float64 values, NaN where missing, and whether they are exactly 0 and 1) and its category
columns from their codes (``ReadCategories``); a 2-D array's numeric columns are read in
blocks by ``sorted_columns.array_columns``. Each such column is exactly what ``fit_column``
would read from its Series (``training_columns`` says why; ``tests/binarize/
test_training_columns.py`` compares them). Classifying a column and checking its values is
``_columns``; this module only decides how its values are fetched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from occamlearn.binarize._values import column_dtypes
from occamlearn.binarize.sorted_columns import SortedColumn, array_columns

__all__ = ["ZERO_ONE", "ReadCategories", "ReadNumbers", "is_frame", "training_columns",
           "zero_one_rows"]


def is_frame(X) -> bool:
    """A pandas DataFrame, or anything read as one (columns by label and by position)."""
    return hasattr(X, "columns") and hasattr(X, "iloc")


@dataclass(frozen=True)
class ReadNumbers:
    """A training column already read as numbers (``training_columns``): its float64
    values, NaN where missing, and its dtype's kind ("b", "i", "u" or "f")."""

    values: np.ndarray
    dtype_kind: str
    distinct: np.ndarray | None = None  # np.unique(values) when known from the block
    from_frame: bool = True  # a DataFrame's column (float dtype: continuous by dtype)
    summary: SortedColumn | None = None  # read off its sorted copy (``sorted_columns``)


ZERO_ONE = np.array([0.0, 1.0])
ZERO_ONE.flags.writeable = False


@dataclass(frozen=True)
class ReadCategories:
    """A training column of a pandas category dtype already read as text
    (``training_columns``): its values as objects, None where missing, the categories its
    present rows use (in category order) and whether any row is missing."""

    values: np.ndarray
    domain: tuple
    missing: bool


def training_columns(X, overrides: list, deadline=None) -> list:
    """The columns of the DataFrame ``X`` for ``fit_column``: each column of a numpy bool,
    integer or float dtype as ``ReadNumbers``, unless ``overrides`` (one entry per column)
    forces it categorical or it holds +-inf; each column of a category dtype whose
    categories are numbers or all text as ``ReadCategories``, unless forced continuous;
    every other column as a Series.

    Why this is what ``fit_column`` reads from the Series: such a column is not textual
    (its dtype is neither object, string nor category) and not dates (nor datetime64, nor
    objects), so its reading is "numbers", and ``_columns._to_float`` makes its values float64
    (``astype``; NaN is the only missing value such a dtype holds); only its +-inf error is
    left to ``fit_column``, which names the row. Here the columns of one dtype are converted
    in one call instead of one Series at a time (a 2-D array: ``sorted_columns.array_columns``,
    in blocks, reading ``deadline``), whose per-column cost exceeds the
    conversion on small tables (``tests/binarize/test_training_columns.py`` checks the
    specs, values and errors against the Series).

    Why a category column's reading is that of its Series: its reading is "text" (its
    categories are not datetime64, so it is not read as dates), its values are
    ``to_numpy(dtype=object)`` with None where its code is -1 (categories are never
    missing values, so those are exactly the rows ``missing_mask`` finds), and a category
    is in the Series' domain when a present value equals it, that is when its code is used:
    categories are distinct, and numbers or text (not a mix, where ``True == 1``) are
    equal only when they are the same category.
    """
    if not is_frame(X):
        return array_columns(X, overrides, deadline)
    dtypes = column_dtypes(X)
    plain: dict = {}
    columns: list = [None] * len(dtypes)
    for j, (dtype, override) in enumerate(zip(dtypes, overrides)):
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf" and override != "categorical":
            plain.setdefault(dtype, []).append(j)
    read_alone = sum(len(p) for p in plain.values()
                     if len(p) < len(dtypes) and len(p) <= _FEW_COLUMNS)
    series = _series_of(X, len(dtypes) - sum(map(len, plain.values())) + read_alone)
    for j, (dtype, override) in enumerate(zip(dtypes, overrides)):
        if override != "continuous" and _plain_categories(dtype):
            columns[j] = _read_categories(series(j))
    for dtype, positions in plain.items():
        if len(positions) == X.shape[1]:  # every column: no copy of the frame first
            rows = X.to_numpy(dtype=dtype).T
        elif len(positions) <= _FEW_COLUMNS:  # a few: their Series, no frame made for them
            rows = np.array([series(j).to_numpy(dtype=dtype) for j in positions])
        else:
            rows = X.take(positions, axis=1).to_numpy(dtype=dtype).T
        block = np.ascontiguousarray(rows, dtype=np.float64)
        # a bool or integer converted to float64 is finite (uint64's largest is far below
        # float64's): only float columns can hold the infinities fit_column refuses
        finite = ~np.isinf(block).any(axis=1) if dtype.kind == "f" else [True] * len(block)
        zero_one = zero_one_rows(block, dtype.kind)
        for j, values, ok, binary in zip(positions, block, finite, zero_one):
            if ok:
                columns[j] = ReadNumbers(values, dtype.kind, ZERO_ONE if binary else None)
    return [series(j) if column is None else column for j, column in enumerate(columns)]


# Up to this many columns of one dtype in a frame of several dtypes are read from their
# Series: ``DataFrame.take`` builds a frame first, which cost more than the conversion on
# small tables (irish: two takes of 1-2 columns took a tenth of the binarising).
_FEW_COLUMNS = 16


def zero_one_rows(block: np.ndarray, kind: str) -> np.ndarray:
    """For each row of ``block`` (one column's values as float64, converted from a numpy
    bool or integer dtype of ``kind``), whether its distinct values are exactly 0 and 1.
    Such values are whole numbers, never NaN; whole numbers whose least is 0 and largest
    is 1 are 0 and 1 alone, both present, so ``np.unique`` of the row is ``[0.0, 1.0]``
    (a conversion never gives -0.0). Float columns are not read this way (all False)."""
    if kind not in "biu" or block.shape[1] == 0:
        return np.zeros(len(block), dtype=bool)
    return (block.min(axis=1) == 0.0) & (block.max(axis=1) == 1.0)


def _series_of(X, wanted: int):
    """Column position -> Series of ``X``, for about ``wanted`` columns: all made at once
    by ``items`` (a fifth of ``iloc``'s cost per column) when they are at least a quarter
    of the columns, else each by ``iloc`` when asked for."""
    if 4 * wanted < X.shape[1]:
        return lambda j: X.iloc[:, j]
    every = [column for _, column in X.items()]
    return every.__getitem__


def _plain_categories(dtype) -> bool:
    """A category dtype whose categories are numbers or all text (``training_columns``)."""
    if not isinstance(dtype, pd.CategoricalDtype):
        return False
    categories = dtype.categories.dtype
    if isinstance(categories, pd.StringDtype):
        return True
    return isinstance(categories, np.dtype) and (
        categories.kind in "biuf"
        or categories.kind == "O" and dtype.categories.inferred_type == "string")


def _read_categories(column) -> ReadCategories:
    categorical = column.array  # the Categorical: its codes and categories without copies
    codes = categorical.codes
    absent = codes < 0
    values = column.to_numpy(dtype=object)
    if absent.any():
        values[absent] = None
    used = np.bincount(codes[~absent], minlength=len(categorical.categories)) > 0
    domain = tuple(c for c, u in zip(categorical.categories, used) if u)
    return ReadCategories(values, domain, bool(absent.any()))
