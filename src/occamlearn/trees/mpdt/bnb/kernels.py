"""Compiled kernels of the branch-and-bound search for minimum pure trees (numba, cached).

``solve`` is the whole search over row sets, compiled; its leaf bounds are in ``node_bounds``
(the incompatibility bound that makes the search strong), its memo in ``memo_table`` and the
answers for nodes that need no split in ``settled_nodes``. ``cache=True`` keeps the compile on
disk, and ``warm_up`` compiles on a tiny input so that the first real call is not charged the
compile inside a time limit.

Why ``solve`` is a short loop over a few helpers. numba types a self-recursive function by
typing its whole body again (``typeinfer.return_types_from_partial``) each time it resolves a
recursive call, and it resolves every call on each pass of its type propagation. With a node's
set-up and close-out inside ``solve`` (about 150 lines), typing it took about 2.8 of its 4.2
CPU seconds of compile on an empty cache: six partial re-typings of the whole body
(``benchmarks/results/cold_typing.md``). The helpers (``settled_nodes.settle``, ``_expand``,
``_close``) are typed once each; only the loop that recurses is typed again. Helpers stay few
and are not nested deeply: numba optimises and emits machine code for each compiled function
together with every function it calls, so each extra level repeats that work, and an
``inline="always"`` helper that itself inlines others multiplies the untyped passes. Helpers
that only compiled code calls have no CPython wrapper (``no_cpython_wrapper=True``: one
function less to lower and optimise each).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.exact.nesting_kernels import nested_side_bounds as _nested_side_bounds
from occamlearn.trees.exact.nesting_kernels import raise_side as _raise_side
from occamlearn.trees.exact.packed import pack_rows
from occamlearn.trees.exact.row_set_table import hash_key as _hash
from occamlearn.trees.mpdt.bnb.memo_table import (
    BOUND_CALLS,
    BOUNDED,
    CALL_LIMIT,
    CALLS,
    CHILD_BOUNDS,
    DROP_DOMINATED,
    ENTRIES,
    EXACT,
    FLAG,
    FLAG_FULL,
    GROWABLE,
    NO_FLAGS,
    NO_SALT,
    ONE_LEAF_BY_CLASSES,
    PRUNE_BY_CLASSES,
    TOUCHED,
    TRIE_MAX_ROWS,
    TRIE_MIN_BUDGET,
    USE_BOUND,
    insert,
    lookup,
    new_counters,
    new_table,
    rehash,
    warm_up_table,
)
from occamlearn.trees.mpdt.bnb.memo_table import slot as _slot
from occamlearn.trees.mpdt.bnb.memo_table import store as _store

# the bounds: the incompatibility bound is an entry point of the Python engine (public name)
from occamlearn.trees.mpdt.bnb.node_bounds import (
    BOUND_MAX_ROWS,
    BOUND_WORK,
    incompatibility_lower_bound,
)
from occamlearn.trees.mpdt.bnb.node_bounds import classes_in as _classes_in
from occamlearn.trees.mpdt.bnb.node_bounds import known_bound as _known_bound
from occamlearn.trees.mpdt.bnb.node_bounds import popcount as _popcount
from occamlearn.trees.mpdt.bnb.node_bounds import static_bound as _static_bound
from occamlearn.trees.mpdt.bnb.settled_nodes import ABORTED, NO_SPLIT, OPEN
from occamlearn.trees.mpdt.bnb.settled_nodes import settle as _settle
from occamlearn.trees.mpdt.bnb.split_reductions import NOT_SPLIT
from occamlearn.trees.mpdt.bnb.split_reductions import drop_dominated as _drop_dominated
from occamlearn.trees.mpdt.bnb.subset_trie import BYTES_PER_NODE as TRIE_BYTES_PER_NODE
from occamlearn.trees.mpdt.bnb.subset_trie import new_trie
from occamlearn.trees.mpdt.bnb.subset_trie import remember_small as _remember_small

__all__ = ["ABORTED", "BOUND_CALLS", "BOUND_MAX_ROWS", "BOUND_WORK", "BOUNDED", "CALL_LIMIT",
           "CALLS", "CHILD_BOUNDS", "DROP_DOMINATED", "ENTRIES", "EXACT", "FLAG", "FLAG_FULL",
           "GROWABLE", "NO_FLAGS", "ONE_LEAF_BY_CLASSES", "PRUNE_BY_CLASSES",
           "TRIE_BYTES_PER_NODE", "TRIE_MAX_ROWS", "TRIE_MIN_BUDGET", "USE_BOUND",
           "incompatibility_lower_bound", "insert", "lookup", "new_counters", "new_table",
           "new_trie", "pack_rows", "rehash", "solve", "warm_up", "warm_up_table"]

# Row sets are (words,) uint64 bitsets over the distinct rows. The recursion aborts by
# returning ABORTED (``settled_nodes``) when the call limit is reached (the caller polls the
# clock and resumes: stored entries stay valid) or when the table is 70 % full and GROWABLE
# (the caller grows it); a full table that may not grow (memory cap) takes no new entries.


@njit(cache=True, no_cpython_wrapper=True)
def _expand(rows, budget, columns, class_sets, packed, labels, slots, counters, order,
            pred_start, pred, succ_start, succ):
    """The splits of an open node: (lefts, rights, right hashes, side bounds, split bounds,
    the splits to try in order, a stack for ``_raise_side``). Side 2j holds the rows with
    x_j = 0, side 2j + 1 those with x_j = 1. A column that does not split ``rows``, or
    splits it as an earlier column did (or its mirror), keeps side bounds 0 (always valid;
    nesting still passes through them) and split bound NOT_SPLIT. Only int64 and uint64
    arrays from ``np.empty``: each other allocation's signature is one more compile."""
    n_features, words = columns.shape[0], rows.shape[0]
    lefts = np.empty((n_features, words), dtype=np.uint64)
    rights = np.empty((n_features, words), dtype=np.uint64)
    hashes = np.empty((2, n_features), dtype=np.uint64)  # left, right
    # the partitions seen so far, by the symmetric key left hash ^ right hash (a partition and
    # its mirror meet): an open-addressing set of column + 1, so that a node costs O(columns),
    # not O(columns^2) (measured: the quadratic scan dominated on 946 threshold columns)
    seen_size = 4
    while seen_size < 2 * n_features:
        seen_size <<= 1
    seen = np.empty(seen_size, dtype=np.int64)
    for i in range(seen_size):
        seen[i] = 0
    split_bounds = np.empty(n_features, dtype=np.int64)
    side_bounds = np.empty(2 * n_features, dtype=np.int64)
    for j in range(n_features):
        split_bounds[j] = NOT_SPLIT
        side_bounds[2 * j], side_bounds[2 * j + 1] = 0, 0
        any_right = False
        any_left = False
        for w in range(words):
            rights[j, w] = rows[w] & columns[j, w]
            lefts[j, w] = rows[w] & ~columns[j, w]
            any_right |= rights[j, w] != 0
            any_left |= lefts[j, w] != 0
        if not (any_right and any_left):
            continue
        left_classes = _classes_in(class_sets, lefts[j])
        right_classes = _classes_in(class_sets, rights[j])
        side_bounds[2 * j], side_bounds[2 * j + 1] = left_classes, right_classes
        if counters[PRUNE_BY_CLASSES] and left_classes + right_classes > budget:
            split_bounds[j] = left_classes + right_classes
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
            split_bounds[j] = 0  # a valid split: its bound below
    if counters[DROP_DOMINATED] and succ.shape[0]:
        _drop_dominated(rows, lefts, rights, side_bounds, split_bounds, order, succ_start, succ)
    # Touch every child's first slot in a loop of independent loads: the cache misses overlap
    # instead of stalling one after another in the probes below (measured: most of the time
    # of a call is waiting for the table's memory).
    mask = np.uint64(slots.shape[0] - 1)
    touched = np.uint64(0)
    for j in range(n_features):
        if split_bounds[j] == 0:
            touched ^= slots[np.int64(hashes[0, j] & mask), words]
            touched ^= slots[np.int64(hashes[1, j] & mask), words]
    counters[TOUCHED] ^= np.int64(touched & np.uint64(1))
    for j in range(n_features):
        if split_bounds[j] != 0:
            continue
        if counters[CHILD_BOUNDS]:
            side_bounds[2 * j] = _static_bound(slots, counters, class_sets, packed, labels,
                                               lefts[j])
            side_bounds[2 * j + 1] = _static_bound(slots, counters, class_sets, packed, labels,
                                                   rights[j])
        else:
            side_bounds[2 * j] = _known_bound(slots, class_sets, lefts[j], hashes[0, j])
            side_bounds[2 * j + 1] = _known_bound(slots, class_sets, rights[j], hashes[1, j])
    if pred.shape[0]:
        _nested_side_bounds(side_bounds, order, pred_start, pred)
    # the splits with a bound <= budget, by increasing bound and then column (a stable
    # counting sort: numpy's argsort costs seconds of compile). The search stops at the first
    # bound reaching the best found, which starts at budget + 1, so a split above the budget
    # is never tried: it only contributes its bound to the failed bound (``_close``).
    counts = np.empty(budget + 2, dtype=np.int64)
    for b in range(budget + 2):
        counts[b] = 0
    for j in range(n_features):
        if split_bounds[j] == 0:
            split_bounds[j] = side_bounds[2 * j] + side_bounds[2 * j + 1]
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
    return lefts, rights, hashes[1], side_bounds, split_bounds, within, stack


