"""Bounds proven on subsets, answered for supersets: a set-trie with the largest value per node.

Why. The fewest leaves of a pure tree is monotone under adding rows: a pure tree of S is pure
on every T ⊆ S, and dropping the splits that leave a side of T empty does not add leaves. So

    LB(S) >= max { LB(T) : T ⊆ S, LB(T) proven },

and a row set S whose budget b is below that maximum fails without being split. The hash
memo of ``kernels.solve`` only answers for the very same row set; this structure answers for
every stored subset (Witty's subset caching, by Staus, Komusiewicz, Sommer and Sorge). What
goes in: row sets of at most ``counters[TRIE_MAX_ROWS]`` rows with a proven value of at least
``counters[TRIE_MIN_BUDGET] + 1`` leaves -- the bounds of failed solves and the exact values
of solved ones (``kernels._close``), so, for the one-deletion search sharing the memo, its
pure answers too. Each is a proven lower bound on the leaves of its own set, so every answer
of ``subset_bound`` is one for the set asked about.

Layout. A set T is the path of its rows in increasing order from a root; node n holds
``ELEM`` (the row), ``CHILD`` (first child), ``SIBLING`` (next child of the same parent, in
increasing row order), ``PARENT``, ``VALUE`` (the largest value stored for the set ending
here, 0 if none) and ``BEST`` (at least the largest ``VALUE`` in n's subtree, n included).
``subset_bound(S, limit)`` walks, depth first, only into children whose row is in S and whose
``BEST`` exceeds ``limit``: every node it reaches spells a subset of S, and a subtree it skips
holds no value above the limit. It stops at the first value above the limit: the caller only
asks whether S fails its budget, and the larger values cost the rest of the walk (measured:
the walks that went on to the largest value made the queries dear enough to be paused on
back's readable matrix). ``BEST`` may overstate (a path left half inserted by an eviction):
that costs visits, never an answer.

Memory planned, evicting when full. The node array is allocated once
(``new_trie(capacity)``; ``engines.CompiledRowSetSearch`` sizes it from its memory cap) and
split into two pools with a root each; new sets go into the active pool. When a set does not
fit, the other pool is emptied and becomes the active one (its sets are evicted) and the set
is inserted there, so the sets of the last full pool survive and the structure never refuses
an insert. A set found in the older pool is copied into the active one (sets in use survive
the next eviction). Queries read both pools. Each query visits at most
``counters[TRIE_WORK]`` nodes: a query cut short returns the best value it found, which is
still a proven bound.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.mpdt.bnb.memo_table import (
    CALLS,
    TRIE_ACTIVE,
    TRIE_EVICTIONS,
    TRIE_HIT_WORTH,
    TRIE_HITS,
    TRIE_MAX_ROWS,
    TRIE_MIN_BUDGET,
    TRIE_PAUSED_UNTIL,
    TRIE_QUERIES,
    TRIE_SETS,
    TRIE_USED,
    TRIE_VISITS,
    TRIE_WINDOW,
    TRIE_WORK,
)
from occamlearn.trees.mpdt.bnb.node_bounds import popcount as _popcount

__all__ = ["BYTES_PER_NODE", "FIELDS", "new_trie", "remember", "remember_small", "set_of",
           "subset_bound"]

ELEM, CHILD, SIBLING, PARENT, VALUE, BEST = 0, 1, 2, 3, 4, 5
FIELDS = 6
NO_NODE = 0  # node 0 is never used: a fresh all-zero array is an empty trie
WINDOW_QUERIES = 4096  # queries between two looks at what the queries cost and gave
PAUSE_CALLS = 1 << 18  # calls without queries after a window that did not pay
BYTES_PER_NODE = 4 * FIELDS


def new_trie(capacity: int) -> np.ndarray:
    """An empty trie of ``capacity`` nodes (at least 4), all zero: pool 0 holds nodes 1 to
    capacity // 2 - 1 (root 1), pool 1 the rest (root capacity // 2). ``np.zeros`` takes
    its pages from the system only as nodes are written, so a large cap costs nothing
    until it is used."""
    return np.zeros((max(4, capacity), FIELDS), dtype=np.int32)


@njit(cache=True, inline="always")
def _root(trie, pool):
    return max(1, pool * (trie.shape[0] // 2))


@njit(cache=True, inline="always")
def _reset_pool(trie, counters, pool):
    """Empty ``pool``: its root loses every child (the nodes are reused from its start)."""
    root = _root(trie, pool)
    trie[root, CHILD] = NO_NODE
    trie[root, VALUE] = 0
    trie[root, BEST] = 0
    counters[TRIE_USED + pool] = 1


@njit(cache=True, no_cpython_wrapper=True)
def _insert(trie, counters, rows, value, pool):
    """Insert (``rows``, ``value``) into ``pool``; False if the pool ran out of nodes."""
    node = _root(trie, pool)
    end = trie.shape[0] // 2 if pool == 0 else trie.shape[0]  # the pool's last node + 1
    if counters[TRIE_USED + pool] == 0:  # a fresh trie: only the root is taken
        counters[TRIE_USED + pool] = 1
    if trie[node, BEST] < value:
        trie[node, BEST] = value
    for w in range(rows.shape[0]):
        word = rows[w]
        while word:
            bit = np.int64(_trailing_zeros(word))
            word &= word - np.uint64(1)
            element = w * 64 + bit
            previous, child = NO_NODE, trie[node, CHILD]
            while child != NO_NODE and trie[child, ELEM] < element:
                previous, child = child, trie[child, SIBLING]
            if child == NO_NODE or trie[child, ELEM] != element:
                fresh = _root(trie, pool) + counters[TRIE_USED + pool]
                if fresh >= end:
                    return False
                counters[TRIE_USED + pool] += 1
                trie[fresh, ELEM] = element
                trie[fresh, CHILD] = NO_NODE
                trie[fresh, SIBLING] = child
                trie[fresh, PARENT] = node
                trie[fresh, VALUE] = 0
                trie[fresh, BEST] = 0
                if previous == NO_NODE:
                    trie[node, CHILD] = fresh
                else:
                    trie[previous, SIBLING] = fresh
                child = fresh
            if trie[child, BEST] < value:
                trie[child, BEST] = value
            node = child
    if trie[node, VALUE] < value:
        trie[node, VALUE] = value
    return True


@njit(cache=True, no_cpython_wrapper=True)
def remember(trie, counters, rows, value):
    """Store the proven bound ``value`` for the row set ``rows`` (a (words,) uint64 bitset):
    into the active pool, or, when that is full, into the other pool emptied first."""
    pool = counters[TRIE_ACTIVE]
    if not _insert(trie, counters, rows, value, pool):
        pool = 1 - pool
        counters[TRIE_ACTIVE] = pool
        counters[TRIE_EVICTIONS] += 1
        _reset_pool(trie, counters, pool)
        if not _insert(trie, counters, rows, value, pool):
            return  # longer than a pool (``new_trie``'s caller sizes pools above that)
    counters[TRIE_SETS] += 1


@njit(cache=True, no_cpython_wrapper=True)
def remember_small(trie, counters, rows, value):
    """``remember`` a proven value of ``rows`` if the set is small enough to be stored
    (``counters[TRIE_MAX_ROWS]``, 0: the trie is off) and the value large enough to answer a
    query (above ``counters[TRIE_MIN_BUDGET]``, the least budget asked about)."""
    if value <= counters[TRIE_MIN_BUDGET] or not counters[TRIE_MAX_ROWS]:
        return
    n_rows = 0
    for w in range(rows.shape[0]):
        n_rows += _popcount(rows[w])
    if n_rows <= counters[TRIE_MAX_ROWS]:
        remember(trie, counters, rows, value)


@njit(cache=True, no_cpython_wrapper=True)
def set_of(trie, node, rows):
    """Write into ``rows`` (zeroed first) the set spelled by the path from a root to ``node``."""
    for w in range(rows.shape[0]):
        rows[w] = np.uint64(0)
    while trie[node, PARENT] != NO_NODE:
        element = trie[node, ELEM]
        rows[element >> 6] |= np.uint64(1) << np.uint64(element & 63)
        node = trie[node, PARENT]


@njit(cache=True, no_cpython_wrapper=True)
def _judge_window(counters):
    """After WINDOW_QUERIES queries: if their visits exceed their hits times
    ``counters[TRIE_HIT_WORTH]`` (what a hit saves, in visits: an expansion), no queries for
    the next PAUSE_CALLS calls, twice as many after each further window that did not pay (up
    to 64 times); sets are still stored meanwhile."""
    hits = counters[TRIE_HITS] - counters[TRIE_WINDOW + 1]
    visits = counters[TRIE_VISITS] - counters[TRIE_WINDOW + 2]
    if counters[TRIE_HIT_WORTH] and visits > hits * counters[TRIE_HIT_WORTH]:
        counters[TRIE_PAUSED_UNTIL] = counters[CALLS] + (PAUSE_CALLS
                                                         << counters[TRIE_WINDOW + 3])
        counters[TRIE_WINDOW + 3] = min(counters[TRIE_WINDOW + 3] + 1, 6)
    else:
        counters[TRIE_WINDOW + 3] = 0
    counters[TRIE_WINDOW] = counters[TRIE_QUERIES]
    counters[TRIE_WINDOW + 1] = counters[TRIE_HITS]
    counters[TRIE_WINDOW + 2] = counters[TRIE_VISITS]


@njit(cache=True, no_cpython_wrapper=True)
def subset_bound(trie, counters, rows, limit):
    """A value above ``limit`` stored for a subset of ``rows`` (the first the walk meets,
    the active pool first), else 0 (module docstring: why it is a lower bound on the leaves
    of ``rows``). A value found in the older pool is copied into the active one."""
    counters[TRIE_QUERIES] += 1
    half = trie.shape[0] // 2
    found, found_at = limit, NO_NODE
    work = counters[TRIE_WORK]
    for turn in range(2):
        root = _root(trie, counters[TRIE_ACTIVE] if turn == 0 else 1 - counters[TRIE_ACTIVE])
        parent, child = root, trie[root, CHILD]
        if trie[root, BEST] <= found:
            continue
        while work > 0:
            if child == NO_NODE:  # the children of ``parent`` are done: back up
                if parent == root:
                    break
                child, parent = trie[parent, SIBLING], trie[parent, PARENT]
                continue
            work -= 1
            element = trie[child, ELEM]
            if trie[child, BEST] > found and \
                    (rows[element >> 6] >> np.uint64(element & 63)) & np.uint64(1):
                if trie[child, VALUE] > found:
                    found, found_at = np.int64(trie[child, VALUE]), child
                    break  # the first value above the limit: enough to prune
                parent, child = child, trie[child, CHILD]
            else:
                child = trie[child, SIBLING]
        if found_at != NO_NODE:
            break
    counters[TRIE_VISITS] += counters[TRIE_WORK] - work
    if counters[TRIE_QUERIES] - counters[TRIE_WINDOW] >= WINDOW_QUERIES:
        _judge_window(counters)
    if found_at != NO_NODE:
        counters[TRIE_HITS] += 1
        if (found_at >= half) != (counters[TRIE_ACTIVE] == 1):  # in the older pool
            kept = np.empty(rows.shape[0], dtype=np.uint64)
            set_of(trie, found_at, kept)
            remember(trie, counters, kept, found)
        return found
    return np.int64(0)


# numba keys its cache to this file alone: also to the memo table's module
key_cache_to_sources(__name__)
