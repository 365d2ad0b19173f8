"""The one-deletion search's node bound (``one_error``): compiled, cached.

``one_error_incompatibility`` is the pure search's incompatibility bound (``bnb.node_bounds``)
made to allow one deleted row; its proof is in ``one_error``'s docstring. ``raised`` is the
gate that decides when it is worth running, as ``node_bounds.raised_bound`` does for the pure
search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.exact.packed import in_subcube as _in_subcube
from occamlearn.trees.mpdt.bnb.memo_table import BOUND_CALLS, BOUND_GAINS, USE_BOUND
from occamlearn.trees.mpdt.bnb.node_bounds import BOUND_MAX_ROWS, BOUND_WORK
from occamlearn.trees.mpdt.bnb.node_bounds import popcount as _popcount

__all__ = ["one_error_incompatibility", "raised"]


@njit(cache=True, no_cpython_wrapper=True)
def _root(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@njit(cache=True)
def one_error_incompatibility(packed, labels, rows, deletable_rows, n_classes, max_work):
    """A lower bound on the leaves of a tree classifying ``rows`` (indices) correctly but
    for at most one row r with ``deletable_rows[r]`` (proof in ``one_error``): a greedy set
    Q of pairwise incompatible rows (the pure search's: other classes, or a row of another
    class in their smallest common subcube), then min(|Q|, min over deletable r of
    |Q - r| - rank(E_r)), E_r the pairs of Q - r whose only witness is r and rank the
    edges of a spanning forest of it. Past about ``max_work`` row comparisons Q stops
    growing (a smaller Q is still valid)."""
    n = rows.shape[0]
    chosen = np.empty(n, dtype=np.int64)
    n_chosen = 0
    work = 0
    for k in range(n_classes):
        first = n_chosen
        for a in rows:
            if labels[a] != k:
                continue
            fits = True
            for i in range(first, n_chosen):
                work += n
                witnessed = False
                for c in rows:
                    if labels[c] != k and _in_subcube(packed, c, a, chosen[i]):
                        witnessed = True
                        break
                if not witnessed:
                    fits = False
                    break
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
            if work > max_work:
                break
        if work > max_work:
            break
    # the only witness of each same-class pair of Q, where it has one (else -1)
    only = np.empty((n_chosen, n_chosen), dtype=np.int64)
    candidate = np.zeros(packed.shape[0], dtype=np.bool_)
    for i in range(n_chosen):
        a = chosen[i]
        candidate[a] = deletable_rows[a]
        for q in range(i):
            only[i, q] = -1
            if labels[chosen[q]] != labels[a]:
                continue
            witnesses, witness = 0, -1
            for c in rows:
                if labels[c] != labels[a] and _in_subcube(packed, c, a, chosen[q]):
                    witnesses += 1
                    witness = c
                    if witnesses == 2:
                        break
            if witnesses == 1 and deletable_rows[witness]:
                only[i, q] = witness
                candidate[witness] = True
    best = n_chosen
    parent = np.empty(n_chosen, dtype=np.int64)
    for r in rows:
        if not candidate[r]:
            continue
        removed = -1
        for i in range(n_chosen):
            parent[i] = i
            if chosen[i] == r:
                removed = i
        rank = 0
        for i in range(n_chosen):
            for q in range(i):
                if only[i, q] == r and i != removed and q != removed:
                    x, y = _root(parent, i), _root(parent, q)
                    if x != y:
                        parent[x] = y
                        rank += 1
        bound = n_chosen - (1 if removed >= 0 else 0) - rank
        if bound < best:
            best = bound
    return max(best, 1)  # a tree has a leaf, even when its one row may go


# The call-budget gate of bnb.node_bounds.raised_bound on this search's counters, kept as a copy
# for the reason at one_error_kernels._expand_one (benchmarks/results/cold_typing.md, section 2).
@njit(cache=True, no_cpython_wrapper=True)
def raised(counters1, packed, labels, deletable_rows, n_classes, rows, bound):
    """``bound`` raised by ``one_error_incompatibility`` when worth running (at most
    BOUND_MAX_ROWS rows, and while it raises at least 1 in 20 bounds after 2000 runs)."""
    if not counters1[USE_BOUND] or not (counters1[BOUND_CALLS] < 2000
                                        or counters1[BOUND_GAINS] * 20 >= counters1[BOUND_CALLS]):
        return bound
    n_rows = 0
    for w in range(rows.shape[0]):
        n_rows += _popcount(rows[w])
    if n_rows > BOUND_MAX_ROWS:
        return bound
    indices = np.empty(n_rows, dtype=np.int64)
    n = 0
    for w in range(rows.shape[0]):
        word = rows[w]
        bit = 0
        while word:
            if word & np.uint64(1):
                indices[n] = w * 64 + bit
                n += 1
            word >>= np.uint64(1)
            bit += 1
    counters1[BOUND_CALLS] += 1
    found = one_error_incompatibility(packed, labels, indices, deletable_rows, n_classes,
                                      np.int64(BOUND_WORK))
    if found > bound:
        counters1[BOUND_GAINS] += 1
        return np.int64(found)
    return bound


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
