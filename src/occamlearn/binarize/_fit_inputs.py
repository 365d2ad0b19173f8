"""What a binariser's ``fit`` learns from, before any column is classified.

``BaseBinarizer._fit`` first leaves out the rows of weight 0 (``rows_that_count``, which also
checks that labels and weights have one entry per row), reads the columns within the reading's
share of the binariser's ``time_limit`` (``reading_deadline``), passes numpy 0/1 columns
straight through (``is_flag``) and hands each informative column to the subclass as a
``FitColumn``. These are the facts about the training data that the transformer machinery in
``_base`` relies on; they hold no transformer state, so they live apart from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils.validation import _check_sample_weight, _num_samples

from occamlearn.binarize._columns import ColumnSpec
from occamlearn.binarize._training_columns import ZERO_ONE, ReadNumbers
from occamlearn.binarize.cut_points import label_codes
from occamlearn.binarize.sorted_columns import SortedColumn

__all__ = ["READING_SHARE", "FitColumn", "is_flag", "reading_deadline", "row_count",
           "rows_that_count"]


@dataclass(frozen=True)
class FitColumn:
    """One informative column as ``fit`` hands it to the subclass: its spec (``capped``:
    with rare categories folded), its present training values and those rows' label codes
    and weights (None when not given), and for a numeric column its ``SortedColumn`` when
    its block was sorted."""

    spec: ColumnSpec
    capped: ColumnSpec
    values: np.ndarray
    labels: np.ndarray | None
    weight: np.ndarray | None
    summary: SortedColumn | None = None  # from the sorted copy (``sorted_columns``)

    def distinct_count(self) -> int:
        """How many distinct values ``values`` holds: for categories and flags the length of
        the domain ``fit_column`` read from these same present values (every distinct one,
        before any is folded); for ordered columns counted (their domain is only the range)."""
        if self.spec.kind in ("categorical", "binary"):
            return len(self.spec.domain)
        if self.summary is not None:
            return int(self.summary.distinct.size)
        return len(pd.unique(self.values))


def is_flag(column) -> bool:
    """Whether ``column`` (``training_columns``) was read from a numpy bool or integer dtype
    whose values are 0 and 1, both present. ``BaseBinarizer._fit`` then skips ``fit_column``
    and the masks of missing rows, for what they would give: such values hold no NaN, so
    ``fit_column``'s spec is ``binary`` with domain ``(0, 1)``, no missing value and no
    dates, its values are the column's own, every row is present (the values, labels and
    weights kept are all of them, in order), the spec is its own capped spec (only
    categories are capped) and no binary column looks like an identifier
    (``identifier_reason``)."""
    return type(column) is ReadNumbers and column.distinct is ZERO_ONE \
        and column.dtype_kind in "biu"


def row_count(X) -> int:
    """scikit-learn's ``_num_samples(X)``: for a ``pandas.DataFrame`` its ``shape[0]``,
    which that function returns for it (the frame has a shape of two ints, and its ``fit``
    attribute, if any, is a column, which is not callable), without its attribute look-ups
    (a frame's missing attribute is searched among its column names)."""
    return X.shape[0] if type(X) is pd.DataFrame else _num_samples(X)


# The part of a binariser's ``time_limit`` its columns may take to read
# (``BaseBinarizer._fit``): the rest of its fit and the evaluation of its features cost about
# as much again per column read (6,000 x 3,000 floats, one cut per column: reading 0.6 of
# 1.4 CPU-s of the fit, the 0/1 matrix and its negations 0.5 more).
READING_SHARE = 0.5


def reading_deadline(time_limit):
    """The deadline of reading the columns under ``time_limit`` seconds (None: none)."""
    if time_limit is None:
        return None
    from occamlearn.stopping import Deadline

    return Deadline.after(READING_SHARE * float(time_limit))


def rows_that_count(X, y, sample_weight):
    """``(X, label codes or None, weights or None)`` with the rows of weight 0 left out;
    a ValueError when ``y`` or ``sample_weight`` does not have one entry per row."""
    if y is None and sample_weight is None:
        return X, None, None
    n_rows = row_count(X)
    labels = None
    if y is not None:
        labels = label_codes(y)
        if labels.shape[0] != n_rows:
            raise ValueError(f"y has {labels.shape[0]} labels but X has {n_rows} rows")
    weight = None
    if sample_weight is not None:
        weight = _check_sample_weight(sample_weight, np.empty((n_rows, 0)), dtype=np.float64,
                                      ensure_non_negative=True)
        if not weight.all():
            keep = np.flatnonzero(weight)
            if keep.size == 0:
                raise ValueError("sample_weight is zero for every row: no row is left to "
                                 "learn from")
            X = X.iloc[keep] if hasattr(X, "iloc") else np.asarray(X)[keep]
            weight = weight[keep]
            labels = None if labels is None else labels[keep]
    return X, labels, weight
