"""The branch and bound over row sets in Python (``RowSetSearch``), on row sets as Python
integers used as bitsets, with dicts as memo.

``solve(S, budget)`` returns the exact minimum number of leaves of a pure tree of S if it is
at most ``budget``, else a proven lower bound above it; the bounds used and why they hold are
in ``branch_and_bound``'s docstring. It is the engine of the numba-free first phase and of a
first use while the kernels compile, the fallback that rebuilds what a saturated compiled memo
dropped, and the base of ``compiled_engine.CompiledRowSetSearch`` (which shares its set-up,
tree rebuild and greedy improvement). The split enumeration, the poll and the tree rebuild are
the exact-search core's (``trees.exact``); both engines raise the bound of a split's side to
the bounds of the sides of other columns it contains (``trees.exact.nesting``; the proof is
there).
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.exact.anytime import NO_TREE
from occamlearn.trees.exact.data import bitset, column_bitsets
from occamlearn.trees.exact.nested import rebuild
from occamlearn.trees.exact.nesting import SideNesting, no_nesting, side_nesting
from occamlearn.trees.exact.splits import distinct_splits
from occamlearn.trees.exact.stop import OutOfCalls, Poll
from occamlearn.trees.mpdt.bnb.prepared_rows import greedy_start

__all__ = ["RowSetSearch"]


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



def smaller_first(left: int, right: int) -> tuple[int, int]:
    """(left, right), or (right, left) if the right side has fewer rows: the side a split
    solves first (the reason is at ``kernels._first_side``)."""
    return (right, left) if right.bit_count() < left.bit_count() else (left, right)


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
            first, second = smaller_first(left, right)  # as the kernel (``kernels``)
            second_bound = exact_get(second) or lower_get(second) or classes_in(second)
            first_value = solve(first, best - 1 - second_bound)
            if first_value > best - 1 - second_bound:
                failed_bound = min(failed_bound, first_value + second_bound)
                continue
            second_value = solve(second, best - 1 - first_value)
            if second_value > best - 1 - first_value:
                failed_bound = min(failed_bound, first_value + second_value)
                continue
            best, best_index = first_value + second_value, index
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
            first, second = smaller_first(left, right)  # as the kernel (``kernels``)
            f_side = 2 * index + (first != left)
            s_side = 4 * index + 1 - f_side
            second_bound = max(self.quick_bound(second), side_bounds[s_side])
            raise_side(side_bounds, s_side, second_bound)
            first_value = self.solve(first, best - 1 - second_bound)
            raise_side(side_bounds, f_side, first_value)
            if first_value > best - 1 - second_bound:
                continue
            second_value = self.solve(second, best - 1 - first_value)
            raise_side(side_bounds, s_side, second_value)
            if second_value > best - 1 - first_value:
                continue
            best, best_index = first_value + second_value, index
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
