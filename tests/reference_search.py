"""The reference search of the tests: STreeD's generic exact search with one short class per
objective (van der Linden, de Weerdt and Demirović, NeurIPS 2023), exhaustive and in Python.

A search that knows row sets, splits, depth and a memo, and an *objective* that knows only
three things -- the solution of a leaf from the class weights of its rows, how the solutions
of two children combine under a split, and which of two solutions is better. ``best(S, d)``
is the better of the leaf and, for each distinct split of S (``splits.distinct_splits``),
the combination of the children's ``best(., d - 1)``; the answer for all rows is
``best(root, max_depth)``.

It shares the data view (``trees.exact.data``, ``bits``, ``splits``) with the engines, so it
is itself checked against ``bruteforce`` (which shares nothing) in
``trees/exact/test_reference_search.py``, and then serves as the reference for the engines
that add bounds and compiled counting: ``mpdt.bnb`` (pure size), ``mpdt.error_budget`` (size
within a budget), ``dtmax.entry`` (accuracy at depth), ``size_error.depth_bounded`` and
``size_error.frontier`` (the size-error front).

Objectives:
* Pure size: the fewest leaves of a tree that classifies every row correctly.
* Size within an error budget: the fewest leaves with weighted errors <= ``budget`` units.
* Accuracy at depth d: the fewest weighted errors, then (``prefer_small``) fewest decisions.
* The size-error front at depth <= d: for each number of leaves, the fewest weighted errors.
"""

from __future__ import annotations

import math
from typing import Protocol

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.bits import GroupBits
from occamlearn.trees.exact.data import group_examples, validate_binary_data
from occamlearn.trees.exact.splits import distinct_splits
from occamlearn.trees.exact.stop import Poll
from occamlearn.trees.weights import integer_weights


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


class PureSize:
    """Solution: ``(leaves, nested tree)``; a leaf over rows of two classes is infeasible
    (infinite leaves). Combining adds the leaves; the better solution has fewer leaves; one
    leaf is settled. The specialised engine is ``mpdt.bnb`` (class and incompatibility
    bounds)."""

    def leaf(self, class_weights):
        present = [k for k, w in enumerate(class_weights) if w]
        return (1, ("leaf", present[0])) if len(present) <= 1 else (math.inf, None)

    def combine(self, feature, zero_side, one_side):
        return (zero_side[0] + one_side[0], (feature, zero_side[1], one_side[1]))

    def better(self, a, b):
        return b if b[0] < a[0] else a

    def settled(self, solution) -> bool:
        return solution[0] == 1

    def tree(self, solution):
        if solution[1] is None:
            raise ValueError("identical rows have different classes: no pure tree exists")
        return solution[1]


def pareto_front(points: dict) -> dict:
    """The (leaves -> (errors, ...)) entries no entry with fewer leaves beats on errors."""
    front, fewest = {}, None
    for leaves in sorted(points):
        errors = points[leaves][0]
        if fewest is None or errors < fewest:
            front[leaves], fewest = points[leaves], errors
    return front


def merge_fronts(a: dict, b: dict) -> dict:
    """The Pareto front of two fronts together (``a`` kept on equal errors)."""
    merged = dict(a)
    for leaves, point in b.items():
        if leaves not in merged or point[0] < merged[leaves][0]:
            merged[leaves] = point
    return pareto_front(merged)


