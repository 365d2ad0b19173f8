"""The memo of the compiled branch and bound (``kernels.solve``): row sets to leaf counts.

A row set is a (words,) uint64 bitset over the distinct rows. The memo is an open-addressing hash
table in one (capacity, words + 1) uint64 array, so that a probe touches one cache line: the key
words, then a meta word: bit 63 used, bit 62 exact (else the value is a proven lower bound), bit 61
incompatibility bound computed, bits 32-60 split column + 1, bits 0-31 the value in leaves. Hashing
and probing: ``trees.exact.row_set_table``. The table never evicts: at 70 % full a GROWABLE table
asks to grow (``counters[FLAG] = FLAG_FULL``; the caller copies it into a larger one with
``rehash``); a full table that may not grow (memory cap) takes no new entries: the memo is only a
cache.

``counters`` is the search's int64 array (``new_counters``; its indices are below, the
table uses ENTRIES, FLAG and GROWABLE).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.exact.row_set_table import USED, find_slot, hash_key

__all__ = ["BOUNDED", "EXACT", "NO_FLAGS", "USED", "VALUE_MASK", "insert", "lookup", "new_counters",
           "new_table", "rehash", "slot", "slot_hashed", "store", "warm_up_table"]

# the search's counters: indices into one int64 array
ENTRIES, CALLS, CALL_LIMIT, FLAG, BOUND_CALLS, BOUND_GAINS, GROWABLE = 0, 1, 2, 3, 4, 5, 6
CHILD_BOUNDS, TOUCHED, USE_BOUND = 7, 8, 9
# switches of the node expansion (``kernels``, ``split_reductions``; 1 on, 0 off): splits
# beyond the budget on class counts are not probed, dominated pure sides are dropped, a
# budget of one leaf is answered by the class count alone
PRUNE_BY_CLASSES, DROP_DOMINATED, ONE_LEAF_BY_CLASSES = 10, 11, 12
# the subset trie (``subset_trie``): its active pool, nodes used in pools 0 and 1 (from
# TRIE_USED), its settings (largest row set stored, 0: off; least budget asked about; nodes
# a query may visit; what a hit is worth in visits), its pause, its window (queries, hits,
# visits and bad windows in a row, from TRIE_WINDOW) and what it did
TRIE_ACTIVE, TRIE_USED, TRIE_MAX_ROWS, TRIE_MIN_BUDGET, TRIE_WORK = 13, 14, 16, 17, 18
TRIE_HIT_WORTH, TRIE_PAUSED_UNTIL, TRIE_WINDOW = 19, 20, 21
TRIE_QUERIES, TRIE_HITS, TRIE_SETS, TRIE_EVICTIONS, TRIE_VISITS = 25, 26, 27, 28, 29
N_COUNTERS = 30
FLAG_CALLS, FLAG_FULL = 1, 2  # counters[FLAG]: why the search stopped
EXACT, BOUNDED = np.uint64(1 << 62), np.uint64(1 << 61)
VALUE_MASK, SPLIT_MASK = np.uint64(0xFFFFFFFF), np.uint64((1 << 29) - 1)
NO_FLAGS, NO_SALT = np.uint64(0), np.uint64(0)


@njit(cache=True, inline="always")
def slot_hashed(slots, rows, hashed):
    """Slot holding ``rows`` (its hash ``hashed``), or the empty slot where it would go."""
    return find_slot(slots, rows, hashed, USED, USED)


@njit(cache=True, inline="always")
def slot(slots, rows):
    """Slot holding ``rows``, or the empty slot where it would go."""
    return find_slot(slots, rows, hash_key(rows, NO_SALT), USED, USED)


@njit(cache=True, no_cpython_wrapper=True)
def store(slots, counters, at, rows, value, split, flags):
    """Store ``value`` (leaves) with ``split`` and ``flags`` (EXACT, BOUNDED or NO_FLAGS) in
    slot ``at`` (from ``slot``). Every argument has one type at every call (no literals, no
    slices): each distinct signature or slice assignment costs seconds of compile."""
    words = rows.shape[0]
    if not slots[at, words] & USED:
        if counters[ENTRIES] * 10 > 7 * slots.shape[0]:
            if counters[GROWABLE]:
                counters[FLAG] = FLAG_FULL
            return
        for w in range(words):
            slots[at, w] = rows[w]
        counters[ENTRIES] += 1
    slots[at, words] = (USED | (np.uint64(split + 1) << np.uint64(32)) | np.uint64(value)
                        | flags)


@njit(cache=True)
def lookup(slots, rows):
    """(value, is_exact, split) stored for ``rows``; value 0 if nothing is stored."""
    meta = slots[slot(slots, rows), rows.shape[0]]
    if not meta & USED:
        return 0, False, -1
    split = np.int64((meta >> np.uint64(32)) & SPLIT_MASK) - 1
    return np.int64(meta & VALUE_MASK), (meta & EXACT) != 0, split


@njit(cache=True)
def insert(slots, counters, keys, values, splits, flags):
    """Store row set ``keys[i]`` with ``values[i]`` leaves, split ``splits[i]`` and meta
    ``flags[i]`` (EXACT and/or BOUNDED), as ``solve`` would: a memo carried over from the
    Python search. Entries the table has no room for are dropped (the memo is a cache)."""
    for i in range(keys.shape[0]):
        store(slots, counters, slot(slots, keys[i]), keys[i], values[i], splits[i], flags[i])


@njit(cache=True)
def rehash(old, new, counters):
    """Copy every entry of the table ``old`` into the (larger, empty) table ``new``."""
    words = old.shape[1] - 1
    counters[ENTRIES] = 0
    for at in range(old.shape[0]):
        if old[at, words] & USED:
            rows = old[at, :words]
            to = slot(new, rows)
            for w in range(words + 1):  # a loop, not a slice (seconds less compile)
                new[to, w] = old[at, w]
            counters[ENTRIES] += 1


def new_table(capacity: int, words: int) -> np.ndarray:
    """An empty memo table for row sets of ``words`` words (capacity a power of two)."""
    return np.zeros((capacity, words + 1), dtype=np.uint64)


def new_counters() -> np.ndarray:
    """The search's counters, all 0."""
    return np.zeros(N_COUNTERS, dtype=np.int64)


def warm_up_table() -> None:
    """Compile (or load) the kernels of this table that the Python side calls;
    ``kernel_cache`` runs this in a second process while the first compiles ``solve``."""
    table, counters = new_table(16, 1), new_counters()
    lookup(table, np.array([7], dtype=np.uint64))
    insert(table, counters, np.array([[3]], dtype=np.uint64), np.array([2]), np.array([0]),
           np.array([EXACT | BOUNDED]))
    rehash(table, new_table(32, 1), counters)


# numba keys its cache to this file alone: also to the probe's module
key_cache_to_sources(__name__)
