"""Pure size: the fewest leaves of a tree that classifies every row correctly.

Solution: ``(leaves, nested tree)``; a leaf over rows of two classes is infeasible (infinite
leaves). Combining adds the leaves; the better solution has fewer leaves; one leaf is
settled. The specialised engine is ``mpdt.bnb`` (class and incompatibility bounds).
"""

from __future__ import annotations

import math

__all__ = ["PureSize"]


class PureSize:
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
