"""Compiled kernels of the one-deletion search (``one_error``): numba, cached.

``solve_one`` is ``mpdt.bnb.kernels.solve`` with one more freedom: one row of a given
``deletable`` set may be left out (misclassified). Its memo is a second table of the same
layout (``mpdt.bnb.memo_table``), its counters a second counters array; a side that may not
drop a row is answered by the pure search itself (``bnb.kernels.solve``, its own memo), so
the two searches share everything they prove about pure row sets. The recursion, the bounds
and their proofs are in ``one_error``'s docstring.

A split's code in the memo is 2j + o: column j, o = 0 when the left side (x_j = 0) may drop
the row, o = 1 when the right side may.

Two pieces mirror the pure search's on purpose: the enumeration of a node's distinct splits
(``_expand_one``, as ``bnb.kernels._expand``) and the gate and index list around the bound
(``_raised``, as ``node_bounds.raised_bound``). Sharing them would add a call level inside
the pure search's kernels, and numba re-optimises every level with each function that
calls it (``bnb.kernels``' docstring): the pure search's compile is what a first fit on a
fresh install waits for (10-14 s against a 15 s target), so it is left as it is.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.exact.nesting_kernels import nested_side_bounds as _nested_side_bounds
from occamlearn.trees.exact.nesting_kernels import raise_side as _raise_side
from occamlearn.trees.exact.row_set_table import hash_key as _hash
from occamlearn.trees.mpdt.bnb.kernels import ABORTED
from occamlearn.trees.mpdt.bnb.kernels import solve as _solve_pure
from occamlearn.trees.mpdt.bnb.memo_table import (
    BOUNDED,
    CALL_LIMIT,
    CALLS,
    EXACT,
    FLAG,
    FLAG_CALLS,
    GROWABLE,
    NO_FLAGS,
    NO_SALT,
    USE_BOUND,
    USED,
    VALUE_MASK,
    new_counters,
    new_table,
)
from occamlearn.trees.mpdt.bnb.memo_table import slot as _slot
from occamlearn.trees.mpdt.bnb.memo_table import slot_hashed as _slot_hashed
from occamlearn.trees.mpdt.bnb.memo_table import store as _store
from occamlearn.trees.mpdt.bnb.node_bounds import known_bound as _known_pure
from occamlearn.trees.mpdt.bnb.node_bounds import popcount as _popcount
from occamlearn.trees.mpdt.bnb.subset_trie import new_trie
from occamlearn.trees.mpdt.error_budget.one_error_bounds import one_error_incompatibility
from occamlearn.trees.mpdt.error_budget.one_error_bounds import raised as _raised

__all__ = ["ABORTED", "one_error_incompatibility", "solve_one", "warm_up"]

OPEN = -2
NOT_SPLIT = 1 << 30
ONE, NO_SPLIT = np.int64(1), np.int64(-1)


@njit(cache=True, no_cpython_wrapper=True)
def _classes(rows, mask, class_sets, deletable):
    """(classes of ``rows & mask``, True if one of them has a single row and it is
    deletable): a side's class counts without building the side (``mask``: the column, or
    its complement, or ``rows`` itself for the whole set)."""
    classes = 0
    droppable = False
    for k in range(class_sets.shape[0]):
        count = 0
        in_deletable = False
        for w in range(rows.shape[0]):
            part = rows[w] & mask[w] & class_sets[k, w]
            count += _popcount(part)
            in_deletable |= (part & deletable[w]) != 0
        if count:
            classes += 1
        if count == 1 and in_deletable:
            droppable = True
    return classes, droppable


@njit(cache=True, no_cpython_wrapper=True)
def _class_bound(class_sets, deletable, rows):
    """(bound, leaf): the classes of ``rows``, less one if a class has a single row and it is
    deletable (that row can go); ``leaf`` when that leaves one class (one leaf suffices)."""
    classes, droppable = _classes(rows, rows, class_sets, deletable)
    bound = classes - 1 if droppable else classes
    if bound <= 1:
        return ONE, True
    return np.int64(bound), False


@njit(cache=True, no_cpython_wrapper=True)
def _known_one(slots1, class_sets, deletable, rows, hashed):
    """Stored value of ``rows`` in the one-deletion memo, else its class bound."""
    bound, leaf = _class_bound(class_sets, deletable, rows)
    if leaf:
        return ONE
    meta = slots1[_slot_hashed(slots1, rows, hashed), rows.shape[0]]
    if meta & USED:
        return max(bound, np.int64(meta & VALUE_MASK))
    return bound


@njit(cache=True, no_cpython_wrapper=True)
def _two_leaves_one(rows, columns, class_sets, deletable, slots1, counters1, at):
    """``solve_one`` with budget 2 on a row set one leaf does not serve: 2 (stored with its
    split) if a column leaves one side of one class and the other of one class once a
    deletable row goes, else the proven bound 3. As ``bnb.settled_nodes.two_leaves``: most calls
    of a deepening end here, and this spares hashing and probing both sides of every
    column."""
    flipped = np.empty(rows.shape[0], dtype=np.uint64)
    for j in range(columns.shape[0]):
        for w in range(rows.shape[0]):
            flipped[w] = ~columns[j, w]
        left, left_drop = _classes(rows, flipped, class_sets, deletable)
        if left == 0:
            continue
        right, right_drop = _classes(rows, columns[j], class_sets, deletable)
        if right == 0:
            continue
        left_one = left == 1 or (left == 2 and left_drop)
        right_one = right == 1 or (right == 2 and right_drop)
        if left == 1 and right_one:
            _store(slots1, counters1, at, rows, np.int64(2), np.int64(2 * j + 1),
                   EXACT | BOUNDED)
            return 2
        if right == 1 and left_one:
            _store(slots1, counters1, at, rows, np.int64(2), np.int64(2 * j), EXACT | BOUNDED)
            return 2
    _store(slots1, counters1, at, rows, np.int64(3), NO_SPLIT, BOUNDED)
    return 3


@njit(cache=True, no_cpython_wrapper=True)
def _settle_one(rows, budget, columns, class_sets, deletable, packed, labels, deletable_rows,
                slots1, counters1):
    """(answer, bound) as ``bnb.settled_nodes.settle``: an exact stored value, ABORTED, 1 for a
    row set one leaf serves, a bound above the budget; else (OPEN, the node's bound)."""
    words = rows.shape[0]
    at = _slot(slots1, rows)
    meta = slots1[at, words]
    if meta & EXACT:
        return np.int64(meta & VALUE_MASK), ONE
    counters1[CALLS] += 1
    if counters1[CALLS] >= counters1[CALL_LIMIT]:
        counters1[FLAG] = FLAG_CALLS
    if counters1[FLAG]:
        return np.int64(ABORTED), ONE
    bound, leaf = _class_bound(class_sets, deletable, rows)
    if leaf:
        _store(slots1, counters1, at, rows, ONE, NO_SPLIT, EXACT | BOUNDED)
        return ONE, ONE
    bounded = False
    if meta & USED:
        bound = max(bound, np.int64(meta & VALUE_MASK))
        bounded = (meta & BOUNDED) != 0
    if not bounded and bound <= budget:
        bound = _raised(counters1, packed, labels, deletable_rows,
                        np.int64(class_sets.shape[0]), rows, bound)
        bounded = True
    _store(slots1, counters1, at, rows, bound, NO_SPLIT, BOUNDED if bounded else NO_FLAGS)
    if bound > budget:
        return bound, bound
    if budget == 2:  # here bound == 2
        return np.int64(_two_leaves_one(rows, columns, class_sets, deletable, slots1,
                                        counters1, at)), bound
    return np.int64(OPEN), bound


# A copy of bnb.kernels._expand's partition, hash and de-duplication steps, not a shared helper:
# each compiled call level repeats LLVM work; splitting _expand into more helpers raised the bnb
# compile from 9.4-10.8 to 10.8-13.1 CPU s, inline="always" from 8.5-8.9 to 11.0-11.1
# (benchmarks/results/cold_typing.md, section 2).
@njit(cache=True, no_cpython_wrapper=True)
def _expand_one(rows, budget, columns, class_sets, deletable, slots, slots1, order,
                pred_start, pred):
    """The distinct splits of an open node (a column that splits as an earlier one did, or
    its mirror, is skipped) with, per side (2j: x_j = 0, 2j + 1: x_j = 1), its pure bound
    and its one-deletion bound, raised through nesting; and the splits whose bound (the
    better of the two ways to place the deletion) is within the budget, by increasing
    bound. Returns (lefts, rights, hashes, pure side bounds, one side bounds, split bounds,
    order of the splits to try, a stack for ``raise_side``)."""
    n_features, words = columns.shape[0], rows.shape[0]
    lefts = np.empty((n_features, words), dtype=np.uint64)
    rights = np.empty((n_features, words), dtype=np.uint64)
    hashes = np.empty((2, n_features), dtype=np.uint64)
    seen_size = 4
    while seen_size < 2 * n_features:
        seen_size <<= 1
    seen = np.empty(seen_size, dtype=np.int64)
    for i in range(seen_size):
        seen[i] = 0
    split_bounds = np.empty(n_features, dtype=np.int64)
    for j in range(n_features):
        split_bounds[j] = NOT_SPLIT
        any_right = False
        any_left = False
        for w in range(words):
            rights[j, w] = rows[w] & columns[j, w]
            lefts[j, w] = rows[w] & ~columns[j, w]
            any_right |= rights[j, w] != 0
            any_left |= lefts[j, w] != 0
        if not (any_right and any_left):
            continue
        hashes[0, j], hashes[1, j] = _hash(lefts[j], NO_SALT), _hash(rights[j], NO_SALT)
        key = hashes[0, j] ^ hashes[1, j]
        position = np.int64(key & np.uint64(seen_size - 1))
        repeated = False
        while seen[position]:
            i = seen[position] - 1
            if (hashes[0, i] ^ hashes[1, i]) == key:
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
            split_bounds[j] = 0
    side_pure = np.empty(2 * n_features, dtype=np.int64)
    side_one = np.empty(2 * n_features, dtype=np.int64)
    for j in range(n_features):
        for s in range(2):
            side_pure[2 * j + s], side_one[2 * j + s] = 0, 0
        if split_bounds[j] != 0:
            continue
        for s in range(2):
            part = rights[j] if s else lefts[j]
            side_one[2 * j + s] = _known_one(slots1, class_sets, deletable, part, hashes[s, j])
            side_pure[2 * j + s] = max(_known_pure(slots, class_sets, part, hashes[s, j]),
                                       side_one[2 * j + s])
    if pred.shape[0]:
        _nested_side_bounds(side_pure, order, pred_start, pred)
        _nested_side_bounds(side_one, order, pred_start, pred)
    counts = np.empty(budget + 2, dtype=np.int64)
    for b in range(budget + 2):
        counts[b] = 0
    for j in range(n_features):
        if split_bounds[j] == 0:
            split_bounds[j] = min(side_one[2 * j] + side_pure[2 * j + 1],
                                  side_pure[2 * j] + side_one[2 * j + 1])
        if split_bounds[j] <= budget:
            counts[split_bounds[j] + 1] += 1
    for b in range(1, budget + 2):
        counts[b] += counts[b - 1]
    within = np.empty(counts[budget + 1], dtype=np.int64)
    for j in range(n_features):
        if split_bounds[j] <= budget:
            within[counts[split_bounds[j]]] = j
            counts[split_bounds[j]] += 1
    stack = np.empty(2 * n_features, dtype=np.int64)
    return lefts, rights, hashes, side_pure, side_one, split_bounds, within, stack


@njit(cache=True)
def solve_one(rows, budget, columns, class_sets, packed, labels, slots, counters, order,
              pred_start, pred, succ_start, succ, trie, deletable, deletable_rows, slots1,
              counters1):
    """Fewest leaves of a tree classifying ``rows`` correctly but for at most one row of
    ``deletable`` if <= budget, else a proven bound > budget; ABORTED when either search
    reached its call limit or either table asks to grow (the caller resumes). The
    arguments up to ``succ`` are the pure search's (``bnb.kernels.solve``)."""
    answer, bound = _settle_one(rows, budget, columns, class_sets, deletable, packed, labels,
                                deletable_rows, slots1, counters1)
    if answer != OPEN:
        return answer
    lefts, rights, hashes, side_pure, side_one, split_bounds, within, stack = _expand_one(
        rows, budget, columns, class_sets, deletable, slots, slots1, order, pred_start, pred)
    best, best_code = budget + 1, NO_SPLIT
    for i in range(within.shape[0]):
        j = within[i]
        if split_bounds[j] >= best:
            break
        proven = np.int64(NOT_SPLIT)
        for side in range(2):  # the side that may drop the row: 0 left, 1 right
            one, other = 2 * j + side, 2 * j + 1 - side
            one_rows = rights[j] if side else lefts[j]
            other_rows = lefts[j] if side else rights[j]
            other_bound = max(side_pure[other], _known_pure(slots, class_sets, other_rows,
                                                            hashes[1 - side, j]))
            if side_one[one] + other_bound >= best:
                proven = min(proven, side_one[one] + other_bound)
                continue
            one_value = solve_one(one_rows, best - 1 - other_bound, columns, class_sets,
                                  packed, labels, slots, counters, order, pred_start, pred,
                                  succ_start, succ, trie, deletable, deletable_rows, slots1,
                                  counters1)
            if one_value == ABORTED:
                return ABORTED
            _raise_side(side_one, one, one_value, succ_start, succ, stack)
            _raise_side(side_pure, one, one_value, succ_start, succ, stack)  # pure >= one
            if one_value > best - 1 - other_bound:
                proven = min(proven, one_value + other_bound)
                continue
            other_value = _solve_pure(other_rows, best - 1 - one_value, columns, class_sets,
                                      packed, labels, slots, counters, order, pred_start, pred,
                                      succ_start, succ, trie)
            if other_value == ABORTED:
                return ABORTED
            _raise_side(side_pure, other, other_value, succ_start, succ, stack)
            if other_value > best - 1 - one_value:
                proven = min(proven, one_value + other_value)
                continue
            best, best_code = one_value + other_value, 2 * j + side
            proven = best
        split_bounds[j] = max(split_bounds[j], proven)
    at = _slot(slots1, rows)  # the table changed below this node
    if best <= budget:
        _store(slots1, counters1, at, rows, best, best_code, EXACT | BOUNDED)
        return best
    failed = np.int64(NOT_SPLIT)
    for j in range(split_bounds.shape[0]):
        now = min(side_one[2 * j] + side_pure[2 * j + 1], side_pure[2 * j] + side_one[2 * j + 1])
        failed = min(failed, max(split_bounds[j], now))
    bound = max(bound, failed)
    _store(slots1, counters1, at, rows, bound, NO_SPLIT, BOUNDED)
    return bound


_warm = {"done": False}


def warm_up() -> float:
    """Compile (or load from the disk cache) the kernels on a tiny input; seconds taken."""
    from occamlearn.trees.exact.packed import pack_rows
    from occamlearn.trees.mpdt.bnb.memo_table import CALL_LIMIT as LIMIT

    start = time.perf_counter()
    if _warm["done"]:
        return 0.0
    packed = pack_rows(np.array([[0, 1], [1, 0], [1, 1]], dtype=np.int64))
    labels = np.array([0, 1, 0], dtype=np.int64)
    columns = np.array([[6], [5]], dtype=np.uint64)
    class_sets = np.array([[5], [2]], dtype=np.uint64)
    table, counters = new_table(16, 1), new_counters()
    table1, counters1 = new_table(16, 1), new_counters()
    for c in (counters, counters1):
        c[LIMIT], c[GROWABLE], c[USE_BOUND] = 1000, 1, 1
    nesting = [np.array(a, dtype=np.int64) for a in
               ([0, 3, 1, 2], [0, 0, 1, 1, 1], [3], [0, 0, 0, 1, 1], [0])]
    solve_one(np.array([7], dtype=np.uint64), 3, columns, class_sets, packed, labels, table,
              counters, *nesting, new_trie(8), np.array([7], dtype=np.uint64),
              np.array([True, True, True]), table1, counters1)
    one_error_incompatibility(packed, labels, np.arange(3, dtype=np.int64),
                              np.array([True, True, True]), 2, 10)
    _warm["done"] = True
    return time.perf_counter() - start


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
