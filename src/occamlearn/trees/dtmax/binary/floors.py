"""Lower bounds ("floors") of the 0/1 DT(max) search (``kernels``) on the cost of a child
before it is searched, each proved below and at its kernel; a test whose two children's
floors plus its decision reach the node's budget is dropped without splitting or searching.

Costs are ``errors * scale + decisions * decision``. Two facts carry every proof:

* **Forced errors add up.** Identical rows with different labels are never separated, so a
  pattern's minority weight (its *forced errors*, on its first item) is an error of every
  tree, and since a pattern never splits, the forced errors of a row set are the sum of
  those of any partition of it.
* **A tree with t tests costs t decisions**, and one with at most two tests has depth at
  most 2, so the best depth-2 tree of the node bounds every such tree.

The floors:

* ``_child_floors``: a side is a leaf (its leaf errors) or has a test (its forced errors
  and one decision), from the node's single counts, without a pass over the rows.
* ``_depth1_floors`` (depth-3 node, its pair counts): a side's best depth-2 tree is a leaf,
  one test (its best single test), two tests (one half of its root a leaf: the least such
  half's leaf errors, and at least the forced errors) or three (the forced errors).
* ``_depth3_floor`` / ``_floor_from_counts``: a tree of depth <= 3 is a tree of depth <= 2
  (bounded by the best one) or has a root whose sides carry a, b tests; per shape 1 + a + b
  = 3 .. 7 the errors are at least those the shape forces on its sides (proof at the
  kernel). ``_depth3_children_floors`` applies it to the one child of a test of a
  depth-4 node before the zero child is searched (its budget is what that floor leaves),
  from counts of the smaller child and the node's minus those for the larger one, which the
  children's searches then reuse.
* ``_similarity_bound`` (MurTree, section 4.5): removing rows of weight W from a row set
  lowers the optimum by at most W errors, since the optimal tree of the smaller set errs at
  most W more on the larger. So the same child of the previous test, minus ``scale`` x the
  weight of the rows it had and this one lacks, bounds this child. At a depth-3 node that
  weight comes from the node's pair counts (``_similarity_of_counts``), before any split.

``tests/trees/dtmax/binary/test_binary_bounds.py`` checks the depth-3 floor against brute
force over every tree, and the similarity bound from counts against the one from rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.memo import WORK
from occamlearn.trees.dtmax.binary.pair_counts import (
    _count_pairs,
    _depth2,
    _leaf,
    _subtract,
    _useful_of_counts,
)

__all__: list[str] = []


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
def _similarity_of_counts(pairs, before, cost_before, f, side, scale):
    """``_similarity_bound`` of side ``side`` of test f at a node whose pair counts are
    ``pairs``, against the same side of test ``before`` (-1: none yet), whose cost (or
    bound) is ``cost_before``: the rows that side had and this one lacks are those with
    x_before = side and x_f = 1 - side, whose weight per class is the ones of f (side 0) or
    of ``before`` (side 1) less the rows with both; no pass over the rows, no split."""
    if before < 0:
        return 0
    low, high = min(before, f), max(before, f)
    lost = 0
    for k in range(pairs.shape[0]):
        lost += pairs[k, f, f] if side == 0 else pairs[k, before, before]
        lost -= pairs[k, low, high]
    return cost_before - lost * scale


@njit(cache=True)
def _remember(prev_lists, prev_n, prev_cost, level, side, items, n, cost, test):
    """Keep a searched child's cost (or floor) for the next test's similarity bound, and
    which rows it had: at a depth-3 node its ``test`` (``_similarity_of_counts``), else
    (``test`` -1) its rows (``_similarity_bound``)."""
    if test >= 0:
        prev_n[level, side] = test
    else:
        for i in range(n):
            prev_lists[level, side, i] = items[i]
        prev_n[level, side] = n
    prev_cost[level, side] = cost


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
def _tests_under(pairs, totals, f, features, n_features):
    """(least leaf errors of the one side of f under one test g, the same of the zero side,
    least leaf errors of one half of the one side over the tests g that split it, the same
    of the zero side; 1 << 62: none) over ``features[:n_features]`` (g = f gives the
    sides' own leaves), from the node's pair counts: per g the quadrants x_f, x_g = 11,
    10, 01, 00, their weights and leaf errors. (Each g written out in this loop, not a
    helper per g: a call with an array is a reference count.)"""
    big = np.int64(1) << 62
    best_one, best_zero, chain_one, chain_zero = big, big, big, big
    for u in range(n_features):
        g = features[u]
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
        e11, e10, e01, e00 = s11 - m11, s10 - m10, s01 - m01, s00 - m00
        best_one = min(best_one, e11 + e10)
        best_zero = min(best_zero, e01 + e00)
        if s11 > 0 and s10 > 0:                      # g splits the one side
            chain_one = min(chain_one, min(e11, e10))
        if s01 > 0 and s00 > 0:
            chain_zero = min(chain_zero, min(e01, e00))
    return best_one, best_zero, chain_one, chain_zero


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
    best_one, best_zero, chain_one, chain_zero = _tests_under(pairs, totals, f, features,
                                                              n_features)
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
        single1, single0, chain1, chain0 = _tests_under(pairs, totals, g, useful, n_useful)
        single1, single0 = min(single1, leaf1), min(single0, leaf0)
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
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses, error_free) = ws
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
def _depth3_children_floors(n_zero, n_one, low_zero, low_one, level, data, ws, scale,
                            decision, counters):
    """(``low_zero``, ``low_one`` raised to the ``_floor_from_counts`` of the one child): the
    two depth-3 children of a depth-4 node at ``level`` (its pair counts in ``pairs[3]``;
    the children in ``lists[level + 1]``) get their counts, the smaller one by a count, the
    larger one as the node's minus those; the zero child's stay in slot 4, the one child's
    in slot 5 (``pairs``, ``presents``, ``n_presents``), where its search takes them instead
    of counting its rows again. Only the one child's floor is worked out: the zero child is
    searched first, with the budget the one child's floor leaves, and the test is dropped
    once the zero child's cost and that floor reach the best so far (a floor of the zero
    child could only drop a test before its search: rarely worth a floor per test)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state, bit_space, witnesses, error_free) = ws
    below = level + 1
    small = 0 if n_zero <= n_one else 1
    n_small = n_zero if small == 0 else n_one
    at_small, at_large = 4 + small, 5 - small
    n_presents[at_small] = _count_pairs(lists[below, small], n_small, label, weight, indptr,
                                        indices, pairs[at_small], seen, presents[at_small],
                                        bit_space)
    counters[WORK] += n_small
    _subtract(pairs[3], presents[3], n_presents[3], pairs[at_small], presents[at_small],
              n_presents[at_small], pairs[at_large], seen)
    presents[at_large, :n_presents[3]] = presents[3, :n_presents[3]]
    n_presents[at_large] = n_presents[3]
    counters[WORK] += n_presents[3] * n_presents[3]
    low_one = max(low_one, _floor_from_counts(lists[below, 1], n_one, pairs[5], presents[5],
                                              n_presents[5], data, ws, singles[below], scale,
                                              decision, counters))
    return low_zero, low_one


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
