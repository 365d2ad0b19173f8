"""Size within an error budget: the fewest leaves with weighted errors <= ``budget`` units.

Solution: a *front*, ``{leaves: (errors, nested tree)}`` keeping for each number of leaves
the fewest errors found, and only points within the budget whose errors fall as the leaves
grow (STreeD's treatment of a constraint: a Pareto front per row set). A leaf's front is one
point; a split's front is the min-plus combination of its children's; two fronts merge point
by point. A front whose one leaf makes no error is settled. The answer is the smallest point.
The specialised engine is ``mpdt.error_budget`` (budget-split search with bounds).
"""

from __future__ import annotations

__all__ = ["SizeWithinBudget", "merge_fronts", "pareto_front"]


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