@njit(cache=True, no_cpython_wrapper=True)
def _close(rows, budget, bound, best, best_split, split_bounds, side_bounds, slots,
           counters, trie):
    """Store and return the node's answer once its splits were tried: ``best`` if within
    the budget, else a proven bound. Then every split was pruned or failed above the budget,
    so the least of the splits' proven bounds holds for the node: per split, the largest of
    its bound at the start (NOT_SPLIT if it does not split), what its children's solves
    proved, and its sides' bounds raised through nesting since."""
    at = _slot(slots, rows)  # the table changed below this node
    if best <= budget:
        _store(slots, counters, at, rows, best, best_split, EXACT | BOUNDED)
        _remember_small(trie, counters, rows, best)
        return best
    failed = np.int64(NOT_SPLIT)
    for j in range(split_bounds.shape[0]):
        failed = min(failed, max(split_bounds[j], side_bounds[2 * j] + side_bounds[2 * j + 1]))
    bound = max(bound, failed)
    _store(slots, counters, at, rows, bound, NO_SPLIT, BOUNDED)
    _remember_small(trie, counters, rows, bound)
    return bound


@njit(cache=True, no_cpython_wrapper=True)
def _first_side(left, right, left_side):
    """The side a split solves first: ``left_side`` (2j, x_j = 0) unless the right side
    (2j + 1) has fewer rows. Why the smaller side. To prove that a split fails, the first
    side is solved within the budget minus the other side's *known* bound, which for a side
    not yet visited is only its class count; the second side then gets the budget minus the
    first side's *value*. A small side is cheap to solve and its bound is nearly tight, so
    the large side, where the search spends its calls, gets a tight budget. Large side first
    gives the large side the loose budget. Either order is exact (the split's bound is the
    same sum); only the calls differ (``benchmarks/results/mpdt_first_side.md``)."""
    n_left, n_right = 0, 0
    for w in range(left.shape[0]):
        n_left += _popcount(left[w])
        n_right += _popcount(right[w])
    return left_side if n_left <= n_right else left_side + 1


