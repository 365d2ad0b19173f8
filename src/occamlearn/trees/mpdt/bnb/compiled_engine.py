"""The branch and bound over row sets in numba kernels (``CompiledRowSetSearch``).

It runs the recursion of ``python_engine.RowSetSearch`` in ``bnb.kernels`` over uint64 word
bitsets with a one-array hash-table memo (``memo_table``) and a subset trie
(``subset_trie``), and returns control every few milliseconds so that the deadline is
polled; what it computes is what the Python engine computes (the tests compare both with a
brute force).
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.stopping import CLOCK
from occamlearn.trees.mpdt.bnb.python_engine import RowSetSearch

__all__ = ["CompiledRowSetSearch"]


class CompiledRowSetSearch(RowSetSearch):
    """The same search run by ``bnb_kernels.solve`` on uint64 word bitsets and an array hash
    table: about an order of magnitude fewer seconds per call than the Python loop. The
    compiled recursion returns every ``chunk`` calls so that the deadline is
    polled; its memo survives, so the next call resumes where it stopped."""

    MEMORY_BYTES = 768 * 2**20  # cap on the memo table; when full it takes no new entries
    INITIAL_CAPACITY = 1 << 16
    # what the node expansion does (``split_reductions``, ``memo_table``'s switches): splits
    # beyond the budget on class counts unprobed, dominated pure sides dropped, a budget of
    # one leaf answered by the class count (all measured in benchmarks/mpdt_bounds_ablation.py)
    PRUNE_BY_CLASSES = True
    DROP_DOMINATED = True
    ONE_LEAF_BY_CLASSES = True
    # the subset trie (``subset_trie``): its memory (taken from the system as it fills, then
    # evicting), the largest row set it stores (0: no trie), the least budget it is asked
    # about, the nodes one query may visit, and what a hit is worth in visits per column word
    # (an expansion touches every column: queries pause while they cost more than that)
    SUBSET_BYTES = 64 * 2**20
    SUBSET_MAX_ROWS = 16
    SUBSET_MIN_BUDGET = 3
    SUBSET_WORK = 4096
    SUBSET_HIT_WORTH = 2

    def __init__(self, rows, labels, n_classes, kept, *, child_bounds=False, **options):
        super().__init__(rows, labels, n_classes, kept, **options)
        nesting = self.nesting
        self.nesting_arrays = (nesting.order, nesting.pred_start, nesting.pred,
                               nesting.succ_start, nesting.succ)
        self.words = (self.n_rows + 63) // 64
        self.column_words = np.stack([self.to_words(c) for c in self.columns]) if kept \
            else np.zeros((0, self.words), dtype=np.uint64)
        self.class_words = np.stack([self.to_words(c) for c in self.class_sets])
        entry_bytes = 8 * self.words + 8
        self.max_capacity = max(self.INITIAL_CAPACITY,
                                1 << (self.MEMORY_BYTES // entry_bytes).bit_length() - 1)
        self.table = self.kernels.new_table(self.INITIAL_CAPACITY, self.words)
        self.counters = self.kernels.new_counters()
        # rebuilds a subtree the saturated table dropped; it must not stop half-way
        self.fallback = RowSetSearch(rows, labels, n_classes, kept, nested_sides=False,
                                     use_incompatibility=self.use_incompatibility)
        self.counters[self.kernels.GROWABLE] = self.INITIAL_CAPACITY < self.max_capacity
        self.counters[self.kernels.CHILD_BOUNDS] = child_bounds
        self.counters[self.kernels.USE_BOUND] = self.use_incompatibility
        from occamlearn.trees.mpdt.bnb import memo_table  # the counters' slots (numba loaded)

        kernels, counters = self.kernels, self.counters
        counters[kernels.PRUNE_BY_CLASSES] = self.PRUNE_BY_CLASSES
        counters[kernels.DROP_DOMINATED] = self.DROP_DOMINATED
        counters[kernels.ONE_LEAF_BY_CLASSES] = self.ONE_LEAF_BY_CLASSES
        self.trie = kernels.new_trie(max(self.SUBSET_BYTES // kernels.TRIE_BYTES_PER_NODE,
                                         4 * (self.SUBSET_MAX_ROWS + 1)))  # a set fits a pool
        counters[kernels.TRIE_MAX_ROWS] = self.SUBSET_MAX_ROWS
        counters[kernels.TRIE_MIN_BUDGET] = self.SUBSET_MIN_BUDGET
        counters[memo_table.TRIE_WORK] = self.SUBSET_WORK
        counters[memo_table.TRIE_HIT_WORTH] = self.SUBSET_HIT_WORTH * len(kept) * self.words
        self.chunk = 2000

    def to_words(self, rows: int) -> np.ndarray:
        return np.frombuffer(rows.to_bytes(8 * self.words, "little"), dtype="<u8").astype(
            np.uint64)

    def solve(self, rows: int, budget: int) -> int:
        kernels, counters = self.kernels, self.counters
        words = self.to_words(rows)
        while True:
            counters[kernels.FLAG] = 0
            counters[kernels.CALL_LIMIT] = counters[kernels.CALLS] + self.chunk
            if self.poll.call_cap is not None:
                counters[kernels.CALL_LIMIT] = min(counters[kernels.CALL_LIMIT],
                                                   self.poll.call_cap)
            started, calls_before = CLOCK(), int(counters[kernels.CALLS])
            value = kernels.solve(words, budget, self.column_words, self.class_words,
                                  self.packed, self.labels, self.table, counters,
                                  *self.nesting_arrays, self.trie)
            self.poll.calls = int(counters[kernels.CALLS])
            self.kernel_calls = int(counters[kernels.BOUND_CALLS])
            if value != kernels.ABORTED:
                return int(value)
            if counters[kernels.FLAG] == kernels.FLAG_FULL:
                self.grow()
            else:  # aim at ~20 ms between polls, from the calls this piece made: a piece
                # cut short by ``call_cap`` (a few calls in microseconds) must not inflate it
                spent, made = CLOCK() - started, self.poll.calls - calls_before
                if made >= self.chunk or spent >= 0.02:
                    self.chunk = int(min(max(made * 0.02 / max(spent, 1e-6), 1), 10**6))
                self.poll.check()

    def grow(self):
        """Four times the capacity, or the memory cap (``max_capacity``) if that is less:
        growing only by fours stopped a table of 6-word keys (breast_cancer, 364 rows) at
        4 M slots, a third of what the cap allows (the memo then drops new entries). Never
        past half of what the process's memory limit leaves (``occamlearn.memory``)."""
        current = self.table.shape[0]
        capacity = memory.table_capacity(8 * self.words + 8, current,
                                         min(current * 4, self.max_capacity))
        if capacity > current:  # else the memory limit is reached: the table stays full
            bigger = self.kernels.new_table(capacity, self.words)
            self.kernels.rehash(self.table, bigger, self.counters)
            self.table = bigger
        self.counters[self.kernels.GROWABLE] = current < capacity < self.max_capacity

    def stats(self) -> dict:
        from occamlearn.trees.mpdt.bnb import memo_table  # the counters' slots (numba loaded)

        return {**super().stats(), "memo_entries": int(self.counters[self.kernels.ENTRIES]),
                "table_capacity": self.table.shape[0],
                "table_saturated": not self.counters[self.kernels.GROWABLE],
                **{name: int(self.counters[getattr(memo_table, index)]) for name, index in
                   (("subset_queries", "TRIE_QUERIES"), ("subset_hits", "TRIE_HITS"),
                    ("subset_sets", "TRIE_SETS"), ("subset_evictions", "TRIE_EVICTIONS"),
                    ("subset_visits", "TRIE_VISITS"))}}

    def root_bound(self, rows: int) -> int:
        """The incompatibility bound whatever the size of ``rows`` (once, at the root), and
        the kernel's static bound (a first visit stores it; budget 0 always fails)."""
        bound = self.solve(rows, 0)
        if self.use_incompatibility and bound > 1:
            bound = max(bound, self.incompatibility_bound(rows))
        return bound

    def _decide(self, rows: int, _):
        if self.classes_in(rows) == 1:
            return ("leaf", self.label_of(rows))
        value, is_exact, index = self.kernels.lookup(self.table, self.to_words(rows))
        if not is_exact:  # not kept by a saturated table: solve it again in Python
            budget = self.fallback.classes_in(rows)
            while (value := self.fallback.solve(rows, budget)) > budget:
                budget = value
            return (self.fallback.split_of[rows], None, None)
        return (index, None, None)
