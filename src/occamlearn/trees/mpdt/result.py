"""``MinimumTreeResult``: what every minimum-tree engine of the family returns (MaxSAT, MinDT,
branch and bound, the subset search, the error-budget searches, the portfolio), and what
``minimum.find_minimum_tree`` hands to the estimator.

``status`` is ``"optimal"`` when ``lower_bound == upper_bound`` was proven, ``"feasible"`` when
the deadline (or Ctrl-C) stopped the search with ``tree`` the best found so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from occamlearn.model.tree import Tree

__all__ = ["MinimumTreeResult"]


@dataclass(frozen=True)
class MinimumTreeResult:
    """Picklable outcome: the tree, whether it is proven minimum, bounds, stats, trace."""

    tree: Tree
    status: str  # "optimal" | "feasible"
    lower_bound: int  # proven lower bound on the minimum size
    upper_bound: int  # size of ``tree``
    stats: dict = field(default_factory=dict)
    trace: tuple = ()  # ((seconds, size), ...) each time a smaller tree was found