class SizeWithinBudget:
    """Solution: a *front*, ``{leaves: (errors, nested tree)}`` keeping for each number of
    leaves the fewest errors found, and only points within the budget whose errors fall as
    the leaves grow (STreeD's treatment of a constraint: a Pareto front per row set). A
    leaf's front is one point; a split's front is the min-plus combination of its
    children's; two fronts merge point by point. A front whose one leaf makes no error is
    settled. The answer is the smallest point. The specialised engine is
    ``mpdt.error_budget`` (budget-split search with bounds)."""

    def __init__(self, budget: int):
        self.budget = budget

    def leaf(self, class_weights):
        errors = sum(class_weights) - max(class_weights)
        label = class_weights.index(max(class_weights))
        return {1: (errors, ("leaf", label))} if errors <= self.budget else {}

    def combine(self, feature, zero_side, one_side):
        points = {}
        for a, (ea, ta) in zero_side.items():
            for b, (eb, tb) in one_side.items():
                if ea + eb <= self.budget and ea + eb < points.get(a + b, (ea + eb + 1,))[0]:
                    points[a + b] = (ea + eb, (feature, ta, tb))
        return pareto_front(points)

    def better(self, a, b):
        return merge_fronts(a, b)

    def settled(self, solution) -> bool:
        return solution.get(1, (1,))[0] == 0

    def tree(self, solution):
        if not solution:
            raise ValueError(f"no tree makes at most {self.budget} errors (units)")
        return solution[min(solution)][1]


class AccuracyAtDepth:
    """Solution: ``(errors, decisions, nested tree)``, compared lexicographically (errors
    only without ``prefer_small``, so a split is kept only if it makes fewer errors). A
    leaf predicts its heaviest class; a split adds its children and one decision; a leaf
    without errors is settled. The depth is the search's ``max_depth``. The specialised
    engines are behind ``dtmax.entry.find_most_accurate_tree`` (the ordered search, and
    MurTree's compiled search on 0/1 columns)."""

    def __init__(self, prefer_small: bool = True):
        self.prefer_small = prefer_small

    def leaf(self, class_weights):
        heaviest = max(class_weights)
        return (sum(class_weights) - heaviest, 0, ("leaf", class_weights.index(heaviest)))

    def combine(self, feature, zero_side, one_side):
        return (zero_side[0] + one_side[0], zero_side[1] + one_side[1] + 1,
                (feature, zero_side[2], one_side[2]))

    def better(self, a, b):
        key = (lambda s: s[:2]) if self.prefer_small else (lambda s: s[0])
        return b if key(b) < key(a) else a

    def settled(self, solution) -> bool:
        return solution[0] == 0

    def tree(self, solution):
        return solution[2]


class SizeErrorFront:
    """Solution: ``{leaves: (errors, nested tree)}`` holding, for each leaf count up to
    ``max_leaves``, the fewest errors found, and only points whose errors fall as the
    leaves grow (a Pareto front, STreeD's treatment of a second objective). A leaf's front
    is one point; a split's is the min-plus combination of its children's fronts, points
    above ``max_leaves`` dropped (a tree with more leaves cannot become a subtree of one
    within the cap); two fronts merge point by point. A front whose one leaf makes no error
    is settled. Why this is exact: the best tree with at most L leaves on S is a leaf or a
    split whose children are, for the leaf counts they get, the best trees of their row
    sets at depth d - 1 (replacing a child by a better one with the same leaves keeps the
    leaf count and lowers the errors), so the min-plus of the children's fronts over every
    split contains it. Here it is exhaustive, the reference for
    ``trees.size_error.depth_bounded`` (closed-form depth two) under a depth bound, the
    error-budget branch and bound's staircase (``trees.size_error.frontier``) without."""

    def __init__(self, max_leaves: int | None = None):
        self.max_leaves = max_leaves

    def leaf(self, class_weights):
        heaviest = max(class_weights)
        return {1: (sum(class_weights) - heaviest, ("leaf", class_weights.index(heaviest)))}

    def combine(self, feature, zero_side, one_side):
        points: dict = {}
        cap = self.max_leaves
        for a, (ea, ta) in zero_side.items():
            for b, (eb, tb) in one_side.items():
                if cap is not None and a + b > cap:
                    continue
                known = points.get(a + b)
                if known is None or ea + eb < known[0]:
                    points[a + b] = (ea + eb, (feature, ta, tb))
        return pareto_front(points)

    def better(self, a, b):
        return merge_fronts(a, b)

    def settled(self, solution) -> bool:
        return solution[1][0] == 0

    def tree(self, solution):
        return solution[min(solution)][1]
