"""DT(max) by dynamic programming: the most accurate tree of depth <= d, then the smallest.

The MaxSAT encoding (``trees.dtmax.encoding``) has to refute every better tree clause by clause, and
measured 100-10,000x slower than STreeD's dynamic programme (``benchmarks/results/
dtmax_runtime.md``). This module is the dynamic programme of MurTree / STreeD (Demirović et
al., JMLR 2022; van der Linden et al., NeurIPS 2023) on numpy, exact like the MaxSAT search:

    best(S, d) = min( leaf(S),  min_f  best(S with x_f = 0, d-1) + best(S with x_f = 1, d-1) + 1 )

over the rows S reaching a node, where costs are ``errors * scale + decisions``: fewest
training errors first, then fewest decision nodes (``prefer_small``; otherwise the cost is
the errors alone, a test is taken only where it makes fewer errors, and the search prunes
everything once a tree makes only the errors forced by conflicting rows). Depths 1 to 3 are closed forms over class
counts (``dtmax_dp_counts``: the depth-2 solver of MurTree, batched over every root test for
depth 3); deeper levels branch on each useful test. What keeps it exact and short:

* Only *useful* tests of a row set are tried: columns constant on it cannot split it, and
  columns equal on it split it identically (one representative is kept).
* A node whose rows are pure, or whose leaf already makes only the errors forced by identical
  rows with different labels, is a leaf: no tree can do better on those rows.
* Above depth 3, a test is skipped when its forced errors, or the first child's cost plus the
  second child's forced errors, already reach the best tree found (branch and bound), and row
  sets solved before are looked up (the same set is reached by testing f then g or g then f).

Two engines compute it. ``engine="compiled"`` (``dp_compiled``, ``dp_kernels``) is MurTree's
search compiled with numba: a depth-2 solver from pair counts, difference counting, a memo of
row sets with bounds from failed searches, the similarity bound (measured 10x faster than the
numpy engine at depth 4 on the bundled matrices, and below STreeD's total:
``benchmarks/results/dtmax_runtime_dpspeed.md``). The numpy engine (``dp_numpy``) runs
while the compiled kernels are not yet in numba's disk cache (``trees.kernel_cache`` builds
it in the background) or when its count tables would not fit in memory; "auto" picks.

With a deadline (or Ctrl-C) the search stops between tests of the top level, or at depth 3
between chunks of root tests, and returns the best tree found so far, marked "feasible";
otherwise the tree is "optimal". Depth-3 count tables are predicted before they are built
and taken in chunks of root tests when they would exceed ``dp_numpy.MEMORY_BUDGET`` (or, with a
deadline, take more than a fraction of a second), so wide data runs in bounded memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.decode import tree_of_nested
from occamlearn.trees.dtmax.dp_numpy import NumpyDepthSearch, Subtree, one_blas_thread
from occamlearn.trees.exact.data import (
    ExampleGroups,
    ReducedColumns,
    original_columns,
    reduce_columns,
)

__all__ = ["ENGINES", "DepthSearchResult", "best_tree_within_depth"]

DP_KERNELS = "dtmax-dp"  # its name in ``trees.kernel_cache``


@dataclass(frozen=True)
class DepthSearchResult:
    """The best tree found (over the original columns), its training ``errors`` and
    ``decisions``, and ``status`` "optimal" or "feasible"."""

    tree: Tree
    errors: int
    decisions: int
    status: str
    stats: dict = field(default_factory=dict)


def _decisions(subtree: Subtree) -> int:
    return 0 if subtree[0] == "leaf" else 1 + _decisions(subtree[2]) + _decisions(subtree[3])


ENGINES = ("auto", "compiled", "numpy")
_LOADED = []  # not empty once this process loaded the compiled kernels


def _compiled_ready(engine: str, n_features: int, n_classes: int) -> bool:
    """Whether to run the compiled engine (``dp_compiled``): asked for, or under "auto" when
    its kernels are loaded or on disk (else their background compile starts and this fit
    runs the numpy engine) and its count tables fit in memory."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}; got {engine!r}.")
    if engine != "auto":
        return engine == "compiled"
    from occamlearn.trees.dtmax.dp_compiled import fits_in_memory

    if not fits_in_memory(n_features, n_classes):
        return False
    from occamlearn.trees import kernel_cache

    if _LOADED:
        return True
    if not kernel_cache.kernels_ready(DP_KERNELS):
        kernel_cache.start_background_compile(DP_KERNELS)
        return False
    try:
        kernel_cache.load(DP_KERNELS)
    except kernel_cache.KernelsUnavailable:
        return False
    _LOADED.append(True)
    return True


def best_tree_within_depth(groups: ExampleGroups, n_classes: int, depth: int, *,
                           prefer_small: bool = True, deadline: Deadline | float | None = None,
                           progress: ProgressSink | None = None,
                           columns: ReducedColumns | None = None,
                           engine: str = "auto") -> DepthSearchResult:
    """Fewest training errors over trees of depth <= ``depth`` (then, with ``prefer_small``,
    fewest decision nodes; without it a test is still only taken where it reduces errors,
    and the search can stop as soon as no tree can make fewer errors).

    ``groups``: the training rows grouped by distinct row and label (``group_examples``);
    ``deadline``: a ``Deadline`` (or a ``stopping.CLOCK`` time) after which the best tree so
    far is returned
    with status "feasible" (depth 3 stops between chunks of root tests, deeper searches
    between tests; depths <= 2 are one short pass);
    ``columns``: ``reduce_columns(groups.patterns)`` if the caller has it already;
    ``engine``: "compiled" (``dp_compiled``, MurTree's search in numba), "numpy" (``dp_numpy``'s
    batched counts) or "auto" (compiled when its kernels are ready).
    """
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"depth must be a non-negative int; got {depth!r}.")
    if deadline is not None and not isinstance(deadline, Deadline):  # a CLOCK time
        deadline = Deadline(deadline)
    start = CLOCK()
    if columns is None:
        columns = reduce_columns(groups.patterns)
    weights = groups.class_weights(n_classes)
    # a chosen test always separates rows, so a tree has fewer than n_patterns decisions
    scale = max(1, min(2 ** int(depth), groups.n_patterns)) if prefer_small else 1
    depth = int(depth) if columns.n_kept else 0
    if _compiled_ready(engine, columns.n_kept, n_classes):
        from occamlearn.trees.dtmax.dp_compiled import CompiledDepthSearch

        search = CompiledDepthSearch(columns.matrix, weights, scale, int(prefer_small),
                                     deadline, depth)
        cost, subtree = search.solve_top(depth)
        stats = dict(search.statistics(), engine="compiled")
    else:
        search = NumpyDepthSearch(columns.matrix, weights, scale, int(prefer_small), deadline)
        # one BLAS thread: the products are many and small, and on a shared 2-core machine
        # OpenBLAS's threads made depth 4 2.5-4x slower in wall time (audio 8.3 s -> 2.1 s)
        with one_blas_thread():
            cost, subtree = search.solve_top(depth)
        stats = dict(search.stats, engine="numpy")
    tree = tree_of_nested(original_columns(subtree, columns), groups, n_classes,
                          groups.patterns.shape[1])
    stats.update(seconds=CLOCK() - start, n_columns=columns.n_kept)
    status = "feasible" if search.stopped else "optimal"
    return DepthSearchResult(tree, cost // scale, _decisions(subtree), status, stats)
