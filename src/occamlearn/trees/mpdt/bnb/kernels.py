"""Compiled kernels of the branch-and-bound search for minimum pure trees (numba, cached).

``incompatibility_lower_bound`` is the leaf lower bound that makes the search strong (see
``branch_and_bound``): two rows of one class can share a leaf only if every row of the node
lying in the smallest subcube that contains both has their class. A greedy set of pairwise
incompatible rows therefore needs one leaf each. The test is O(|S|^2 * q * words), too slow
in Python at every node and cheap compiled; ``cache=True`` keeps the compile on disk, and
``warm_up`` compiles on a tiny input so that the first real call is not charged the compile
inside a time limit.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.trees.exact.nesting_kernels import nested_side_bounds as _nested_side_bounds
from occamlearn.trees.exact.nesting_kernels import raise_side as _raise_side

# private name: kernel_cache treats public dispatchers as entry points, this one is inlined
from occamlearn.trees.exact.packed import in_subcube as _in_subcube
from occamlearn.trees.exact.packed import pack_rows
from occamlearn.trees.kernel_sources import key_cache_to_sources

__all__ = ["incompatibility_lower_bound", "insert", "lookup", "new_table", "pack_rows", "rehash",
           "solve", "warm_up", "warm_up_table"]


@njit(cache=True)
def _spans_other_class(packed, labels, rows, a, b):
    """True if some row of ``rows`` with a class other than a's agrees with a and b on every
    feature where a and b agree (it lies in their smallest common subcube)."""
    for c in rows:
        if labels[c] != labels[a] and _in_subcube(packed, c, a, b):
            return True
    return False


@njit(cache=True)
def incompatibility_lower_bound(packed, labels, rows, n_classes, max_work):
    """Size of a greedy set of pairwise leaf-incompatible rows among ``rows``.

    Rows of different classes never share a leaf, so the bound is a sum over classes of a
    greedy clique inside each class. After about ``max_work`` row comparisons it returns the
    set found so far: still pairwise incompatible, so still a valid (weaker) bound. This caps
    the cost on large row sets (mushr: 5,199 rows), where a full greedy takes seconds.
    """
    total = 0
    work = 0
    chosen = np.empty(rows.shape[0], dtype=np.int64)
    for k in range(n_classes):
        n_chosen = 0
        for a in rows:
            if labels[a] != k:
                continue
            fits = True
            for i in range(n_chosen):
                work += rows.shape[0]
                if not _spans_other_class(packed, labels, rows, a, chosen[i]):
                    fits = False
                    break
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
            if work > max_work:
                return total + n_chosen
        total += n_chosen
    return total


# -- the whole search, compiled -------------------------------------------------------------
# A row set is a (words,) uint64 bitset over the distinct rows. The memo is an open-addressing
# hash table in one (capacity, words + 1) uint64 array, so that a probe touches one cache line:
# the key words, then a meta word: bit 63 used, bit 62 exact (else the value is a proven lower
# bound), bit 61 incompatibility bound computed, bits 32-60 split column + 1, bits 0-31 the
# value in leaves. ``counters``: see the indices below. The recursion aborts by returning
# ABORTED when the call limit is reached (the caller polls the clock and resumes: stored
# entries stay valid) or when the table is 70 % full and GROWABLE (the caller grows it); a
# full table that may not grow (memory cap) takes no new entries: the memo is only a cache.

ABORTED = -1
ENTRIES, CALLS, CALL_LIMIT, FLAG, BOUND_CALLS, BOUND_GAINS, GROWABLE = 0, 1, 2, 3, 4, 5, 6
CHILD_BOUNDS, TOUCHED, USE_BOUND = 7, 8, 9
BOUND_WORK = 2_000_000  # row comparisons per incompatibility bound (about 2 ms)
BOUND_MAX_ROWS = 256  # above this the bound costs more than it prunes (measured on mushr)
FLAG_CALLS, FLAG_FULL = 1, 2
USED, EXACT, BOUNDED = np.uint64(1 << 63), np.uint64(1 << 62), np.uint64(1 << 61)
VALUE_MASK, SPLIT_MASK = np.uint64(0xFFFFFFFF), np.uint64((1 << 29) - 1)
NO_FLAGS, ONE, NO_SPLIT = np.uint64(0), np.int64(1), np.int64(-1)


@njit(cache=True, inline="always")
def _hash(rows):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(rows.shape[0]):
        h ^= rows[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(cache=True)
def _slot(slots, rows):
    """Slot holding ``rows``, or the empty slot where it would go."""
    return _slot_hashed(slots, rows, _hash(rows))


@njit(cache=True)
def _slot_hashed(slots, rows, hashed):
    mask = slots.shape[0] - 1
    at = np.int64(hashed & np.uint64(mask))
    words = rows.shape[0]
    while slots[at, words] & USED:
        same = True
        for w in range(words):
            if slots[at, w] != rows[w]:
                same = False
                break
        if same:
            return at
        at = (at + 1) & mask
    return at


@njit(cache=True)
def _store(slots, counters, at, rows, value, split, flags):
    """Store ``value`` (leaves) with ``split`` and ``flags`` (EXACT, BOUNDED or NO_FLAGS).
    Every argument has one type at every call (no literals, no slices): each distinct
    signature or slice assignment costs seconds of compile on first use."""
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
def _classes_in(class_sets, rows):
    count = 0
    for k in range(class_sets.shape[0]):
        for w in range(rows.shape[0]):
            if class_sets[k, w] & rows[w]:
                count += 1
                break
    return count


@njit(cache=True)
def _indices(rows, n_rows):
    out = np.empty(n_rows, dtype=np.int64)
    n = 0
    for w in range(rows.shape[0]):
        word = rows[w]
        bit = 0
        while word:
            if word & np.uint64(1):
                out[n] = w * 64 + bit
                n += 1
            word >>= np.uint64(1)
            bit += 1
    return out[:n]


@njit(cache=True)
def _known_bound(slots, class_sets, rows, hashed):
    """Stored value of ``rows`` (exact or lower bound), else its class count."""
    classes = _classes_in(class_sets, rows)
    if classes == 1:  # pure: no probe of the table
        return 1
    meta = slots[_slot_hashed(slots, rows, hashed), rows.shape[0]]
    if meta & USED:
        return np.int64(meta & VALUE_MASK)
    return classes


@njit(cache=True)
def _raised_bound(counters, class_sets, packed, labels, rows, bound):
    """``bound`` raised by the incompatibility bound of ``rows`` when that is worth running:
    at most BOUND_MAX_ROWS rows, and while it raises at least 1 in 20 bounds (judged after
    2000 runs; on data where it never beats the class count it is pure cost)."""
    if not counters[USE_BOUND] or not (counters[BOUND_CALLS] < 2000
                                       or counters[BOUND_GAINS] * 20 >= counters[BOUND_CALLS]):
        return bound
    indices = _indices(rows, labels.shape[0])
    if indices.shape[0] > BOUND_MAX_ROWS:
        return bound
    counters[BOUND_CALLS] += 1
    found = incompatibility_lower_bound(packed, labels, indices, np.int64(class_sets.shape[0]),
                                        np.int64(BOUND_WORK))
    if found > bound:
        counters[BOUND_GAINS] += 1
        return found
    return bound


@njit(cache=True)
def _static_bound(slots, counters, class_sets, packed, labels, rows):
    """Stored value of ``rows``, else its class / incompatibility bound, then stored."""
    at = _slot(slots, rows)
    meta = slots[at, rows.shape[0]]
    if meta & USED:
        return np.int64(meta & VALUE_MASK)
    bound = _classes_in(class_sets, rows)
    if bound == 1:
        _store(slots, counters, at, rows, ONE, NO_SPLIT, EXACT | BOUNDED)
        return 1
    bound = _raised_bound(counters, class_sets, packed, labels, rows, bound)
    _store(slots, counters, at, rows, np.int64(bound), NO_SPLIT, BOUNDED)
    return bound


@njit(cache=True)
def _order_within(split_bounds, budget):
    """(order, count, over): the splits with a bound <= budget, by increasing bound and then
    column (a stable counting sort: numpy's argsort costs seconds of compile), and the least
    bound above the budget (1 << 30 if none). The search tries splits in this order and
    stops at the first bound reaching the best found, which starts at budget + 1, so a split
    above the budget is never tried: it only contributes its bound to the failed bound."""
    over = np.int64(1 << 30)
    counts = np.zeros(budget + 2, dtype=np.int64)
    for j in range(split_bounds.shape[0]):
        b = split_bounds[j]
        if b > budget:
            over = min(over, b)
        else:
            counts[b + 1] += 1
    for b in range(1, budget + 2):
        counts[b] += counts[b - 1]
    n_within = counts[budget + 1]
    order = np.empty(n_within, dtype=np.int64)
    for j in range(split_bounds.shape[0]):
        b = split_bounds[j]
        if b <= budget:
            order[counts[b]] = j
            counts[b] += 1
    return order, n_within, over


@njit(cache=True)
def _pure_side(class_sets, rows, column, side):
    """True if the rows of ``rows`` on ``side`` (0: x = 0, 1: x = 1) of ``column`` are
    non-empty and of one class."""
    classes = 0
    for k in range(class_sets.shape[0]):
        for w in range(rows.shape[0]):
            part = rows[w] & (column[w] if side else ~column[w])
            if class_sets[k, w] & part:
                classes += 1
                break
    return classes == 1


@njit(cache=True)
def _two_leaves(rows, columns, class_sets, slots, counters, at):
    """``solve`` with budget 2 on an impure row set, without touching the memo of its
    children: 2 (with the split) if a column leaves both sides pure, else the proven bound 3.
    Most calls of a deepening end here, a leaf's parent; the general path would hash and probe
    both sides of every column."""
    best_split = -1
    for j in range(columns.shape[0]):
        if _pure_side(class_sets, rows, columns[j], 1) and _pure_side(class_sets, rows,
                                                                        columns[j], 0):
            best_split = j
            break
    if best_split >= 0:
        _store(slots, counters, at, rows, np.int64(2), np.int64(best_split), EXACT | BOUNDED)
        return 2
    _store(slots, counters, at, rows, np.int64(3), NO_SPLIT, BOUNDED)
    return 3


@njit(cache=True)
def solve(rows, budget, columns, class_sets, packed, labels, slots, counters, order, pred_start,
          pred, succ_start, succ):
    """Minimum leaves of a pure tree on ``rows`` if <= budget, else a bound > budget
    (ABORTED if the call limit or the table filled up). Mirrors ``_Search.solve``; the
    incompatibility bound is tried once per row set (``_raised_bound``). ``order``, ``pred*``
    and ``succ*`` are the containment diagram of the column sides (``trees.exact.nesting``):
    a side's bound is raised to the bound of every side it contains, at the start from the
    memo and then after each child solved, so a failed threshold prunes its neighbours."""
    words = rows.shape[0]
    at = _slot(slots, rows)
    meta = slots[at, words]
    if meta & EXACT:
        return np.int64(meta & VALUE_MASK)
    counters[CALLS] += 1
    if counters[CALLS] >= counters[CALL_LIMIT]:
        counters[FLAG] = FLAG_CALLS
    if counters[FLAG]:
        return ABORTED
    if meta & USED:
        bound = np.int64(meta & VALUE_MASK)
        bounded = (meta & BOUNDED) != 0
    else:
        bound = _classes_in(class_sets, rows)
        if bound == 1:
            _store(slots, counters, at, rows, ONE, NO_SPLIT, EXACT | BOUNDED)
            return 1
        bounded = False
    if not bounded and bound <= budget:
        bound = _raised_bound(counters, class_sets, packed, labels, rows, bound)
        bounded = True
    _store(slots, counters, at, rows, np.int64(bound), NO_SPLIT,
           BOUNDED if bounded else NO_FLAGS)
    if bound > budget:
        return bound
    if budget == 2:  # here bound == 2: two leaves iff one column leaves both sides pure
        return _two_leaves(rows, columns, class_sets, slots, counters, at)
    n_features = columns.shape[0]
    lefts = np.empty((n_features, words), dtype=np.uint64)
    rights = np.empty((n_features, words), dtype=np.uint64)
    split_bounds = np.full(n_features, 1 << 30, dtype=np.int64)
    left_hashes = np.empty(n_features, dtype=np.uint64)
    right_hashes = np.empty(n_features, dtype=np.uint64)
    valid = np.zeros(n_features, dtype=np.bool_)
    # the partitions seen so far, by the symmetric key left hash ^ right hash (a partition and
    # its mirror meet): an open-addressing set of column + 1, so that a node costs O(columns),
    # not O(columns^2) (measured: the quadratic scan dominated on 946 threshold columns)
    seen_size = 4
    while seen_size < 2 * n_features:
        seen_size <<= 1
    seen = np.zeros(seen_size, dtype=np.int64)
    seen_mask = np.uint64(seen_size - 1)
    for j in range(n_features):
        any_right = False
        any_left = False
        for w in range(words):
            rights[j, w] = rows[w] & columns[j, w]
            lefts[j, w] = rows[w] & ~columns[j, w]
            any_right |= rights[j, w] != 0
            any_left |= lefts[j, w] != 0
        if not (any_right and any_left):
            continue
        left_hashes[j], right_hashes[j] = _hash(lefts[j]), _hash(rights[j])
        # the same partition (or its mirror) as an earlier column: skip it
        key = left_hashes[j] ^ right_hashes[j]
        position = np.int64(key & seen_mask)
        repeated = False
        while seen[position]:
            i = seen[position] - 1
            if (left_hashes[i] ^ right_hashes[i]) == key:
                same = True
                for w in range(words):
                    if rights[i, w] != rights[j, w] and rights[i, w] != lefts[j, w]:
                        same = False
                        break
                if same:
                    repeated = True
                    break
            position = (position + 1) & np.int64(seen_size - 1)
        if not repeated:
            seen[position] = j + 1
            valid[j] = True
    # Touch every child's first slot in a loop of independent loads: the cache misses overlap
    # instead of stalling one after another in the probes below (measured: most of the time
    # of a call is waiting for the table's memory).
    mask = np.uint64(slots.shape[0] - 1)
    touched = np.uint64(0)
    for j in range(n_features):
        if valid[j]:
            touched ^= slots[np.int64(left_hashes[j] & mask), words]
            touched ^= slots[np.int64(right_hashes[j] & mask), words]
    counters[TOUCHED] ^= np.int64(touched & np.uint64(1))
    # side 2j: the rows with x_j = 0, side 2j + 1: x_j = 1; 0 for a column that does not
    # split (a bound of 0 is always valid, and nesting still passes through it)
    side_bounds = np.zeros(2 * n_features, dtype=np.int64)
    for j in range(n_features):
        if not valid[j]:
            continue
        if counters[CHILD_BOUNDS]:
            side_bounds[2 * j] = _static_bound(slots, counters, class_sets, packed, labels,
                                               lefts[j])
            side_bounds[2 * j + 1] = _static_bound(slots, counters, class_sets, packed, labels,
                                                   rights[j])
        else:
            side_bounds[2 * j] = _known_bound(slots, class_sets, lefts[j], left_hashes[j])
            side_bounds[2 * j + 1] = _known_bound(slots, class_sets, rights[j], right_hashes[j])
    if pred.shape[0]:
        _nested_side_bounds(side_bounds, order, pred_start, pred)
    for j in range(n_features):
        if valid[j]:
            split_bounds[j] = side_bounds[2 * j] + side_bounds[2 * j + 1]
    stack = np.empty(2 * n_features, dtype=np.int64)
    order_within, n_order, _ = _order_within(split_bounds, budget)
    best, best_split = budget + 1, -1
    for i in range(n_order):
        j = order_within[i]
        if split_bounds[j] >= best:
            break  # this and every later split: counted in the failed bound below
        if side_bounds[2 * j] + side_bounds[2 * j + 1] >= best:
            continue  # a nested side failed meanwhile: counted below too
        right_bound = max(_known_bound(slots, class_sets, rights[j], right_hashes[j]),
                          side_bounds[2 * j + 1])
        left_value = solve(lefts[j], best - 1 - right_bound, columns, class_sets, packed,
                           labels, slots, counters, order, pred_start, pred, succ_start, succ)
        if left_value == ABORTED:
            return ABORTED
        _raise_side(side_bounds, 2 * j, left_value, succ_start, succ, stack)
        if left_value > best - 1 - right_bound:
            split_bounds[j] = max(split_bounds[j], left_value + right_bound)
            continue
        right_value = solve(rights[j], best - 1 - left_value, columns, class_sets, packed,
                            labels, slots, counters, order, pred_start, pred, succ_start, succ)
        if right_value == ABORTED:
            return ABORTED
        _raise_side(side_bounds, 2 * j + 1, right_value, succ_start, succ, stack)
        if right_value > best - 1 - left_value:
            split_bounds[j] = max(split_bounds[j], left_value + right_value)
            continue
        best, best_split = left_value + right_value, j
    at = _slot(slots, rows)  # the table changed below this node
    if best <= budget:
        _store(slots, counters, at, rows, np.int64(best), np.int64(best_split),
               EXACT | BOUNDED)
        return best
    # Every split was pruned or failed above the budget, so the least of the splits' proven
    # bounds holds for the node: per split, the largest of its bound at the start, what its
    # children's solves proved, and its sides' bounds raised through nesting since.
    failed = np.int64(1 << 30)
    for j in range(n_features):
        if valid[j]:
            failed = min(failed, max(split_bounds[j],
                                     side_bounds[2 * j] + side_bounds[2 * j + 1]))
    bound = max(bound, failed)
    _store(slots, counters, at, rows, np.int64(bound), NO_SPLIT, BOUNDED)
    return bound


@njit(cache=True)
def lookup(slots, rows):
    """(value, is_exact, split) stored for ``rows``; value 0 if nothing is stored."""
    meta = slots[_slot(slots, rows), rows.shape[0]]
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
        _store(slots, counters, _slot(slots, keys[i]), keys[i], values[i], splits[i], flags[i])


@njit(cache=True)
def rehash(old, new, counters):
    """Copy every entry of the table ``old`` into the (larger, empty) table ``new``."""
    words = old.shape[1] - 1
    counters[ENTRIES] = 0
    for at in range(old.shape[0]):
        if old[at, words] & USED:
            rows = old[at, :words]
            to = _slot(new, rows)
            for w in range(words + 1):  # a loop, not a slice (seconds less compile)
                new[to, w] = old[at, w]
            counters[ENTRIES] += 1


def new_table(capacity: int, words: int) -> np.ndarray:
    """An empty memo table for row sets of ``words`` words (capacity a power of two)."""
    return np.zeros((capacity, words + 1), dtype=np.uint64)


def new_counters() -> np.ndarray:
    return np.zeros(10, dtype=np.int64)


_warm = {"bound": False, "search": False}


def warm_up(search: bool = True) -> float:
    """Compile (or load from the on-disk cache) the kernels on a tiny input; seconds taken.
    ``search=False`` readies only the incompatibility bound (used by the Python search)."""
    start = time.perf_counter()
    if _warm["search"] or (_warm["bound"] and not search):
        return 0.0
    packed = pack_rows(np.array([[0, 1], [1, 0], [1, 1]], dtype=np.int64))
    labels = np.array([0, 1, 0], dtype=np.int64)
    if search:  # solve first: a Python search compiles the bound meanwhile (kernel_cache)
        columns = np.array([[6], [5]], dtype=np.uint64)  # rows {1, 2} and {0, 2} have a 1
        class_sets = np.array([[5], [2]], dtype=np.uint64)
        table, counters = new_table(16, 1), new_counters()
        counters[CALL_LIMIT], counters[GROWABLE], counters[USE_BOUND] = 1000, 1, 1
        nesting = [np.array(a, dtype=np.int64) for a in
                   ([0, 3, 1, 2], [0, 0, 1, 1, 1], [3], [0, 0, 0, 1, 1], [0])]
        solve(np.array([7], dtype=np.uint64), 3, columns, class_sets, packed, labels, table,
              counters, *nesting)
    incompatibility_lower_bound(packed, labels, np.arange(3, dtype=np.int64), 2, 10)
    _warm["bound"] = True
    if search:
        warm_up_table()
        _warm["search"] = True
    return time.perf_counter() - start


def warm_up_table() -> None:
    """Compile (or load) the memo-table kernels; ``kernel_cache`` runs this in a second
    process while the first compiles ``solve``."""
    table, counters = new_table(16, 1), new_counters()
    lookup(table, np.array([7], dtype=np.uint64))
    insert(table, counters, np.array([[3]], dtype=np.uint64), np.array([2]), np.array([0]),
           np.array([EXACT | BOUNDED]))
    rehash(table, new_table(32, 1), counters)


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
