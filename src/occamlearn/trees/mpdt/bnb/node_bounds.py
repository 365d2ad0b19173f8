"""Leaf lower bounds of a row set for the compiled branch and bound (numba, cached).

``incompatibility_lower_bound`` is the leaf lower bound that makes the search strong (see
``branch_and_bound``): two rows of one class can share a leaf only if every row of the node
lying in the smallest subcube that contains both has their class. A greedy set of pairwise
incompatible rows therefore needs one leaf each. The test is O(|S|^2 * q * words), too slow
in Python at every node and cheap compiled. The other kernels give ``kernels.solve`` the
bound of a row set: from the memo, its class count, or the incompatibility bound when that
is worth running.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.mpdt.bnb.memo_table import (
    BOUND_CALLS,
    BOUND_GAINS,
    BOUNDED,
    EXACT,
    USE_BOUND,
    USED,
    VALUE_MASK,
    slot,
    slot_hashed,
    store,
)

__all__ = ["BOUND_MAX_ROWS", "BOUND_WORK", "classes_in", "incompatibility_lower_bound",
           "known_bound", "popcount", "raised_bound", "static_bound"]

BOUND_WORK = 2_000_000  # row comparisons per incompatibility bound (about 2 ms)
BOUND_MAX_ROWS = 256  # above this the bound costs more than it prunes (measured on mushr)
ONE, NO_SPLIT = np.int64(1), np.int64(-1)


@njit(cache=True)
def incompatibility_lower_bound(packed, labels, rows, n_classes, max_work):
    """Size of a greedy set of pairwise leaf-incompatible rows among ``rows``.

    Rows of different classes never share a leaf, so the bound is a sum over classes of a
    greedy clique inside each class. After about ``max_work`` row comparisons it returns the
    set found so far: still pairwise incompatible, so still a valid (weaker) bound. This caps
    the cost on large row sets (mushr: 5,199 rows), where a full greedy takes seconds.

    The test of a pair (a, b) of class k: some row of another class agrees with a wherever a
    and b agree. Why it is written this way. Per class, the other classes' rows are copied
    into one contiguous array first (no label test, no index into ``packed`` per row), and a
    row that witnessed a pair is swapped to the front: a row lying between a and one chosen
    row often lies between a and the next (``benchmarks/results/mpdt_bounds7_incompat.md``).
    Neither changes the answer: the test asks only whether a witness exists, and ``work``
    counts ``len(rows)`` per pair tested as a scan of all of ``rows`` would, so the cap stops
    the greedy at the same row.
    """
    words = packed.shape[1]
    total = 0
    work = 0
    chosen = np.empty(rows.shape[0], dtype=np.int64)
    others = np.empty((rows.shape[0], words), dtype=np.uint64)
    for k in range(n_classes):
        n_others = 0
        for c in rows:
            if labels[c] != k:
                for w in range(words):
                    others[n_others, w] = packed[c, w]
                n_others += 1
        n_chosen = 0
        for a in rows:
            if labels[a] != k:
                continue
            fits = True
            for i in range(n_chosen):
                work += rows.shape[0]
                b = chosen[i]
                witness = -1
                for o in range(n_others):
                    inside = True
                    for w in range(words):
                        if (others[o, w] ^ packed[a, w]) & ~(packed[a, w] ^ packed[b, w]):
                            inside = False
                            break
                    if inside:
                        witness = o
                        break
                if witness < 0:  # a and b may share a leaf
                    fits = False
                    break
                if witness > 0:  # to the front
                    for w in range(words):
                        others[0, w], others[witness, w] = others[witness, w], others[0, w]
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
            if work > max_work:
                return total + n_chosen
        total += n_chosen
    return total


@njit(cache=True, no_cpython_wrapper=True)
def classes_in(class_sets, rows):
    """How many classes have a row in ``rows`` (``class_sets[k]``: the rows of class k)."""
    count = 0
    for k in range(class_sets.shape[0]):
        for w in range(rows.shape[0]):
            if class_sets[k, w] & rows[w]:
                count += 1
                break
    return count


@njit(cache=True, no_cpython_wrapper=True)
def known_bound(slots, class_sets, rows, hashed):
    """Stored value of ``rows`` (exact or lower bound), else its class count."""
    classes = classes_in(class_sets, rows)
    if classes == 1:  # pure: no probe of the table
        return 1
    meta = slots[slot_hashed(slots, rows, hashed), rows.shape[0]]
    if meta & USED:
        return np.int64(meta & VALUE_MASK)
    return classes


@njit(cache=True, no_cpython_wrapper=True)
def raised_bound(counters, class_sets, packed, labels, rows, bound):
    """``bound`` raised by the incompatibility bound of ``rows`` when that is worth running:
    at most BOUND_MAX_ROWS rows, and while it raises at least 1 in 20 bounds (judged after
    2000 runs; on data where it never beats the class count it is pure cost)."""
    if not counters[USE_BOUND] or not (counters[BOUND_CALLS] < 2000
                                       or counters[BOUND_GAINS] * 20 >= counters[BOUND_CALLS]):
        return bound
    n_rows = 0
    for w in range(rows.shape[0]):
        n_rows += popcount(rows[w])
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
    counters[BOUND_CALLS] += 1
    found = incompatibility_lower_bound(packed, labels, indices, np.int64(class_sets.shape[0]),
                                        np.int64(BOUND_WORK))
    if found > bound:
        counters[BOUND_GAINS] += 1
        return found
    return bound


@njit(cache=True, inline="always")
def popcount(word):
    """Set bits of a uint64 word."""
    count = 0
    while word:
        word &= word - np.uint64(1)
        count += 1
    return count


@njit(cache=True, no_cpython_wrapper=True)
def static_bound(slots, counters, class_sets, packed, labels, rows):
    """Stored value of ``rows``, else its class / incompatibility bound, then stored."""
    at = slot(slots, rows)
    meta = slots[at, rows.shape[0]]
    if meta & USED:
        return np.int64(meta & VALUE_MASK)
    bound = classes_in(class_sets, rows)
    if bound == 1:
        store(slots, counters, at, rows, ONE, NO_SPLIT, EXACT | BOUNDED)
        return 1
    bound = raised_bound(counters, class_sets, packed, labels, rows, bound)
    store(slots, counters, at, rows, np.int64(bound), NO_SPLIT, BOUNDED)
    return bound


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
