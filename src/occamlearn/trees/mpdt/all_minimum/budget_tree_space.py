"""Every smallest tree within an error budget, from the budgeted branch and bound: counted
exactly, ranked, sampled and drawn diverse, with no SAT call (the error-budget twin of
``tree_space``).

Let L(S, b) be the fewest leaves of a tree of row set S with at most b errors (what the
error-budget branch and bound proves, ``error_budget.bnb_engine.BudgetRowSetSearch``). The
trees wanted are those of the root with L(root, b) leaves and at most b errors; trees differing
only in a leaf's label are distinct (as in the MaxSAT enumeration of ``max_errors`` trees).

Why the count is a recursion over (row set, exact errors). Take such a tree with e <= b errors:
then L(S, e) = L(S, b) (fewer errors cannot need fewer leaves, and the tree itself has
L(S, b)). Each child is minimal *for its own exact errors*: if the left child (e0 errors, l0
leaves) could be replaced by a tree with fewer leaves and at most e0 errors, the whole tree
could be smaller within e. So with C(S, e) = the number of trees of S with exactly e errors and
exactly L(S, e) leaves,

    C(S, e) = #{labels k : err_k(S) = e}                                   if L(S, e) = 1,
    C(S, e) = sum over features f, e0 + e1 = e with L(S0, e0) + L(S1, e1) = L(S, e)
              of C(S0, e0) x C(S1, e1)                                       otherwise,

and the answer is the sum of C(root, e) over e <= b with L(root, e) = L(root, b). Every test
``L(S0, e0) + L(S1, e1) = L`` is two budgeted solves (exact within their bound, a proven
lower bound above it), so the count is exact. A split with an empty side is never in a
smallest tree (the other side alone is smaller with the same errors). Errors are counted in
the search's units (rows; integer sample weights count as repeated rows).

As in ``tree_space``, the i-th tree is found by mixed-radix decoding, so trees are enumerated
lazily, sampled uniformly and drawn diverse (MDSOL's greedy step over (BFS position, feature)
pairs) without holding anything per tree; ``MinimumTreeSpace``'s drawing methods are shared.
"""

from __future__ import annotations

from occamlearn.stopping import Deadline
from occamlearn.trees.exact.data import bitset, group_examples, validate_binary_data
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.mpdt.all_minimum.tree_space import (
    MinimumTreeSpace,
    SpaceCut,
    column_groups,
    proper_splits,
)
from occamlearn.trees.mpdt.error_budget.bnb_engine import INF, BudgetRowSetSearch

__all__ = ["BudgetTreeSpace"]


