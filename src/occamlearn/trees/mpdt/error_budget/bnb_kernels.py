"""Compiled lower bound of the error-budget branch and bound (numba, cached on disk).

``incompatibility_bound`` is the leaf-incompatibility bound of the pure search, made valid
under an error budget b (the proof is in ``error_budget_bnb``'s docstring): items are
(pattern, class) groups of the row set, weighted by their row counts; two items of one class
are *b-incompatible* when the rows of other classes inside the smallest subcube containing
both patterns weigh more than b. A greedy set Q of items, pairwise b-incompatible within each
class, gives ``|Q| - t`` leaves, t being the most items of Q whose weights fit in b together.
The test is O(m^2 * |Q| * words) for m patterns: cheap compiled, far too slow in Python.

The family also holds the exact answers for trees of at most three and four leaves on a row
set (``small_tree_kernels``, stored by ``small_trees``), loaded and warmed up with it.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.trees.compiling.kernel_sources import key_cache_to_sources

# private name: kernel_cache treats public dispatchers as entry points, this one is inlined
from occamlearn.trees.exact.packed import in_subcube as _in_subcube
from occamlearn.trees.exact.packed import pack_rows
from occamlearn.trees.mpdt.error_budget.small_tree_kernels import (
    four_leaf_errors,
    small_tree_errors,
)

__all__ = ["four_leaf_errors", "incompatibility_bound", "pack_rows", "small_tree_errors",
           "warm_up"]


@njit(cache=True)
def _witness_weight_above(packed, weights, totals, patterns, a, c, k, budget):
    """True if the rows of classes other than k lying in the smallest subcube that contains
    patterns a and c (restricted to ``patterns``) weigh more than ``budget``."""
    total = 0
    for q in patterns:
        other = totals[q] - weights[q, k]
        if other != 0 and _in_subcube(packed, q, a, c):
            total += other
            if total > budget:
                return True
    return False


@njit(cache=True)
def _stable_order(keys):
    """Indices sorting ``keys`` increasingly, ties by index (a bottom-up merge sort: numpy's
    sort and argsort cost seconds of compile on first use, this a fraction of one)."""
    n = keys.shape[0]
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for low in range(0, n, 2 * width):
            middle, high = min(low + width, n), min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):
                if i < middle and (j >= high or keys[order[i]] <= keys[order[j]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order


@njit(cache=True)
def incompatibility_bound(packed, weights, totals, patterns, budget, max_work):
    """(leaves needed by any tree on ``patterns`` with at most ``budget`` errors (see the
    module docstring), work done). ``weights[p, k]``: rows of pattern p with class k;
    ``totals[p]``: rows of pattern p. ``work`` counts the patterns the witness tests may
    scan; once it passes ``max_work`` no more items are picked, and the bound of the items
    picked so far is returned (any subset of a pairwise b-incompatible set is one)."""
    n_classes = weights.shape[1]
    chosen = np.empty(patterns.shape[0], dtype=np.int64)
    picked = np.empty(patterns.shape[0] * n_classes, dtype=np.int64)
    n_picked = 0
    work = 0
    for k in range(n_classes):
        if work > max_work:
            break
        # heavy items first: they are the costliest to give up as errors
        keys = np.empty(patterns.shape[0], dtype=np.int64)
        for i in range(patterns.shape[0]):
            keys[i] = -weights[patterns[i], k]
        order = _stable_order(keys)
        n_chosen = 0
        for i in order:
            a = patterns[i]
            if weights[a, k] == 0 or work > max_work:
                break
            work += n_chosen * patterns.shape[0]
            fits = True
            for r in range(n_chosen):
                if not _witness_weight_above(packed, weights, totals, patterns, a, chosen[r],
                                             k, budget):
                    fits = False
                    break
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
                picked[n_picked] = weights[a, k]
                n_picked += 1
    ordered = picked[:n_picked][_stable_order(picked[:n_picked])]
    spent, given_up = 0, 0
    for i in range(n_picked):
        if spent + ordered[i] > budget:
            break
        spent += ordered[i]
        given_up += 1
    return max(1, n_picked - given_up), work


_warm = {"done": False}


def warm_up(small_trees: bool = True) -> float:
    """Compile (or load from the on-disk cache) the kernels on a tiny input; seconds taken.
    ``small_trees=False``: the incompatibility bound only (``small_trees.load_kernels``: the
    small-tree kernels cost three of the 4.5 s of a cold compile, so a search that finds
    them missing goes without them and leaves them to the background compile)."""
    start = time.perf_counter()
    if _warm["done"]:
        return 0.0
    packed = pack_rows(np.array([[0, 1], [1, 0], [1, 1]], dtype=np.int64))
    weights = np.array([[1, 0], [0, 2], [1, 1]], dtype=np.int64)
    incompatibility_bound(packed, weights, weights.sum(axis=1), np.arange(3, dtype=np.int64), 1,
                          np.int64(1 << 62))
    if not small_trees:
        return time.perf_counter() - start
    ints = np.array([0, 1, 2], dtype=np.int64)
    rows = (ints, ints, np.array([0, 1, 0], dtype=np.int64), np.ones(3, np.int64),
            np.array([0, 1, 2, 4], dtype=np.int64), np.array([1, 0, 0, 1], np.int64), 3, 2, 2)
    small_tree_errors(*rows, np.int64(1 << 62))
    four_leaf_errors(*rows, np.int64(1 << 62), np.int64(1 << 62))
    _warm["done"] = True
    return time.perf_counter() - start


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
