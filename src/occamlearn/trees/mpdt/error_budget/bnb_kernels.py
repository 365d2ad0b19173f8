"""Compiled lower bound of the error-budget branch and bound (numba, cached on disk).

``incompatibility_bound`` is the leaf-incompatibility bound of the pure search, made valid
under an error budget b (the proof is in ``error_budget_bnb``'s docstring): items are
(pattern, class) groups of the row set, weighted by their row counts; two items of one class
are *b-incompatible* when the rows of other classes inside the smallest subcube containing
both patterns weigh more than b. A greedy set Q of items, pairwise b-incompatible within each
class, gives ``|Q| - t`` leaves, t being the most items of Q whose weights fit in b together.
The test is O(m^2 * |Q| * words) for m patterns: cheap compiled, far too slow in Python.

``small_tree_errors`` is the error-budget search's exact answer for trees of at most three
leaves on a row set (``small_trees``): the fewest weighted errors with one, two and three
leaves, by pair counts over the patterns, as MurTree's specialised depth-two solver
(Demirović et al.) counts them.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources

# private name: kernel_cache treats public dispatchers as entry points, this one is inlined
from occamlearn.trees.exact.packed import in_subcube as _in_subcube
from occamlearn.trees.exact.packed import pack_rows

__all__ = ["incompatibility_bound", "pack_rows", "small_tree_errors", "warm_up"]


@njit(cache=True)
def _witness_weight_above(packed, weights, totals, patterns, a, c, k, budget):
    """True if the rows of classes other than k lying in the smallest subcube that contains
    patterns a and c (restricted to ``patterns``) weigh more than ``budget``."""
    total = 0
    for q in patterns:
        other = totals[q] - weights[q, k]
        if other != 0 and _in_subcube(packed, q, a, c):
            total += other
            if total > budget:
                return True
    return False


@njit(cache=True)
def _stable_order(keys):
    """Indices sorting ``keys`` increasingly, ties by index (a bottom-up merge sort: numpy's
    sort and argsort cost seconds of compile on first use, this a fraction of one)."""
    n = keys.shape[0]
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for low in range(0, n, 2 * width):
            middle, high = min(low + width, n), min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):
                if i < middle and (j >= high or keys[order[i]] <= keys[order[j]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order


@njit(cache=True)
def incompatibility_bound(packed, weights, totals, patterns, budget, max_work):
    """(leaves needed by any tree on ``patterns`` with at most ``budget`` errors (see the
    module docstring), work done). ``weights[p, k]``: rows of pattern p with class k;
    ``totals[p]``: rows of pattern p. ``work`` counts the patterns the witness tests may
    scan; once it passes ``max_work`` no more items are picked, and the bound of the items
    picked so far is returned (any subset of a pairwise b-incompatible set is one)."""
    n_classes = weights.shape[1]
    chosen = np.empty(patterns.shape[0], dtype=np.int64)
    picked = np.empty(patterns.shape[0] * n_classes, dtype=np.int64)
    n_picked = 0
    work = 0
    for k in range(n_classes):
        if work > max_work:
            break
        # heavy items first: they are the costliest to give up as errors
        keys = np.empty(patterns.shape[0], dtype=np.int64)
        for i in range(patterns.shape[0]):
            keys[i] = -weights[patterns[i], k]
        order = _stable_order(keys)
        n_chosen = 0
        for i in order:
            a = patterns[i]
            if weights[a, k] == 0 or work > max_work:
                break
            work += n_chosen * patterns.shape[0]
            fits = True
            for r in range(n_chosen):
                if not _witness_weight_above(packed, weights, totals, patterns, a, chosen[r],
                                             k, budget):
                    fits = False
                    break
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
                picked[n_picked] = weights[a, k]
                n_picked += 1
    ordered = picked[:n_picked][_stable_order(picked[:n_picked])]
    spent, given_up = 0, 0
    for i in range(n_picked):
        if spent + ordered[i] > budget:
            break
        spent += ordered[i]
        given_up += 1
    return max(1, n_picked - given_up), work


@njit(cache=True)
def _leaf_errors(counts):
    """Errors of one leaf holding ``counts`` (weight per class): all but its heaviest class."""
    total, top = 0, 0
    for k in range(counts.shape[0]):
        total += counts[k]
        if counts[k] > top:
            top = counts[k]
    return total - top


@njit(cache=True)
def _best_splits(total, ones, both, active, e1):
    """(e2, its column, e3, its root column, side of its split child, that child's column,
    that child's errors) over the columns ``active`` from the class counts of
    ``small_tree_errors`` (``ones[i]``, ``both[i, j]`` indexed by position in ``active``,
    i < j)."""
    n_classes = total.shape[0]
    e2, f2, e3, f3, side3, g3, child3 = e1, -1, e1, -1, 0, -1, 0
    one = np.empty(n_classes, dtype=np.int64)
    zero = np.empty(n_classes, dtype=np.int64)
    cell = np.empty(n_classes, dtype=np.int64)
    rest = np.empty(n_classes, dtype=np.int64)
    for i in range(active.shape[0]):
        for k in range(n_classes):
            one[k] = ones[i, k]
            zero[k] = total[k] - ones[i, k]
        one_err, zero_err = _leaf_errors(one), _leaf_errors(zero)
        if one_err + zero_err < e2:
            e2, f2 = one_err + zero_err, active[i]
        best_one, best_zero = one_err, zero_err  # each side's best with two leaves
        one_at, zero_at = -1, -1
        for j in range(active.shape[0]):
            if j == i:
                continue
            low, high = (i, j) if i < j else (j, i)
            for k in range(n_classes):  # the one side of i split on j
                cell[k] = both[low, high, k]
                rest[k] = one[k] - cell[k]
            value = _leaf_errors(cell) + _leaf_errors(rest)
            if value < best_one:
                best_one, one_at = value, active[j]
            for k in range(n_classes):  # the zero side of i split on j
                cell[k] = ones[j, k] - both[low, high, k]
                rest[k] = zero[k] - cell[k]
            value = _leaf_errors(cell) + _leaf_errors(rest)
            if value < best_zero:
                best_zero, zero_at = value, active[j]
        if zero_err + best_one < e3:
            e3, f3, side3, g3, child3 = zero_err + best_one, active[i], 1, one_at, best_one
        if one_err + best_zero < e3:
            e3, f3, side3, g3, child3 = one_err + best_zero, active[i], 0, zero_at, best_zero
    return e2, f2, e3, f3, side3, g3, child3


# Not shared with ``_best_splits``: this copy takes 0.08-0.17 of its CPU time per call on
# two-class row sets of 10-45 columns (benchmarks/results/small_tree_splits.md).
@njit(cache=True)
def _best_splits_two_classes(total, ones, both, active, e1):
    """``_best_splits`` with two classes, where a leaf errs by its lighter class."""
    e2, f2, e3, f3, side3, g3, child3 = e1, -1, e1, -1, 0, -1, 0
    for i in range(active.shape[0]):
        one0, one1 = ones[i, 0], ones[i, 1]
        zero0, zero1 = total[0] - one0, total[1] - one1
        one_err, zero_err = min(one0, one1), min(zero0, zero1)
        if one_err + zero_err < e2:
            e2, f2 = one_err + zero_err, active[i]
        best_one, best_zero = one_err, zero_err
        one_at, zero_at = -1, -1
        for j in range(active.shape[0]):
            if j == i:
                continue
            low, high = (i, j) if i < j else (j, i)
            a0, a1 = both[low, high, 0], both[low, high, 1]
            value = min(a0, a1) + min(one0 - a0, one1 - a1)
            if value < best_one:
                best_one, one_at = value, active[j]
            c0, c1 = ones[j, 0] - a0, ones[j, 1] - a1
            value = min(c0, c1) + min(zero0 - c0, zero1 - c1)
            if value < best_zero:
                best_zero, zero_at = value, active[j]
        if zero_err + best_one < e3:
            e3, f3, side3, g3, child3 = zero_err + best_one, active[i], 1, one_at, best_one
        if one_err + best_zero < e3:
            e3, f3, side3, g3, child3 = one_err + best_zero, active[i], 0, zero_at, best_zero
    return e2, f2, e3, f3, side3, g3, child3


@njit(cache=True)
def small_tree_errors(bits, bit_pattern, bit_class, bit_units, ones_start, ones_index,
                      n_patterns, n_features, n_classes, max_work):
    """The fewest weighted errors of a tree with at most 1, 2 and 3 leaves on the rows
    ``bits`` (indices of a row set's bits; bit i is a row group of pattern ``bit_pattern[i]``,
    class ``bit_class[i]``, weight ``bit_units[i]``), splitting on columns 0 .. n_features - 1
    (pattern p has a 1 in the columns ``ones_index[ones_start[p]:ones_start[p + 1]]``,
    increasing). Returns ``[e1, e2, column of the 2-leaf tree, e3, column of the 3-leaf
    tree's root, side of its split child (0: zero side, 1: one side), work]``, with e2 <= e1
    and e3 <= e2 (a column -1 when the smaller tree is as good). Every tree with at most three
    leaves is a leaf, one split, or a split with one leaf child and one split child, so the
    minima over all columns that split the rows are exact.

    ``work`` counts the steps of the pair counts and of the split loop (``small_trees``
    turns seconds into steps); when it would pass ``max_work`` the kernel stops before them
    and returns e2 = e3 = -1 (not computed) with the work it would have taken. The first
    pass, which finds the columns that split the rows, costs one step per 1 of a pattern."""
    weight = np.zeros((n_patterns, n_classes), dtype=np.int64)
    seen = np.zeros(n_patterns, dtype=np.bool_)
    touched = np.empty(bits.shape[0], dtype=np.int64)
    n_touched = 0
    for i in bits:
        p = bit_pattern[i]
        if not seen[p]:
            seen[p] = True
            touched[n_touched] = p
            n_touched += 1
        weight[p, bit_class[i]] += bit_units[i]
    total = np.zeros(n_classes, dtype=np.int64)
    column_ones = np.zeros((n_features, n_classes), dtype=np.int64)
    for t in range(n_touched):
        p = touched[t]
        for k in range(n_classes):
            w = weight[p, k]
            if w == 0:
                continue
            total[k] += w
            for a in range(ones_start[p], ones_start[p + 1]):
                column_ones[ones_index[a], k] += w
    e1 = _leaf_errors(total)
    # only columns that split S matter: a constant one leaves a side empty, and the trees
    # with an empty side are the smaller trees already counted (deep row sets: most
    # columns); the pair counts are kept for those columns alone, by position
    weight_total = 0
    for k in range(n_classes):
        weight_total += total[k]
    position = np.full(n_features, -1, dtype=np.int64)
    active = np.empty(n_features, dtype=np.int64)
    n_active = 0
    for f in range(n_features):
        on = 0
        for k in range(n_classes):
            on += column_ones[f, k]
        if 0 < on < weight_total:
            position[f] = n_active
            active[n_active] = f
            n_active += 1
    work = n_active * n_active * n_classes  # the split loop (and the table's zeroing)
    for t in range(n_touched):
        p = touched[t]
        count = 0
        for a in range(ones_start[p], ones_start[p + 1]):
            if position[ones_index[a]] >= 0:
                count += 1
        for k in range(n_classes):
            if weight[p, k] != 0:
                work += count * (count - 1) // 2
    result = np.full(9, -1, dtype=np.int64)
    result[0], result[6] = e1, work
    if work > max_work:
        return result
    ones = np.empty((n_active, n_classes), dtype=np.int64)
    for i in range(n_active):
        for k in range(n_classes):
            ones[i, k] = column_ones[active[i], k]
    both = np.zeros((n_active, n_active, n_classes), dtype=np.int64)  # i < j used
    kept = np.empty(n_active, dtype=np.int64)
    for t in range(n_touched):
        p = touched[t]
        count = 0
        for a in range(ones_start[p], ones_start[p + 1]):  # increasing: positions too
            at = position[ones_index[a]]
            if at >= 0:
                kept[count] = at
                count += 1
        for k in range(n_classes):
            w = weight[p, k]
            if w == 0:
                continue
            for a in range(count):
                i = kept[a]
                for c in range(a + 1, count):
                    both[i, kept[c], k] += w
    if n_classes == 2:
        e2, f2, e3, f3, side3, g3, child3 = _best_splits_two_classes(
            total, ones, both, active[:n_active], e1)
    else:
        e2, f2, e3, f3, side3, g3, child3 = _best_splits(total, ones, both, active[:n_active],
                                                         e1)
    if e2 < e3:  # a 3-leaf tree found above is never worse than its 2-leaf pruning
        e3, f3 = e2, -1
    result[1], result[2] = e2, f2
    result[3], result[4], result[5] = e3, f3, side3
    result[7], result[8] = g3, child3
    return result


_warm = {"done": False}


def warm_up(small_trees: bool = True) -> float:
    """Compile (or load from the on-disk cache) the kernels on a tiny input; seconds taken.
    ``small_trees=False``: the incompatibility bound only (``small_trees.load_kernels``: the
    small-tree kernels cost three of the 4.5 s of a cold compile, so a search that finds
    them missing goes without them and leaves them to the background compile)."""
    start = time.perf_counter()
    if _warm["done"]:
        return 0.0
    packed = pack_rows(np.array([[0, 1], [1, 0], [1, 1]], dtype=np.int64))
    weights = np.array([[1, 0], [0, 2], [1, 1]], dtype=np.int64)
    incompatibility_bound(packed, weights, weights.sum(axis=1), np.arange(3, dtype=np.int64), 1,
                          np.int64(1 << 62))
    if not small_trees:
        return time.perf_counter() - start
    ints = np.array([0, 1, 2], dtype=np.int64)
    small_tree_errors(ints, ints, np.array([0, 1, 0], dtype=np.int64), np.ones(3, np.int64),
                      np.array([0, 1, 2, 4], dtype=np.int64), np.array([1, 0, 0, 1], np.int64),
                      3, 2, 2, np.int64(1 << 62))
    _warm["done"] = True
    return time.perf_counter() - start


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
