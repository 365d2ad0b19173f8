"""Most accurate trees of bounded depth over ordered columns, exact over every threshold.

``data`` (each feature as ranks of its sorted values), ``kernels`` (compiled depth-1 and
depth-2 solvers, row splits), ``search`` (interval search over thresholds with neighbourhood
and sub-interval pruning, memo, anytime lower bound), ``solve`` (the public entry,
``best_ordered_tree``).
"""

from occamlearn.trees.dtmax.ordered.solve import OrderedTreeResult, best_ordered_tree

__all__ = ["OrderedTreeResult", "best_ordered_tree"]
