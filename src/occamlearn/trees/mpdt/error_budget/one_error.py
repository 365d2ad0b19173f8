"""Fewest leaves of a tree that classifies a row set correctly but for one row: compiled.

The error-budget search is slowest at the budget just above the forced errors, where one
pattern may be misclassified (``trees.size_error.pure_tail``: with the smallest positive margin m,
a budget forced + m lets exactly one pattern of margin m go wrong, since two would cost 2m).
There it is a pure-tree question with one deletion, and this module answers it with the
compiled pure-tree branch and bound (``mpdt.bnb``) extended by that one freedom, instead of
the Python walk (on back's size-error path the walk spent 30 s at that budget without
settling it).

**Recursion.** For a row set S of distinct rows with classes, and D the rows that may be
deleted, let pure(S) be the fewest leaves of a tree classifying S correctly and
one(S) = min(pure(S), min over r in D ∩ S of pure(S \\ {r})). Then one(S) = 1 when S less
at most one row of D holds one class, and otherwise

    one(S) = min over columns j of min(one(S0) + pure(S1), pure(S0) + one(S1)),

S0 / S1 the rows with x_j = 0 / 1: a tree of two or more leaves splits its root on some j,
and the deleted row (if any) lies on one side, whose subtree then classifies that side
correctly but for it, while the other subtree is pure.

**Bounds** (each a lower bound on one(S), so they prune the search soundly):

* monotone in S (a tree serving S serves every subset, with the same deletion if it is
  still in the subset, else none): so, as in the pure search, a side's bound is raised to
  the bound of every side it contains (``trees.exact.nesting``), and pure(S) >= one(S) makes
  every bound on one(S) a bound on pure(S) too;
* classes: a tree with l leaves predicts at most l classes, and it classifies every row of
  S but one correctly, so one(S) >= the classes of S, less one if some class has a single
  row in S and that row is in D;
* one-incompatibility (``one_error_bounds.one_error_incompatibility``): call two rows a, c
  of one class 1-incompatible when at least two rows of S of other classes lie in the
  smallest subcube containing a and c. A leaf holding a and c holds that subcube (each test
  on its path is passed by both, so it tests a feature where they agree); if a and c are
  both classified correctly the leaf's label is their class, and of the two other-class
  rows in it at most one is the deleted row, so the other is misclassified: impossible.
  Rows of different classes never share a correct leaf. So for a set Q of rows pairwise
  incompatible in this sense, the rows of Q other than the deleted one need a leaf each:
  one(S) >= |Q| - 1, and >= |Q| if Q holds no row of D;
* a failed node stores the least proven bound of its splits (the look-ahead of the pure
  search).

**Result.** With two classes, the tree of one(F) (F: the patterns with a positive margin,
each labelled by its heaviest class; D: those of margin m) with each leaf relabelled by the
heavier class of its rows makes at most forced + m weighted errors
(``trees.size_error.core_budgets`` makes the same argument for any deleted set), so best(forced + m)
= one(F); with more classes one(F) is a lower bound and the tree an incumbent whose errors are
counted.
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.stopping import CLOCK
from occamlearn.trees.exact.data import bitset

__all__ = ["OneErrorSearch", "settle_one_deletion"]


class OneErrorSearch:
    """one(S) of the module docstring for bit row sets S of the pure search ``pure`` (a
    ``mpdt.bnb.engines.CompiledRowSetSearch``, whose memo and deadline poll it shares),
    with D = the rows where ``deletable`` is True. ``solve(S, ub)``: one(S) if <= ub, else
    a proven bound > ub; ``nested(S)``: after a solve returned one(S), its tree as
    ("leaf", k) / (feature, left, right) over the pure search's columns (0 goes left)."""

    MEMORY_BYTES = 512 * 2**20

    def __init__(self, pure, deletable: np.ndarray):
        from occamlearn.trees.mpdt.error_budget import one_error_kernels as kernels

        self.kernels = kernels
        self.pure = pure
        deletable = np.asarray(deletable, dtype=bool)
        self.deletable_rows = deletable
        self.deletable_bits = bitset(deletable)
        self.deletable = pure.to_words(self.deletable_bits)
        self.table = pure.kernels.new_table(pure.INITIAL_CAPACITY, pure.words)
        self.counters = pure.kernels.new_counters()
        entry_bytes = 8 * pure.words + 8
        self.max_capacity = max(pure.INITIAL_CAPACITY,
                                1 << (self.MEMORY_BYTES // entry_bytes).bit_length() - 1)
        self.counters[pure.kernels.GROWABLE] = pure.INITIAL_CAPACITY < self.max_capacity
        self.counters[pure.kernels.USE_BOUND] = pure.use_incompatibility
        self.chunk = 2000

    def solve(self, rows: int, budget: int) -> int:
        pure, bnb = self.pure, self.pure.kernels
        words = pure.to_words(rows)
        while True:
            for counters, chunk in ((pure.counters, self.chunk), (self.counters, self.chunk)):
                counters[bnb.FLAG] = 0
                counters[bnb.CALL_LIMIT] = counters[bnb.CALLS] + chunk
            started = CLOCK()
            calls_before = int(pure.counters[bnb.CALLS] + self.counters[bnb.CALLS])
            value = self.kernels.solve_one(
                words, budget, pure.column_words, pure.class_words, pure.packed, pure.labels,
                pure.table, pure.counters, *pure.nesting_arrays, pure.trie,
                self.deletable, self.deletable_rows, self.table, self.counters)
            if value != self.kernels.ABORTED:
                return int(value)
            if pure.counters[bnb.FLAG] == bnb.FLAG_FULL:
                pure.grow()
            elif self.counters[bnb.FLAG] == bnb.FLAG_FULL:
                self._grow()
            else:  # aim at ~20 ms between polls, as the pure search does
                spent = CLOCK() - started
                made = int(pure.counters[bnb.CALLS] + self.counters[bnb.CALLS]) - calls_before
                if spent > 0 and (made >= self.chunk or spent >= 0.02):
                    self.chunk = int(min(max(made * 0.02 / spent, 1), 10**6))
                pure.poll.calls = int(pure.counters[bnb.CALLS])
                pure.poll.check()

    def _grow(self) -> None:
        bnb = self.pure.kernels
        current = self.table.shape[0]
        capacity = memory.table_capacity(8 * self.pure.words + 8, current,
                                         min(current * 4, self.max_capacity))
        if capacity > current:  # else the memory limit is reached: the table stays full
            bigger = bnb.new_table(capacity, self.pure.words)
            bnb.rehash(self.table, bigger, self.counters)
            self.table = bigger
        self.counters[bnb.GROWABLE] = current < capacity < self.max_capacity

    def stats(self) -> dict:
        bnb = self.pure.kernels
        return {"one_error_calls": int(self.counters[bnb.CALLS]),
                "one_error_entries": int(self.counters[bnb.ENTRIES])}

    def nested(self, rows: int):
        """The tree behind one(``rows``) (module docstring), from the memo. Raises
        LookupError when the memo lost an entry on the way (a table at its memory cap)."""
        pure = self.pure
        present = [rows & s for s in pure.class_sets]
        counts = [part.bit_count() for part in present]
        classes = [i for i, c in enumerate(counts) if c]
        if len(classes) == 1:
            return ("leaf", pure.label_of(rows))
        if len(classes) == 2:  # one class once a deletable row goes: the other's label
            for gone, kept in (classes, classes[::-1]):
                if counts[gone] == 1 and present[gone] & self.deletable_bits:
                    return ("leaf", pure.label_of(present[kept]))
        _, exact, code = pure.kernels.lookup(self.table, pure.to_words(rows))
        if not exact or code < 0:
            raise LookupError("the one-deletion memo lost an entry (memory cap)")
        column, side = divmod(int(code), 2)
        right = rows & pure.columns[column]
        left = rows ^ right
        feature = pure.features[column]
        if side == 0:
            return (feature, self.nested(left), self._pure_nested(right))
        return (feature, self._pure_nested(left), self.nested(right))

    def _pure_nested(self, rows: int):
        pure = self.pure
        if pure.classes_in(rows) > 1:
            value, exact, _ = pure.kernels.lookup(pure.table, pure.to_words(rows))
            if not exact:
                budget = max(value, 1)
                while (found := pure.solve(rows, budget)) > budget:
                    budget = found
        return pure.nested(rows)


def settle_one_deletion(search, deadline, done: dict, budget: int | None = None) -> None:
    """Settle ``budget`` (default forced + m, m the smallest positive margin) by the
    compiled one-deletion search (``mpdt.error_budget.one_error``) when it lets exactly one
    pattern be misclassified: slack = budget - forced is at least m but below the sum of the
    two smallest margins. A tree within the budget then classifies every pattern of F but
    at most one of margin <= slack as labelled, so best(budget) >= one(F), equal with two
    classes. Deepening on one(F)'s bound, each bound above the root's stored in its memo
    entry, the tree found seeded into its fronts. Needs the compiled pure-tree and
    one-deletion kernels in the disk cache (else does nothing); the search shares the pure
    oracle's memo when the walk has one. Counts go into ``done`` (for the stats), also when
    ``deadline`` stops it (``Stop``)."""
    from occamlearn.trees.compiling import kernel_cache
    from occamlearn.trees.exact.data import reduce_columns
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch
    from occamlearn.trees.mpdt.error_budget.bnb_engine import FORCED
    from occamlearn.trees.mpdt.error_budget.pure_oracle import as_search_node, decided_patterns

    if not (kernel_cache.kernels_ready("bnb") and kernel_cache.kernels_ready("one-error")):
        return
    view, root = search.view, search.view.root
    patterns, labels, margins = decided_patterns(view.weights)
    if len(np.unique(labels)) < 2:
        return
    entry = search.entry(root)
    ordered = np.sort(margins)
    budget = entry[FORCED] + int(ordered[0]) if budget is None else budget
    slack = budget - entry[FORCED]
    if slack < ordered[0] or (len(ordered) > 1 and ordered[0] + ordered[1] <= slack):
        return  # no pattern may go, or two may
    if search.lower(entry, budget) >= search.upper(entry, budget):
        return
    kernel_cache.load("bnb", search=True)
    kernel_cache.load("one-error")
    if search.pure is not None:  # the oracle's search: same patterns, and a memo to share
        pure = search.pure.pure
    else:
        rows = view.groups.patterns[patterns].astype(np.int64)
        pure = CompiledRowSetSearch(rows, labels, search.n_classes,
                                    reduce_columns(rows).column.tolist(), deadline=deadline)
    saved, pure.poll.deadline = pure.poll.deadline, deadline
    one = OneErrorSearch(pure, margins <= slack)
    full = (1 << len(patterns)) - 1
    pattern_bits = view.groups.patterns[view.groups.pattern[view.group_of_bit]]
    done["one_error_budget"] = budget
    try:
        # deepening from one leaf, not from the root's proven bound: the small bounds are
        # proven in a second and fill the memo that the last ones need (back, from 11: the
        # last step alone took longer than all steps from 2)
        bound = 1
        while bound < (upper := search.upper(entry, budget)):
            value = one.solve(full, bound)
            if value > bound:
                bound = value
                if bound > search.lower(entry, budget):
                    search.store_lower(entry, budget, bound)
                continue
            try:
                search.seed_fronts(as_search_node(search, pattern_bits, one.nested(full), root))
            except LookupError:  # the memo lost the tree: the bound stands, no new tree
                break
            if search.upper(entry, budget) >= upper:  # more classes: it errs more
                break
    finally:
        pure.poll.deadline = saved
        done.update(one.stats())
