"""Compiled exact answers for trees of at most three and four leaves on a row set (numba,
cached on disk; ``small_trees`` stores them, ``bnb_kernels`` loads them with its family).

``small_tree_errors``: the fewest weighted errors with one, two and three leaves, and the trees
behind them, from class counts per column and per pair of columns, as MurTree's specialised
depth-two solver (Demirović et al.) counts them.

``four_leaf_errors``: the fewest weighted errors with at most four leaves, E_S(4). A tree with
at most four leaves has at most three, or is a root split on a column i whose zero and one
sides S0, S1 hold trees of l0 + l1 = 4 leaves, l0, l1 >= 1 (a split on a column constant on
S leaves a side empty: the tree is its other side's, of at most three leaves). So

    E_S(4) = min(E_S(3), min over i of min(E_S0(1) + E_S1(3), E_S0(2) + E_S1(2),
                                             E_S0(3) + E_S1(1)))

exactly, the E of a side being the fewest errors with at most that many leaves (at most l0
leaves on S0 and at most l1 on S1 make a tree of at most four). E_S0(2), E_S1(2) for every i
come from the pair counts of S; E_S1(3) needs the pair counts inside S1, the triple counts of
S through column i, counted per i over the patterns holding i (S0's are S's minus S1's). A
side's E(3) is computed only when the other side's one-leaf errors plus a lower bound on it
are below the best value so far (else that term cannot be lower), the bound being
max(0, E_S(3) - w(other side)): the best three-leaf tree of S1 errs on S0 at most w(S0), so
E_S(3) <= E_S1(3) + w(S0). The loop ends once the best value reaches the errors forced by
conflicting rows, which no tree avoids.

The search asks whether four leaves fit a budget b (``small_trees.store_four``): with a
``target`` t = b + 1 every term is pruned as soon as it cannot fall below min(t, best so
far), and the answer is E_S(4) if it is below t, else t, a lower bound either way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["four_leaf_errors", "small_tree_errors"]


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
def _two_leaf(i, side, ones, both, one_side):
    """(fewest errors with at most two leaves, position of its split or -1) of the one side
    (``one_side``) or the zero side of the column at position i, whose class weights are
    ``side``; counts as ``small_tree_errors`` builds them (``ones[j]``, ``both[j, l]`` for
    j < l)."""
    n_active, n_classes = ones.shape
    cell = np.empty(n_classes, dtype=np.int64)
    rest = np.empty(n_classes, dtype=np.int64)
    best, at = _leaf_errors(side), -1
    for j in range(n_active):
        if j == i:
            continue
        low, high = (i, j) if i < j else (j, i)
        for k in range(n_classes):  # the side split on j: its rows with a 1 in j, the rest
            cell[k] = both[low, high, k] if one_side else ones[j, k] - both[low, high, k]
            rest[k] = side[k] - cell[k]
        value = _leaf_errors(cell) + _leaf_errors(rest)
        if value < best:
            best, at = value, j
    return best, at


@njit(cache=True)
def _split_counts(i, total, ones, one, zero):
    """Fill ``one`` / ``zero`` with the class weights of the one / zero side of the column
    at position i; (their one-leaf errors)."""
    for k in range(total.shape[0]):
        one[k] = ones[i, k]
        zero[k] = total[k] - ones[i, k]
    return _leaf_errors(one), _leaf_errors(zero)


@njit(cache=True)
def _side_errors(total, ones, both):
    """Per column position i of the counts (``ones[i]``, ``both[i, j]`` for i < j, as
    ``small_tree_errors`` builds them): the one-leaf errors of its zero and one sides, the
    fewest errors of each side with at most two leaves, and the column position of that
    side's split (-1: one leaf is as good)."""
    n_active, n_classes = ones.shape
    zero_err = np.empty(n_active, dtype=np.int64)
    one_err = np.empty(n_active, dtype=np.int64)
    best_zero = np.empty(n_active, dtype=np.int64)
    best_one = np.empty(n_active, dtype=np.int64)
    zero_at = np.empty(n_active, dtype=np.int64)
    one_at = np.empty(n_active, dtype=np.int64)
    one = np.empty(n_classes, dtype=np.int64)
    zero = np.empty(n_classes, dtype=np.int64)
    for i in range(n_active):
        one_err[i], zero_err[i] = _split_counts(i, total, ones, one, zero)
        best_one[i], one_at[i] = _two_leaf(i, one, ones, both, True)
        best_zero[i], zero_at[i] = _two_leaf(i, zero, ones, both, False)
    return zero_err, one_err, best_zero, best_one, zero_at, one_at


