"""Accuracy at depth d: the fewest weighted errors, then (``prefer_small``) fewest decisions.

Solution: ``(errors, decisions, nested tree)``, compared lexicographically (errors only
without ``prefer_small``, so a split is kept only if it makes fewer errors). A leaf predicts
its heaviest class; a split adds its children and one decision; a leaf without errors is
settled. The depth is the search's ``max_depth``. The specialised engines are behind
``dtmax.entry.find_most_accurate_tree`` (the ordered search, and MurTree's compiled search on 0/1 columns).
"""

from __future__ import annotations

__all__ = ["AccuracyAtDepth"]


class AccuracyAtDepth:
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
