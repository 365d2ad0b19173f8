"""The specialised search for 0/1 columns: data layout, polling, tree rebuild.

``kernels`` holds the search (MurTree's, compiled; its memo in ``memo``, its pair counts in
``pair_counts``); this module feeds it and reads it back:

* the distinct rows become *items*, one per (row, label) group with its integer weight, with
  each item's present features listed (the depth-2 counting pass walks only those);
* the search runs in slices of ``POLL_WORK`` units of work (or 4x the walk back down to
  where the last slice stopped, if more); between slices the deadline is polled and a full
  memo is grown (``MEMO_BYTES`` caps it; past that it stops taking
  entries, which costs speed, never exactness);
* an alarm (``alarms``: one thread the process keeps) sets ``counters[TIME_UP]`` at the
  deadline, which the compiled search reads at every subproblem (it runs without the GIL),
  so a slice of any size ends at the deadline: slices need no time cap, and none is walked
  again for one;
* the tree is rebuilt top-down: each node's best test is in the memo (or recomputed, under
  the same deadline), and nodes of depth <= 2 come straight from the depth-2 solver.

With a deadline the best tree of the top node found so far is returned, "feasible". A node
of depth >= 3 whose best test the rebuild cannot recompute before the deadline (a memo that
was full) gets its best depth-2 tree instead, within one count of its rows, and the search
is then marked stopped too: the tree is within the depth but no longer proven best.
"""

from __future__ import annotations

import numpy as np

from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.binary import depth_two, kernels, memo
from occamlearn.trees.dtmax.binary.alarms import Alarm, set_alarm
from occamlearn.trees.dtmax.binary.error_free import new_error_free_bits
from occamlearn.trees.dtmax.binary.witnesses import new_witnesses

__all__ = ["PAIR_COUNT_BYTES", "CompiledDepthSearch", "fits_in_memory"]

INFINITE = np.int64(1) << np.int64(62)
# Units of work (rows touched, counts evaluated) between polls of the deadline's stop flag
# and of Ctrl-C (the time itself is kept by the timer, module doc): about a quarter of a
# second at the pace of mushr's search; each new slice walks down again to where the last
# one stopped, which at 2,000,000 units was a fifth of mushr's work.
POLL_WORK = 16_000_000
MEMO_ROWS = 1 << 12            # the memo's first size (entries, a power of two) ...
MEMO_BYTES = 1 << 30           # ... it grows 4x at 70 % full up to this, then takes no more
PAIR_COUNT_BYTES = 3 << 29     # the six (classes, features, features) count tables
BIT_SCRATCH_BYTES = 1 << 26    # the bitset pair count's (features, words) scratch, at most
# What a bitset word operation (and, popcount, add) costs in cell additions of the row pass
# of the pair count: the count takes the cheaper (measured on the bundled matrices, mushr's
# 1,300-row sets to wine's 11-row ones: the cheaper one is the one this picks).
BIT_WORD_COST = 3


def fits_in_memory(n_features: int, n_classes: int) -> bool:
    """Whether the pair-count tables of this engine fit ``PAIR_COUNT_BYTES``."""
    return 6 * n_classes * n_features ** 2 * 8 <= PAIR_COUNT_BYTES


