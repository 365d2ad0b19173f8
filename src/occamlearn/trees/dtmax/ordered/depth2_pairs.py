"""The depth-2 solver's counting mode for columns with few values: pair counts.

When every column takes few distinct values on a node -- an explicit binariser's cuts read as
ordered codes, 0/1 flags and one-hot categories, small integer columns -- the best tree of
depth <= 2 comes from class counts per pair of columns, as the depth-2 solver of MurTree
(Demirovic et al., JMLR 2022) computes it from pair counts of binary features, here over
ordered values:

* for columns f < g, ``P[a, b, k]`` is the weight of the node's rows of class k whose value
  (renumbered 0, 1, ... over the values present on the node) of f is < a and of g is < b: a
  2-D prefix sum of the pair's histogram, built in one pass over the rows;
* a root test "f >= t" with a child test "g >= u" cuts the rows into four blocks whose class
  weights are ``P[t, u]``, ``P[t, end] - P[t, u]``, ``P[end, u] - P[t, u]`` and the rest, so
  each (t, u) is O(classes); the same four blocks answer the root "g >= u" with the child
  "f >= t", so each pair is read once for both orders;
* a child test on the root's own column (an interval) comes from the column's own prefix
  counts.

Every root test, every child test and every leaf is tried, so the answer is the exact optimum
of the cost: weighted errors plus ``penalty`` per test. Work: rows x columns^2 / 2 for the
histograms and columns^2 x values^2 x classes for the blocks, independent of how well bounds
prune; ``depth2.best_depth2`` predicts it (``pair_counts_work``) and takes this mode when it
is below that of its sweeps. Predicted small against the sweeps is not small against a time
limit (6,000 rows x 3,000 columns of 9 values: 2.8e10, 47 s), and the kernel reads no clock,
so the pairs' loop counts its work as ``pair_counts_work`` does and gives up past
``max_work`` (the caller sizes it from the time left and stops).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["TREE_FIELDS", "depth2_from_pair_counts", "local_values", "pair_counts_work"]

# A depth-2 answer: cost, then 11 ints (TREE_FIELDS): the root test (-1: a leaf), its
# threshold, each side's test (-1: a leaf), threshold and the two leaf labels, the root label.
TREE_FIELDS = ("feature", "threshold", "left_feature", "left_threshold", "left_low",
               "left_high", "right_feature", "right_threshold", "right_low", "right_high",
               "label")


@njit(cache=True)
def local_values(order, rank):
    """Per feature, the number of distinct values on the node's rows (``order[f]`` is sorted
    by ``rank[f]``)."""
    n_features, m = order.shape
    counts = np.zeros(n_features, dtype=np.int64)
    for f in range(n_features):
        prev = -1
        column = rank[f]
        for p in range(m):
            rk = column[order[f, p]]
            if rk != prev:
                counts[f] += 1
                prev = rk
    return counts


@njit(cache=True)
def pair_counts_work(n_rows, values, n_classes):
    """Predicted basic operations of ``depth2_from_pair_counts`` on a node (module doc)."""
    n_split, total, squares = 0, 0.0, 0.0
    for v in values:
        if v > 1:
            n_split += 1
            total += v
            squares += float(v) * v
    pairs = (total * total - squares) / 2
    return n_split * n_split / 2 * n_rows + 2.0 * n_classes * pairs


@njit(cache=True)
def _local_codes(order, rank):
    """For feature f and position p of ``order[0]``: the rank of the row's value among the
    values of f present on the node (``codes``), each local value's global rank
    (``present[f, j]``) and the number of local values (``n_local``)."""
    n_features, m = order.shape
    rows = order[0]
    n_local = local_values(order, rank)
    width = max(1, n_local.max())
    present = np.full((n_features, width), -1, dtype=np.int64)
    codes = np.empty((n_features, m), dtype=np.int32)
    top = 0
    for f in range(n_features):
        for p in range(m):
            top = max(top, rank[f, order[f, p]])
    local = np.empty(top + 1, dtype=np.int32)
    for f in range(n_features):
        column = rank[f]
        k, prev = -1, -1
        for p in range(m):
            rk = column[order[f, p]]
            if rk != prev:
                k += 1
                present[f, k] = rk
                prev = rk
        for j in range(k + 1):               # global rank -> local value
            local[present[f, j]] = j
        for p in range(m):
            codes[f, p] = local[column[rows[p]]]
    return codes, present, n_local


@njit(cache=True)
def _block_errors(block, n_classes):
    total, heaviest = block[0], block[0]
    for k in range(1, n_classes):
        total += block[k]
        if block[k] > heaviest:
            heaviest = block[k]
    return total - heaviest


@njit(cache=True)
def _label(block, n_classes):
    label = 0
    for k in range(1, n_classes):
        if block[k] > block[label]:
            label = k
    return label


@njit(cache=True)
def _pair_prefix(pair, flat, row_at, column_at, weights, nf, ng):
    """``pair[a, b, k]``: weight of class k with local value of f < a and of g < b.
    ``flat`` is ``pair`` as one array; ``row_at[p] + column_at[p]`` the flat position of row
    p's cell (one add per row: the histogram is the innermost loop of the solver)."""
    pair[:nf + 1, :ng + 1, :] = 0
    for p in range(weights.shape[0]):
        flat[row_at[p] + column_at[p]] += weights[p]
    n_classes = pair.shape[2]
    for a in range(1, nf + 1):
        for b in range(1, ng + 1):
            for k in range(n_classes):
                pair[a, b, k] += pair[a - 1, b, k] + pair[a, b - 1, k] - pair[a - 1, b - 1, k]


