"""Which cuts of a numeric column a tree needs: every gap that can matter, and how to thin.

A cut of column ``x`` is a gap between two adjacent distinct training values ``u < u'``: every
threshold ``t`` in ``(u, u']`` sends the training rows the same way (``x >= t``), so a tree
over one feature per gap is a tree over every threshold of the data. Some gaps can never be
needed, and some data need more features than a search can take; this module decides both.

**Gaps that are never needed (proof).** Call a gap a *class boundary* when the training rows
with value ``u`` or ``u'`` do not all share one label, and a *run* a maximal stretch of values
whose gaps are not boundaries (so every row in a run has the run's label). Let the *end runs*
be the run holding the smallest value and the run holding the largest. Claim: for a column
without missing values, the gaps inside an end run are never needed -- for every tree ``T``
over all thresholds there is a tree ``T'`` without them that has no more leaves, no greater
depth, and classifies correctly every training row ``T`` classifies correctly. So the minimum
pure tree, the smallest tree within an error budget (weighted or not) and the most accurate
tree of bounded depth are the same over the kept gaps as over all thresholds.

  Proof, by induction on the rows ``S`` reaching the root of ``T`` (and on ``T``'s size).
  A leaf is its own ``T'``. A root whose split leaves a side empty is replaced by the other
  child's ``T'`` (fewer leaves). Let the root cut ``x >= t`` inside the first run, whose
  values ``v_1 < ... < v_r`` all carry label ``c``: the left side ``L`` holds only rows with
  ``x <= v_r``, all of label ``c``. If the run is the whole column, every row has label
  ``c`` and the leaf ``c`` is ``T'``. Otherwise the gap ``(v_r, v_{r+1})`` is a boundary and
  kept; let ``T'`` test it, with the leaf ``c`` on the left (every row with ``x <= v_r`` has
  label ``c``: all correct) and, on the right, the ``T'`` of the rows ``R' = S & (x > v_r)``
  under ``T``'s right subtree (``R'`` is inside the right side of ``t`` and smaller than
  ``S``: induction; if ``R'`` is empty, every row of ``S`` has label ``c`` and the leaf
  ``c`` alone is ``T'``). Leaves ``1 + leaves(T'_R) <= leaves(T_L) + leaves(T_R)``, the depth
  does not grow, and every row of ``R'`` is classified as ``T`` classified it. The last run
  is the mirror image; a kept root cut recurses into both children (a kept gap is one
  feature, which splits every row set as any threshold in the gap does). The induction is
  on ``(|S|, size of T)``, which every step makes smaller. QED.

  Why only the end runs: a gap inside a run in the middle *can* be needed. Rows ``(x, z, y)``
  = (1, 5, 0), (1, 4, 1), (2, 1, 1), (4, 5, 1), (5, 3, 0), (5, 4, 1): the gap between
  ``x = 2`` and ``x = 4`` is no class boundary (both rows have label 1), yet the only pure
  trees of 4 leaves cut it (``x >= 3``, then ``z >= 5`` on the left and ``z >= 4`` on the
  right); over the class-boundary cuts alone the minimum is 5 leaves. A cut that separates
  two rows of one label can let each join a different subtree for free. So the gaps of a
  middle run are all kept, and class boundaries only guide thinning, below.

  With missing values the proof does not go through (a cut sends the missing rows to one
  side, so ``L`` may hold rows of any label), so a column with missing values in fit keeps
  every gap.

**Thinning.** When a column must keep fewer cuts than it has (``max_thresholds``, or the
estimators' feature budget), its class-boundary gaps come first and the cuts are spread by
weighted quantiles: the chosen gaps are the ones nearest to ``k`` evenly spaced shares of the
rows' total weight below them, so integer weights act exactly as repeated rows. Without
labels every gap is a candidate and the label-blind rule of ``quantile_gaps`` applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_TINY = float(np.finfo(np.float64).tiny)
_LARGEST = int(np.iinfo(np.int64).max)

__all__ = ["ColumnCuts", "column_cuts", "label_codes", "level_within", "nearest_shares",
           "quantile_gaps", "thinned"]


@dataclass(frozen=True)
class ColumnCuts:
    """The cuts of one numeric column that can matter.

    distinct : sorted distinct present training values (weight-0 rows left out)
    gaps : indices ``i`` of the candidate gaps ``(distinct[i - 1], distinct[i])``, increasing
    boundary : per candidate, whether it is a class boundary (all False without labels)
    share : per candidate, the weight of the training rows below it over the total weight
    """

    distinct: np.ndarray
    gaps: np.ndarray
    boundary: np.ndarray
    share: np.ndarray

    @property
    def n_gaps(self) -> int:
        return int(self.gaps.size)


def label_codes(y) -> np.ndarray:
    """One integer code per row for any label array (a 2-D ``y``: one code per distinct
    row of labels), equal codes exactly for equal labels."""
    y = np.asarray(y)
    if y.ndim > 1:
        y = y.reshape(len(y), -1)
        _, codes = np.unique(y.astype(str), axis=0, return_inverse=True)
        return codes.ravel().astype(np.int64)
    try:
        _, codes = np.unique(y, return_inverse=True)
    except TypeError:  # mixed objects: compare their text
        _, codes = np.unique(y.astype(str), return_inverse=True)
    return codes.ravel().astype(np.int64)


def column_cuts(values: np.ndarray, labels: np.ndarray | None = None,
                weight: np.ndarray | None = None, *, missing: bool = False,
                summary=None) -> ColumnCuts:
    """The candidate cuts of a column's present training ``values`` (float, no NaN).

    ``labels`` (integer codes per row, or None) find the class boundaries and, for a column
    without ``missing`` values, drop the gaps inside the end runs (module docstring);
    ``weight`` (non-negative per row, or None) places the shares, and rows of weight 0 are
    left out altogether, as if absent. ``summary``: the column's ``SortedColumn`` (made with
    these labels, or without labels when ``labels`` is None), which gives the distinct
    values, counts and label ranges without sorting again when there are no weights.
    """
    if summary is not None and weight is None \
            and (labels is None or summary.lowest is not None):
        distinct, run_ends = summary.distinct, summary.run_ends
        below = run_ends[:-1] / max(float(run_ends[-1]) if run_ends.size else 0.0, _TINY)
        if labels is not None and distinct.size >= 2:
            boundary = _boundaries(summary.lowest, summary.highest)
            return _kept_cuts(distinct, boundary, below, missing)
        gaps = np.arange(1, distinct.size)
        return ColumnCuts(distinct, gaps, np.zeros(gaps.size, dtype=bool), below)
    values = np.asarray(values, dtype=np.float64)
    if weight is not None:
        weight = np.asarray(weight, dtype=np.float64)
        present = weight > 0
        values, weight = values[present], weight[present]
        labels = None if labels is None else np.asarray(labels)[present]
    distinct, position = np.unique(values, return_inverse=True)
    position = position.ravel()
    per_value = np.bincount(position, weights=weight, minlength=distinct.size)
    below = np.cumsum(per_value)[:-1] / max(float(per_value.sum()), _TINY)
    gaps = np.arange(1, distinct.size)
    if labels is None or distinct.size < 2:
        return ColumnCuts(distinct, gaps, np.zeros(gaps.size, dtype=bool), below)
    boundary = _class_boundaries(position, np.asarray(labels), distinct.size)
    return _kept_cuts(distinct, boundary, below, missing)


def _kept_cuts(distinct: np.ndarray, boundary: np.ndarray, below: np.ndarray,
               missing: bool) -> ColumnCuts:
    """The cuts of a labelled column: all gaps but those inside its end runs when it has no
    ``missing`` values (module docstring)."""
    gaps = np.arange(1, distinct.size)
    keep = np.ones(gaps.size, dtype=bool)
    if not missing:
        inside = np.flatnonzero(boundary)
        if inside.size == 0:  # one label on the whole column: no cut can matter
            keep[:] = False
        else:
            keep[:inside[0]] = False
            keep[inside[-1] + 1:] = False
    return ColumnCuts(distinct, gaps[keep], boundary[keep], below[keep])


def _class_boundaries(position: np.ndarray, labels: np.ndarray, n_values: int) -> np.ndarray:
    """Per gap between adjacent distinct values: the rows on its two values do not all
    share one label."""
    labels = np.asarray(labels, dtype=np.int64)
    lowest = np.full(n_values, _LARGEST)
    highest = np.full(n_values, -_LARGEST)
    np.minimum.at(lowest, position, labels)
    np.maximum.at(highest, position, labels)
    return _boundaries(lowest, highest)


def _boundaries(lowest: np.ndarray, highest: np.ndarray) -> np.ndarray:
    """Class boundaries from the least and largest label code on each distinct value."""
    single = lowest == highest  # every row on the value has that one label
    same = single[:-1] & single[1:] & (lowest[:-1] == lowest[1:])
    return ~same


def nearest_shares(share: np.ndarray, k: int) -> np.ndarray:
    """Indices of ``k`` of the increasing ``share`` values, one nearest to each of the
    shares ``1/(k+1), ..., k/(k+1)``, all distinct and increasing (``k <= share.size``)."""
    n = share.size
    if k >= n:
        return np.arange(n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    targets = np.arange(1, k + 1) / (k + 1)
    right = np.clip(np.searchsorted(share, targets), 1, n - 1)
    nearest = np.where(np.abs(share[right - 1] - targets) <= np.abs(share[right] - targets),
                       right - 1, right)
    rank = np.arange(k)
    chosen = np.maximum.accumulate(nearest - rank) + rank  # strictly increasing
    return np.minimum(chosen, n - k + rank)                # and leaving room for the rest


def thinned(cuts: ColumnCuts, k: int) -> np.ndarray:
    """The gap indices to cut when the column keeps at most ``k`` of its candidates: every
    class boundary first (spread by weighted quantiles if they alone are more than ``k``),
    then the other candidates nearest to the remaining quantiles."""
    if k >= cuts.n_gaps:
        return cuts.gaps
    boundary = np.flatnonzero(cuts.boundary)
    if boundary.size >= k:
        return cuts.gaps[boundary[nearest_shares(cuts.share[boundary], k)]]
    others = np.flatnonzero(~cuts.boundary)
    extra = others[nearest_shares(cuts.share[others], k - boundary.size)]
    return cuts.gaps[np.sort(np.concatenate([boundary, extra]))]


def quantile_gaps(values: np.ndarray, distinct: np.ndarray, cap: int,
                  weight: np.ndarray | None = None, run_ends: np.ndarray | None = None
                  ) -> np.ndarray:
    """The label-blind choice of at most ``cap`` gaps: cut just below the value at each of
    ``cap`` evenly spaced inner quantiles of the training values (ranks ``round(q (N - 1))``
    of the ``N`` rows, or of the total weight ``N``: integer weights act as repeated rows).
    ``run_ends`` (``SortedColumn``): the values at most each distinct one, the cumulated
    counts without weights, so no value is looked up."""
    n_gaps = distinct.size - 1
    if n_gaps <= cap:
        return np.arange(1, distinct.size)
    if run_ends is not None and weight is None:
        cumulative = run_ends
    else:
        position = np.searchsorted(distinct, values)
        per_value = np.bincount(position, weights=weight, minlength=distinct.size)
        cumulative = np.cumsum(per_value)
    ranks = np.round(np.linspace(0, max(cumulative[-1] - 1, 0), cap + 2)[1:-1])
    at = np.searchsorted(cumulative, ranks, side="right")
    return np.unique(np.clip(at, 1, n_gaps))


def level_within(n_gaps: np.ndarray, cost: np.ndarray, budget: int) -> int | None:
    """The largest per-column count ``k >= 1`` with ``sum(min(n_gaps, k) * cost) <=
    budget`` (water filling: short columns keep all their gaps, the rest share what is
    left); None when every column fits whole, 1 when even one cut each does not fit."""
    n_gaps, cost = np.asarray(n_gaps, dtype=np.int64), np.asarray(cost, dtype=np.int64)
    if n_gaps.size == 0 or int((n_gaps * cost).sum()) <= budget:
        return None
    low, high = 1, int(n_gaps.max())  # sum at ``high`` exceeds the budget
    while high - low > 1:
        middle = (low + high) // 2
        if int((np.minimum(n_gaps, middle) * cost).sum()) <= budget:
            low = middle
        else:
            high = middle
    return low