@njit(cache=True)
def _best_splits(total, ones, both, active, e1):
    """(e2, its column, e3, its root column, side of its split child, that child's column,
    that child's errors) over the columns ``active`` from the class counts of
    ``small_tree_errors`` (``ones[i]``, ``both[i, j]`` indexed by position in ``active``,
    i < j)."""
    zero_err, one_err, best_zero, best_one, zero_at, one_at = _side_errors(total, ones, both)
    e2, f2, e3, f3, side3, g3, child3 = e1, -1, e1, -1, 0, -1, 0
    for i in range(active.shape[0]):
        if one_err[i] + zero_err[i] < e2:
            e2, f2 = one_err[i] + zero_err[i], active[i]
        if zero_err[i] + best_one[i] < e3:
            e3, f3, side3, child3 = zero_err[i] + best_one[i], active[i], 1, best_one[i]
            g3 = -1 if one_at[i] < 0 else active[one_at[i]]
        if one_err[i] + best_zero[i] < e3:
            e3, f3, side3, child3 = one_err[i] + best_zero[i], active[i], 0, best_zero[i]
            g3 = -1 if zero_at[i] < 0 else active[zero_at[i]]
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
def _column_counts(bits, bit_pattern, bit_class, bit_units, ones_start, ones_index,
                   n_patterns, n_features, n_classes):
    """(weight per pattern and class, the patterns touched, the class totals, the columns
    that split the rows, each column's position among them or -1, the class weights with a
    1 per splitting column) of the rows ``bits`` (as ``small_tree_errors`` takes them)."""
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
    ones = np.empty((n_active, n_classes), dtype=np.int64)
    for i in range(n_active):
        for k in range(n_classes):
            ones[i, k] = column_ones[active[i], k]
    return weight, touched[:n_touched], total, active[:n_active], position, ones


@njit(cache=True)
def _kept_positions(p, ones_start, ones_index, position, kept):
    """Fill ``kept`` with the positions of pattern p's splitting columns (increasing); their
    count."""
    count = 0
    for a in range(ones_start[p], ones_start[p + 1]):  # increasing: positions too
        at = position[ones_index[a]]
        if at >= 0:
            kept[count] = at
            count += 1
    return count


@njit(cache=True)
def _pair_counts(both, weight, touched, ones_start, ones_index, position, through, count_only):
    """Add to ``both[i, j, k]`` (i < j) the weight of class k of the touched patterns with a
    1 in the splitting columns at positions i and j, over the patterns holding position
    ``through`` (all if -1); the steps taken (pairs of 1s per pattern and class present).
    ``count_only``: the steps alone, nothing added."""
    n_classes = weight.shape[1]
    kept = np.empty(position.shape[0], dtype=np.int64)
    work = 0
    for t in range(touched.shape[0]):
        p = touched[t]
        count = _kept_positions(p, ones_start, ones_index, position, kept)
        if through >= 0:
            holds = False
            for a in range(count):
                holds = holds or kept[a] == through
            if not holds:
                continue
        for k in range(n_classes):
            w = weight[p, k]
            if w == 0:
                continue
            work += count * (count - 1) // 2
            if count_only:
                continue
            for a in range(count):
                i = kept[a]
                for c in range(a + 1, count):
                    both[i, kept[c], k] += w
    return work


