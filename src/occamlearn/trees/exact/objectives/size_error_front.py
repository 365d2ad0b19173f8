"""The size-error front at depth <= d: for each number of leaves, the fewest weighted errors.

Solution: ``{leaves: (errors, nested tree)}`` holding, for each leaf count up to ``max_leaves``,
the fewest errors found, and only points whose errors fall as the leaves grow (a Pareto front,
STreeD's treatment of a second objective). A leaf's front is one point; a split's is the
min-plus combination of its children's fronts, points above ``max_leaves`` dropped (a tree
with more leaves cannot become a subtree of one within the cap); two fronts merge point by
point. A front whose one leaf makes no error is settled. Why this is exact: the best tree
with at most L leaves on S is a leaf or a split whose children are, for the leaf counts they
get, the best trees of their row sets at depth d - 1 (replacing a child by a better one with
the same leaves keeps the leaf count and lowers the errors), so the min-plus of the
children's fronts over every split contains it.

On the exact core's generic search (``exact.search``) it is exhaustive, the reference the
specialised engine is tested against: ``trees.size_error.depth_bounded`` (closed-form depth two) under a
depth bound, the error-budget branch and bound's staircase (``trees.size_error.frontier``) without.
"""

from __future__ import annotations

from occamlearn.trees.exact.objectives.size_within_budget import merge_fronts, pareto_front

__all__ = ["SizeErrorFront"]


class SizeErrorFront:
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
