"""Most accurate trees of bounded depth over ordered columns, exact over every threshold.

``data`` (each feature as ranks of its sorted values), ``kernels`` (compiled depth-1 solver,
row splits), ``depth2`` (the compiled depth-2 solver on a node's own sorted columns),
``bounds`` (a range of thresholds bounded from its two ends), ``search`` (interval search
over thresholds with neighbourhood and sub-interval pruning, memo, anytime lower bound),
``solve`` (the public entry, ``best_ordered_tree``).
"""

from occamlearn.trees.dtmax.ordered.data import OrderedData
from occamlearn.trees.dtmax.ordered.solve import (
    OrderedTreeResult,
    best_ordered_tree,
    best_tree_on,
)

__all__ = ["OrderedData", "OrderedTreeResult", "best_ordered_tree", "best_tree_on"]
