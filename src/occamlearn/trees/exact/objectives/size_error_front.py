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

``depth_bounded_frontier`` runs it on the exact core's generic search (``exact.search``):
exhaustive, so every point is proven. It is the route of ``trees.frontier`` when a depth
bound is given; the unbounded curve has a faster engine (the error-budget branch and bound).
"""

from __future__ import annotations

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.trees.exact.data import group_examples
from occamlearn.trees.exact.search import solve
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.weights import integer_weights

__all__ = ["SizeErrorFront", "depth_bounded_frontier"]


def _pareto(points: dict) -> dict:
    front, fewest = {}, None
    for leaves in sorted(points):
        errors = points[leaves][0]
        if fewest is None or errors < fewest:
            front[leaves], fewest = points[leaves], errors
    return front


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
        return _pareto(points)

    def better(self, a, b):
        merged = dict(a)
        for leaves, point in b.items():
            if leaves not in merged or point[0] < merged[leaves][0]:
                merged[leaves] = point
        return _pareto(merged)

    def settled(self, solution) -> bool:
        return solution[1][0] == 0

    def tree(self, solution):
        return solution[min(solution)][1]


def depth_bounded_frontier(X, y, n_classes: int, max_leaves, max_depth: int, sample_weight,
                           deadline):
    """``trees.frontier.Frontier`` of trees of depth <= ``max_depth`` (see the module
    docstring). At a ``deadline`` only the one-leaf point is proven; the others keep the
    one-leaf tree with the forced errors as their lower bound."""
    from occamlearn.trees.frontier import Frontier

    weight, scale = (np.ones(X.shape[0], dtype=np.int64), 1) if sample_weight is None \
        else integer_weights(sample_weight, X.shape[0])
    groups = group_examples(X, y, weight)
    X_rows, y_rows = groups.rows()
    as_errors = (lambda units: units / scale) if sample_weight is not None else int
    stopped = False
    try:  # whole-number weights: the core's sums stay exact integers
        front, _ = solve(X, y, n_classes, SizeErrorFront(max_leaves), max_depth=max_depth,
                         sample_weight=weight, deadline=deadline)
    except Stop:
        stopped = True
        counts = np.zeros(n_classes)
        np.add.at(counts, groups.label, groups.count)
        front = {1: (counts.sum() - counts.max(), ("leaf", int(counts.argmax())))}
    last = max_leaves if max_leaves is not None else max(front)
    trees, errors, lower, best = [], [], [], None
    forced = groups.forced_errors()
    built = {}
    for count in range(1, last + 1):
        if count in front and (best is None or front[count][0] < front[best][0]):
            best = count
        if best not in built:
            built[best] = Tree.from_nested(front[best][1], X.shape[1], n_classes) \
                .with_counts(X_rows, y_rows)
        trees.append(built[best])
        errors.append(front[best][0])
        lower.append(front[best][0] if not stopped or count == 1 else forced)
    return Frontier(np.array([as_errors(e) for e in errors]),
                    np.array([as_errors(e) for e in lower]), tuple(trees),
                    "feasible" if stopped and last > 1 else "optimal",
                    {"stopped": stopped, "max_depth": max_depth})
