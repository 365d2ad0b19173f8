"""The generic exact search of the core: any separable objective, over row sets, memoised.

STreeD's design (van der Linden, de Weerdt and Demirović, NeurIPS 2023): a search that knows
row sets, splits, depth and a memo, and an *objective* that knows only three things -- the
solution of a leaf from the class weights of its rows, how the solutions of two children
combine under a split, and which of two solutions is better -- plus, optionally, a lower
bound that lets the search skip a split. Every objective of ``exact.objectives`` plugs in
here as one short module; so does a new one. ``best(S, d)`` is the better of the leaf and,
for each distinct split of S (``splits.distinct_splits``), the combination of the children's
``best(., d - 1)``; the answer for all rows is ``best(root, max_depth)``.

This search is the reference every specialised engine is tested against, and the way to run
an objective that has no engine yet: it is exponential in the worst case and runs in Python.
The specialised engines (``mpdt.bnb`` for pure size, ``mpdt.error_budget`` for a size within
a budget, ``dtmax.entry`` for accuracy at depth) add bounds, budget-driven
pruning and compiled or vectorised counting on the same data view.
"""

from __future__ import annotations

from typing import Protocol

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.bits import GroupBits
from occamlearn.trees.exact.data import group_examples, validate_binary_data
from occamlearn.trees.exact.splits import distinct_splits
from occamlearn.trees.exact.stop import Poll
from occamlearn.trees.weights import integer_weights

__all__ = ["Objective", "solve"]


class Objective(Protocol):
    """A separable objective. A *solution* is any value the objective understands; the
    search only passes solutions between these methods."""

    def leaf(self, class_weights: list[int]):
        """The solution of one leaf over rows with these class weights."""

    def combine(self, feature: int, zero_side, one_side):
        """The solution of a split on ``feature`` with these children's solutions."""

    def better(self, a, b):
        """The better of two solutions of one row set (or both merged, for fronts)."""

    def settled(self, solution) -> bool:
        """True if no split can improve ``solution`` (the search stops there)."""

    def tree(self, solution) -> tuple:
        """The nested tree (``("leaf", k)`` / ``(feature, zero, one)``) of a solution."""


def solve(X, y, n_classes: int, objective: Objective, *, max_depth: int | None = None,
          sample_weight=None, deadline: Deadline | None = None):
    """``(solution, Tree)``: the best solution of ``objective`` over trees of depth <=
    ``max_depth`` (None: any depth) on 0/1 matrix ``X`` with class indices ``y`` and per-row
    ``sample_weight``. A ``deadline`` that expires raises ``exact.stop.Stop``."""
    X, y = validate_binary_data(X, y, n_classes)
    weight, scale = (None, 1) if sample_weight is None else integer_weights(sample_weight,
                                                                             X.shape[0])
    view = GroupBits(group_examples(X, y, weight), n_classes)
    poll, memo, unit = Poll(deadline), {}, view.unit / scale
    depth = len(view.columns) if max_depth is None else int(max_depth)

    def best(rows: int, depth: int):
        key = (rows, depth)
        found = memo.get(key)
        if found is not None:
            return found
        poll.tick()
        found = objective.leaf([units * unit for units in view.class_weights(rows)])
        if depth > 0 and not objective.settled(found):
            for index, zero_side, one_side in distinct_splits(rows, view.columns):
                found = objective.better(found, objective.combine(
                    view.features[index], best(zero_side, depth - 1),
                    best(one_side, depth - 1)))
        memo[key] = found
        return found

    solution = best(view.root, depth)
    tree = Tree.from_nested(objective.tree(solution), X.shape[1], n_classes)
    return solution, tree.with_counts(*view.groups.rows())
