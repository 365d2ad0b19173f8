"""The depth-2 subproblems of the DT(max) dynamic programme (``kernels``), where no search
over root tests is needed.

* **Depth-2 solver** (``solve_shallow``, and ``pair_counts``). At depth <= 2 one pass over
  the node's rows counts, per class, the weight of the rows having both features f and g;
  inclusion-exclusion gives the four quadrants of every pair, so the best depth-2 tree under
  every root test follows in O(classes x f^2), without a search.
* **Difference counting** (``solve_depth3_child``). A depth-3 node counts its own rows
  once; for each root test it counts only the smaller child, and the other child's counts
  are the difference of the node's and the smaller child's. The child's answer goes to the
  memo like any subproblem's; a child that must be error-free is answered by witnesses and
  word operations instead (``kernels``' module docstring says why that is exact).

They sit apart from ``kernels.search`` because they are leaves of its recursion: they read
and write the memo but never call back into the search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.error_free_sides import error_free_on_words
from occamlearn.trees.dtmax.binary.memo import (
    ABORTED,
    BOUND,
    EXACT,
    LEFT,
    NO_TEST,
    RIGHT,
    ROOT,
    SUBPROBLEMS,
    WITNESSED,
    WORK,
    _key_of,
    _lookup,
    _out_of_work,
    _store,
)
from occamlearn.trees.dtmax.binary.pair_counts import (
    _count_pairs,
    _depth2,
    _leaf,
    _subtract,
    _useful_of_counts,
)
from occamlearn.trees.dtmax.binary.witnesses import bound as witness_bound
from occamlearn.trees.dtmax.binary.witnesses import fewest_error_free_tests
from occamlearn.trees.dtmax.binary.witnesses import learn as learn_witness

__all__ = ["solve_depth3_child", "solve_shallow"]


@njit(cache=True)
def solve_depth3_child(node, node_side, n, n_other, side, ub, data, ws, scale, decision, slots,
                       counters):
    """Child ``side`` (``n`` rows; its sibling has ``n_other``) of the depth-3 node at level
    ``node``: the best depth-2 tree, from counts of the smaller child or the difference of
    the node's counts and the smaller child's (``ws`` state: ``[side counted, node counted]``).
    """
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses, error_free) = ws
    level = node + 1
    items = lists[level, side]
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    if leaf_errors == stuck:
        return leaf_errors * scale
    floor = min(leaf_errors * scale, stuck * scale + decision)
    if floor >= ub:
        return floor
    key = keys[level]
    _key_of(items, n, key)
    two = np.int64(2)
    _, value, exact, _ = _lookup(slots, key, two, counters)
    if value >= 0 and (exact or value >= ub):
        return value
    counters[WORK] += n
    if _out_of_work(counters):
        return ABORTED
    witnessed = witness_bound(key, ub, witnesses, counters)
    if witnessed == 0 and ub <= scale and n <= 64:    # it must be error-free: (module doc)
        tests = fewest_error_free_tests(items, n, data, witnesses)
        if tests >= 0:
            _store(slots, counters, key, two, tests * decision, EXACT, witnesses[6][0])
            return tests * decision
        witnessed = scale
    elif witnessed == 0 and ub <= scale:              # the same, on the key's words
        return error_free_on_words(key, items, n, n, ub, data, witnesses, error_free, scale,
                                   decision, slots, counters)
    if witnessed:
        _store(slots, counters, key, two, witnessed, BOUND, NO_TEST)
        return witnessed
    counters[SUBPROBLEMS] += 1
    if n <= n_other if side == 0 else n < n_other:           # the smaller child: count it
        if state[0] != side:
            n_presents[1] = _count_pairs(items, n, label, weight, indptr, indices, pairs[1],
                                         seen, presents[1], bit_space)
            counters[WORK] += n
            state[0] = side
        which = 1
    else:                                        # the larger: node minus the smaller child
        if state[1] == 0:
            n_presents[0] = _count_pairs(lists[node, node_side], n + n_other, label, weight,
                                         indptr, indices, pairs[0], seen, presents[0],
                                         bit_space)
            counters[WORK] += n + n_other
            state[1] = 1
        other = 1 - side
        if state[0] != other:
            n_presents[1] = _count_pairs(lists[level, other], n_other, label, weight, indptr,
                                         indices, pairs[1], seen, presents[1], bit_space)
            counters[WORK] += n_other
            state[0] = other
        _subtract(pairs[0], presents[0], n_presents[0], pairs[1], presents[1], n_presents[1],
                  pairs[2], seen)
        which = 2
    source = 1 if which == 1 else 0
    n_useful = _useful_of_counts(pairs[which], totals, presents[source], n_presents[source],
                                 useful)
    counters[WORK] += n_useful * n_useful
    cost = _depth2(pairs[which], totals, useful, n_useful, two, scale, decision, out, quad)
    _store(slots, counters, key, two, cost, EXACT, out[0])
    if cost >= scale >= ub and witnesses[3][0] <= 2 * counters[WITNESSED] + 8:
        learn_witness(items, n, key, scale, data, witnesses, counters)   # (module doc)
    return cost


@njit(cache=True, nogil=True)
def solve_shallow(items, depth, data, ws, scale, decision, counters):
    """``best(items, depth)`` at depth <= 2 (no memo); its root test goes to
    ``counters[ROOT]``, the tests of its children to ``counters[LEFT]``, ``counters[RIGHT]``
    (-1: a leaf)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses, error_free) = ws
    n = items.shape[0]
    counters[ROOT], counters[LEFT], counters[RIGHT] = -1, -1, -1
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    if depth == 0 or leaf_errors == stuck:
        return leaf_errors * scale
    n_present = _count_pairs(items, n, label, weight, indptr, indices, pairs[3], seen,
                             presents[3], bit_space)
    n_useful = _useful_of_counts(pairs[3], totals, presents[3], n_present, useful)
    cost = _depth2(pairs[3], totals, useful, n_useful, depth, scale, decision, out, quad)
    counters[ROOT], counters[LEFT], counters[RIGHT] = out[0], out[1], out[2]
    return cost


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
