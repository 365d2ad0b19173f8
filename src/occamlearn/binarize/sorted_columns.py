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

Memory: the sorted copy of a block (and its order and labels, with labels) is at most
``SORT_BLOCK_BYTES``; a table wider than that is sorted in blocks of fewer columns. What is
kept per column is its ``distinct`` and ``run_ends`` (and the two label arrays), at most a
copy of the column each, no more than ``column_cuts`` held per column before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["SORT_BLOCK_BYTES", "SortedColumn", "sorted_summaries"]

# The sorted copy of one block of columns (with labels: also its order and its labels, 24
# bytes a cell instead of 8) stays within this many bytes.
SORT_BLOCK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class SortedColumn:
    """A numeric column's present values summarised from its sorted copy (module
    docstring): ``distinct`` values, ``run_ends`` (present values at most each), and with
    labels the ``lowest`` and ``highest`` label code on each distinct value."""

    distinct: np.ndarray
    run_ends: np.ndarray
    lowest: np.ndarray | None = None
    highest: np.ndarray | None = None


def sorted_summaries(columns: list, labels: np.ndarray | None, deadline=None) -> list:
    """``columns`` (``_columns.training_columns``'s list) with every ``ReadNumbers`` whose
    distinct values are not known yet given its ``SortedColumn`` (``summary``) and distinct
    values, its block sorted once; the other entries unchanged.

    ``deadline`` (a ``stopping.Deadline`` or None) is read between blocks: once it has
    passed, the columns not summarised yet are returned as None, and the caller drops them.
    """
    from occamlearn.binarize._columns import ReadNumbers

    wanted = [j for j, c in enumerate(columns)
              if isinstance(c, ReadNumbers) and c.distinct is None]
    if not wanted:
        return columns
    out = list(columns)
    n_rows = len(columns[wanted[0]].values)
    per_cell = 8 if labels is None else 24
    width = max(1, SORT_BLOCK_BYTES // max(per_cell * n_rows, 1))
    for start in range(0, len(wanted), width):
        if deadline is not None and deadline.passed():
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