@njit(cache=True)
def small_tree_errors(bits, bit_pattern, bit_class, bit_units, ones_start, ones_index,
                      n_patterns, n_features, n_classes, max_work):
    """The fewest weighted errors of a tree with at most 1, 2 and 3 leaves on the rows
    ``bits`` (indices of a row set's bits; bit i is a row group of pattern ``bit_pattern[i]``,
    class ``bit_class[i]``, weight ``bit_units[i]``), splitting on columns 0 .. n_features - 1
    (pattern p has a 1 in the columns ``ones_index[ones_start[p]:ones_start[p + 1]]``,
    increasing). Returns ``[e1, e2, column of the 2-leaf tree, e3, column of the 3-leaf
    tree's root, side of its split child (0: zero side, 1: one side), work, that child's
    column, that child's errors]``, with e2 <= e1 and e3 <= e2 (a column -1 when the smaller
    tree is as good). Every tree with at most three leaves is a leaf, one split, or a split
    with one leaf child and one split child, so the minima over all columns that split the
    rows are exact.

    ``work`` counts the steps of the pair counts and of the split loop (``small_trees``
    turns seconds into steps); when it would pass ``max_work`` the kernel stops before them
    and returns e2 = e3 = -1 (not computed) with the work it would have taken. The first
    pass, which finds the columns that split the rows, costs one step per 1 of a pattern."""
    weight, touched, total, active, position, ones = _column_counts(
        bits, bit_pattern, bit_class, bit_units, ones_start, ones_index, n_patterns,
        n_features, n_classes)
    n_active = active.shape[0]
    e1 = _leaf_errors(total)
    both = np.zeros((0, 0, n_classes), dtype=np.int64)
    work = n_active * n_active * n_classes + _pair_counts(  # the split loop and the pairs
        both, weight, touched, ones_start, ones_index, position, -1, True)
    result = np.full(9, -1, dtype=np.int64)
    result[0], result[6] = e1, work
    if work > max_work:
        return result
    both = np.zeros((n_active, n_active, n_classes), dtype=np.int64)  # i < j used
    _pair_counts(both, weight, touched, ones_start, ones_index, position, -1, False)
    if n_classes == 2:
        e2, f2, e3, f3, side3, g3, child3 = _best_splits_two_classes(total, ones, both,
                                                                     active, e1)
    else:
        e2, f2, e3, f3, side3, g3, child3 = _best_splits(total, ones, both, active, e1)
    if e2 < e3:  # a 3-leaf tree found above is never worse than its 2-leaf pruning
        e3, f3 = e2, -1
    result[1], result[2] = e2, f2
    result[3], result[4], result[5] = e3, f3, side3
    result[7], result[8] = g3, child3
    return result


@njit(cache=True)
def _three_leaf_errors(total, ones, both, target):
    """(e, j, side, k, its errors): E(3) of the rows whose counts these are (``_side_errors``'
    arguments), the fewest errors of a leaf or of a split on position j with a leaf on one
    side and at most two leaves (split on position k, -1 if one leaf is as good, making
    ``its errors``) on the other (``side``: 1 the one side); exact when below ``target``,
    else a value >= ``target`` (j = -1 if no split beats one leaf): a split's chain is
    counted only when its leaf's errors are below min(target, the best so far), since the
    other side adds none below zero."""
    n_active, n_classes = ones.shape
    best, best_j, best_side, best_k, best_child = _leaf_errors(total), -1, 0, -1, 0
    one = np.empty(n_classes, dtype=np.int64)
    zero = np.empty(n_classes, dtype=np.int64)
    for j in range(n_active):
        one_err, zero_err = _split_counts(j, total, ones, one, zero)
        if zero_err < min(best, target):
            child, at = _two_leaf(j, one, ones, both, True)
            if zero_err + child < best:
                best, best_j, best_side, best_k, best_child = zero_err + child, j, 1, at, child
        if one_err < min(best, target):
            child, at = _two_leaf(j, zero, ones, both, False)
            if one_err + child < best:
                best, best_j, best_side, best_k, best_child = one_err + child, j, 0, at, child
    return best, best_j, best_side, best_k, best_child


@njit(cache=True)
def _put(result, kind, i, a, ea, b, eb, c):
    """Write a four-leaf tree into ``four_leaf_errors``' result (items 2 to 8)."""
    result[2], result[3], result[4], result[5] = kind, i, a, ea
    result[6], result[7], result[8] = b, eb, c


