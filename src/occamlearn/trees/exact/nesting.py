"""Nested split sides: which side of one column contains a side of another, on every row set.

A split on column j cuts a row set S into its *sides* ``S \\ C_j`` (x_j = 0, side ``2j``) and
``S ∩ C_j`` (x_j = 1, side ``2j + 1``). Thresholds cut from one numeric column are nested:
for t1 < t2, ``{x >= t2} ⊆ {x >= t1}``, so as the threshold grows rows only move from the
one side to the other; the categories of a one-hot column are nested too (the rows of one
value lie on the "not that value" side of every other). Nesting is read off the matrix, not
off feature names: side a is *contained* in side b if every row with a's value of a's column
has b's value of b's column. Containment on all rows holds on every subset S, since
``(A ∩ S) ⊆ (B ∩ S)`` whenever ``A ⊆ B``.

Why it matters. For an objective that is monotone under adding rows -- the fewest leaves of a
pure tree of S never exceeds that of a superset, because a tree pure on the superset is pure
on S -- a lower bound proven for one side bounds every side that contains it. For thresholds
t1 < t2 < t3 of one column, ``left(t2) ⊇ left(t1)`` and ``right(t2) ⊇ right(t3)``: the bound
of the split at t2 is at least ``LB(left(t1)) + LB(right(t3))``, so the bounds at the ends of
a range of thresholds prune the whole range (the size analogue of the neighbourhood pruning
of ConTree, by Briţa, van der Linden and Demirović).

``SideNesting`` holds the Hasse diagram of strict containment between the 2q sides of q
distinct, non-complementary columns (no two sides are then equal as row sets, so containment
is a strict partial order and a side's size on all rows is a topological order). Taking, in
that order, each side's bound as the maximum of its own and its immediate predecessors'
gives every side the maximum over *all* sides it contains, by induction along the order:
a contained side u ⊂ t either is an immediate predecessor of t or lies below one, which was
processed earlier and already holds u's bound. The diagram of a chain of m thresholds has
2(m - 1) edges (not m(m - 1)), so a node of the search pays O(q + edges).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn.stopping import CLOCK

__all__ = ["SideNesting", "side_nesting"]

# Above this many columns the (2q x 2q) containment matrices are not built (4 x 64 MB at the
# cap): no nesting. Rows are summed in chunks, so their number does not limit it.
MAX_COLUMNS = 2048
ROW_CHUNK = 4096
# Under a time limit the diagram is built only while its predicted rest fits in this share of
# the time left (``side_nesting``): it speeds a search up, it never decides one.
NESTING_SHARE = 0.1
# Seconds per multiply-add of the (2q x 2q) float32 product: 7.5e-11 measured on a loaded
# 2-core machine (4.8 s for 2,000 columns), rounded up.
NESTING_SECONDS_PER_FLOP = 1e-10


@dataclass(frozen=True)
class SideNesting:
    """Hasse diagram of strict containment between column sides (side 2j: x_j = 0, 2j + 1:
    x_j = 1), as CSR arrays over side indices.

    order : (2q,) sides by increasing number of rows (a topological order)
    pred_start, pred : immediate predecessors (largest contained sides) of each side
    succ_start, succ : immediate successors (smallest containing sides) of each side
    """

    order: np.ndarray
    pred_start: np.ndarray
    pred: np.ndarray
    succ_start: np.ndarray
    succ: np.ndarray

    @property
    def n_edges(self) -> int:
        return int(self.pred.shape[0])


def _csr(lists_of: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, items) of the rows of a boolean (n, n) matrix: row i holds ``items[start[i]:
    start[i + 1]]``, the columns where it is True."""
    start = np.zeros(n + 1, dtype=np.int64)
    start[1:] = np.cumsum(lists_of.sum(axis=1))
    items = np.nonzero(lists_of)[1].astype(np.int64)
    return start, items


def no_nesting(n_columns: int) -> SideNesting:
    """A diagram without edges: nothing is propagated."""
    empty = np.zeros(0, dtype=np.int64)
    starts = np.zeros(2 * n_columns + 1, dtype=np.int64)
    return SideNesting(np.arange(2 * n_columns, dtype=np.int64), starts, empty, starts.copy(),
                       empty.copy())


def side_nesting(matrix: np.ndarray, deadline=None) -> SideNesting:
    """The containment diagram of the sides of the columns of the 0/1 ``matrix`` (rows x q).

    The columns must be distinct and no column the complement of another (``data.
    reduce_columns`` guarantees it); a repeat would make two sides equal, which is caught
    here (ValueError), since the order would then not be strict.

    ``deadline`` (a ``stopping.Deadline`` or None): the diagram costs rows x (2q)^2 (the
    counts) plus (2q)^3 (the transitive edges, one matrix product) and is optional to every
    search, so under a time limit it is given up (no nesting) when the product is predicted
    (``NESTING_SECONDS_PER_FLOP``) to take more than ``NESTING_SHARE`` of the time left, when
    the deadline passes while the rows are counted, one chunk at a time, or when the chunks
    are predicted, from the first, to take more than that share.
    """
    matrix = np.asarray(matrix) != 0
    n_rows, n_columns = matrix.shape
    if n_columns == 0 or n_columns > MAX_COLUMNS:
        return no_nesting(n_columns)
    if deadline is not None and deadline.limited and (
            (2 * n_columns) ** 3 * NESTING_SECONDS_PER_FLOP
            > NESTING_SHARE * deadline.remaining()):
        return no_nesting(n_columns)
    common = np.zeros((2 * n_columns, 2 * n_columns), dtype=np.float64)
    started = CLOCK()
    for first in range(0, n_rows, ROW_CHUNK):  # rows in both sides, a chunk of rows at a time
        if deadline is not None and first and (deadline.expired() or (
                (CLOCK() - started) * (n_rows - first) / first
                > NESTING_SHARE * deadline.remaining())):
            return no_nesting(n_columns)
        part = matrix[first:first + ROW_CHUNK].T
        sides = np.empty((2 * n_columns, part.shape[1]), dtype=np.float32)
        sides[0::2], sides[1::2] = ~part, part
        common += sides @ sides.T  # exact: a chunk's counts are far below 2**24
    size = np.diag(common).copy()
    # a ⊆ b iff |a ∩ b| = |a|; strict unless equal; a side is never compared with itself
    contained = (common == size[:, None]) & (size[:, None] < size[None, :])
    if ((common == size[:, None]) & (size[:, None] == size[None, :])).sum() > 2 * n_columns:
        raise ValueError("side_nesting needs distinct, non-complementary columns.")
    if not contained.any():
        return no_nesting(n_columns)
    strict = contained.astype(np.float32)
    through = (strict @ strict) > 0  # a ⊂ u ⊂ b for some u: not an immediate edge
    hasse = contained & ~through
    pred_start, pred = _csr(hasse.T, 2 * n_columns)
    succ_start, succ = _csr(hasse, 2 * n_columns)
    order = np.argsort(size, kind="stable").astype(np.int64)
    return SideNesting(order, pred_start, pred, succ_start, succ)


def propagate(nesting: SideNesting, bound: np.ndarray) -> np.ndarray:
    """Each side's bound raised to the largest bound of a side it contains (reference
    implementation in numpy-free Python of what the compiled search does at every node)."""
    out = np.array(bound, dtype=np.int64)
    for t in nesting.order:
        for s in nesting.pred[nesting.pred_start[t]:nesting.pred_start[t + 1]]:
            out[t] = max(out[t], out[s])
    return out