@njit(cache=True)
def _pair_sides(pair, total, nf, ng, f, g, side_cost, side_tree, penalty, tol):
    """Offer every (root, child) = (f >= t, g >= u) and (g >= u, f >= t) to the sides'
    bests. The four blocks: 0 f low g low, 1 f low g high, 2 f high g low, 3 f high g
    high; a block's errors are its weight less its heaviest class."""
    n_classes = pair.shape[2]
    for t in range(1, nf):
        low_f, high_f = side_cost[0, f, t], side_cost[1, f, t]
        for u in range(1, ng):
            if n_classes == 2:                  # errors are the lighter class: 2x faster
                c, d = pair[t, u, 0], pair[t, u, 1]
                r, v = pair[t, ng, 0], pair[t, ng, 1]
                q, z = pair[nf, u, 0], pair[nf, u, 1]
                e0 = min(c, d)
                e1 = min(r - c, v - d)
                e2 = min(q - c, z - d)
                e3 = min(total[0] - r - q + c, total[1] - v - z + d)
            else:
                s0 = s1 = s2 = s3 = pair[0, 0, 0] * 0
                m0 = m1 = m2 = m3 = s0
                for k in range(n_classes):
                    c = pair[t, u, k]
                    r = pair[t, ng, k]
                    q = pair[nf, u, k]
                    b0, b1, b2, b3 = c, r - c, q - c, total[k] - r - q + c
                    s0 += b0
                    s1 += b1
                    s2 += b2
                    s3 += b3
                    m0 = max(m0, b0)
                    m1 = max(m1, b1)
                    m2 = max(m2, b2)
                    m3 = max(m3, b3)
                e0, e1, e2, e3 = s0 - m0, s1 - m1, s2 - m2, s3 - m3
            cost = e0 + e1 + penalty
            if cost < low_f - tol:
                low_f = cost
                side_tree[0, f, t, 0], side_tree[0, f, t, 1] = g, u
            cost = e2 + e3 + penalty
            if cost < high_f - tol:
                high_f = cost
                side_tree[1, f, t, 0], side_tree[1, f, t, 1] = g, u
            cost = e0 + e2 + penalty
            if cost < side_cost[0, g, u] - tol:
                side_cost[0, g, u] = cost
                side_tree[0, g, u, 0], side_tree[0, g, u, 1] = f, t
            cost = e1 + e3 + penalty
            if cost < side_cost[1, g, u] - tol:
                side_cost[1, g, u] = cost
                side_tree[1, g, u, 0], side_tree[1, g, u, 1] = f, t
        side_cost[0, f, t], side_cost[1, f, t] = low_f, high_f


@njit(cache=True)
def _leaf_labels(tree, codes, labels, weights, n_classes, present):
    """Fill the leaf labels of ``tree`` (local values in its thresholds) from the rows, then
    turn its local thresholds into global ranks."""
    blocks = np.zeros((4, n_classes))
    f, t = tree[0], tree[1]
    for p in range(labels.shape[0]):
        s = 1 if codes[f, p] >= t else 0
        g, u = tree[2 + 4 * s], tree[3 + 4 * s]
        c = 1 if g >= 0 and codes[g, p] >= u else 0
        blocks[2 * s + c, labels[p]] += weights[p]
    for s in range(2):
        g = tree[2 + 4 * s]
        tree[4 + 4 * s] = _label(blocks[2 * s], n_classes)
        tree[5 + 4 * s] = _label(blocks[2 * s + 1], n_classes) if g >= 0 else tree[4 + 4 * s]
        if g >= 0:
            tree[3 + 4 * s] = present[g, tree[3 + 4 * s]]
    tree[1] = present[f, t]


