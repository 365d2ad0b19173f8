"""The nodes the minimum-tree search answers without splitting them (numba, cached).

``kernels.solve`` first asks ``settle`` whether a row set needs a split at all: an exact
value in the memo, a pure set (one leaf), a stored or computed lower bound above the budget
(class count, the subset trie, the incompatibility bound of ``node_bounds``), or, at budget
2, whether some column leaves both sides pure (``two_leaves``: most calls of a deepening end
there, a leaf's parent). Only a node none of these settles is split (``OPEN``). Each answer
is exact or a proven bound for the same reason the memo's entries are (``memo_table``); the
node's bound is stored before it is returned, so a later visit starts from it.

These are apart from ``kernels`` because they never recurse: ``kernels``' docstring says why
``solve`` is a short loop over helpers that are compiled once each.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.mpdt.bnb.memo_table import (
    BOUNDED,
    CALL_LIMIT,
    CALLS,
    EXACT,
    FLAG,
    FLAG_CALLS,
    NO_FLAGS,
    TRIE_MAX_ROWS,
    TRIE_MIN_BUDGET,
    TRIE_PAUSED_UNTIL,
    USED,
    VALUE_MASK,
)
from occamlearn.trees.mpdt.bnb.memo_table import slot as _slot
from occamlearn.trees.mpdt.bnb.memo_table import store as _store
from occamlearn.trees.mpdt.bnb.node_bounds import classes_in as _classes_in
from occamlearn.trees.mpdt.bnb.node_bounds import raised_bound as _raised_bound
from occamlearn.trees.mpdt.bnb.subset_trie import subset_bound as _subset_bound

__all__ = ["ABORTED", "NO_SPLIT", "ONE", "OPEN", "settle", "two_leaves"]

ABORTED = -1  # the search stopped (call limit, or a table that asks to grow): resume later
OPEN = -2  # ``settle``: the node must be split
ONE, NO_SPLIT = np.int64(1), np.int64(-1)


@njit(cache=True, no_cpython_wrapper=True)
def two_leaves(rows, columns, class_sets, slots, counters, at):
    """``solve`` with budget 2 on an impure row set, without touching the memo of its
    children: 2 (with the split) if a column leaves both sides non-empty and of one class,
    else the proven bound 3. Most calls of a deepening end here, a leaf's parent; the
    general path would hash and probe both sides of every column."""
    if class_sets.shape[0] == 2:  # both sides pure: the column is one class's indicator on S
        for j in range(columns.shape[0]):
            as_first, as_second = True, True
            for w in range(rows.shape[0]):
                ones = columns[j, w] & rows[w]
                first = class_sets[0, w] & rows[w]
                as_first &= ones == first
                as_second &= (ones ^ first) == rows[w]
                if not (as_first or as_second):
                    break
            if as_first or as_second:
                _store(slots, counters, at, rows, np.int64(2), np.int64(j), EXACT | BOUNDED)
                return 2
        _store(slots, counters, at, rows, np.int64(3), NO_SPLIT, BOUNDED)
        return 3
    for j in range(columns.shape[0]):
        pure = True
        for side in range(1, -1, -1):  # side 1: x_j = 1, side 0: x_j = 0
            classes = 0
            for k in range(class_sets.shape[0]):
                for w in range(rows.shape[0]):
                    part = rows[w] & (columns[j, w] if side else ~columns[j, w])
                    if class_sets[k, w] & part:
                        classes += 1
                        break
            if classes != 1:
                pure = False
                break
        if pure:
            _store(slots, counters, at, rows, np.int64(2), np.int64(j), EXACT | BOUNDED)
            return 2
    _store(slots, counters, at, rows, np.int64(3), NO_SPLIT, BOUNDED)
    return 3


@njit(cache=True, no_cpython_wrapper=True)
def settle(rows, budget, columns, class_sets, packed, labels, slots, counters, trie):
    """``solve``'s answer for ``rows`` when it needs no split, as (answer, bound): an exact
    stored value, ABORTED (call limit reached, or the table asks to grow), 1 for a pure set,
    a bound above the budget, the budget-2 answer of ``two_leaves``; else (OPEN, the node's
    bound within the budget: stored, class count or incompatibility bound, now stored)."""
    # opens as error_budget.one_error_kernels._settle_one does; not shared: one more compiled
    # level costs compile time (benchmarks/results/cold_typing.md, 2.: splitting _expand)
    words = rows.shape[0]
    at = _slot(slots, rows)
    meta = slots[at, words]
    if meta & EXACT:
        return np.int64(meta & VALUE_MASK), ONE
    counters[CALLS] += 1
    if counters[CALLS] >= counters[CALL_LIMIT]:
        counters[FLAG] = FLAG_CALLS
    if counters[FLAG]:
        return np.int64(ABORTED), ONE
    if meta & USED:
        bound = np.int64(meta & VALUE_MASK)
        bounded = (meta & BOUNDED) != 0
    else:
        bound = np.int64(_classes_in(class_sets, rows))
        if bound == 1:
            _store(slots, counters, at, rows, ONE, NO_SPLIT, EXACT | BOUNDED)
            return ONE, ONE
        bounded = False
    if bound <= budget and budget >= counters[TRIE_MIN_BUDGET] and counters[TRIE_MAX_ROWS] \
            and counters[CALLS] >= counters[TRIE_PAUSED_UNTIL]:
        bound = max(bound, _subset_bound(trie, counters, rows, budget))
    if not bounded and bound <= budget:
        bound = np.int64(_raised_bound(counters, class_sets, packed, labels, rows, bound))
        bounded = True
    _store(slots, counters, at, rows, bound, NO_SPLIT, BOUNDED if bounded else NO_FLAGS)
    if bound > budget:
        return bound, bound
    if budget == 2:  # here bound == 2: two leaves iff one column leaves both sides pure
        return np.int64(two_leaves(rows, columns, class_sets, slots, counters, at)), bound
    return np.int64(OPEN), bound


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
