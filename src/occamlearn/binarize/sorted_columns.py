"""Numeric training columns summarised from one sort each, a block of columns at a time.

Read one at a time, a numeric column cost the readable binariser three sorts and a binary
search of every value: ``np.unique`` for its kind and domain (``_columns._numeric_spec``),
``np.unique(..., return_inverse=True)`` for its cuts (``cut_points.column_cuts``) and
``np.searchsorted(distinct, values)`` for its label-blind quantiles
(``cut_points.quantile_gaps``). On a wide table (6,000 x 3,000 floats) those calls were most
of the fit. Here the columns of a block are sorted together (one row per column, contiguous),
or arg-sorted when labels are given, and each column's

* ``distinct``: its present values' ``np.unique``,
* ``run_ends``: for each distinct value, how many present values are at most it (the
  ``np.cumsum`` of ``np.bincount`` of the positions ``np.unique`` returns),
* ``lowest``/``highest`` (with labels): the least and the largest label code of the rows on
  each distinct value (what ``cut_points`` reduced with ``np.minimum.at``/``np.maximum.at``),

are read off where the sorted values change.

Why they are the same numbers. A sorted row holds the present values in increasing order and
the missing ones (NaN) after them (numpy sorts NaN last), so with ``p`` present values the
distinct ones are the first of each run of equal values among the first ``p``: exactly what
``np.unique`` keeps (it sorts and keeps ``aux[i]`` where ``aux[i] != aux[i - 1]``). The run of
the ``k``-th distinct value ends after position ``run_ends[k] - 1``, so ``run_ends[k]`` counts
the values at most it, which is the cumulated count of the values equal to each distinct
value up to it, as integers. The rows of a run are the rows holding that value, so the least
and the largest label code over the run are the ones ``np.minimum.at``/``np.maximum.at`` find.
The one freedom: ``-0.0 == 0.0``, and which of the two a sort puts first in a run is not
specified, by ``np.unique`` either; they are equal numbers and give the same cuts.
``tests/binarize/test_sorted_columns.py`` checks the binariser's output against the one
column at a time on random columns with NaN, ties, whole numbers and few rows.

Memory: a block holds at most ``SORT_BLOCK_BYTES`` of values; its sorted copy is as large
(with labels, its order and labels take twice that more). What is
kept per column is its ``distinct`` and ``run_ends`` (and the two label arrays), at most a
copy of the column each, no more than ``column_cuts`` held per column before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["SORT_BLOCK_BYTES", "SortedColumn", "array_columns", "sorted_summaries",
           "transposed"]

# A block of columns holds at most this many bytes of float64 values (at least one column);
# its sorted copy is as large, and with labels its order and labels twice that more. A
# deadline is read between blocks (a block of 16 MiB took 0.05-0.1 s to sort and summarise).
SORT_BLOCK_BYTES = 16 * 2**20


def block_width(n_rows: int) -> int:
    """Columns per block (``SORT_BLOCK_BYTES`` of float64 values, at least one column)."""
    return max(1, SORT_BLOCK_BYTES // max(8 * n_rows, 1))


@dataclass(frozen=True)
class SortedColumn:
    """A numeric column's present values summarised from its sorted copy (module
    docstring): ``distinct`` values, ``run_ends`` (present values at most each), and with
    labels the ``lowest`` and ``highest`` label code on each distinct value."""

    distinct: np.ndarray
    run_ends: np.ndarray
    lowest: np.ndarray | None = None
    highest: np.ndarray | None = None


def array_columns(X: np.ndarray, overrides: list, deadline=None) -> list:
    """``_training_columns.training_columns`` of a 2-D array: each column of a bool, integer
    or float array as ``ReadNumbers`` (a contiguous float64 row of a transposed copy made
    ``SORT_BLOCK_BYTES`` at a time) unless ``overrides`` forces it categorical or it holds
    +-inf, every other as ``X[:, j]``. Once ``deadline`` (None: none) has expired, after a
    first block, the numeric columns not read yet are None (the caller leaves them out).

    Why this is what ``fit_column`` reads from ``X[:, j]``: a numeric array column is not
    textual nor dates, so its reading is "numbers" and ``_to_float`` makes its values float64
    (``astype``), bool ones as flags; an array's float column is continuous by its values,
    not its dtype (``from_frame=False``). The copy is the table's size once, what the
    per-column ``values[present]`` copies took before (``BaseBinarizer._fit`` no longer
    copies a column without missing values)."""
    from occamlearn.binarize._training_columns import ZERO_ONE, ReadNumbers, zero_one_rows

    columns = [X[:, j] for j in range(X.shape[1])]
    if X.dtype.kind not in "biuf" or X.shape[1] == 0:
        return columns
    width = block_width(X.shape[0])
    for start in range(0, X.shape[1], width):
        if start and deadline is not None and deadline.expired():
            columns[start:] = [None if o != "categorical" else c
                               for c, o in zip(columns[start:], overrides[start:])]
            break
        block = transposed(X[:, start:start + width])
        finite = ~np.isinf(block).any(axis=1)
        zero_one = zero_one_rows(block, X.dtype.kind)
        for j, (values, ok, binary) in enumerate(zip(block, finite, zero_one), start):
            if ok and overrides[j] != "categorical":
                columns[j] = ReadNumbers(values, X.dtype.kind, ZERO_ONE if binary else None,
                                         from_frame=False)
    return columns


# Rows copied at a time by ``transposed``: a tile of 512 rows of a 16 MiB block fits the
# caches, where ``np.ascontiguousarray(X[:, a:b].T)`` walked the rows once per column (6,000
# x 3,000 floats: 0.13 s in tiles against 0.65 s, same run).
TILE_ROWS = 512


def transposed(part: np.ndarray, dtype=np.float64, tile_rows: int = TILE_ROWS) -> np.ndarray:
    """``np.ascontiguousarray(part.T, dtype=dtype)``, copied ``tile_rows`` rows at a time
    (each tile's rows stay in the cache while its columns are written)."""
    out = np.empty((part.shape[1], part.shape[0]), dtype=dtype)
    for i in range(0, part.shape[0], tile_rows):
        out[:, i:i + tile_rows] = part[i:i + tile_rows].T
    return out


def sorted_summaries(columns: list, labels: np.ndarray | None, deadline=None) -> list:
    """``columns`` (``_training_columns.training_columns``'s list) with every ``ReadNumbers`` whose
    distinct values are not known yet given its ``SortedColumn`` (``summary``) and distinct
    values, its block sorted once; the other entries unchanged.

    ``deadline`` (a ``stopping.Deadline`` or None) is read between blocks: once it has
    expired, the columns not summarised yet are returned as None (the caller leaves them
    out and says so); the first block is always read, so a fit has columns to learn from.
    """
    from occamlearn.binarize._training_columns import ReadNumbers

    wanted = [j for j, c in enumerate(columns)
              if isinstance(c, ReadNumbers) and c.distinct is None]
    if not wanted:
        return columns
    out = list(columns)
    width = block_width(len(columns[wanted[0]].values))
    for start in range(0, len(wanted), width):
        if start and deadline is not None and deadline.expired():  # the first block: always
            for j in wanted[start:]:
                out[j] = None
            break
        block = wanted[start:start + width]
        summaries = _block_summaries(np.stack([columns[j].values for j in block]), labels)
        for j, summary in zip(block, summaries):
            out[j] = replace(columns[j], distinct=summary.distinct, summary=summary)
    return out


def _block_summaries(block: np.ndarray, labels: np.ndarray | None) -> list[SortedColumn]:
    """One ``SortedColumn`` per row of ``block`` (a column per row, float64, NaN where
    missing); ``block`` is sorted in place when there are no labels."""
    if labels is None:
        block.sort(axis=1)
        ordered, coded = block, None
    else:
        order = np.argsort(block, axis=1)
        ordered = np.take_along_axis(block, order, axis=1)
        coded = np.asarray(labels, dtype=np.int64)[order]
        del order
    present = ordered.shape[1] - np.isnan(ordered).sum(axis=1)  # NaN sorts last
    changes = ordered[:, 1:] != ordered[:, :-1]
    out = []
    for r, p in enumerate(present.tolist()):
        if p == 0:
            empty = np.zeros(0, dtype=np.int64)
            out.append(SortedColumn(np.zeros(0), empty, None if coded is None else empty,
                                    None if coded is None else empty))
            continue
        ends = np.flatnonzero(changes[r, :p - 1]) + 1
        starts = np.concatenate(([0], ends))
        run_ends = np.concatenate((ends, [p]))
        distinct = ordered[r, starts]
        if coded is None:
            out.append(SortedColumn(distinct, run_ends))
        else:
            row = coded[r, :p]
            out.append(SortedColumn(distinct, run_ends, np.minimum.reduceat(row, starts),
                                    np.maximum.reduceat(row, starts)))
    return out