@njit(cache=True)
def depth2_from_pair_counts(order, rank, y, w, n_classes, penalty, tol, max_work=-1.0):
    """The best tree of depth <= 2 of the node (rows ``order``) and its cost (weighted errors
    plus ``penalty`` per test), exactly. Returns (cost, tree: int64 ``TREE_FIELDS`` with global
    rank thresholds, blocks evaluated), or (inf, a tree of leaves, -1) once the work of the
    pairs (``pair_counts_work``'s count, pair by pair) would pass ``max_work`` (>= 0; -1:
    none)."""
    n_features, m = order.shape
    codes, present, n_local = _local_codes(order, rank)
    rows = order[0]
    labels = np.empty(m, dtype=np.int64)
    weights = np.empty(m, dtype=w.dtype)
    for p in range(m):
        labels[p], weights[p] = y[rows[p]], w[rows[p]]
    width = present.shape[1]
    cum = np.zeros((n_features, width + 1, n_classes), dtype=w.dtype)
    for f in range(n_features):
        for p in range(m):
            cum[f, codes[f, p] + 1, labels[p]] += weights[p]
        for t in range(1, width + 1):
            for k in range(n_classes):
                cum[f, t, k] += cum[f, t - 1, k]
    total = cum[0, width].copy()
    # best subtree of depth <= 1 of each side of each root test (f, t): side 0 low, 1 high
    side_cost = np.full((2, n_features, width), np.inf)
    side_tree = np.full((2, n_features, width, 2), -1, dtype=np.int64)   # (g, u); -1: leaf
    high = np.empty(n_classes, dtype=w.dtype)
    a_block = np.empty(n_classes, dtype=w.dtype)
    b_block = np.empty(n_classes, dtype=w.dtype)
    for f in range(n_features):
        for t in range(1, n_local[f]):
            for k in range(n_classes):
                high[k] = total[k] - cum[f, t, k]
            side_cost[0, f, t] = _block_errors(cum[f, t], n_classes)
            side_cost[1, f, t] = _block_errors(high, n_classes)
            for u in range(1, n_local[f]):          # a child test on the root's column
                if u == t:
                    continue
                for k in range(n_classes):
                    if u < t:        # the low side (values < t) cut at u
                        a_block[k] = cum[f, u, k]
                        b_block[k] = cum[f, t, k] - cum[f, u, k]
                    else:            # the high side (values >= t) cut at u
                        a_block[k] = cum[f, u, k] - cum[f, t, k]
                        b_block[k] = total[k] - cum[f, u, k]
                e = _block_errors(a_block, n_classes) + _block_errors(b_block, n_classes) \
                    + penalty
                s = 0 if u < t else 1
                if e < side_cost[s, f, t] - tol:
                    side_cost[s, f, t] = e
                    side_tree[s, f, t, 0], side_tree[s, f, t, 1] = f, u
    evaluations = 0
    pair = np.zeros((width + 1, width + 1, n_classes), dtype=w.dtype)
    flat = pair.reshape(-1)
    row_at = np.empty((n_features, m), dtype=np.int64)     # flat offsets of (f value + 1)
    column_at = np.empty((n_features, m), dtype=np.int64)  # and of (g value + 1, class)
    for f in range(n_features):
        for p in range(m):
            row_at[f, p] = (codes[f, p] + 1) * (width + 1) * n_classes
            column_at[f, p] = (codes[f, p] + 1) * n_classes + labels[p]
    n_split = 0
    for f in range(n_features):
        n_split += n_local[f] > 1
    work = 0.5 * n_split * m             # then each pair's: ``pair_counts_work`` in total
    for f in range(n_features):
        nf = n_local[f]
        if nf < 2:
            continue
        for g in range(f + 1, n_features):
            ng = n_local[g]
            if ng < 2:
                continue
            work += m + 2.0 * n_classes * nf * ng
            if max_work >= 0 and work > max_work:
                return np.inf, np.full(len(TREE_FIELDS), -1, dtype=np.int64), -1
            _pair_prefix(pair, flat, row_at[f], column_at[g], weights, nf, ng)
            _pair_sides(pair, total, nf, ng, f, g, side_cost, side_tree, penalty, tol)
            evaluations += (nf - 1) * (ng - 1)
    tree = np.full(len(TREE_FIELDS), -1, dtype=np.int64)
    best = _block_errors(total, n_classes)
    tree[10] = _label(total, n_classes)
    for f in range(n_features):
        for t in range(1, n_local[f]):
            cost = side_cost[0, f, t] + side_cost[1, f, t] + penalty
            if cost < best - tol:
                best = cost
                tree[0], tree[1] = f, t
                for s in range(2):
                    tree[2 + 4 * s] = side_tree[s, f, t, 0]
                    tree[3 + 4 * s] = side_tree[s, f, t, 1]
    if tree[0] >= 0:
        _leaf_labels(tree, codes, labels, weights, n_classes, present)
    return float(best), tree, evaluations