@njit(cache=True)
def solve(rows, budget, columns, class_sets, packed, labels, slots, counters, order, pred_start,
          pred, succ_start, succ, trie):
    """Minimum leaves of a pure tree on ``rows`` if <= budget, else a bound > budget
    (ABORTED if the call limit or the table filled up). Mirrors ``_Search.solve``; the
    incompatibility bound is tried once per row set (``_raised_bound``). ``order``, ``pred*``
    and ``succ*`` are the containment diagram of the column sides (``trees.exact.nesting``):
    a side's bound is raised to the bound of every side it contains, at the start from the
    memo and then after each child solved, so a failed threshold prunes its neighbours."""
    # a budget of one leaf: 1 if pure, else the bound 2 (not budget 0: ``solve(rows, 0)``
    # is how callers read the memo's bound, which must not be replaced by the class count)
    if budget == 1 and counters[ONE_LEAF_BY_CLASSES]:
        return np.int64(_classes_in(class_sets, rows))
    answer, bound = _settle(rows, budget, columns, class_sets, packed, labels, slots, counters,
                            trie)
    if answer != OPEN:
        return answer
    lefts, rights, right_hashes, side_bounds, split_bounds, within, stack = _expand(
        rows, budget, columns, class_sets, packed, labels, slots, counters, order, pred_start,
        pred, succ_start, succ)
    best, best_split = budget + 1, NO_SPLIT
    for i in range(within.shape[0]):
        j = within[i]
        if split_bounds[j] >= best:
            break  # this and every later split: counted in the failed bound (``_close``)
        if side_bounds[2 * j] + side_bounds[2 * j + 1] >= best:
            continue  # a nested side failed meanwhile: counted there too
        # the side with fewer rows first (``_first_side``), the other's budget from its value
        f_side = _first_side(lefts[j], rights[j], 2 * j)
        first, second = (lefts[j], rights[j]) if f_side == 2 * j else (rights[j], lefts[j])
        s_side = 4 * j + 1 - f_side  # the other side of column j
        second_hash = right_hashes[j] if s_side & 1 else _hash(second, NO_SALT)
        second_bound = max(_known_bound(slots, class_sets, second, second_hash),
                           side_bounds[s_side])
        first_value = solve(first, best - 1 - second_bound, columns, class_sets, packed,
                            labels, slots, counters, order, pred_start, pred, succ_start, succ,
                            trie)
        if first_value == ABORTED:
            return ABORTED
        _raise_side(side_bounds, f_side, first_value, succ_start, succ, stack)
        if first_value > best - 1 - second_bound:
            split_bounds[j] = max(split_bounds[j], first_value + second_bound)
            continue
        # the first side's five lines again for the second. Measured (mpdt_bounds7_ab.md):
        # a plain helper calling ``solve`` aborts at its first call (mutual recursion:
        # "unresolved symbol"); an inline="always" one compiles as fast (6.7 CPU s cold) but
        # ran 2-4 % slower (haber:all to 56 leaves, tic-tac-toe to its proof), so inline
        second_value = solve(second, best - 1 - first_value, columns, class_sets, packed,
                             labels, slots, counters, order, pred_start, pred, succ_start,
                             succ, trie)
        if second_value == ABORTED:
            return ABORTED
        _raise_side(side_bounds, s_side, second_value, succ_start, succ, stack)
        if second_value > best - 1 - first_value:
            split_bounds[j] = max(split_bounds[j], first_value + second_value)
            continue
        best, best_split = first_value + second_value, j
    return _close(rows, budget, bound, best, best_split, split_bounds, side_bounds, slots,
                  counters, trie)


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
              counters, *nesting, new_trie(8))
    incompatibility_lower_bound(packed, labels, np.arange(3, dtype=np.int64), 2, 10)
    _warm["bound"] = True
    if search:
        warm_up_table()
        _warm["search"] = True
    return time.perf_counter() - start


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
