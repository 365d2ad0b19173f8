"""The two search engines of the branch and bound over row sets (``branch_and_bound``).

``RowSetSearch`` is the search in Python, over row sets as Python integers used as bitsets;
``CompiledRowSetSearch`` runs the same recursion in numba kernels (``bnb_kernels``) over word
bitsets with a one-array hash-table memo, and returns control every few milliseconds so the
deadline is polled. ``solve(S, budget)`` returns the exact minimum number of leaves of a pure
tree of S if it is at most ``budget``, else a proven lower bound above it; the bounds used and
why they hold are in ``branch_and_bound``'s docstring. The data view (distinct rows, useful
columns), the split enumeration, the poll, the greedy start and the tree rebuild are the
exact-search core's (``trees.exact``); ``prepare_rows`` adds what this objective needs: one
class per distinct row. Both engines raise the bound of a split's side to the bounds of the
sides of other columns it contains (``trees.exact.nesting``; the proof is there), built once
per fit from the prepared columns.
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.stopping import CLOCK
from occamlearn.trees.exact.anytime import NO_TREE
from occamlearn.trees.exact.data import bitset, column_bitsets, group_examples, reduce_columns
from occamlearn.trees.exact.nested import rebuild, tree_of_greedy
from occamlearn.trees.exact.nesting import SideNesting, no_nesting, side_nesting
from occamlearn.trees.exact.splits import distinct_splits, greedy_tree
from occamlearn.trees.exact.stop import OutOfCalls, Poll

__all__ = ["NO_TREE", "CompiledRowSetSearch", "OutOfCalls", "RowSetSearch", "greedy_start",
           "prepare_rows"]


def _first(split):
    return split[0]


def _class_counter(class_sets):
    """A fast ``rows -> number of classes present`` for the given class bitsets."""
    if len(class_sets) == 1:
        return lambda rows: 1
    if len(class_sets) == 2:
        a, b = class_sets
        return lambda rows: (rows & a != 0) + (rows & b != 0)
    if len(class_sets) == 3:
        a, b, c = class_sets
        return lambda rows: (rows & a != 0) + (rows & b != 0) + (rows & c != 0)
    return lambda rows: sum(1 for s in class_sets if rows & s)


def prepare_rows(X, y, n_classes, sample_weight=None):
    """Distinct rows (of positive weight), their classes, n_classes and the useful columns.
    A pure tree's size does not depend on the weights: they only drop rows of weight 0.
    Raises ValueError on conflicting rows."""
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X has shape {X.shape} but y has {y.shape[0]} entries.")
    if X.shape[0] == 0:
        raise ValueError("No rows: a tree needs at least one training example.")
    X = (X != 0).view(np.uint8)  # one byte a cell: the searches copy it several times
    if y.min() < 0:
        raise ValueError("Class indices must be >= 0.")
    n_classes = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if y.max() >= n_classes:
        raise ValueError(f"Class index {int(y.max())} is not below n_classes={n_classes}.")
    weight = None
    if sample_weight is not None:  # only which rows weigh more than 0 matters here
        weight = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weight.shape != y.shape or not np.isfinite(weight).all() or (weight < 0).any():
            raise ValueError(f"sample_weight must hold one finite value >= 0 per row "
                             f"({y.shape[0]}); got shape {weight.shape}.")
        weight = (weight > 0).astype(np.int64)
    groups = group_examples(X, y, weight)
    labels = np.empty(groups.n_patterns, dtype=np.int64)
    labels[groups.pattern] = groups.label
    conflicting = groups.n_groups - groups.n_patterns
    if conflicting:
        raise ValueError(f"{conflicting} groups of identical rows have different classes: "
                         "no pure tree exists (remove conflicts first, e.g. resolve_conflicts).")
    rows = groups.patterns.astype(np.uint8)
    return rows, labels, n_classes, reduce_columns(rows).column.tolist()


def greedy_start(rows, labels, n_classes, kept, patterns=None):
    """The greedy pure tree (``splits.greedy_tree``) of the prepared ``rows`` (distinct rows,
    one bit each), as a nested tuple over the original columns: needs none of a search's
    set-up, so a driver offers it before building one."""
    node = greedy_tree(rows[:, kept] == 1, np.eye(n_classes)[labels],
                       np.arange(len(labels) + 1), patterns)
    return tree_of_greedy(node, kept, lambda part: int(labels[(part & -part).bit_length() - 1]))


class RowSetSearch:
    """Memoised branch and bound on bitset row sets of one prepared data set."""

    def __init__(self, rows, labels, n_classes, kept, *, use_incompatibility=True,
                 nested_sides=True, deadline=None, stop_when=None):
        self.n_rows = len(labels)
        # nested_sides: True (build the diagram), False (none), or a diagram built already
        if isinstance(nested_sides, SideNesting):
            self.nesting = nested_sides
        else:
            self.nesting = side_nesting(rows[:, kept], deadline) if nested_sides and kept \
                else no_nesting(len(kept))
        # per side, the sides immediately containing it (Python lists: fast to walk)
        self.side_succs = [self.nesting.succ[a:b].tolist() for a, b in
                           zip(self.nesting.succ_start[:-1], self.nesting.succ_start[1:])]
        self._rows = rows  # the distinct rows (for the greedy tree)
        self.labels = labels
        self.n_classes = n_classes
        self.features = kept
        self.columns = column_bitsets(rows[:, kept]) if kept else []
        self.class_sets = [s for s in (bitset(labels == k) for k in range(n_classes)) if s]
        self.classes_in = _class_counter(self.class_sets)
        self.class_of_set = {s: int(labels[(s & -s).bit_length() - 1]) for s in self.class_sets}
        self.use_incompatibility = use_incompatibility
        if use_incompatibility:  # without it, no numba import (the quick first phase)
            from occamlearn.trees.mpdt.bnb import kernels as bnb_kernels

            self.kernels = bnb_kernels
            self.packed = bnb_kernels.pack_rows(rows[:, kept] if kept else rows)
        self.n_bytes = (self.n_rows + 7) // 8
        self.exact: dict[int, int] = {}  # row set -> minimum leaves
        self.split_of: dict[int, int] = {}  # row set -> column of a minimum split
        self.lower: dict[int, int] = {}  # row set -> proven lower bound on leaves
        # its call_cap is set while improving the incumbent; stop_when: an engine switch
        self.poll = Poll(deadline, stop_when)
        self.kernel_calls = 0

    @property
    def calls(self) -> int:
        return self.poll.calls

    # -- bounds ------------------------------------------------------------------------------
    def quick_bound(self, rows: int) -> int:
        value = self.exact.get(rows)
        if value is not None:
            return value
        value = self.lower.get(rows)
        if value is not None:
            return value
        return self.classes_in(rows)

    def incompatibility_bound(self, rows: int) -> int:
        self.kernel_calls += 1
        indices = np.flatnonzero(np.unpackbits(
            np.frombuffer(rows.to_bytes(self.n_bytes, "little"), dtype=np.uint8),
            bitorder="little"))
        return int(self.kernels.incompatibility_lower_bound(
            self.packed, self.labels, indices, self.n_classes, self.kernels.BOUND_WORK))

    def root_bound(self, rows: int) -> int:
        """The best static bound on ``rows`` (classes, incompatibility), memoised."""
        bound = self.quick_bound(rows)
        if bound > 1 and self.use_incompatibility and rows not in self.exact:
            bound = max(bound, self.incompatibility_bound(rows))
            self.lower[rows] = bound
        return bound

    def stats(self) -> dict:
        return {"calls": self.calls, "memo_entries": len(self.exact) + len(self.lower),
                "incompatibility_bounds": self.kernel_calls}

    # -- search ------------------------------------------------------------------------------
    def solve(self, rows: int, budget: int) -> int:
        """Minimum leaves of a pure tree on ``rows`` if <= budget, else a lower bound > budget."""
        exact, lower = self.exact, self.lower
        value = exact.get(rows)
        if value is not None:
            return value
        self.poll.tick()
        bound = lower.get(rows)
        if bound is None:
            bound = self.classes_in(rows)
            if bound == 1:
                exact[rows] = 1
                return 1
            if self.use_incompatibility and rows.bit_count() <= self.kernels.BOUND_MAX_ROWS:
                bound = max(bound, self.incompatibility_bound(rows))
            lower[rows] = bound
        if bound > budget:
            return bound
        if self.nesting.n_edges:
            return self._solve_nested(rows, budget, bound)
        exact_get, lower_get, classes_in = exact.get, lower.get, self.classes_in
        splits = []
        for index, left, right in distinct_splits(rows, self.columns):
            # a stored value is >= 1, so ``or`` falls through only when nothing is stored
            split_bound = (exact_get(left) or lower_get(left) or classes_in(left)) + (
                exact_get(right) or lower_get(right) or classes_in(right))
            splits.append((split_bound, index, left, right))
        splits.sort(key=_first)
        best, best_index, failed_bound = budget + 1, -1, NO_TREE
        solve = self.solve
        for split_bound, index, left, right in splits:
            if split_bound >= best:
                failed_bound = min(failed_bound, split_bound)
                break
            right_bound = exact_get(right) or lower_get(right) or classes_in(right)
            left_value = solve(left, best - 1 - right_bound)
            if left_value > best - 1 - right_bound:
                failed_bound = min(failed_bound, left_value + right_bound)
                continue
            right_value = solve(right, best - 1 - left_value)
            if right_value > best - 1 - left_value:
                failed_bound = min(failed_bound, left_value + right_value)
                continue
            best, best_index = left_value + right_value, index
        return self._settle(rows, budget, bound, best, best_index, failed_bound)

    def _settle(self, rows, budget, bound, best, best_index, failed_bound) -> int:
        if best <= budget:
            self.exact[rows] = best
            self.split_of[rows] = best_index
            self.lower.pop(rows, None)
            return best
        # every split was pruned or failed with a bound above the budget: their minimum holds
        bound = max(bound, failed_bound)
        self.lower[rows] = bound
        return bound

    def _raise_side(self, side_bounds, side: int, value: int) -> None:
        """A bound proven for ``side``, passed on to every side containing it."""
        if value <= side_bounds[side]:
            return
        side_bounds[side] = value
        self._push_up(side_bounds, side)

    def _push_up(self, side_bounds, side: int) -> None:
        """Raise every side containing ``side`` to at least its bound. A walk stops at a side
        already that high: whatever raised it there pushed the same value further up."""
        value = side_bounds[side]
        stack, succs = [side], self.side_succs
        while stack:
            for t in succs[stack.pop()]:
                if side_bounds[t] < value:
                    side_bounds[t] = value
                    stack.append(t)

    def _solve_nested(self, rows: int, budget: int, bound: int) -> int:
        """The split loop of ``solve`` with nested sides (``trees.exact.nesting``), as the
        compiled kernel does it: side bounds raised through containment at the start and
        after each child solved; the failed bound is the least raised bound of a split."""
        # Each side starts at its stored bound, else its class count. The class count is itself
        # monotone (a superset has every class of a subset), so only a side with a stored bound
        # can raise a side containing it: only those are pushed up (in Python a pass over every
        # side and edge at every node costs more than it saves).
        side_bounds = [0] * (2 * len(self.columns))
        stored_bounds = []
        exact_get, lower_get, classes_in = self.exact.get, self.lower.get, self.classes_in
        splits = list(distinct_splits(rows, self.columns))
        for index, left, right in splits:
            stored = exact_get(left) or lower_get(left)
            if stored:
                side_bounds[2 * index] = stored
                stored_bounds.append(2 * index)
            else:
                side_bounds[2 * index] = classes_in(left)
            stored = exact_get(right) or lower_get(right)
            if stored:
                side_bounds[2 * index + 1] = stored
                stored_bounds.append(2 * index + 1)
            else:
                side_bounds[2 * index + 1] = classes_in(right)
        for side in stored_bounds:
            self._push_up(side_bounds, side)
        ordered = [(side_bounds[2 * index] + side_bounds[2 * index + 1], index, left, right)
                   for index, left, right in splits]
        ordered.sort(key=_first)
        best, best_index = budget + 1, -1
        raise_side = self._raise_side
        for split_bound, index, left, right in ordered:
            if split_bound >= best:
                break
            if side_bounds[2 * index] + side_bounds[2 * index + 1] >= best:
                continue
            right_bound = max(self.quick_bound(right), side_bounds[2 * index + 1])
            raise_side(side_bounds, 2 * index + 1, right_bound)
            left_value = self.solve(left, best - 1 - right_bound)
            raise_side(side_bounds, 2 * index, left_value)
            if left_value > best - 1 - right_bound:
                continue
            right_value = self.solve(right, best - 1 - left_value)
            raise_side(side_bounds, 2 * index + 1, right_value)
            if right_value > best - 1 - left_value:
                continue
            best, best_index = left_value + right_value, index
        # Side bounds only grow and hold everything the children's solves proved (each
        # solved side was raised to its value), so a split's bound is the sum of its sides'.
        failed_bound = NO_TREE if best <= budget else min(
            [side_bounds[2 * index] + side_bounds[2 * index + 1] for index, _, _ in splits])
        return self._settle(rows, budget, bound, best, best_index, failed_bound)

    # -- trees -------------------------------------------------------------------------------
    def label_of(self, rows: int) -> int:
        """The class of a pure row set."""
        return next(self.class_of_set[s] for s in self.class_sets if rows & s)

    def nested(self, rows: int):
        """The memoised minimum tree of ``rows`` as ("leaf", k) / (feature, left, right)."""
        return rebuild(rows, None, self.columns, self.features, self._decide)

    def _decide(self, rows: int, _):
        if self.classes_in(rows) == 1:
            return ("leaf", self.label_of(rows))
        return (self.split_of[rows], None, None)

    def improve(self, nested, rows: int, calls_each: int):
        """The tree ``nested`` with, bottom-up, each subtree replaced by a minimum one when a
        solve limited to ``calls_each`` calls finds one smaller: an anytime upper bound
        before the deepening proves anything at the root. Returns (tree, leaves)."""
        if nested[0] == "leaf":
            return nested, 1
        feature, left, right = nested
        right_rows = rows & self.columns[self.features.index(feature)]
        left, left_leaves = self.improve(left, rows ^ right_rows, calls_each)
        right, right_leaves = self.improve(right, right_rows, calls_each)
        leaves = left_leaves + right_leaves
        self.poll.call_cap = self.calls + calls_each
        try:
            value = self.solve(rows, leaves - 1)
        except OutOfCalls:
            value = NO_TREE
        finally:
            self.poll.call_cap = None
        if value <= leaves - 1:
            return self.nested(rows), value
        return (feature, left, right), leaves

    def greedy(self, rows: int):
        """A pure tree by information gain (ties: lowest column), as a nested tuple."""
        patterns = np.flatnonzero(np.unpackbits(
            np.frombuffer(rows.to_bytes(self.n_bytes, "little"), dtype=np.uint8),
            bitorder="little"))  # a row set's bits are its distinct rows
        return greedy_start(self._rows, self.labels, self.n_classes, self.features, patterns)


class CompiledRowSetSearch(RowSetSearch):
    """The same search run by ``bnb_kernels.solve`` on uint64 word bitsets and an array hash
    table: about an order of magnitude fewer seconds per call than the Python loop. The
    compiled recursion returns every ``chunk`` calls so that the deadline is
    polled; its memo survives, so the next call resumes where it stopped."""

    MEMORY_BYTES = 768 * 2**20  # cap on the memo table; when full it takes no new entries
    INITIAL_CAPACITY = 1 << 16

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
                                  *self.nesting_arrays)
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
        return {**super().stats(), "memo_entries": int(self.counters[self.kernels.ENTRIES]),
                "table_capacity": self.table.shape[0],
                "table_saturated": not self.counters[self.kernels.GROWABLE]}

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
