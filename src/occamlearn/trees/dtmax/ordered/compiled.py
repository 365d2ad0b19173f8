"""The ordered engine's compiled kernels as one family of ``trees.kernel_cache``
("dtmax-ordered"): the public kernels of ``kernels``, ``depth2`` and ``depth2_counts`` (so
``kernels_ready`` checks each of them in numba's disk cache) and ``warm_up``, which runs them
all. The default fit on numeric tables uses this engine only once they are on disk, so a
fresh install's first fit does not compile them inside its time limit (the binary dynamic
programme answers meanwhile, while a background process builds the cache)."""

from __future__ import annotations

from occamlearn.trees.dtmax.ordered.depth2 import best_depth2, node_columns
from occamlearn.trees.dtmax.ordered.depth2_counts import best_depth2_counts, local_values
from occamlearn.trees.dtmax.ordered.kernels import (
    candidates,
    class_totals,
    promising_thresholds,
    side_subtrees,
    split_orders,
    tree_errors,
)

__all__ = ["best_depth2", "best_depth2_counts", "candidates", "class_totals", "local_values",
           "node_columns", "promising_thresholds", "side_subtrees", "split_orders",
           "tree_errors", "warm_up"]


def warm_up() -> None:
    """Compile (or load) every kernel of the engine, for whole and fractional weights."""
    from occamlearn.trees.dtmax.ordered.solve import warm_kernels

    warm_kernels()
