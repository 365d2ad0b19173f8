"""Block bounds of the interval search: sums of the optima of disjoint pieces of a node.

Notation as in ``bounds``: a node of the search at depth ``k`` (its children are trees of
depth ``k - 1``), a feature f with candidate thresholds t_0 < t_1 < ..., ``L(t)`` and
``H(t)`` the optima (errors plus the penalty of each test) of the rows below t and at or above
t. Cut f's thresholds into consecutive blocks at candidate indices c_0 = 0 < c_1 < ... <
c_K = n (c_K standing for "above every threshold"): block j holds the rows whose rank lies in
[t_{c_j}, t_{c_{j+1}}). Let ``E(B)`` be the fewest weighted errors, without any penalty, of a
tree of depth ``k - 1`` on the rows B.

**Superadditivity.** For disjoint row sets A and B_1, ..., B_r, the optimum of their union is
at least ``OPT(A) + E(B_1) + ... + E(B_r)``: the best tree T of the union, restricted to A,
is a tree of A (so its errors on A plus its penalty are at least ``OPT(A)``) and, restricted
to each B_j, a tree of B_j (its errors there at least ``E(B_j)``); T's errors are the sum of
its errors on the parts and its penalty is counted once. Weights only scale the errors and a
row with a missing value sits at its coded rank like any other, so this holds as stated.

**The bound.** Let a < i < b be candidate indices (a = -1: no rows below a; b = -1 or n: no
rows above b). The rows below t_i contain the rows below t_a and every block with c_j >= a
and c_{j+1} <= i; the rows at or above t_i contain those at or above t_b and every block with
c_j >= i and c_{j+1} <= b. So, with S the sum of ``E`` over the blocks lying between a and b
and M the largest ``E`` of those blocks that a threshold of the range [lo, hi] can cut (c_j <
hi and c_{j+1} > lo), every root test on f at a threshold of [lo, hi] costs at least

    L(a) + H(b) + S - M + penalty,

since at most one block is cut by the test and every other block lies wholly on one side.
With ``L(a)``, ``H(b)`` replaced by lower bounds it remains a lower bound. Without any
evaluated threshold (a and b missing) it is ``S - M``: on a feature that splits the rows no
better than a random cut, the blocks are random samples of the node and their optima add up
to nearly the node's own (on ``make_classification`` 20,000 x 20 at depth 3, eight blocks of
an uninformative feature sum to about 1,850 errors, the largest block about 250, against a
best tree near 1,470), so such a feature is ruled out by its blocks alone, where the
sub-interval bound needs a dozen threshold evaluations.

**Levels, computed where the search is.** Blocks of level l cut the feature's weight into
2**l parts. An interval of weight w between a and b gains from blocks of about w / 8 (seven or
more lie wholly inside it, and the largest, subtracted, is small; w / 4 raised the bound a
little more slowly on ``make_classification`` 20,000 x 20), so when the
search takes up an interval it first computes the blocks of that level lying inside it --
depth-2 solves on only the interval's rows, far cheaper than evaluating a threshold (two
solves on all the node's rows) -- and puts the interval back with the raised bound. The
bound of an interval is the best over the levels whose blocks inside it are all known.
Blocks are computed where the children are depth-2 trees (one exact ``depth2.best_depth2``
call per block) and the node is large; ``pays`` says where.
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.dtmax.ordered.depth2 import SWEEP_FRACTION, SWEEP_MIN, best_depth2
from occamlearn.trees.dtmax.ordered.kernels import range_orders
from occamlearn.trees.exact.stop import Stop

__all__ = ["BLOCK_MIN_ROWS", "BLOCK_ROWS", "FIRST_LEVEL", "FeatureBlocks", "pays"]

# The coarsest level (2**3 blocks), the fewest rows of a block, and the fewest rows of a
# node (of depth 3) that gets blocks.
FIRST_LEVEL = 3
BLOCK_MIN_ROWS = 100
BLOCK_ROWS = 2000


def pays(depth: int, n_rows: int) -> bool:
    """Whether a node of this depth and size computes blocks (module doc)."""
    return depth == 3 and n_rows >= BLOCK_ROWS


class FeatureBlocks:
    """The blocks of one feature at one node, level by level: for level l, ``starts[l][j]``
    = c_j (the last entry n) and ``errors[l][j]`` = E(block j), NaN until computed."""

    def __init__(self, order, data, weight, f, thresholds, before, tol):
        self.order, self.data, self.weight, self.f = order, data, weight, f
        self.thresholds, self.before, self.tol = thresholds, before, tol
        self.total = float(data.weight[order[0]].sum())
        self.top = max(FIRST_LEVEL, int(np.log2(max(order.shape[1] / BLOCK_MIN_ROWS, 1.0))))
        self.starts: dict = {}
        self.errors: dict = {}

    def _weight_at(self, i: int, default: float) -> float:
        return default if i < 0 else float(self.before[i])

    def level_for(self, a: int, b: int) -> int:
        """The level whose blocks are about an eighth of the weight between a and b."""
        width = self._weight_at(b, self.total) - self._weight_at(a, 0.0)
        level = int(np.ceil(np.log2(8.0 * self.total / max(width, 1e-300))))
        return min(max(level, FIRST_LEVEL), self.top)

    def _level(self, level: int):
        if level not in self.starts:
            n = len(self.thresholds)
            marks = np.searchsorted(self.before, np.linspace(0.0, self.total,
                                                             2**level + 1)[1:-1])
            self.starts[level] = np.unique(np.r_[0, marks[(marks > 0) & (marks < n)], n])
            self.errors[level] = np.full(len(self.starts[level]) - 1, np.nan)
        return self.starts[level], self.errors[level]

    def _between(self, starts, a: int, b: int) -> np.ndarray:
        """Whether each block lies between candidate indices a and b (-1: no end)."""
        upper = starts[-1] if b < 0 else b
        return (starts[:-1] >= a) & (starts[1:] <= upper)

    def refine(self, a: int, b: int, deadline, solve=None) -> bool:
        """Computes the blocks of ``level_for(a, b)`` between a and b not yet known; whether
        any was computed. ``Stop`` when ``deadline`` has expired between blocks. ``solve``:
        the search's ``bounded_depth2`` (``best_depth2`` capped by the time left, ``Stop``
        when it gives up); None: ``best_depth2`` itself."""
        starts, errors = self._level(self.level_for(a, b))
        todo = np.flatnonzero(self._between(starts, a, b) & np.isnan(errors))
        if len(todo) == 0:
            return False
        d = self.data
        ends = np.append(self.thresholds, np.iinfo(np.int64).max)    # t_n: above every value
        together, offsets = range_orders(self.order, d.rank, self.f, ends[starts[todo]],
                                         ends[starts[todo + 1]])
        for i, j in enumerate(todo):
            if deadline.expired():
                raise Stop
            rows = np.ascontiguousarray(together[:, offsets[i]:offsets[i + 1]])
            if rows.shape[1] < 2:
                errors[j] = 0.0
            elif solve is not None:
                errors[j] = solve(rows, np.inf, 0.0, 0.0)[0]
            else:
                errors[j] = best_depth2(rows, d.rank, d.y, self.weight, d.n_classes, np.inf,
                                        0.0, self.tol, 0.0, SWEEP_FRACTION, SWEEP_MIN)[0]
        return len(todo) > 0

    def _known_levels(self, a: int, b: int):
        for level, starts in self.starts.items():
            inside = self._between(starts, a, b)
            errors = self.errors[level]
            if inside.any() and not np.isnan(errors[inside]).any():
                yield starts, errors, inside

    def bound(self, a: int, b: int, lo: int, hi: int) -> float:
        """S - M of the module doc for the thresholds ``lo..hi`` between a and b, the best
        over the levels known there (0 if none)."""
        best = 0.0
        for starts, errors, inside in self._known_levels(a, b):
            cut = inside & (starts[:-1] < hi) & (starts[1:] > lo)
            best = max(best, float(errors[inside].sum() - errors[cut].max(initial=0.0)))
        return best
