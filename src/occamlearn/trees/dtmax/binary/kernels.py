"""Compiled kernels of the DT(max) dynamic programme: MurTree's search on binary columns.

The search is MurTree's (Demirović et al., JMLR 2022; the same core as STreeD, van der Linden,
de Weerdt and Demirović, NeurIPS 2023), for the cost ``errors * scale + decisions * decision``
(``solve``): ``best(S, d, ub)`` is the cost of the best tree of depth <= d on the
row set S if it is below ``ub``, else a proven lower bound >= ``ub``.

* **Depth-2 solver** (``pair_counts``; ``depth_two``). At depth <= 2 one pass over the
  node's rows counts, per class, the weight of the rows having both features f and g;
  inclusion-exclusion gives the four quadrants of every pair, so the best depth-2 tree
  under every root test follows in O(classes x f^2), without a search. Where rows carry
  many features the counts come from bitsets instead (popcounts of two features' row
  sets), whichever pass is cheaper (``pair_counts._count_pairs``).
* **Difference counting** (``depth_two.solve_depth3_child``, a depth-3 node's children).
  A depth-3 (and depth-4) node counts its own rows once; for each root test it counts only
  the smaller child, and the other child's counts are the difference.
* **Memo** (``memo``). An open-addressing hash table keyed by (row set as a bitset over
  the rows, depth): an exact cost and its root test, or a lower bound left by a failed search (its
  ``ub``: nothing below it exists), so a later call with a larger budget starts from there.
* **Bounds.** A child's budget is the best cost so far minus the other child's lower bound
  and the decision (branch and bound). A node whose leaf makes only its forced errors (those
  of identical rows with different labels) is a leaf, and a loop over tests stops once the
  best tree reaches the node's lower bound. Before a test's children are searched, their
  floors (``floors``: proofs there) may drop it: from the node's single counts
  (``_child_floors``), the similarity bound against the previous test's children
  (``_similarity_bound``), at a depth-3 node from its pair counts (``_depth1_floors``; its
  best depth-2 tree is its first incumbent), and at a depth-4 node the one child's from
  its pair counts (``_depth3_children_floors``). The memo's bounds count too.
* **Witnesses** (``witnesses``: rows no depth-2 tree classifies without an error). A
  depth-2 side that had to be error-free and is not leaves one (learning stops while those
  learnt outnumber twice the sides they bounded, plus 8); a later side holding one costs at
  least ``scale``, read off its bitset key. A side that must be error-free (budget <=
  ``scale``) is solved by word operations, no count: its best tree errs on none at t <= 3
  < ``scale`` tests, so no tree with an error is cheaper, or none does and every tree costs
  ``scale`` or more. At most 64 rows: on its own rows as bits
  (``witnesses.fewest_error_free_tests``); more: on the memo key's words against
  per-search bitsets of the features (``error_free``), stopping once more tests than the
  budget allows are needed (a bound >= the budget, stored as such). A depth-3 node whose
  budget is at most ``scale`` has such sides only: of at most 64 rows, it is searched on
  its rows as one word (and without counts when no depth-2 tree is error-free on it, so
  that its depth-2 best is no incumbent); of more, each side comes from the words of its
  key (``error_free_sides``), not from a split of its rows.
* **Stopping.** numba cannot read a clock, so a call returns ``ABORTED`` after
  ``counters[WORK_LIMIT]`` units of work (rows touched, count cells evaluated), when the
  memo is 70 % full (``counters[FULL]``: the caller grows it), or once the caller's timer
  thread has set ``counters[TIME_UP]`` (``search`` runs ``nogil``; every subproblem reads the
  flag first). The memo stays valid, so the next call resumes through memo hits
  (``counters[FIRST_STORE]``: the work of that walk); the top node's best test so far is in
  ``counters[TOP_COST]``, ``counters[TOP_FEATURE]``, so a stopped search returns its tree.

Rows are *items*: distinct (row, label) groups with an integer weight; ``X`` (items x
features, 0/1) routes them and ``indptr``/``indices`` list each item's present features.
Rows of one pattern always travel together; its forced errors sit on its first item.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.depth_two import solve_depth3_child
from occamlearn.trees.dtmax.binary.error_free_sides import error_free_side
from occamlearn.trees.dtmax.binary.floors import (
    _child_floors,
    _depth1_floors,
    _depth3_children_floors,
    _remember,
    _similarity_bound,
    _similarity_of_counts,
)
from occamlearn.trees.dtmax.binary.memo import (
    ABORTED,
    BOUND,
    EXACT,
    NO_TEST,
    PRUNED,
    ROOT,
    SUBPROBLEMS,
    TOP_COST,
    TOP_FEATURE,
    WORK,
    _key_of,
    _lookup,
    _out_of_work,
    _store,
)
from occamlearn.trees.dtmax.binary.pair_counts import (
    _copy_counts,
    _count_pairs,
    _depth2,
    _leaf,
    _promising_first,
    _useful_of_counts,
)
from occamlearn.trees.dtmax.binary.witnesses import (
    error_free_side_cost,
    rows_as_bits,
)

__all__ = ["search", "warm_up"]

INFINITE_COST = np.int64(1) << np.int64(62)   # above every cost (as ``search.INFINITE``)


@njit(cache=True)
def _split(items, n, X, f, zeros, ones):
    """``items[:n]`` with x_f = 0 into ``zeros``, with x_f = 1 into ``ones``; their sizes."""
    n_zero, n_one = 0, 0
    for i in range(n):
        item = items[i]
        if X[item, f]:
            ones[n_one] = item
            n_one += 1
        else:
            zeros[n_zero] = item
            n_zero += 1
    return n_zero, n_one


@njit(cache=True, nogil=True)
def search(level, side, n, depth, ub, data, ws, scale, decision, slots, counters):
    """``best(rows, depth, ub)`` (depth >= 3) of the rows ``lists[level, side, :n]``: the
    cost if below ``ub`` (then the memo holds it with its root test), else a lower bound
    >= ``ub``; ``ABORTED`` when out of work (nothing partial is stored)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses, error_free) = ws
    items = lists[level, side]
    counted = state[2]              # the slot holding these rows' counts (-1: none)
    state[2] = -1
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    leaf_cost = leaf_errors * scale
    if level == 0:
        counters[ROOT] = -1
    if leaf_errors == stuck:
        return leaf_cost
    floor = min(leaf_cost, stuck * scale + decision)
    if floor >= ub:
        return floor
    key = keys[level]
    _key_of(items, n, key)
    _, value, exact, test = _lookup(slots, key, depth, counters)
    if value >= 0:
        if exact:
            if level == 0:
                counters[ROOT] = test
            return value
        if value >= ub:
            return value
        floor = max(floor, value)
    counters[WORK] += n
    if _out_of_work(counters):
        return ABORTED
    counters[SUBPROBLEMS] += 1
    n_order = _promising_first(items, n, label, weight, forced, indptr, indices, totals,
                               singles[level], order[level], errors)
    node_totals = totals.copy()             # (``totals`` is the children's scratch)
    best, best_test = leaf_cost, -1
    node_features = useful[:0].copy()
    # a depth-3 node of <= 64 rows whose every tree must be error-free: its rows are the
    # bits of one word, and so each side of a test, solved by word operations; if no tree of
    # depth <= 2 is error-free on it, neither are counts needed (module doc)
    as_bits = depth == 3 and ub <= scale and n <= 64
    # more rows: each side from the words of the node's key (``error_free_sides``)
    as_words = depth == 3 and ub <= scale and n > 64
    node_bits = rows_as_bits(items, n, data, witnesses) if as_bits else np.uint64(0)
    bit_ones, bit_classes, bit_out, row_tests = (witnesses[4], witnesses[5], witnesses[6],
                                                 witnesses[7])
    if as_bits:
        counters[WORK] += n
        as_bits = error_free_side_cost(node_bits, bit_ones, bit_classes, bit_out, row_tests,
                                       scale, decision) >= scale
        if as_bits:                   # every error-free tree has 3 tests or more
            floor = max(floor, min(scale, 3 * decision))
    if depth == 3 and not as_bits:  # the node's own counts: its best depth-2 tree, a floor
        if counted >= 0 and n_presents[counted] >= 0:   # (``_depth3_children_floors``)
            _copy_counts(pairs[counted], presents[counted], n_presents[counted], pairs[0],
                         presents[0])
            n_presents[0] = n_presents[counted]
        else:
            n_presents[0] = _count_pairs(items, n, label, weight, indptr, indices, pairs[0],
                                         seen, presents[0], bit_space)
            counters[WORK] += n
        state[1] = 1
        n_useful = _useful_of_counts(pairs[0], totals, presents[0], n_presents[0], useful)
        counters[WORK] += n_useful * n_useful
        shallow = _depth2(pairs[0], totals, useful, n_useful, np.int64(2), scale, decision,
                          out, quad)
        if shallow < best:
            best, best_test = shallow, out[0]
        floor = max(floor, min(shallow, stuck * scale + 3 * decision))
        node_features = useful[:n_useful].copy()   # (``useful`` is the children's scratch)
    elif depth == 4:        # the node's own counts, for its children's floors
        n_presents[3] = _count_pairs(items, n, label, weight, indptr, indices, pairs[3], seen,
                                     presents[3], bit_space)
        counters[WORK] += n
    upper = min(ub, best)
    # the least bound over every root test tried, for a depth-3 node whose depth-2 tree is
    # at or above ``ub`` (below: the store)
    failed = INFINITE_COST
    below = level + 1
    prev_n[below, 0] = -1
    prev_n[below, 1] = -1
    zeros, ones = lists[below, 0], lists[below, 1]
    # (views taken once, not per test: each view of an array is a reference count)
    node_singles, node_pairs, node_order = singles[level], pairs[0], order[level]
    prev_zeros, prev_ones = prev_lists[below, 0], prev_lists[below, 1]
    for u in range(n_order):
        if best <= floor:
            break
        f = node_order[u]
        low_zero, low_one = _child_floors(node_singles, node_totals, stuck, f, scale,
                                          decision)
        if depth == 3 and not as_bits and low_zero + low_one + decision < upper:
            low_zero, low_one = _depth1_floors(node_pairs, node_totals, stuck,
                                               node_singles[-1, f], f, node_features,
                                               node_features.shape[0], scale, decision)
            low_zero = max(low_zero, _similarity_of_counts(node_pairs, prev_n[below, 0],
                                                           prev_cost[below, 0], f, 0, scale))
            low_one = max(low_one, _similarity_of_counts(node_pairs, prev_n[below, 1],
                                                         prev_cost[below, 1], f, 1, scale))
        if low_zero + low_one + decision >= upper:
            counters[PRUNED] += 1
            failed = min(failed, low_zero + low_one + decision)
            continue
        counters[WORK] += n
        if as_bits or as_words:
            if _out_of_work(counters):
                return ABORTED
            n_zero, n_one = 0, 0
        else:
            n_zero, n_one = _split(items, n, X, f, zeros, ones)
        if depth > 3:
            low_zero = max(low_zero, _similarity_bound(prev_zeros, prev_n[below, 0],
                                                       prev_cost[below, 0], zeros, n_zero,
                                                       weight, scale))
            low_one = max(low_one, _similarity_bound(prev_ones, prev_n[below, 1],
                                                     prev_cost[below, 1], ones, n_one, weight,
                                                     scale))
            if low_zero + low_one + decision >= upper:
                counters[PRUNED] += 1
                failed = min(failed, low_zero + low_one + decision)
                continue
        if depth == 4:        # the children's counts, the one child's floor: before a search
            low_zero, low_one = _depth3_children_floors(n_zero, n_one, low_zero, low_one,
                                                        level, data, ws, scale, decision,
                                                        counters)
            if low_zero + low_one + decision >= upper:
                counters[PRUNED] += 1
                failed = min(failed, low_zero + low_one + decision)
                continue
        zero_cost, one_cost, pruned = 0, 0, False
        for child in range(2):              # the zero side, then the one side
            if child == 0:
                n_child, n_other, low = n_zero, n_one, low_zero
                budget = upper - low_one - decision
                state[0] = -1               # (``solve_depth3_child``: no side counted yet)
            else:
                n_child, n_other, low = n_one, n_zero, low_one
                budget = upper - zero_cost - decision
            if as_bits:
                one_bits = node_bits & bit_ones[f]
                cost = error_free_side_cost(one_bits if child else node_bits & ~one_bits,
                                            bit_ones, bit_classes, bit_out, row_tests, scale,
                                            decision)
            elif as_words:
                cost = error_free_side(key, f, child, keys[below], lists[below, child], budget,
                                       data, witnesses, error_free, scale, decision, slots,
                                       counters)
            elif depth == 3:
                cost = solve_depth3_child(level, side, n_child, n_other, child, budget, data,
                                          ws, scale, decision, slots, counters)
            else:
                state[2] = 4 + child if depth == 4 else -1
                cost = search(below, child, n_child, depth - 1, budget, data, ws, scale,
                              decision, slots, counters)
            if cost == ABORTED:
                return ABORTED
            _remember(prev_lists, prev_n, prev_cost, below, child, ones if child else zeros,
                      n_child, max(cost, low), f if depth == 3 else -1)
            if child == 1:
                one_cost = cost
            elif cost + low_one + decision >= upper:
                failed = min(failed, cost + low_one + decision)
                pruned = True
                break
            else:
                zero_cost = cost
        if pruned:
            counters[PRUNED] += 1
            continue
        failed = min(failed, zero_cost + one_cost + decision)
        if zero_cost + one_cost + decision < upper:
            best = upper = zero_cost + one_cost + decision
            best_test = f
            if level == 0 and best < counters[TOP_COST]:   # the best of every slice
                counters[TOP_COST] = best
                counters[TOP_FEATURE] = f
    # Exact: a tree below ``ub``, or one at the node's floor. A depth-3 node's depth-2 tree
    # at or above ``ub`` is not proven best (trees from ``ub`` up to it were pruned): its
    # cost and each tried root test's bound (pruned: its sides' floors or costs, each a
    # lower bound; searched: its sides' costs) bound the node, the least of them from below
    # (the best tree is a depth-2 tree or has one of those roots; a test that splits no row
    # is no better than the depth-2 tree of its one side).
    if best < ub or best <= floor:
        _store(slots, counters, key, depth, best, EXACT, best_test)
        if level == 0:
            counters[ROOT] = best_test
        return best
    if best_test >= 0:
        low = max(ub, min(best, failed))
        if low >= best:
            _store(slots, counters, key, depth, best, EXACT, best_test)
            if level == 0:
                counters[ROOT] = best_test
            return best
        _store(slots, counters, key, depth, low, BOUND, NO_TEST)
        return low
    _store(slots, counters, key, depth, ub, BOUND, NO_TEST)
    return ub


def warm_up() -> None:
    """Compile (or load from numba's disk cache) every kernel: a tiny search of each depth,
    with and without the decision cost."""
    from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(24, 5)).astype(np.uint8)
    C = np.zeros((24, 2), dtype=np.int64)
    C[np.arange(24), rng.integers(0, 2, size=24)] = 1
    C[0] += 1
    for depth in (1, 2, 3, 4):
        for decision in (0, 1):
            CompiledDepthSearch(X, C, 8, decision, None, depth).solve_top(depth)
    # (memo's kernel: compiled here too; not a public name of this module, whose public
    # kernels are what trees.compiling.kernel_cache checks on disk)
    from occamlearn.trees.dtmax.binary.memo import grow_memo, new_memo

    grow_memo(new_memo(24, 4), new_memo(24, 16))


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
