"""Compiled kernels of the ordered-column search: class totals, the best depth <= 1 subtree on
both sides of a test, the split of a node's sorted columns (the depth-2 solver is
``depth2``).

A node's rows are held as ``order`` (features x rows): for each feature the row ids sorted by
that feature's rank (``rank[f, row]``, the position of the row's value among the column's
distinct training values). A test "rank of f >= t" sends a row right. Every threshold between
adjacent distinct values of a column is a candidate, so the search is exact over all of them.

Depth 1 is the specialised solver of MurTree (Demirovic et al., JMLR 2022) carried to ordered
columns as in ConTree (Brita, van der Linden and Demirovic, AAAI 2025): ``side_subtrees``,
for one root test, makes one pass over each feature's sorted rows with running (weighted)
class counts of the rows on each side, so the best single test of each side is found in
O(rows x features x classes). A position is only evaluated when enough weight has moved since
the last evaluation to beat the best: the errors of a split change by at most the weight of
the rows that cross it.

Costs are weighted misclassifications (float64); ``tol`` absorbs rounding of float weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["candidates", "class_totals", "end_run_cuts", "promising_thresholds",
           "range_orders", "side_subtrees", "split_orders", "tree_errors"]


@njit(cache=True)
def _leaf(counts):
    """(errors, label) of a leaf predicting the heaviest class."""
    total, heaviest, label = 0.0, -1.0, 0
    for k in range(counts.shape[0]):
        total += counts[k]
        if counts[k] > heaviest:
            heaviest, label = counts[k], k
    return total - heaviest, label


@njit(cache=True)
def _split_errors(acc, tot, n_classes):
    """(low errors, high errors, low label, high label) of a test whose low side holds
    ``acc`` of ``tot``."""
    low_sum, low_max, low_label = 0.0, -1.0, 0
    high_sum, high_max, high_label = 0.0, -1.0, 0
    for k in range(n_classes):
        a, b = acc[k], tot[k] - acc[k]
        low_sum += a
        high_sum += b
        if a > low_max:
            low_max, low_label = a, k
        if b > high_max:
            high_max, high_label = b, k
    return low_sum - low_max, high_sum - high_max, low_label, high_label


@njit(cache=True)
def class_totals(rows, y, w, n_classes):
    totals = np.zeros(n_classes)
    for r in rows:
        totals[y[r]] += w[r]
    return totals


@njit(cache=True)
def side_subtrees(order, rank, y, w, n_classes, f, thr, tol, side, penalty=0.0):
    """Best depth <= 1 subtree of each side of the test ``rank[f] >= thr`` (``f = -1``: no
    test, every row on the low side: the best depth-1 tree of the node). ``side``: scratch,
    one byte per row of the data. A test costs its errors plus ``penalty`` (the lexicographic
    cost of ``search``; every position pays it, so the pruning below, which compares
    positions by their errors, is unchanged).

    Returns (low cost, low feature, low threshold, low-low label, low-high label, then the
    same five for the high side); a feature -1 means a leaf with the first label.
    """
    n_features, m = order.shape
    totals = np.zeros((2, n_classes))
    first = order[0]
    if f >= 0:
        ranks = rank[f]
        for p in range(m):
            r = first[p]
            s = np.uint8(ranks[r] >= thr)
            side[r] = s
            totals[s, y[r]] += w[r]
    else:
        for p in range(m):
            r = first[p]
            side[r] = 0
            totals[0, y[r]] += w[r]
    best = np.empty(2)
    found = np.full((2, 4), -1, dtype=np.int64)      # feature, threshold, low, high label
    weight = np.empty(2)
    for s in range(2):
        best[s], label = _leaf(totals[s])
        found[s, 2] = found[s, 3] = label
        weight[s] = totals[s].sum()
    acc = np.zeros((2, n_classes))
    prev = np.empty(2, dtype=np.int64)
    moved = np.empty(2)                 # weight of the side's rows passed so far
    # a position of side s is evaluated only once moved[s] > limit[s]: the errors of a split
    # fall by at most the weight that crosses it, so until then none can beat the best
    limit = np.empty(2)
    for g in range(n_features):
        if best[0] <= tol and best[1] <= tol:
            break
        acc[:] = 0.0
        prev[:] = -1
        moved[:] = 0.0
        for s in range(2):
            limit[s] = tol if weight[s] > tol else np.inf
        ranks = rank[g]
        rows = order[g]
        for p in range(m):    # as depth2._best_tests_of_sides: why two, depth2's doc
            r = rows[p]
            s = side[r]
            rk = ranks[r]
            if rk != prev[s] and moved[s] > limit[s]:
                low_e, high_e, a, b = _split_errors(acc[s], totals[s], n_classes)
                e = low_e + high_e + penalty
                if e < best[s] - tol:
                    best[s] = e
                    found[s, 0], found[s, 1], found[s, 2], found[s, 3] = g, rk, a, b
                # the low errors only grow from here and the high ones stay >= 0 and fall by
                # at most the weight still to pass: once that cannot beat the best, the
                # side is done
                if low_e + penalty >= best[s] - tol \
                        or e - best[s] >= weight[s] - moved[s] - tol:
                    limit[s] = np.inf
                    if limit[1 - s] == np.inf:
                        break
                else:
                    limit[s] = moved[s] + (e - best[s]) - tol
            acc[s, y[r]] += w[r]
            moved[s] += w[r]
            prev[s] = rk
    return (best[0], found[0, 0], found[0, 1], found[0, 2], found[0, 3],
            best[1], found[1, 0], found[1, 1], found[1, 2], found[1, 3])


@njit(cache=True)
def end_run_cuts(ranks, labels):
    """Of a node's rows sorted by one feature (``ranks``, ``labels``), with thresholds 0, 1,
    ... the cuts before each new value: (first, last) threshold worth trying (first > last:
    none). The leading values whose rows all share the first row's label form the low end
    run, the trailing ones sharing the last row's label the high end run, and no cut inside
    an end run is needed (proof in ``trees.dtmax.data``; it holds on any node's rows), so
    only the cuts from the low run's end to the high run's start remain."""
    m = ranks.shape[0]
    groups = 1
    for p in range(1, m):
        if ranks[p] != ranks[p - 1]:
            groups += 1
    low, group = groups, 0           # low: values in the low run
    for p in range(m):
        if p > 0 and ranks[p] != ranks[p - 1]:
            group += 1
        if labels[p] != labels[0]:
            low = group
            break
    if low == groups:                # one label on the whole node: no cut is worth trying
        return 0, -1
    high, group = 0, 0               # high: values in the high run
    for p in range(m - 1, -1, -1):
        if p < m - 1 and ranks[p] != ranks[p + 1]:
            group += 1
        if labels[p] != labels[m - 1]:
            high = group
            break
    return max(low - 1, 0), groups - 2 - max(high - 1, 0)


@njit(cache=True)
def candidates(order, rank, y, w, f):
    """Thresholds of feature ``f`` that split the node (the rank of each value after the
    first), but none inside an end run (``end_run_cuts``), ``before[i]`` the weight of the
    rows below threshold i, and the index of the first kept threshold among all of them."""
    m = order.shape[1]
    thresholds = np.empty(m, dtype=np.int64)
    before = np.empty(m)
    ranks = np.empty(m, dtype=np.int64)
    labels = np.empty(m, dtype=np.int64)
    n, cum = 0, 0.0
    prev = rank[f, order[f, 0]]
    for p in range(m):
        r = order[f, p]
        rk = rank[f, r]
        ranks[p], labels[p] = rk, y[r]
        if rk != prev:
            thresholds[n] = rk
            before[n] = cum
            n += 1
            prev = rk
        cum += w[r]
    first, last = end_run_cuts(ranks, labels)
    return thresholds[first:last + 1], before[first:last + 1], first


@njit(cache=True)
def promising_thresholds(order, rank, y, w, n_classes):
    """For each feature, the position among its ``candidates`` of the single test with the
    fewest errors (-1 if the feature does not split the node) and those errors: where an
    interval search starts (a good tree early prunes the most)."""
    n_features, m = order.shape
    totals = class_totals(order[0], y, w, n_classes)
    position = np.full(n_features, -1, dtype=np.int64)
    errors = np.full(n_features, np.inf)
    acc = np.zeros(n_classes)
    for f in range(n_features):
        acc[:] = 0.0
        ranks = rank[f]
        prev = ranks[order[f, 0]]
        n = 0
        for p in range(m):
            r = order[f, p]
            rk = ranks[r]
            if rk != prev:
                low_e, high_e, a, b = _split_errors(acc, totals, n_classes)
                if low_e + high_e < errors[f]:
                    errors[f], position[f] = low_e + high_e, n
                n += 1
                prev = rk
            acc[y[r]] += w[r]
    return position, errors


@njit(cache=True)
def split_orders(order, rank, f, thr):
    """The sorted columns of the rows below (``rank[f] < thr``) and at or above."""
    n_features, m = order.shape
    ranks = rank[f]
    m_high = 0
    for p in range(m):
        if ranks[order[0, p]] >= thr:
            m_high += 1
    low = np.empty((n_features, m - m_high), dtype=order.dtype)
    high = np.empty((n_features, m_high), dtype=order.dtype)
    for g in range(n_features):
        i_low, i_high = 0, 0
        for p in range(m):
            r = order[g, p]
            if ranks[r] >= thr:
                high[g, i_high] = r
                i_high += 1
            else:
                low[g, i_low] = r
                i_low += 1
    return low, high


@njit(cache=True)
def range_orders(order, rank, f, lows, highs):
    """The sorted columns of the rows whose rank of f lies in each range ``[lows[j],
    highs[j])`` (disjoint, in increasing order), in one pass over the node: one array, the
    ranges' rows side by side, and the offsets where each range starts (the last entry the
    end)."""
    n_features, m = order.shape
    k = lows.shape[0]
    ranks = rank[f]
    which = np.empty(rank.shape[1], dtype=np.int64)     # each row's range, -1: none
    offsets = np.zeros(k + 1, dtype=np.int64)
    j = 0
    for p in range(m):                                  # order[f] is sorted by rank of f
        r = order[f, p]
        while j < k and ranks[r] >= highs[j]:
            j += 1
        if j < k and ranks[r] >= lows[j]:
            which[r] = j
            offsets[j + 1] += 1
        else:
            which[r] = -1
    for j in range(k):
        offsets[j + 1] += offsets[j]
    out = np.empty((n_features, offsets[k]), dtype=order.dtype)
    fill = np.empty(k, dtype=np.int64)
    for g in range(n_features):
        fill[:] = offsets[:k]
        for p in range(m):
            r = order[g, p]
            j = which[r]
            if j >= 0:
                out[g, fill[j]] = r
                fill[j] += 1
    return out, offsets


@njit(cache=True)
def tree_errors(features, thresholds, lows, highs, labels, rank, y, w):
    """Weighted errors of a tree in arrays (node 0 the root; ``features[i] == -1``: a leaf)."""
    errors = 0.0
    for r in range(rank.shape[1]):
        node = 0
        while features[node] >= 0:
            node = highs[node] if rank[features[node], r] >= thresholds[node] else lows[node]
        if labels[node] != y[r]:
            errors += w[r]
    return errors