class CompiledDepthSearch:
    """``best(rows, depth)`` over distinct 0/1 rows ``X`` with class weights ``C`` (rows x
    classes, integers): costs ``errors * scale + decisions * decision``."""

    def __init__(self, X: np.ndarray, C: np.ndarray, scale: int, decision: int,
                 deadline: Deadline | None, depth: int):
        C = np.asarray(C, dtype=np.int64)
        pattern, label = np.nonzero(C)                 # items, grouped by pattern
        weight = C[pattern, label]
        first = np.r_[True, pattern[1:] != pattern[:-1]]
        forced = np.where(first, (C.sum(axis=1) - C.max(axis=1))[pattern], 0)
        X_items = np.ascontiguousarray(X[pattern], dtype=np.uint8)
        # np.nonzero(X_items)'s (row, column) pairs from the flat positions of a bool view,
        # in the same row-major order (mushr's 5,199 x 54: 1.0 ms -> 0.3 ms)
        flat, width = np.flatnonzero(X_items != 0), max(X_items.shape[1], 1)
        rows = flat // width
        columns = flat - rows * width
        indptr = np.zeros(len(pattern) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(pattern)), out=indptr[1:])
        self.pattern, self.label = pattern, label.astype(np.int64)
        self.X = X_items
        self.data = (X_items, self.label, weight.astype(np.int64), forced.astype(np.int64),
                     indptr, columns.astype(np.int64))
        self.scale, self.decision, self.deadline = int(scale), int(decision), deadline
        n_items, n_features, n_classes = len(pattern), X.shape[1], C.shape[1]
        levels = max(int(depth), 1) + 1
        words = (n_items + 63) // 64
        self.ws = (
            np.zeros((levels, 2, n_items), dtype=np.int64),             # lists
            np.zeros((levels, words), dtype=np.uint64),                 # keys
            np.zeros((levels, n_features), dtype=np.int64),             # order
            np.zeros(n_features, dtype=np.int64),                       # errors
            np.zeros((levels, n_classes + 1, n_features), dtype=np.int64),  # singles
            np.zeros(n_classes, dtype=np.int64),                        # totals
            np.zeros((6, n_classes, n_features, n_features), dtype=np.int64),  # pairs
            np.zeros((6, n_features), dtype=np.int64),                  # presents
            np.zeros(6, dtype=np.int64),                                # n_presents
            np.zeros((4, n_classes), dtype=np.int64),                   # quad
            np.zeros(3, dtype=np.int64),                                # out
            np.zeros(n_features, dtype=np.uint8),                       # seen
            np.zeros(n_features, dtype=np.int64),                       # useful
            np.zeros((levels, 2, n_items), dtype=np.int64),             # prev_lists
            np.zeros((levels, 2), dtype=np.int64),                      # prev_n
            np.zeros((levels, 2), dtype=np.int64),                      # prev_cost
            np.array([0, 0, -1], dtype=np.int64),                       # state
            self._bit_space(weight.astype(np.int64), indptr, n_features, n_classes),
            new_witnesses(n_features, n_classes),
            new_error_free_bits(X_items, self.label, n_classes),
        )
        self.slots = memo.new_memo(n_items, MEMO_ROWS)
        self.counters = np.zeros(memo.N_COUNTERS, dtype=np.int64)
        self.counters[memo.GROWABLE] = 1
        self.stopped = False

    @staticmethod
    def _bit_space(weight: np.ndarray, indptr: np.ndarray, n_features: int,
                   n_classes: int) -> tuple:
        """The bitset pair count's scratch and costs (``pair_counts._count_pairs``): a row of
        weight w takes one bit per set bit of w, each (class, weight bit) group a word more;
        no bitsets past ``BIT_SCRATCH_BYTES``."""
        n_bits = max(1, int(weight.max(initial=1)).bit_length())
        positions = np.zeros(len(weight), dtype=np.int64)
        for b in range(n_bits):
            positions += (weight >> b) & 1
        words = int(positions.sum()) // 64 + n_classes * n_bits + 1
        if n_features * words * 8 > BIT_SCRATCH_BYTES:
            words = 0                        # too large: the row pass counts every set
        p = np.diff(indptr)
        return (np.int64(BIT_WORD_COST), np.int64(n_bits),
                np.zeros((n_features, words), dtype=np.uint64),
                np.zeros((2, n_classes * n_bits + 1), dtype=np.int64), p * (p + 1) // 2,
                positions)

    # -- running the kernel in slices -------------------------------------------------------
    def _grow(self) -> None:
        bigger_rows = 4 * self.slots.shape[0]
        if bigger_rows * self.slots.shape[1] * 8 > MEMO_BYTES:
            self.counters[memo.GROWABLE] = 0
        else:
            bigger = np.zeros((bigger_rows, self.slots.shape[1]), dtype=np.uint64)
            memo.grow_memo(self.slots, bigger)
            self.slots = bigger
        self.counters[memo.FULL] = 0

    def run(self, items: np.ndarray, depth: int, ub: int, slow=None):
        """``best(items, depth, ub)``, or None if the deadline came first; ``slow``: None or
        a function returning an upper bound, called once if the first slice does not end
        the search, which then goes on below the lesser of the two bounds (a slice's answer
        below its ``ub`` is exact and one at or above it a bound, whichever ``ub`` earlier
        slices had: what they stored in the memo holds for any)."""
        counters = self.counters
        if depth <= 2:
            return int(depth_two.solve_shallow(items, depth, self.data, self.ws, self.scale,
                                             self.decision, counters))
        self.ws[0][0, 0, :len(items)] = items
        budget = POLL_WORK
        while True:
            counters[memo.SLICE_START] = counters[memo.WORK]
            counters[memo.FIRST_STORE] = -1
            counters[memo.WORK_LIMIT] = counters[memo.WORK] + budget
            counters[memo.ABORT] = 0
            cost = kernels.search(0, 0, len(items), depth, ub, self.data, self.ws, self.scale,
                                  self.decision, self.slots, counters)
            if cost != kernels.ABORTED:
                return int(cost)
            if slow is not None:
                ub, slow = min(ub, int(slow())), None
            # A slice first walks down again to where the last one stopped; the next one is
            # at least 4x that walk, so it always makes progress (a slice smaller than the
            # walk would never reach new work) and walking costs at most a fifth of it.
            new_work = counters[memo.FIRST_STORE]
            walked = (counters[memo.WORK] if new_work < 0 else new_work) - counters[
                memo.SLICE_START]
            budget = max(POLL_WORK, 4 * int(walked))
            if counters[memo.TIME_UP] or self.expired():
                return None
            if counters[memo.FULL]:
                self._grow()

    def expired(self) -> bool:
        """Whether the deadline has passed (polled between slices of work)."""
        return self.deadline is not None and self.deadline.expired()

    def _timer(self) -> Alarm | None:
        """An alarm that sets ``counters[TIME_UP]`` at the deadline (None without one)."""
        if self.deadline is None or not self.deadline.limited:
            return None
        counters = self.counters
        return set_alarm(self.deadline.remaining(), lambda: counters.__setitem__(
            memo.TIME_UP, 1))

    def statistics(self) -> dict:
        counters = self.counters
        return {"subproblems": int(counters[memo.SUBPROBLEMS]),
                "cache_hits": int(counters[memo.HITS]),
                "pruned": int(counters[memo.PRUNED]),
                "memo_entries": int(counters[memo.ENTRIES]),
                "witnessed": int(counters[memo.WITNESSED]),
                "work": int(counters[memo.WORK])}

    # -- the search and its tree --------------------------------------------------------------
    def solve_top(self, depth: int, ub: int = INFINITE, slow=None) -> tuple[int, tuple]:
        """(cost, nested tree over the columns of ``X``) of all rows if some tree costs less
        than ``ub`` (an incumbent's cost + 1: what it prunes is proven no better), else (a
        bound >= ub, None); ``slow`` as in ``run`` (its bound then counts as ``ub``);
        ``stopped`` is set if the deadline ended the search (the tree is then the best
        found)."""
        timer = self._timer()
        try:
            return self._solve_top(depth, ub, slow)
        finally:
            if timer is not None:
                timer.cancel()

    def _solve_top(self, depth: int, ub: int, slow) -> tuple[int, tuple]:
        items = np.arange(len(self.label), dtype=np.int64)
        counters = self.counters
        counters[memo.TOP_COST], counters[memo.TOP_FEATURE] = INFINITE, -1
        bound = [ub]

        def slow_bound() -> int:
            bound[0] = min(ub, int(slow()))
            return bound[0]

        try:
            cost = self.run(items, depth, ub, None if slow is None else slow_bound)
        except KeyboardInterrupt:            # Ctrl-C between slices: as a deadline
            cost = None
        if cost is not None:
            return cost, (self.subtree(items, depth) if cost < bound[0] else None)
        self.stopped = True                  # the best top test so far, if any
        top_cost, top_test = int(counters[memo.TOP_COST]), int(counters[memo.TOP_FEATURE])
        if top_test < 0:
            totals = np.bincount(self.label, weights=self.data[2], minlength=1)
            errors = int(totals.sum() - totals.max())
            return errors * self.scale, ("leaf", int(totals.argmax()))
        return top_cost, self._test(items, depth, top_test)

    def _leaf(self, items: np.ndarray) -> tuple:
        totals = np.bincount(self.label[items], weights=self.data[2][items],
                             minlength=int(self.label.max()) + 1)
        return ("leaf", int(totals.argmax()))

    def _test(self, items: np.ndarray, depth: int, test: int) -> tuple:
        one = self.X[items, test] > 0
        return ("test", int(test), self.subtree(items[~one], depth - 1),
                self.subtree(items[one], depth - 1))

    def subtree(self, items: np.ndarray, depth: int) -> tuple:
        """The best tree of depth <= ``depth`` on ``items`` (memo hits, mostly)."""
        if depth == 0:
            return self._leaf(items)
        if depth > 2 and self.run(items, depth, INFINITE) is None:
            self.stopped = True              # the deadline came first (module doc)
            return self.subtree(items, 2)
        if depth <= 2:
            self.run(items, depth, INFINITE)
        counters = self.counters
        root = int(counters[memo.ROOT])
        if root < 0:
            return self._leaf(items)
        if depth > 2:
            return self._test(items, depth, root)
        one = self.X[items, root] > 0
        sides = []
        for side_items, child in ((items[~one], int(counters[memo.LEFT])),
                                  (items[one], int(counters[memo.RIGHT]))):
            if child < 0:
                sides.append(self._leaf(side_items))
            else:
                low = self.X[side_items, child] > 0
                sides.append(("test", child, self._leaf(side_items[~low]),
                              self._leaf(side_items[low])))
        return ("test", root, *sides)
