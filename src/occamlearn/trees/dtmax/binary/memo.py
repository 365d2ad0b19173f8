"""The memo of the compiled DT(max) search (``kernels``): row sets to costs and bounds.

An open-addressing hash table in one (capacity, words + 3) uint64 array, so that a probe
touches one cache line: the key (the row set as a bitset over the search's items), then
``USED | depth``, the value, and ``exact << 32 | (test + 1)``. A value is an exact cost with
its root test, or a lower bound left by a failed search. The table never evicts: at 70 %
full it asks to grow (``counters[FULL]``, the caller copies it into a 4x table with
``grow_memo``) or, once it may not grow, takes no new keys -- the memo is only a cache.

The search's counters (indices below) are shared with ``kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["grow_memo", "new_memo"]

# counters of a search (one int64 array)
WORK, WORK_LIMIT, ENTRIES, FULL, ABORT, TOP_COST, TOP_FEATURE, ROOT, LEFT, RIGHT = range(10)
SUBPROBLEMS, HITS, PRUNED, GROWABLE, SLICE_START, FIRST_STORE = 10, 11, 12, 13, 14, 15
TIME_UP = 16       # set by the caller's timer thread at the deadline, read by the kernels
WITNESSED = 17     # depth-2 subproblems bounded by a witness (``witnesses``)
N_COUNTERS = 18
USED = np.uint64(1 << 63)
DEPTH_MASK = np.uint64(0xFF)
# a stored value's kind, typed (each literal type at a call site compiles one more signature)
EXACT, BOUND, NO_TEST = np.int64(1), np.int64(0), np.int64(-1)
ABORTED = -1       # what a search call returns when out of work (nothing partial is stored)


def new_memo(n_items: int, capacity: int = 1 << 12) -> np.ndarray:
    """An empty memo: (capacity, words + 3) uint64 -- the key bitset, then ``USED | depth``,
    the value, ``exact << 32 | (test + 1)``. ``capacity`` a power of two."""
    return np.zeros((capacity, (n_items + 63) // 64 + 3), dtype=np.uint64)


# The probe of trees.exact.row_set_table.find_slot, kept as a copy: with the shared probe every
# DT(max) fit timed was slower (benchmarks/results/cold_typing.md, section 6).
@njit(cache=True)
def _find(slots, key, depth):
    """Slot holding (key, depth), or the empty slot where it would go."""
    words = key.shape[0]
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(depth)
    for w in range(words):
        h ^= key[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    mask = slots.shape[0] - 1
    at = np.int64(h & np.uint64(mask))
    tag = USED | np.uint64(depth)
    while slots[at, words] & USED:
        if slots[at, words] == tag:
            same = True
            for w in range(words):
                if slots[at, w] != key[w]:
                    same = False
                    break
            if same:
                return at
        at = (at + 1) & mask
    return at


@njit(cache=True)
def _store(slots, counters, key, depth, value, exact, test):
    """Record an exact cost (with its root ``test``, -1: a leaf) or a lower bound; the
    first record of a slice marks where its new work began (``counters[FIRST_STORE]``; a
    full memo records nothing, so a later slice redoes the work and must be larger)."""
    words = key.shape[0]
    at = _find(slots, key, depth)
    if not slots[at, words] & USED:
        if counters[ENTRIES] * 10 >= 7 * slots.shape[0]:
            if counters[GROWABLE]:
                counters[FULL] = 1
            return
        for w in range(words):
            slots[at, w] = key[w]
        slots[at, words] = USED | np.uint64(depth)
        counters[ENTRIES] += 1
    elif slots[at, words + 2] >> np.uint64(32) or (
            exact == 0 and np.int64(slots[at, words + 1]) >= value):
        return                                    # exact already, or a better bound
    if counters[FIRST_STORE] < 0:                 # a lasting step: a new or better record
        counters[FIRST_STORE] = counters[WORK]
    slots[at, words + 1] = np.uint64(value)
    slots[at, words + 2] = (np.uint64(exact) << np.uint64(32)) | np.uint64(test + 1)


@njit(cache=True)
def grow_memo(slots, bigger):
    """Copy every entry of ``slots`` into the empty, larger table ``bigger``."""
    words = slots.shape[1] - 3
    key = np.empty(words, dtype=np.uint64)
    for at in range(slots.shape[0]):
        if slots[at, words] & USED:
            for w in range(words):
                key[w] = slots[at, w]
            to = _find(bigger, key, np.int64(slots[at, words] & DEPTH_MASK))
            for w in range(words + 3):
                bigger[to, w] = slots[at, w]


@njit(cache=True)
def _out_of_work(counters):
    """Whether a search must stop now (its work, a full memo or the deadline's flag); then
    ``counters[ABORT]`` is set."""
    if counters[WORK] > counters[WORK_LIMIT] or counters[FULL] or counters[TIME_UP]:
        counters[ABORT] = 1
        return True
    return False


@njit(cache=True)
def _key_of(items, n, key):
    key[:] = 0
    for i in range(n):
        item = items[i]
        key[item >> 6] |= np.uint64(1) << np.uint64(item & 63)


@njit(cache=True)
def _lookup(slots, key, depth, counters):
    """(slot, value, exact, test) of (key, depth); value -1 if absent."""
    at = _find(slots, key, depth)
    words = key.shape[0]
    if not slots[at, words] & USED:
        return at, -1, False, -1
    meta = slots[at, words + 2]
    counters[HITS] += 1
    return (at, np.int64(slots[at, words + 1]), (meta >> np.uint64(32)) > 0,
            np.int64(meta & np.uint64(0xFFFFFFFF)) - 1)
