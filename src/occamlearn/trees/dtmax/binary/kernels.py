"""Compiled kernels of the DT(max) dynamic programme: MurTree's search on binary columns.

The search is MurTree's (Demirović et al., JMLR 2022; the same core as STreeD, van der Linden,
de Weerdt and Demirović, NeurIPS 2023), for the cost ``errors * scale + decisions * decision``
(``solve``): ``best(S, d, ub)`` is the cost of the best tree of depth <= d on the
row set S if it is below ``ub``, else a proven lower bound >= ``ub``.

* **Depth-2 solver** (``pair_counts``). At depth <= 2 one pass over the node's rows
  counts, per class, the weight of the rows having both features f and g; inclusion-exclusion
  gives the four quadrants of every pair, so the best depth-2 tree under every root test
  follows in O(classes x f^2), without a search. Where rows carry many features the counts
  come from bitsets instead (popcounts of two features' row sets), whichever pass is
  cheaper (``pair_counts._count_pairs``).
* **Difference counting.** A depth-3 (and depth-4) node counts its own rows once; for each
  root test it counts only the smaller child, and the other child's counts are the
  difference.
* **Memo** (``memo``). An open-addressing hash table keyed by (row set as a bitset over
  the rows, depth): an exact cost and its root test, or a lower bound left by a failed search (its
  ``ub``: nothing below it exists), so a later call with a larger budget starts from there.
* **Bounds.** A child's budget is the best cost so far minus the other child's lower bound
  and the decision (branch and bound). Lower bounds: the errors forced by identical rows with
  different labels (no tree separates them), plus one decision unless a leaf already makes
  only those; and the memo's. A node whose leaf makes only the forced errors is a leaf, and a
  loop over tests stops once the best tree reaches the node's lower bound.
* **Depth-3 nodes.** A depth-3 node first counts its own pairs: its best depth-2 tree is
  its first incumbent, and ``min(that cost, forced errors + 3 decisions)`` a lower bound,
  since a tree with at most two tests has depth at most 2. The same counts bound each
  child's best depth-2 tree before that child is counted (``_depth1_floors``: a leaf, the
  best single test, two tests with one half of the root a leaf, or three tests), and the
  node's single counts bound both children of a test before its rows are split
  (``_child_floors``).
* **Depth-4 nodes** bound both depth-3 children of a test before searching either
  (``_depth3_children_floors``): the node counts its pairs once, each test's smaller child
  is counted and the larger one's counts are the difference, and from a child's counts
  ``_depth3_floor`` bounds its best depth-3 tree per shape (3 to 7 tests, the errors the
  shape forces on its sides). Under ``prefer_small`` this is what proves most of the
  fewest-tests question when the best trees are error-free: a test whose two children need
  more tests between them than the incumbent has is dropped after two counts instead of
  two searches.
* **Witnesses** (``witnesses``). When a depth-2 side that had to be error-free (its budget
  at most ``scale``) is not, a few of its rows that no depth-2 tree classifies without an
  error are kept; a later depth-2 side holding all of them costs at least ``scale``, read
  off its bitset key instead of counting its pairs. Learning stops while the witnesses
  learnt outnumber twice the sides they bounded, plus 8 (on small tables a count is
  cheaper than learning). A side of at most 64 rows that must be error-free is checked
  directly, by word operations on its rows as bits (``witnesses.error_free_at_depth2``).
* **Similarity bound** (MurTree, section 4.5). Removing rows of weight W from a row set
  lowers the optimum by at most W errors: the optimal tree of the smaller set misclassifies
  at most W more on the larger. So for the children of test f, the cost of the same child of
  the previous test f' minus ``scale`` x the weight of the rows it had and this one lacks is
  a lower bound (``_similarity_bound``).
* **Stopping.** numba cannot read a clock, so a call returns ``ABORTED`` after
  ``counters[WORK_LIMIT]`` units of work (rows touched, count cells evaluated), when the
  memo is 70 % full (``counters[FULL]``: the caller grows it), or once the caller's timer
  thread has set ``counters[TIME_UP]`` at the deadline: ``search`` releases the GIL
  (``nogil``) so that the timer runs while it does, and every subproblem reads the flag
  before its work, so a search stops within one subproblem of its deadline whatever the
  size of its slice. Otherwise the caller calls again; what the memo holds stays valid, so
  the search resumes where it stopped (walking down again to it through memo hits:
  ``counters[FIRST_STORE]`` tells the caller how much work that walk took, so that the next
  slice is larger than it).
  The best test of the top node so far is kept in ``counters[TOP_COST]``,
  ``counters[TOP_FEATURE]``, so a stopped search still returns its best tree.

Rows are *items*: distinct (row, label) groups with an integer weight; ``X`` (items x
features, 0/1) routes them and ``indptr``/``indices`` list each item's present features.
Rows of one pattern always travel together; its forced errors sit on its first item.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.trees.compiling.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.memo import (
    ABORT,
    FULL,
    LEFT,
    PRUNED,
    RIGHT,
    ROOT,
    SUBPROBLEMS,
    TIME_UP,
    TOP_COST,
    TOP_FEATURE,
    WITNESSED,
    WORK,
    WORK_LIMIT,
    _key_of,
    _lookup,
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
from occamlearn.trees.dtmax.binary.witnesses import error_free_at_depth2
from occamlearn.trees.dtmax.binary.witnesses import learn as learn_witness

__all__ = ["search", "solve_shallow", "warm_up"]

ABORTED = -1
# typed constants, not literals: each literal type at a call site compiles one more signature
EXACT, BOUND, NO_TEST = np.int64(1), np.int64(0), np.int64(-1)


@njit(cache=True)
def _promising_first(items, n, label, weight, forced, indptr, indices, totals, singles, order,
                     errors):
    """Features splitting ``items[:n]`` into ``order``, fewest depth-1 errors first (a good
    tree early prunes more); returns how many. ``singles[k, f]``: the weight of class k with
    x_f = 1; ``singles[classes, f]``: the forced errors there (``_child_floors``)."""
    singles[:] = 0
    n_classes = totals.shape[0]
    for i in range(n):
        item = items[i]
        k, w, stuck = label[item], weight[item], forced[item]
        for a in range(indptr[item], indptr[item + 1]):
            singles[k, indices[a]] += w
            singles[n_classes, indices[a]] += stuck
    total = 0
    for k in range(totals.shape[0]):
        total += totals[k]
    count = 0
    for f in range(singles.shape[1]):
        ones, one_largest, zero_largest = 0, 0, 0
        for k in range(n_classes):
            ones += singles[k, f]
            one_largest = max(one_largest, singles[k, f])
            zero_largest = max(zero_largest, totals[k] - singles[k, f])
        if 0 < ones < total:
            order[count] = f
            errors[count] = total - one_largest - zero_largest
            count += 1
    ranked = np.argsort(errors[:count], kind="mergesort")
    features = order[:count].copy()
    for u in range(count):
        order[u] = features[ranked[u]]
    return count


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


@njit(cache=True)
def _similarity_bound(before, n_before, cost_before, items, n, weight, scale):
    """Lower bound on the cost of ``items[:n]`` from a sibling row set's cost (lower bound)
    ``cost_before`` (both sorted): minus ``scale`` x the weight of the rows it lacks."""
    if n_before < 0:
        return 0
    lost, j = 0, 0
    for i in range(n_before):
        item = before[i]
        while j < n and items[j] < item:
            j += 1
        if j >= n or items[j] != item:
            lost += weight[item]
    return cost_before - lost * scale


@njit(cache=True)
def _child_floors(singles, totals, stuck, f, scale, decision):
    """Lower bounds on the cost of any tree on the rows with x_f = 0 and on those with x_f =
    1 (its leaf, or its forced errors and one decision; see the module doc), from the node's
    class ``totals``, forced errors ``stuck`` and ``singles`` (``_promising_first``),
    without a pass over the rows."""
    n_classes = totals.shape[0]
    one_total, one_largest, zero_total, zero_largest = 0, 0, 0, 0
    for k in range(n_classes):
        one, zero = singles[k, f], totals[k] - singles[k, f]
        one_total, zero_total = one_total + one, zero_total + zero
        one_largest, zero_largest = max(one_largest, one), max(zero_largest, zero)
    one_stuck = singles[n_classes, f]
    return (min((zero_total - zero_largest) * scale, (stuck - one_stuck) * scale + decision),
            min((one_total - one_largest) * scale, one_stuck * scale + decision))


@njit(cache=True)
def _out_of_work(counters):
    if counters[WORK] > counters[WORK_LIMIT] or counters[FULL] or counters[TIME_UP]:
        counters[ABORT] = 1
        return True
    return False


@njit(cache=True, inline="always")
def _quadrants(pairs, totals, f, g):
    """(weight, leaf errors) of the node's rows in each quadrant x_f, x_g = 11, 10, 01, 00:
    the four weights, then the four leaf errors, from the pair counts (``_depth1_floors``)."""
    low, high = min(f, g), max(f, g)
    s11, s10, s01, s00 = 0, 0, 0, 0
    m11, m10, m01, m00 = 0, 0, 0, 0
    for k in range(totals.shape[0]):
        both = pairs[k, low, high]
        q10 = pairs[k, f, f] - both              # x_f = 1, x_g = 0
        q01 = pairs[k, g, g] - both              # x_f = 0, x_g = 1
        q00 = totals[k] - pairs[k, f, f] - q01
        s11, s10, s01, s00 = s11 + both, s10 + q10, s01 + q01, s00 + q00
        m11, m10 = max(m11, both), max(m10, q10)
        m01, m00 = max(m01, q01), max(m00, q00)
    return s11, s10, s01, s00, s11 - m11, s10 - m10, s01 - m01, s00 - m00


@njit(cache=True)
def _depth1_floors(pairs, totals, stuck, one_stuck, f, features, n_features, scale, decision):
    """Lower bounds on the best depth-2 tree of the rows with x_f = 0 and of those with x_f
    = 1, from the node's pair counts (``pairs``; ``features[:n_features]`` its splitting
    features; ``pairs[k, f, g]`` are the class counts of x_g = 1 among the rows with x_f =
    1). A tree of depth <= 2 is a leaf, one test, two tests or three, so its cost is at least
    the least of:

    * its leaf;
    * its best single test (one decision);
    * two decisions and the errors of a two-test tree: its root g splits the side and one
      of g's halves is a leaf, so it errs at least that half's leaf errors (the least over
      g and the half), and at least the side's forced errors;
    * three decisions and the forced errors."""
    n_classes = totals.shape[0]
    big = np.int64(1) << 62
    best_zero, best_one, chain_zero, chain_one = big, big, big, big
    for u in range(n_features):
        g = features[u]
        s11, s10, s01, s00, e11, e10, e01, e00 = _quadrants(pairs, totals, f, g)
        best_one = min(best_one, e11 + e10)
        best_zero = min(best_zero, e01 + e00)
        if s11 > 0 and s10 > 0:                      # g splits the one side
            chain_one = min(chain_one, min(e11, e10))
        if s01 > 0 and s00 > 0:
            chain_zero = min(chain_zero, min(e01, e00))
    one_leaf, zero_leaf, one_largest, zero_largest = 0, 0, 0, 0
    for k in range(n_classes):
        one, zero = pairs[k, f, f], totals[k] - pairs[k, f, f]
        one_leaf, zero_leaf = one_leaf + one, zero_leaf + zero
        one_largest, zero_largest = max(one_largest, one), max(zero_largest, zero)
    one_leaf, zero_leaf = one_leaf - one_largest, zero_leaf - zero_largest
    zero_stuck = stuck - one_stuck
    return (min(zero_leaf * scale, best_zero * scale + decision,
                max(chain_zero, zero_stuck) * scale + 2 * decision,
                zero_stuck * scale + 3 * decision),
            min(one_leaf * scale, best_one * scale + decision,
                max(chain_one, one_stuck) * scale + 2 * decision,
                one_stuck * scale + 3 * decision))


@njit(cache=True)
def _depth3_floor(pairs, totals, useful, n_useful, one_stuck, stuck, shallow, scale,
                  decision):
    """A lower bound on the best tree of depth <= 3 of a node, from its pair counts
    (``pairs``, class ``totals``; ``useful[:n_useful]`` its splitting features,
    ``one_stuck[g]`` the forced errors of its rows with x_g = 1, ``stuck`` of all), given
    ``shallow``, the cost of its best tree of depth <= 2.

    A best tree of depth 3 has a root g that splits the node, and each side of g is a tree
    of depth <= 2 with a = 0, 1, 2 or 3 tests (fewer tests for the same errors are cheaper,
    so no test in it leaves a side empty); it has 1 + a + b tests. Its errors are at least,
    per shape (a side's errors are at least its forced errors, and forced errors add up over
    the sides, since a pattern never splits):

    * 3 tests (a, b = 0, 2): a leaf side: its leaf errors + the other side's forced;
    * 4 tests (0, 3 or 1, 2): a side of at most one test: its best single test's errors
      (a leaf's, if less) + the other side's forced;
    * 5 tests (1, 3 or 2, 2): that again, or two sides of two tests each; a side of two
      tests has a root h splitting it and one half of h a leaf, so it errs at least the
      least leaf errors of such a half (``chain``), and at least its forced errors;
    * 6 tests (2, 3): a side of two tests + the other side's forced;
    * 7 tests: the forced errors.

    Trees with 1 + a + b <= 2 tests, or a = b = 1, have depth <= 2: ``shallow`` bounds them.
    """
    n_classes = totals.shape[0]
    big = np.int64(1) << 62
    leaf_side, single_side, two_twos, two_forced = big, big, big, big
    for u in range(n_useful):
        g = useful[u]
        s1, m1, s0, m0 = 0, 0, 0, 0
        for k in range(n_classes):
            one = pairs[k, g, g]
            s1, m1 = s1 + one, max(m1, one)
            s0, m0 = s0 + totals[k] - one, max(m0, totals[k] - one)
        leaf1, leaf0 = s1 - m1, s0 - m0
        single1, single0, chain1, chain0 = leaf1, leaf0, big, big
        for v in range(n_useful):
            h = useful[v]
            if h == g:
                continue
            s11, s10, s01, s00, e11, e10, e01, e00 = _quadrants(pairs, totals, g, h)
            single1, single0 = min(single1, e11 + e10), min(single0, e01 + e00)
            if s11 > 0 and s10 > 0:
                chain1 = min(chain1, min(e11, e10))
            if s01 > 0 and s00 > 0:
                chain0 = min(chain0, min(e01, e00))
        forced1 = one_stuck[g]
        forced0 = stuck - forced1
        chain1, chain0 = max(chain1, forced1), max(chain0, forced0)
        leaf_side = min(leaf_side, leaf1 + forced0, leaf0 + forced1)
        single_side = min(single_side, single1 + forced0, single0 + forced1)
        two_twos = min(two_twos, chain1 + chain0)
        two_forced = min(two_forced, chain1 + forced0, chain0 + forced1)
    return min(shallow, leaf_side * scale + 3 * decision, single_side * scale + 4 * decision,
               two_twos * scale + 5 * decision, two_forced * scale + 6 * decision,
               stuck * scale + 7 * decision)


@njit(cache=True)
def _floor_from_counts(items, n, counts, present, n_present, data, ws, scratch, scale,
                       decision, counters):
    """A lower bound on the best tree of depth <= 3 of ``items[:n]`` from its pair
    ``counts`` (``present[:n_present]`` their features): ``_depth3_floor``; ``scratch``
    (classes + 1, features): its last row gets the forced errors per feature."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses) = ws
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    if leaf_errors == stuck:
        return leaf_errors * scale
    n_useful = _useful_of_counts(counts, totals, present, n_present, useful)
    counters[WORK] += 2 * n_useful * n_useful
    shallow = _depth2(counts, totals, useful, n_useful, np.int64(2), scale, decision, out,
                      quad)
    one_stuck = scratch[-1]
    one_stuck[:] = 0
    if stuck:
        for i in range(n):
            item = items[i]
            for a in range(indptr[item], indptr[item + 1]):
                one_stuck[indices[a]] += forced[item]
    return max(min(leaf_errors * scale, stuck * scale + decision),
               _depth3_floor(counts, totals, useful, n_useful, one_stuck, stuck, shallow,
                             scale, decision))


@njit(cache=True)
def _depth3_children_floors(n_zero, n_one, low_zero, low_one, upper, level, data, ws,
                            scale, decision, counters):
    """``low_zero``, ``low_one`` raised to the ``_floor_from_counts`` of the two depth-3
    children of a depth-4 node at ``level`` (its pair counts in ``pairs[3]``; the children
    in ``lists[level + 1]``): the smaller child is counted (``pairs[1]``, whose owner
    ``state[0]`` is reset), the larger one's counts are the node's minus those
    (``pairs[2]``), and only if the smaller one's floor leaves the test below ``upper``."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses) = ws
    below = level + 1
    small = 0 if n_zero <= n_one else 1
    n_small, n_large = (n_zero, n_one) if small == 0 else (n_one, n_zero)
    low_small, low_large = (low_zero, low_one) if small == 0 else (low_one, low_zero)
    state[0] = -1
    n_small_present = _count_pairs(lists[below, small], n_small, label, weight, indptr,
                                   indices, pairs[1], seen, presents[1], bit_space)
    counters[WORK] += n_small
    low_small = max(low_small, _floor_from_counts(
        lists[below, small], n_small, pairs[1], presents[1], n_small_present, data, ws,
        singles[below], scale, decision, counters))
    if low_small + low_large + decision < upper:
        _subtract(pairs[3], presents[3], n_presents[3], pairs[1], presents[1],
                  n_small_present, pairs[2], seen)
        counters[WORK] += n_presents[3] * n_presents[3]
        low_large = max(low_large, _floor_from_counts(
            lists[below, 1 - small], n_large, pairs[2], presents[3], n_presents[3], data, ws,
            singles[below], scale, decision, counters))
    return (low_small, low_large) if small == 0 else (low_large, low_small)


@njit(cache=True)
def _solve2(node, node_side, n, n_other, side, ub, data, ws, scale, decision, slots, counters):
    """Child ``side`` (``n`` rows; its sibling has ``n_other``) of the depth-3 node at level
    ``node``: the best depth-2 tree, from counts of the smaller child or the difference of
    the node's counts and the smaller child's (``ws`` state: ``[side counted, node counted]``).
    """
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses) = ws
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
    if witnessed == 0 and ub <= scale and n <= 64 and not error_free_at_depth2(
            items, n, data, witnesses):
        witnessed = scale                   # it must be error-free and cannot be
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


@njit(cache=True)
def _remember(prev_lists, prev_n, prev_cost, level, side, items, n, cost):
    for i in range(n):
        prev_lists[level, side, i] = items[i]
    prev_n[level, side] = n
    prev_cost[level, side] = cost


@njit(cache=True, nogil=True)
def search(level, side, n, depth, ub, data, ws, scale, decision, slots, counters):
    """``best(rows, depth, ub)`` (depth >= 3) of the rows ``lists[level, side, :n]``: the
    cost if below ``ub`` (then the memo holds it with its root test), else a lower bound
    >= ``ub``; ``ABORTED`` when out of work (nothing partial is stored)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses) = ws
    items = lists[level, side]
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
    if depth == 3:          # the node's own counts: its best depth-2 tree and a floor
        n_presents[0] = _count_pairs(items, n, label, weight, indptr, indices, pairs[0], seen,
                                     presents[0], bit_space)
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
    below = level + 1
    prev_n[below, 0] = -1
    prev_n[below, 1] = -1
    zeros, ones = lists[below, 0], lists[below, 1]
    for u in range(n_order):
        if best <= floor:
            break
        f = order[level, u]
        low_zero, low_one = _child_floors(singles[level], node_totals, stuck, f, scale,
                                          decision)
        if depth == 3 and low_zero + low_one + decision < upper:
            low_zero, low_one = _depth1_floors(pairs[0], node_totals, stuck,
                                               singles[level, -1, f], f, node_features,
                                               node_features.shape[0], scale, decision)
        if low_zero + low_one + decision >= upper:
            counters[PRUNED] += 1
            continue
        n_zero, n_one = _split(items, n, X, f, zeros, ones)
        counters[WORK] += n
        low_zero = max(low_zero, _similarity_bound(prev_lists[below, 0], prev_n[below, 0],
                                                   prev_cost[below, 0], zeros, n_zero, weight,
                                                   scale))
        low_one = max(low_one, _similarity_bound(prev_lists[below, 1], prev_n[below, 1],
                                                 prev_cost[below, 1], ones, n_one, weight,
                                                 scale))
        if low_zero + low_one + decision >= upper:
            counters[PRUNED] += 1
            continue
        if depth == 4:        # both depth-3 children's floors, before either is searched
            low_zero, low_one = _depth3_children_floors(n_zero, n_one, low_zero, low_one,
                                                        upper, level, data, ws, scale,
                                                        decision, counters)
            if low_zero + low_one + decision >= upper:
                counters[PRUNED] += 1
                continue
        zero_cost, one_cost, pruned = 0, 0, False
        for child in range(2):              # the zero side, then the one side
            if child == 0:
                n_child, n_other, low = n_zero, n_one, low_zero
                budget = upper - low_one - decision
                state[0] = -1               # (``_solve2``: no side counted yet)
            else:
                n_child, n_other, low = n_one, n_zero, low_one
                budget = upper - zero_cost - decision
            if depth == 3:
                cost = _solve2(level, side, n_child, n_other, child, budget, data, ws, scale,
                               decision, slots, counters)
            else:
                cost = search(below, child, n_child, depth - 1, budget, data, ws, scale,
                              decision, slots, counters)
            if cost == ABORTED:
                return ABORTED
            _remember(prev_lists, prev_n, prev_cost, below, child, lists[below, child],
                      n_child, max(cost, low))
            if child == 1:
                one_cost = cost
            elif cost + low_one + decision >= upper:
                pruned = True
                break
            else:
                zero_cost = cost
        if pruned:
            counters[PRUNED] += 1
            continue
        if zero_cost + one_cost + decision < upper:
            best = upper = zero_cost + one_cost + decision
            best_test = f
            if level == 0 and best < counters[TOP_COST]:   # the best of every slice
                counters[TOP_COST] = best
                counters[TOP_FEATURE] = f
    if best_test >= 0 or leaf_cost < ub:
        _store(slots, counters, key, depth, best, EXACT, best_test)
        if level == 0:
            counters[ROOT] = best_test
        return best
    _store(slots, counters, key, depth, ub, BOUND, NO_TEST)
    return ub


@njit(cache=True, nogil=True)
def solve_shallow(items, depth, data, ws, scale, decision, counters):
    """``best(items, depth)`` at depth <= 2 (no memo); its root test goes to
    ``counters[ROOT]``, the tests of its children to ``counters[LEFT]``, ``counters[RIGHT]``
    (-1: a leaf)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses) = ws
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
