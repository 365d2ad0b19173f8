"""Many conditions evaluated on one table at once: ``evaluate_all``'s matrix is, column by
column, what each ``Condition.evaluate`` gives, computed in fewer array operations (the
comparisons of one column with many values in one broadcast, the ``==`` / ``!=`` tests of
many float columns in one block, a text column factorised once)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from occamlearn.model.conditions import (
    _COMPARISONS,
    _ORDERS,
    Condition,
    _column_values,
    _is_number,
    days_since_epoch,
    missing_mask,
)

__all__ = ["evaluate_all"]

# numbers by their exact type, before ``_is_number``'s abstract-class test (a binariser's
# thresholds are all of them); a bool is neither
_INT_FLOAT = (int, float)


def evaluate_all(conditions, X, n_rows: int | None = None) -> np.ndarray:
    """The 0/1 matrix whose column ``k`` is ``conditions[k].evaluate(X)`` (``uint8``); ``X``
    a DataFrame, a 2-D array or a dict of 1-D columns of ``n_rows`` values.

    The order comparisons of one numeric column with numbers (a binariser's thresholds) are
    evaluated together, one broadcast comparison of the column with all their values, and
    missing rows then take each condition's ``missing`` value, exactly as ``evaluate`` does
    one at a time; every other condition is evaluated by itself.
    """
    conditions = list(conditions)
    n_rows = len(X) if n_rows is None else n_rows
    out = np.empty((n_rows, len(conditions)), dtype=np.uint8, order="F")
    groups: dict = {}
    labels: dict = {}
    for k, c in enumerate(conditions):
        if isinstance(c, Condition) and c.op in _ORDERS \
                and (type(c.value) in _INT_FLOAT or _is_number(c.value)):
            groups.setdefault((c.column, c.index, c.op, c.dates), []).append(k)
        elif isinstance(c, Condition) and c.op in ("==", "!=") and not c.dates:
            labels.setdefault((c.column, c.index), []).append(k)
        else:
            out[:, k] = c.evaluate(X)
    float_labels = []  # (values, ks) of float columns compared with exact floats
    for (column, index), ks in labels.items():
        values = _column_values(X, column, index)
        if values.dtype.kind == "f" and all(_exact_float(conditions[k].value) for k in ks):
            float_labels.append((values, ks))
        else:
            _evaluate_labels(X, conditions, ks, column, index, out)
    if len(float_labels) == 1:
        values, ks = float_labels[0]
        _evaluate_float_labels(values, [conditions[k] for k in ks], ks, out)
    elif float_labels:
        _evaluate_float_label_columns(float_labels, conditions, out)
    for (column, index, op, dates), ks in groups.items():
        values = _column_values(X, column, index)
        if dates:
            values = days_since_epoch(values)
        if values.dtype.kind not in "biuf":  # text or objects: one at a time, as evaluate
            for k in ks:
                out[:, k] = conditions[k].evaluate(X)
            continue
        absent = missing_mask(values)
        members = [conditions[k] for k in ks]
        result = _COMPARISONS[op](values[:, None], np.array([c.value for c in members])[None, :])
        if absent.any():
            result[absent] = np.array([bool(c.missing) for c in members])[None, :]
        if ks[-1] - ks[0] == len(ks) - 1:  # a binariser's column: consecutive outputs
            out[:, ks[0]:ks[-1] + 1] = result
        else:
            out[:, ks] = result
    return np.ascontiguousarray(out)


def _exact_float(value) -> bool:
    """A Python bool, float, or int that float64 holds exactly: compared with a float64
    array, each is converted to that float64 (NEP 50), so comparing with it is comparing
    with ``float(value)``."""
    return type(value) in (bool, float) or type(value) is int and abs(value) <= 2 ** 53


def _evaluate_float_labels(values, members, ks, out) -> None:
    """``out[:, ks]`` for the ``==`` / ``!=`` conditions ``members`` of one float64 column
    whose values are all ``_exact_float``: one broadcast comparison. ``evaluate`` compares
    the column with each value (``_compare``: ``np.equal`` / ``np.not_equal``, where NaN is
    unequal to everything), then writes each condition's ``missing`` on the NaN rows; so
    here, with ``!=`` as the negation of ``==`` (which differ only on those rows)."""
    equal = values[:, None] == np.array([float(c.value) for c in members])[None, :]
    result = equal ^ np.array([c.op == "!=" for c in members])[None, :]
    absent = np.isnan(values)
    if absent.any():
        result[absent] = np.array([bool(c.missing) for c in members])[None, :]
    out[:, ks] = result


# Cells of one stacked block of ``_evaluate_float_label_columns`` (2**21 float64 values: 16 MiB);
# a wide table is compared a block of columns at a time, so the stacked copy never costs more
# than this beside the table (100,000 x 2,000 floats stacked whole would be 1.6 GB).
BLOCK_CELLS = 1 << 21


def _evaluate_float_label_columns(groups, conditions, out) -> None:
    """``_evaluate_float_labels`` for every column of ``groups`` ((values, ks) pairs) in a few
    comparisons: the columns stacked as rows of one block (float kinds stack to the widest,
    which holds each exactly, and ``_evaluate_float_labels`` compares each with float64
    values, so in the wider of the two kinds, as here), one row of it per condition, each
    compared with its condition's value, ``!=`` flipped and the NaN rows set to
    ``missing`` -- each cell the same operation on the same two numbers as there. Columns
    are stacked at most ``BLOCK_CELLS`` values at a time (every cell is computed alone, so
    the split changes no result)."""
    width = max(1, BLOCK_CELLS // max(1, len(groups[0][0])))
    for start in range(0, len(groups), width):
        _evaluate_stacked(groups[start:start + width], conditions, out)


def _evaluate_stacked(groups, conditions, out) -> None:
    """``_evaluate_float_label_columns`` on ``groups`` as one stacked block."""
    ks = [k for _, group in groups for k in group]
    members = [conditions[k] for k in ks]
    block = np.array([values for values, _ in groups])  # stacked: one length, common dtype
    if len(ks) > len(groups):  # a column with several conditions: its row repeated
        block = block[np.repeat(np.arange(len(groups)), [len(group) for _, group in groups])]
    result = block == np.array([float(c.value) for c in members])[:, None]
    result ^= np.array([c.op == "!=" for c in members])[:, None]
    absent = np.isnan(block)
    if absent.any():
        result = np.where(absent, np.array([bool(c.missing) for c in members])[:, None], result)
    out[:, ks] = result.T


def _evaluate_labels(X, conditions, ks, column, index, out) -> None:
    """``out[:, ks]`` for the ``==`` / ``!=`` conditions ``conditions[ks]`` of one column. A text or
    object column is factorised once and each condition compares its value with the column's
    distinct present values only, instead of with every row (``_compare``): rows whose values
    hash alike compare alike, so this is ``evaluate``'s result; missing rows then take each
    condition's ``missing`` value, as there."""
    values = _column_values(X, column, index)
    if values.dtype.kind == "f" and all(_exact_float(conditions[k].value) for k in ks):
        _evaluate_float_labels(values, [conditions[k] for k in ks], ks, out)
        return
    try:
        factorised = pd.factorize(values) if values.dtype.kind == "O" else None
    except TypeError:  # unhashable cells: compared row by row
        factorised = None
    if factorised is None:
        for k in ks:
            out[:, k] = conditions[k].evaluate(X)
        return
    codes, distinct = factorised  # code -1 where pd.isna, as ``missing_mask``
    members = [conditions[k] for k in ks]
    # equal[d, j]: distinct value d equals member j's value (each compared as ``_compare``
    # compares a row holding it); the last row, code -1, is the missing rows': False
    equal = np.zeros((len(distinct) + 1, len(members)), dtype=bool)
    equal[:-1] = np.fromiter((v == c.value for v in distinct for c in members), dtype=bool,
                             count=len(distinct) * len(members)).reshape(-1, len(members))
    result = equal[codes]  # each row's line of the table: all the members at once
    result ^= np.array([c.op == "!=" for c in members])  # != is == negated
    absent = codes < 0
    if absent.any():
        result[absent] = np.array([bool(c.missing) for c in members])
    out[:, ks] = result
