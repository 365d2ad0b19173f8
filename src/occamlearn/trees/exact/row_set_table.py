"""Hashing and slot probing of an open-addressing memo table keyed by row sets (numba).

The table is one (capacity, words + k) uint64 array: the key bitset in the first ``words``
columns, then a meta word whose bit 63 (``USED``) marks a taken slot, then whatever the
search stores. A slot matches when its key words equal the row set and its meta word, masked
by ``tag_mask``, equals ``tag``: the branch and bound (``mpdt.bnb.memo_table``) passes
``USED`` for both, so any used slot with that key matches; a table that keys a slot by the
row set and a tag in the meta word (the DT(max) memo's depth) passes ``ALL_BITS`` and
``USED | tag``. Linear probing over a power-of-two capacity; the tables never delete, so
the first free slot ends a probe.

The DT(max) memo (``dtmax.binary.memo._find``) keeps its own copy of this probe: calling this
one from it measured slower on depth-6 DT(max) fits (every pair tried, by 10-50 %; sub-second
fits, ``benchmarks/results/cold_typing.md``), so it is not shared.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ALL_BITS", "USED", "find_slot", "hash_key"]

USED = np.uint64(1 << 63)
ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def hash_key(key, salt):
    """A 64-bit hash of the words of ``key`` mixed with ``salt`` (uint64; 0 for none)."""
    h = np.uint64(0x9E3779B97F4A7C15) ^ salt
    for w in range(key.shape[0]):
        h ^= key[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(cache=True, no_cpython_wrapper=True)
def find_slot(slots, key, hashed, tag, tag_mask):
    """The slot holding ``key`` with a meta word ``& tag_mask == tag``, or the free slot
    where it would go, starting at ``hashed`` (the table must have a free slot: its owner
    stops taking keys at 70 % full)."""
    mask = slots.shape[0] - 1
    at = np.int64(hashed & np.uint64(mask))
    words = key.shape[0]
    while slots[at, words] & USED:
        if (slots[at, words] & tag_mask) == tag:
            same = True
            for w in range(words):
                if slots[at, w] != key[w]:
                    same = False
                    break
            if same:
                return at
        at = (at + 1) & mask
    return at
