"""Reductions of the splits of one row set, each losing no minimum (numba, cached).

``kernels._expand`` lists the splits of an open row set S; these rules shrink that list
before any child is probed or solved. Write m(T) for the fewest leaves of a pure tree of the
rows T; a split on column j costs m(L_j) + m(R_j), and m(S) is the least cost over the
splits. m is monotone: T ⊆ U gives m(T) <= m(U) (a pure tree of U is pure on T, and the
splits left with an empty side can be dropped). A rule may drop a split only if some kept
split costs no more; then the least cost over the kept splits is m(S), and the least *lower
bound* over the kept splits is a lower bound on m(S) -- which is what ``kernels._close``
stores when every kept split fails.

* **One split per unordered partition** (``kernels._expand``). Columns that cut S into the
  same two sides, or into the same sides swapped (identical or complementary on S: "cuts
  that put the same rows on one side"), cost the same, m(L) + m(R) being symmetric; only
  the first is kept, found through a hash of the two sides that is symmetric in them.
* **Class counts before the memo** (``PRUNE_BY_CLASSES``). A side with c classes needs at
  least c leaves, so a split whose sides' class counts sum above the budget cannot fit it;
  its bound is that sum, without a probe of the memo for its sides. (It still counts in the
  failed bound: nothing is dropped.)
* **The largest pure side** (``drop_dominated``, ``DROP_DOMINATED``; Witty's rule, by Staus,
  Komusiewicz, Sommer and Sorge, "only the threshold with the largest pure side"). A split
  with a pure side P costs exactly 1 + m(S \\ P). If another split has a pure side P' ⊋ P,
  then S \\ P' ⊆ S \\ P and it costs 1 + m(S \\ P') <= 1 + m(S \\ P): the first is dominated
  and dropped. The rule is applied to the containments that hold on every row set -- those
  of the side diagram (``trees.exact.nesting``: thresholds of one numeric column and the
  values of one one-hot column are nested, "features that never order two rows
  oppositely" merged into one chain of sides) -- so it costs one pass over the diagram per
  node, not a comparison of every pair of sides.

The nested-side bounds of ``trees.exact.nesting`` are the bound-side view of the same
containments: a proven bound of a side is one of every side containing it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.mpdt.bnb.node_bounds import popcount as _popcount

__all__ = ["NOT_SPLIT", "drop_dominated"]

NOT_SPLIT = 1 << 30  # the bound of a column that does not split a node (never tried)


@njit(cache=True, no_cpython_wrapper=True)
def drop_dominated(rows, lefts, rights, side_bounds, split_bounds, order, succ_start, succ):
    """Give every split dominated by the largest-pure-side rule (module docstring) the split
    bound NOT_SPLIT: never tried, and left out of the failed bound.

    ``side_bounds`` holds each side's class count on ``rows`` (1: pure; 0: its column does
    not split ``rows``); side 2j is ``lefts[j]``, side 2j + 1 ``rights[j]``. ``order`` is a
    topological order of the side diagram and ``succ_start``/``succ`` its immediate
    successors (containing sides). In reverse order, ``reach[t]`` is the largest number of
    rows on ``rows`` of a pure side containing side t (t included) whose column splits
    ``rows``: containment is transitive, so the successors' ``reach`` cover every side above
    t. A pure side whose ``reach`` exceeds its own size has a strictly larger pure side
    above it, and its split is dominated. A column repeating another's partition is counted
    too (its sides are real sides of ``rows``); only sizes are compared, and a side
    containing P with as many rows on ``rows`` is P itself there."""
    n_sides = side_bounds.shape[0]
    reach = np.empty(n_sides, dtype=np.int64)
    own = np.empty(n_sides, dtype=np.int64)
    for i in range(n_sides - 1, -1, -1):
        t = order[i]
        own[t] = 0
        if side_bounds[t] == 1:
            side = rights[t >> 1] if t & 1 else lefts[t >> 1]
            for w in range(rows.shape[0]):
                own[t] += _popcount(side[w])
        reach[t] = own[t]
        for e in range(succ_start[t], succ_start[t + 1]):
            reach[t] = max(reach[t], reach[succ[e]])
    for t in range(n_sides):
        if own[t] and reach[t] > own[t]:
            split_bounds[t >> 1] = NOT_SPLIT


# numba keys its cache to this file alone: also to the bounds module it calls
key_cache_to_sources(__name__)