class BudgetTreeSpace(MinimumTreeSpace):
    """The smallest trees of the 0/1 matrix ``X`` and class indices ``y`` with at most
    ``max_errors`` misclassified rows (identical rows with different labels allowed; they use
    up budget). ``count``, ``available``, ``nested``, ``tree``, ``sample``, ``diverse`` as in
    ``MinimumTreeSpace``; ``leaves`` is the proven minimum number of leaves."""

    def __init__(self, X, y, n_classes: int, max_errors: int, *, leaves: int | None = None,
                 deadline: Deadline | None = None, feature_names=()):
        X, y = validate_binary_data(X, y, n_classes)
        self.n_features, self.n_classes = X.shape[1], int(n_classes)
        self.feature_names = tuple(feature_names)
        self.deadline = Deadline.coerce(deadline)
        groups = group_examples(X, y)
        self._engine = BudgetRowSetSearch(groups, self.n_classes, deadline=self.deadline,
                                          use_incompatibility=False)
        view = self._engine.view
        if not view.one_unit:  # pragma: no cover - rows are single units without weights
            raise ValueError("the error-budget tree space counts rows: no sample weights.")
        # errors are counted in the search's units: a unit is the greatest common divisor of
        # the groups' row counts (every group may stand for several identical rows)
        self.budget = view.to_units(max_errors)
        self._root = view.root
        pattern_of_bit = groups.pattern[view.group_of_bit]
        self._groups = column_groups(
            (bitset(groups.patterns[pattern_of_bit, j] == 1) for j in range(X.shape[1])),
            self._root)
        self._leaves_memo: dict[tuple[int, int], int] = {}
        self._terms: dict[tuple[int, int], tuple] = {}
        self._counts: dict[tuple[int, int], int] = {}
        self.count_lower_bound = 0
        try:
            minimum = self._minimum_leaves(self._root, self.budget)
        except Stop:
            raise SpaceCut("the minimum size within the budget was not proven before the "
                           "deadline: no set of trees to draw from.") from None
        if minimum >= INF:
            raise ValueError(f"max_errors={max_errors} is below the errors that identical rows "
                             "with different labels force: no tree fits.")
        self.leaves = minimum if leaves is None else int(leaves)
        forced = self._engine.static(self._root)[2]
        self._root_errors = [e for e in range(forced, self.budget + 1)
                             if self._minimum_leaves(self._root, e) == self.leaves]
        try:
            total = 0
            for errors in self._root_errors:
                total += self._count(self._root, errors)
                self.count_lower_bound = total
            self.count = total
        except Stop:
            self.count = None

    # -- exact leaf counts -------------------------------------------------------------------
    def _minimum_leaves(self, rows: int, errors: int) -> int:
        """L(rows, errors), exact (INF when the errors are below the forced ones)."""
        key = (rows, errors)
        known = self._leaves_memo.get(key)
        if known is not None:
            return known
        engine = self._engine
        bound = engine.lower(engine.entry(rows), errors)
        while bound < INF and (value := engine.solve(rows, errors, bound)) > bound:
            bound = value
        value = bound if bound >= INF else value
        self._leaves_memo[key] = value
        return value

    def _class_errors(self, rows: int) -> list[int]:
        counts = [(rows & s).bit_count() for s in self._engine.class_sets]
        total = sum(counts)
        return [total - c for c in counts]

    def _split_terms(self, rows: int, errors: int, leaves: int) -> tuple:
        """(features, left, right, e0, e1, l0, l1) of every way to build a tree of ``rows``
        with exactly ``errors`` errors and ``leaves`` leaves from two minimal children."""
        key = (rows, errors)
        found = self._terms.get(key)
        if found is not None:
            return found
        if self.deadline.expired():
            raise Stop
        engine, terms = self._engine, []
        for features, left, right in proper_splits(rows, self._groups):
            left_forced, right_forced = engine.static(left)[2], engine.static(right)[2]
            for left_errors in range(left_forced, errors - right_forced + 1):
                right_errors = errors - left_errors
                left_leaves = engine.solve(left, left_errors, leaves - 1)
                if left_leaves > leaves - 1:
                    continue
                need = leaves - left_leaves
                if engine.solve(right, right_errors, need) != need:
                    continue  # more than need (a smaller total would contradict L(S, e))
                terms.append((features, left, right, left_errors, right_errors,
                              left_leaves, need))
        found = self._terms[key] = tuple(terms)
        return found

    def _count(self, rows: int, errors: int) -> int:
        key = (rows, errors)
        known = self._counts.get(key)
        if known is not None:
            return known
        leaves = self._minimum_leaves(rows, errors)
        if leaves >= INF:
            total = 0
        elif leaves == 1:
            total = sum(e == errors for e in self._class_errors(rows))
        else:
            total = 0
            for features, left, right, e0, e1, _, _ in self._split_terms(rows, errors, leaves):
                total += len(features) * self._count(left, e0) * self._count(right, e1)
        self._counts[key] = total
        return total

    # -- trees -------------------------------------------------------------------------------
    def _nested(self, rows: int, leaves: int, index: int):
        for errors in self._root_errors:
            block = self._counts.get((rows, errors), 0)
            if index < block:
                return self._nested_exact(rows, errors, index)
            index -= block
        raise AssertionError("index beyond the counted trees")  # unreachable: checked

    def _nested_exact(self, rows: int, errors: int, index: int):
        leaves = self._minimum_leaves(rows, errors)
        if leaves == 1:
            labels = [k for k, e in enumerate(self._class_errors(rows)) if e == errors]
            return ("leaf", labels[index])
        for features, left, right, e0, e1, _, _ in self._terms[(rows, errors)]:
            left_count, right_count = self._counts[(left, e0)], self._counts[(right, e1)]
            per_feature = left_count * right_count
            block = len(features) * per_feature
            if index < block:
                which, rest = divmod(index, per_feature)
                left_index, right_index = divmod(rest, right_count)
                return (features[which], self._nested_exact(left, e0, left_index),
                        self._nested_exact(right, e1, right_index))
            index -= block
        raise AssertionError("index beyond the counted trees")  # unreachable: counted

