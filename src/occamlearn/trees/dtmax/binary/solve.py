"""DT(max) on 0/1 columns: MurTree's search, compiled, exact like the ordered search.

When every column of the data takes at most two values (a 0/1 matrix, one-hot categories,
flags) every test is one column, and the dynamic programme of MurTree / STreeD (Demirović et
al., JMLR 2022; van der Linden et al., NeurIPS 2023) over the distinct rows is much faster
than the ordered search's interval search (``benchmarks/results/dtmax_continuous.md``, the
bundled binary matrices at depth 4):

    best(S, d) = min( leaf(S),  min_f  best(S with x_f = 0, d-1) + best(S with x_f = 1, d-1) + 1 )

over the rows S reaching a node, where costs are ``errors * scale + decisions``: fewest
weighted errors first, then fewest decision nodes (``prefer_small``; otherwise the cost is
the errors alone, a test is taken only where it makes fewer errors, and the search prunes
everything once a tree makes only the errors forced by conflicting rows). ``kernels`` holds
the search, with its depth-2 pair counts, difference counting, memo of row sets with bounds
from failed searches, the similarity bound and witnesses (rows no depth-2 tree classifies
without an error, ``witnesses``); ``search`` feeds it in slices of work between
which the deadline is polled. Only *useful* columns are searched: constant, duplicate and
complementary ones are dropped first (``exact.data.reduce_columns``).

With a deadline (or Ctrl-C) the best tree of the top node found so far is returned, marked
"feasible", with the errors forced by identical rows of different classes as its bound.
"""

from __future__ import annotations

import numpy as np

from occamlearn.stopping import CLOCK, Deadline
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.result import DtmaxResult, nested_errors, nested_tests
from occamlearn.trees.exact.data import group_examples, original_columns, reduce_columns

__all__ = ["binary_search", "fits_in_memory"]


def fits_in_memory(data: OrderedData) -> bool:
    """Whether the search's pair-count tables fit its memory plan."""
    from occamlearn.trees.dtmax.binary.search import fits_in_memory as tables_fit

    return tables_fit(data.n_features, data.n_classes)


def _over_thresholds(nested: tuple) -> tuple:
    """A nested tree over 0/1 columns as one over (column, rank threshold 1)."""
    if nested[0] == "leaf":
        return nested
    return ("test", int(nested[1]), 1, _over_thresholds(nested[2]),
            _over_thresholds(nested[3]))


def binary_search(data: OrderedData, max_depth: int, *, prefer_small: bool = True,
                  incumbent=None, deadline: Deadline | None = None) -> DtmaxResult:
    """The most accurate tree of depth <= ``max_depth`` over ``data``, whose every feature
    takes at most two values (ranks 0 and 1) and whose weights are whole numbers.
    ``incumbent``: None, or a function returning (a nested tree within the depth, its weighted
    errors on ``data``), asked for only if the search does not end within its first slice of
    work; from then on its cost bounds the search from above (every tree it prunes costs at
    least as much), and it is returned if none is better."""
    from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch

    started = CLOCK()
    weight = data.weight.astype(np.int64)
    # unit weights group as unweighted rows do (the same counts, without np.add.at)
    groups = group_examples(data.rank.T.astype(np.uint8), data.y,
                            None if np.all(weight == 1) else weight)
    columns = reduce_columns(groups.patterns)
    # a chosen test always separates rows, so a tree has fewer than n_patterns decisions
    scale = max(1, min(2 ** int(max_depth), groups.n_patterns)) if prefer_small else 1
    depth = int(max_depth) if columns.n_kept else 0
    search = CompiledDepthSearch(columns.matrix, groups.class_weights(data.n_classes), scale,
                                 int(prefer_small), deadline, depth)

    def incumbent_bound() -> int:
        tree, errors = incumbent()
        return int(round(errors)) * scale + int(prefer_small) * nested_tests(tree) + 1

    cost, subtree = search.solve_top(depth, slow=None if incumbent is None
                                     else incumbent_bound)
    if subtree is None:                  # (only below an incumbent's bound)
        tree, errors = incumbent()
    else:
        tree = _over_thresholds(original_columns(subtree, columns))
        # a tree has fewer than ``scale`` tests, so its cost's quotient is its errors
        errors = float(cost // scale) if not search.stopped else nested_errors(
            tree, data.rank, data.y, data.weight)
    forced = float(groups.forced_errors())
    proven = not search.stopped or (not prefer_small and errors <= forced)
    lower = errors if proven else forced
    unproven = None if proven else ("errors" if lower < errors else "size")
    stats = dict(search.statistics(), seconds=CLOCK() - started, n_columns=columns.n_kept,
                 n_patterns=groups.n_patterns, tests=nested_tests(tree))
    return DtmaxResult(tree, errors, lower, "optimal" if proven else "feasible", unproven,
                       "binary", stats)