@njit(cache=True)
def four_leaf_errors(bits, bit_pattern, bit_class, bit_units, ones_start, ones_index,
                     n_patterns, n_features, n_classes, target, max_work):
    """The fewest weighted errors of a tree with at most four leaves on the rows ``bits``
    (arguments as ``small_tree_errors``; the recursion and its proof are the module
    docstring's), E_S(4), exact when below ``target``, else ``target`` (a lower bound:
    every term counted is at least E_S(4), and a term skipped is at least the best value
    when skipped). Returns ``[value, work, kind, i, a, ea, b, eb, c]``: kind 0 when no
    four-leaf tree below both E_S(3) and ``target`` was found; else its root column i and
    kind 1, sides of two leaves: the zero side split on column a making ea errors, the one
    side on b making eb; kind 2 (3): a leaf on i's zero (one) side and on the other a
    three-leaf tree of ea errors, split on column a, whose side b (0 zero, 1 one) is split
    on column c making eb errors. Columns are ``bits``' columns (0 .. n_features - 1), sides
    as they hold the columns' 1s.

    ``work`` counts the steps of the pair counts and of the split loops; when it would pass
    ``max_work`` the kernel stops and returns value -1 (not computed) with the work counted
    so far."""
    weight, touched, total, active, position, ones = _column_counts(
        bits, bit_pattern, bit_class, bit_units, ones_start, ones_index, n_patterns,
        n_features, n_classes)
    n_active = active.shape[0]
    square = n_active * n_active * n_classes
    result = np.full(9, -1, dtype=np.int64)
    result[2] = 0
    both = np.zeros((0, 0, n_classes), dtype=np.int64)
    work = 2 * square + _pair_counts(both, weight, touched, ones_start, ones_index, position,
                                     -1, True)
    result[1] = work
    if work > max_work:
        return result
    forced, weight_total = 0, 0  # the errors of conflicting rows: every tree makes them
    for k in range(n_classes):
        weight_total += total[k]
    for t in range(touched.shape[0]):
        forced += _leaf_errors(weight[touched[t]])
    both = np.zeros((n_active, n_active, n_classes), dtype=np.int64)
    _pair_counts(both, weight, touched, ones_start, ones_index, position, -1, False)
    zero_err, one_err, best_zero, best_one, zero_at, one_at = _side_errors(total, ones, both)
    three = min(_three_leaf_errors(total, ones, both, target)[0], target)  # <= E_S(3)
    best = three
    for i in range(n_active):
        if best_zero[i] + best_one[i] < best:
            best = best_zero[i] + best_one[i]
            _put(result, 1, active[i], active[zero_at[i]], best_zero[i], active[one_at[i]],
                 best_one[i], -1)
    side_total = np.empty(n_classes, dtype=np.int64)
    side_ones = np.empty((n_active, n_classes), dtype=np.int64)
    side_both = np.empty((n_active, n_active, n_classes), dtype=np.int64)
    for i in range(n_active):
        if best <= forced:
            break
        one_weight = 0
        for k in range(n_classes):
            one_weight += ones[i, k]
        # a side's E(3) is at least E_S(3) minus the other side's weight (its best tree on
        # all of S errs at most that much more)
        need_one = zero_err[i] + max(0, three - (weight_total - one_weight)) < best
        need_zero = one_err[i] + max(0, three - one_weight) < best
        if not (need_one or need_zero):
            continue
        work += 3 * square + _pair_counts(both, weight, touched, ones_start, ones_index,
                                          position, i, True)
        result[1] = work
        if work > max_work:
            result[0] = -1
            return result
        side_both[:] = 0  # the one side of i: the patterns holding column i
        _pair_counts(side_both, weight, touched, ones_start, ones_index, position, i, False)
        for k in range(n_classes):
            side_total[k] = ones[i, k]
            for j in range(n_active):
                low, high = (i, j) if i < j else (j, i)
                side_ones[j, k] = ones[i, k] if j == i else both[low, high, k]
        for kind in (2, 3):
            leaf = zero_err[i] if kind == 2 else one_err[i]
            if kind == 2 and need_one or kind == 3 and need_zero:
                if kind == 3:  # the zero side: S's counts minus the one side's
                    for k in range(n_classes):
                        side_total[k] = total[k] - side_total[k]
                        for j in range(n_active):
                            side_ones[j, k] = ones[j, k] - side_ones[j, k]
                    for j in range(n_active):
                        for j2 in range(j + 1, n_active):
                            for k in range(n_classes):
                                side_both[j, j2, k] = both[j, j2, k] - side_both[j, j2, k]
                chain, j, side, k, child = _three_leaf_errors(side_total, side_ones,
                                                              side_both, best - leaf)
                if leaf + chain < best:
                    best = leaf + chain
                    _put(result, kind, active[i], active[j], chain, side, child,
                         -1 if k < 0 else active[k])
    result[0] = best
    return result
