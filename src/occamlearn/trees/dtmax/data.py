"""The data every DT(max) search reads: each feature as ranks of its sorted values.

Every feature is an ordered column. A numeric column becomes the rank of each row's value
among the column's distinct training values (0, 1, ...), so "rank >= t" is the test
"value >= a threshold between the (t-1)-th and t-th distinct values": every threshold between
adjacent training values is a candidate. A 0/1 column (a flag, a one-hot category) is an
ordered column with two values. ``order[f]`` holds the row ids sorted by feature f (stable),
the starting point of every pass over a node's rows.

Rows of zero weight are dropped here (a zero weight is a dropped row); weights are floats, so
integer weights behave as repeated rows.

**End runs.** The values at the low end of a column whose rows all have one label (its low
end run), and likewise at the high end, become one rank: no threshold inside an end run is
needed. Proof: take any tree with a test cutting inside the low end run. Its low side holds
rows of that one label only; move the cut to the run's end and replace the low subtree by a
leaf of that label. The low side now holds the whole run, still of one label, so the leaf
errs on none of it; the high side lost rows, so its subtree errs no more than before; and the
tree has no more tests, leaves or depth. So an optimum over the remaining thresholds is an
optimum over all of them, for the fewest (weighted) errors, then tests, within a depth or leaf
bound -- every objective of DT(max). (As the readable binariser's cuts for minimum trees,
``binarize.cut_points``.) ``values[f][t]`` is the lowest value of rank t.

The searches that need 0/1 columns (the specialised 0/1 search, the MaxSAT encoding, the
size-error frontier) read the same data as ``threshold_matrix``: one 0/1 column ``rank[f] >=
t`` per threshold t of every feature, so every search is exact over the same tests and a
tree over those columns maps back to (feature, threshold) (``ThresholdMatrix.nested``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from occamlearn.trees.exact.data import check_shapes

__all__ = ["OrderedData", "ThresholdMatrix", "memory_plan", "threshold_matrix"]

# Integer types whose every value is a float64 exactly: a matrix of one of these (a 0/1
# matrix as uint8) is read without a float copy, and reads as its float64 copy would.
EXACT_INTEGERS = tuple(np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.uint16,
                                             np.int16, np.uint32, np.int32))


@dataclass(frozen=True)
class OrderedData:
    """Ranks (features x rows, int32: ``rank[f]`` is contiguous, as every pass reads one
    feature), class indices, row weights and each feature's distinct values (``values[f][t]``
    is the value of rank t); ``order``, the sorted row ids per feature, is made when first
    read (the 0/1 search never reads it)."""

    rank: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    n_classes: int
    values: tuple

    @cached_property
    def order(self) -> np.ndarray:
        """Row ids sorted by each feature's rank, stably (features x rows, int32). A stable
        sort's result depends only on the keys, so the ranks are sorted in the narrowest
        integer type that holds them (8 or 16 bits: numpy's radix sort)."""
        rank = self.rank
        top = int(rank.max(initial=0))
        narrow = np.int8 if top <= np.iinfo(np.int8).max else (
            np.int16 if top <= np.iinfo(np.int16).max else np.int32)
        return np.argsort(rank.astype(narrow, copy=False), axis=1, kind="stable").astype(
            np.int32, copy=False)

    @property
    def n_rows(self) -> int:
        return self.rank.shape[1]

    @property
    def n_features(self) -> int:
        return self.rank.shape[0]

    @property
    def n_thresholds(self) -> int:
        """Candidate tests: one per gap between adjacent values of each feature."""
        return int(sum(max(len(v) - 1, 0) for v in self.values))

    @property
    def is_binary(self) -> bool:
        """Whether every feature takes at most two values (every test is a 0/1 column)."""
        return all(len(v) <= 2 for v in self.values)

    @classmethod
    def from_matrix(cls, X, y, n_classes: int, sample_weight=None) -> OrderedData:
        """``X``: numeric matrix (rows x features), ``y``: class indices in
        ``range(n_classes)``; ``sample_weight``: one non-negative finite float per row."""
        X = np.asarray(X)
        if X.dtype not in EXACT_INTEGERS:    # those are read as they are (``EXACT_INTEGERS``)
            X = X.astype(np.float64, copy=False)
        y = np.asarray(y)
        check_shapes(X, y, "a 2-D matrix")
        if X.dtype == np.float64 and not np.isfinite(X).all():
            row, col = np.argwhere(~np.isfinite(X))[0]
            raise ValueError(f"X holds {X[row, col]!r} at row {row}, column {col}: only "
                             "finite numbers can be ordered.")
        if len(y) and (y.min() < 0 or y.max() >= n_classes):
            raise ValueError(f"y must hold class indices in range({n_classes}).")
        weight = check_weights(sample_weight, X.shape[0])
        kept = weight > 0
        if kept.all():                   # the data's own y and weights, not the caller's
            y, weight = y.astype(np.int64), weight.copy()
        else:
            X, y, weight = X[kept], y[kept].astype(np.int64), weight[kept]
        n, n_features = X.shape
        two, two_rank, two_values = _two_valued(X, y)
        rank = two_rank.astype(np.int32)
        values = list(two_values)
        for f in np.flatnonzero(~two):
            distinct, inverse = np.unique(X[:, f].astype(np.float64), return_inverse=True)
            group = _end_runs_merged(inverse, y, len(distinct))
            rank[f] = group[inverse]
            starts = np.r_[True, group[1:] != group[:-1]] if len(group) else np.zeros(0, bool)
            values[f] = distinct[starts]
        return cls(rank, y, weight, int(n_classes), tuple(values))


def _two_valued(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    """(which columns of ``X`` take at most two values; their ranks, columns x rows, zero
    for the other columns; per column its values, None for the others): what ``np.unique``
    and ``_end_runs_merged`` give such a column, without a sort. Its ranks are 0 for the low
    value and 1 for the high one, unless every row has one label: then both values are one
    end run, one rank 0 (``_end_runs_merged``: a value whose rows all have the label of the
    lowest value's rows starts no cut)."""
    n_rows, n_features = X.shape
    if n_rows == 0:
        return np.zeros(n_features, bool), np.zeros((n_features, 0), bool), [None] * n_features
    columns = np.ascontiguousarray(X.T)      # each column's values contiguous
    low, high = columns.min(axis=1), columns.max(axis=1)
    is_high = columns == high[:, None]
    two = (is_high | (columns == low[:, None])).all(axis=1)
    low, high = low.astype(np.float64), high.astype(np.float64)
    split = two & (low != high) & (not bool(np.all(y == y[0])))   # two ranks
    two_rank = is_high & split[:, None]                 # of the other columns: zeros
    values = [None] * n_features
    for f in np.flatnonzero(two).tolist():
        values[f] = np.array([low[f], high[f]]) if split[f] else low[f:f + 1].copy()
    return two, two_rank, values


def _end_runs_merged(inverse: np.ndarray, y: np.ndarray, n_values: int) -> np.ndarray:
    """For each distinct value of a column (``inverse``: each row's), its rank once the low
    and the high end runs (module doc) are one rank each."""
    if n_values < 2:
        return np.zeros(n_values, dtype=np.int64)
    low = np.full(n_values, np.iinfo(np.int64).max)
    high = np.full(n_values, -1)
    np.minimum.at(low, inverse, y)
    np.maximum.at(high, inverse, y)
    pure = low == high                           # every row of the value has one label
    run = pure & (low == low[0])
    start = int(np.argmin(run)) if not run.all() else n_values        # first value after
    run = pure & (low == low[-1])
    end = n_values - int(np.argmin(run[::-1])) if not run.all() else 0  # first of the top run
    group = np.arange(n_values, dtype=np.int64)
    if start == n_values:                        # one label throughout: nothing to cut
        return np.zeros(n_values, dtype=np.int64)
    group[:start] = 0                            # the low run: one rank
    group[start:] -= max(start - 1, 0)
    if end < n_values:
        group[end:] = group[end]                 # the high run: one rank
    return group


def check_weights(sample_weight, n_rows: int) -> np.ndarray:
    """``sample_weight`` as float64 (ones if None); a ValueError naming the first bad row."""
    if sample_weight is None:
        return np.ones(n_rows)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.shape != (n_rows,):
        raise ValueError(f"sample_weight must hold one weight per row ({n_rows}); got shape "
                         f"{weight.shape}.")
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sample_weight must be finite and >= 0; row {row} has "
                         f"{weight[row]!r}.")
    return weight


def memory_plan(n_rows: int, n_features: int, depth: int) -> int:
    """Bytes the search holds besides its memo: ranks and sorted rows, and the sorted rows of
    both children at each level of the recursion (int32), and the columns of the one depth-2
    node being solved (at most every row: three int32 and two 8-byte arrays a cell)."""
    return 4 * n_rows * n_features * (2 + 2 * max(depth, 1)) + 28 * n_rows * n_features


@dataclass(frozen=True)
class ThresholdMatrix:
    """``X[:, j]`` is the test ``rank[feature[j]] >= threshold[j]`` (uint8 rows x tests);
    ``cuts_per_feature``: None when every threshold is there, else the most kept per
    feature (``threshold_matrix``'s thinning)."""

    X: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    cuts_per_feature: int | None = None

    def nested(self, tree) -> tuple:
        """A ``model.tree.Tree`` over these columns as the searches' nested tuple over
        (feature, rank threshold): ``("test", f, t, low, high)``, low = column 0."""
        def walk(node: int) -> tuple:
            if tree.feature[node] < 0:
                return ("leaf", int(tree.label[node]))
            j = int(tree.feature[node])
            return ("test", int(self.feature[j]), int(self.threshold[j]),
                    walk(int(tree.left[node])), walk(int(tree.right[node])))

        return walk(0)


def _quantile_thresholds(data: OrderedData, f: int, cuts: int) -> np.ndarray:
    """At most ``cuts`` thresholds of feature f, at evenly spaced quantiles of its rows'
    weight (as the readable binariser places a capped column's cuts): the rank where the
    weight below first reaches each quantile."""
    n_values = len(data.values[f])
    if n_values - 1 <= cuts:
        return np.arange(1, n_values)
    below = np.cumsum(np.bincount(data.rank[f], weights=data.weight, minlength=n_values))
    targets = below[-1] * np.arange(1, cuts + 1) / (cuts + 1)
    chosen = np.searchsorted(below, targets, side="left") + 1
    return np.unique(np.clip(chosen, 1, n_values - 1))


def threshold_matrix(data: OrderedData, max_bytes: int,
                     max_cells: int | None = None) -> ThresholdMatrix:
    """Every threshold of ``data`` as a 0/1 column -- or, when rows x thresholds exceeds
    ``max_cells``, at most as many per feature as fit it, at weighted quantiles
    (``cuts_per_feature`` says so); a ValueError when the matrix would take more than
    ``max_bytes``. Planned before anything is allocated."""
    cap = None
    if max_cells is not None and data.n_rows * data.n_thresholds > max_cells:
        cap = max(1, int(max_cells // max(1, data.n_rows * data.n_features)))
    chosen = [np.arange(1, len(v)) if cap is None else _quantile_thresholds(data, f, cap)
              for f, v in enumerate(data.values)]
    n_tests = int(sum(len(c) for c in chosen))
    if data.n_rows * n_tests > max_bytes:
        raise ValueError(
            f"{data.n_rows} rows x {n_tests} thresholds as a 0/1 matrix need "
            f"{data.n_rows * n_tests / 2**20:.0f} MiB, more than {max_bytes / 2**20:.0f} MiB "
            "planned for it; pass a binariser with fewer cuts (e.g. "
            "ThresholdBinarizer(max_thresholds=32)).")
    feature = np.repeat(np.arange(data.n_features), [len(c) for c in chosen])
    threshold = np.concatenate(chosen or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    X = np.empty((data.n_rows, n_tests), dtype=np.uint8)
    for j, (f, t) in enumerate(zip(feature, threshold)):
        X[:, j] = data.rank[f] >= t
    return ThresholdMatrix(X, feature.astype(np.int64), threshold,
                           cap if cap is not None and any(
                               len(c) < len(v) - 1 for c, v in zip(chosen, data.values))
                           else None)
