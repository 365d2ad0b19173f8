"""The one depth-2 solver of the ordered-column search: the best tree of depth <= 2 of a node.

``best_depth2`` answers every depth-2 node of the search. It counts in one of two modes,
whichever predicts less work on the node: pair counts (``depth2_pairs``, when the columns take
few values on it: every root test at once, exact whatever the bound) or the sweeps below
(many values: root thresholds tried by interval search under the bound). Both are exact and
share one contract, so the search never knows which answered.

The specialised depth-2 solver of MurTree (Demirovic et al., JMLR 2022) carried to ordered
columns as in ConTree (Brita, van der Linden and Demirovic, AAAI 2025): root thresholds are
tried feature by feature by interval search, and each tried root test is answered by one pass
over every feature's sorted rows with running class counts on each side
(``_best_tests_of_sides``), O(rows x features x classes) per root test.

The pass reads the node's rows in a layout of its own (``node_columns``, which says why).
``kernels.side_subtrees`` makes the same pass over the data's own layout; sharing the
per-position step of the two as one njit function was measured slower at depth 3 (CPU
1.2-2x on breast_cancer and make_classification 5,000 x 20, still 6-18 % with
``inline="always"``: ``benchmarks/results/dtmax_anytime_bound.md``,
section 2), so each keeps its own copy of the loop.

Pruning (each proven where it is used):

* a position of a side is evaluated only once enough weight has passed since the last
  evaluation to beat the best: the errors of a split change by at most the weight that
  crosses it;
* moving a root threshold across rows of weight W changes the cost by at most W (the low
  side's optimum only grows as rows join it, the high side's only shrinks by at most W), so a
  threshold whose cost exceeds the best by ``gap`` rules out every threshold within weight
  ``gap`` of it (neighbourhood pruning), and a range of thresholds between two evaluated ones
  costs at least ``low(a) + high(b)`` (sub-interval pruning).
* on a node of ``depth2_blocks.BLOCK_ROWS`` rows or more, before a root feature's first
  threshold is evaluated, one pass with each row's block (8 to 32 blocks of the feature's
  rows) as its side gives the depth-1 optima of the blocks; by superadditivity a range between a and
  b then costs at least ``low(a) + high(b)`` plus the blocks wholly between them less the
  largest one a threshold of the range cuts (proof in ``depth2_blocks``), which rules out
  about half the features of a node of make_classification 5,000 x 20 by the one pass.

Costs are weighted misclassifications (float64); ``tol`` absorbs rounding of float weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.ordered.bounds import range_bound
from occamlearn.trees.dtmax.ordered.depth2_blocks import (
    BLOCK_ROWS,
    BLOCKS,
    FINE,
    block_bound,
    block_count,
    block_sides,
    block_starts,
)
from occamlearn.trees.dtmax.ordered.depth2_pairs import TREE_FIELDS
from occamlearn.trees.dtmax.ordered.depth2_pairs import (
    depth2_from_pair_counts as _depth2_from_pair_counts,
)
from occamlearn.trees.dtmax.ordered.depth2_pairs import local_values as _local_values
from occamlearn.trees.dtmax.ordered.depth2_pairs import pair_counts_work as _pair_counts_work
from occamlearn.trees.dtmax.ordered.kernels import _leaf, _split_errors, end_run_cuts
from occamlearn.trees.dtmax.ordered.node_columns import (
    _best_single_tests,
    _feature_candidates,
    _key_layout,
    _node_columns,
)

# (its one public kernel is ``best_depth2``: ``trees.compiling.kernel_cache`` checks the disk cache
# of a family's public kernels, and the others are compiled into it)
__all__ = ["ABORTED", "SWEEP_FRACTION", "SWEEP_MIN", "TREE_FIELDS", "best_depth2", "relabelled",
           "warm_up"]

# Pair counts answer a node when their predicted work is below that of the sweeps (rows x
# features each) over this fraction of the node's root thresholds, at least ``SWEEP_MIN`` of
# them: on 5,000 x 30 readable codes at depth 3 the sweeps tried 15 % of them (142 of ~960
# per node, 33 ms a node; pair counts 7 ms), with about the same time per row step as a
# histogram update.
SWEEP_FRACTION = 0.15
SWEEP_MIN = 16


@njit(cache=True)
def _best_tests_of_sides(keys, label_bits, id_bits, weights, features, side, totals, tol,
                         found, penalty, n_sides=2):
    """Best depth <= 1 subtree of each side (``side[local id]`` from 0 to ``n_sides``;
    ``totals[s]`` the class weights of side s; rows by their ``keys`` of ``_node_columns``),
    over the features in ``features`` (the most promising first: a low best early lets the
    pass skip more). Rows of side ``n_sides`` (a row in no block, ``depth2_blocks``) are
    passed over. Fills ``found[s]`` (feature or -1 for a leaf, threshold rank, low label,
    high label) and returns the costs of the sides.

    A position of side s is evaluated only once the weight ``moved[s]`` passed since the
    start exceeds ``limit[s]``: the errors of a split fall by at most the weight that crosses
    it. After an evaluation with errors e = low + high + penalty, the low errors only grow
    (a leaf's errors never fall as rows join it) and the high ones stay >= 0 and fall by at
    most the weight still to pass, so once ``low + penalty >= best`` or ``e - best >= weight
    - moved`` no later position of the side beats the best: the side is done.
    """
    n_classes = totals.shape[1]
    every = n_sides + 1
    best = np.empty(every)
    weight = np.empty(every)
    for s in range(every):
        best[s], label = _leaf(totals[s])
        found[s, 0], found[s, 1], found[s, 2], found[s, 3] = -1, -1, label, label
        weight[s] = totals[s].sum()
    acc = np.zeros((every, n_classes), dtype=weights.dtype)
    prev = np.empty(every, dtype=np.int64)
    moved = np.zeros(every, dtype=weights.dtype)
    limit = np.empty(every)
    m = keys.shape[1]
    label_mask = (np.int64(1) << label_bits) - 1
    id_mask = (np.int64(1) << id_bits) - 1
    rank_shift = label_bits + id_bits
    for g in features:
        acc[:] = 0
        prev[:] = -1
        moved[:] = 0
        done = 1                                  # the side of rows in no block
        limit[n_sides] = np.inf
        for s in range(n_sides):
            limit[s] = tol if weight[s] > tol and best[s] > tol else np.inf
            done += int(limit[s] == np.inf)
        if done == every:                         # and so for every later feature
            break
        g_keys, g_weights = keys[g], weights[g]
        for p in range(m):     # as kernels.side_subtrees: why two loops, module doc
            key = g_keys[p]
            s = side[(key >> label_bits) & id_mask]
            rk = key >> rank_shift
            if rk != prev[s] and moved[s] > limit[s]:
                low_e, high_e, a, b = _split_errors(acc[s], totals[s], n_classes)
                e = low_e + high_e + penalty
                if e < best[s] - tol:
                    best[s] = e
                    found[s, 0], found[s, 1], found[s, 2], found[s, 3] = g, rk, a, b
                if low_e + penalty >= best[s] - tol \
                        or e - best[s] >= weight[s] - moved[s] - tol:
                    limit[s] = np.inf
                    done += 1
                    if done == every:
                        break
                else:
                    limit[s] = moved[s] + (e - best[s]) - tol
            acc[s, key & label_mask] += g_weights[p]
            moved[s] += g_weights[p]
            prev[s] = rk
    return best[:n_sides]


# ``best_depth2``'s evaluations when it gave up at ``max_evaluations``: its cost and tree then
# mean nothing, and the caller stops (``search.OrderedSearch.bounded_depth2``).
ABORTED = -1


@njit(cache=True)
def best_depth2(order, rank, y, w, n_classes, upper, lower, tol, penalty,
                sweep_fraction=SWEEP_FRACTION, sweep_min=SWEEP_MIN, block_rows=BLOCK_ROWS,
                blocks=BLOCKS, fine=FINE, max_evaluations=-1, max_pair_work=-1.0):
    """The best tree of depth <= 2 of the node (rows ``order``), exactly, if one costs less
    than ``upper``; ``lower`` is known to bound every tree from below (a tree reaching it
    ends the search). Each test costs ``penalty`` besides its errors (``search``'s
    lexicographic cost). Pair counts answer when their predicted work is below that of sweeps
    over ``sweep_fraction`` of the root thresholds, at least ``sweep_min`` of them.

    Returns (cost, exact, tree, evaluations, by_pairs): when ``exact``, ``cost`` is the
    node's optimum and ``tree`` (int64, ``TREE_FIELDS``) one optimal tree (pair counts always
    give it, the sweeps when it costs less than ``upper``); otherwise no tree costs less than
    ``upper`` and ``cost`` is ``upper`` (a lower bound). ``evaluations``: passes over the
    node's rows (sweeps: root thresholds evaluated and block passes) or (root, child) pairs
    (pair counts) evaluated; ``by_pairs``: which mode ran. Blocks (``depth2_blocks``) bound
    the sweeps on nodes of ``block_rows`` rows or more, at least ``blocks`` of them per root
    feature (``depth2_blocks.block_count``; and ``fine`` more in a second pass; 0: none).

    ``max_evaluations`` (>= 0; -1: none) caps the sweeps' passes over the node's rows, which
    read no clock: a solve that would pass it returns at once with ``evaluations`` =
    ``ABORTED``, so that a caller with a deadline can size the cap from the time left and
    stop instead of overrunning it. ``max_pair_work`` (>= 0; -1: none) caps the pair counts
    the same way, in ``pair_counts_work``'s units (``ABORTED``, ``by_pairs`` True).
    """
    n_features, m = order.shape
    values = _local_values(order, rank)
    thresholds = 0
    for v in values:
        thresholds += max(v - 1, 0)
    sweeps = max(sweep_min, sweep_fraction * thresholds)
    if _pair_counts_work(m, values, n_classes) < sweeps * m * n_features:
        cost, tree, evaluations = _depth2_from_pair_counts(order, rank, y, w, n_classes,
                                                           penalty, tol, max_pair_work)
        if evaluations < 0:
            return upper, False, tree, ABORTED, True
        return cost, True, tree, evaluations, True
    cost, found, tree, evaluations = _depth2_by_sweeps(order, rank, y, w, n_classes, upper,
                                                       lower, tol, penalty, block_rows, blocks,
                                                       fine, max_evaluations)
    return cost, found, tree, evaluations, False


@njit(cache=True)
def _depth2_by_sweeps(order, rank, y, w, n_classes, upper, lower, tol, penalty, block_rows,
                      blocks, fine, max_evaluations):
    """``best_depth2`` by sweeps: (cost, found, tree, evaluations); a root feature's
    thresholds are first bounded by blocks (``depth2_blocks``) on nodes of ``block_rows``
    rows or more; evaluations ``ABORTED`` when a pass would exceed ``max_evaluations``."""
    n_features, m = order.shape
    tree = np.full(len(TREE_FIELDS), -1, dtype=np.int64)
    ids, ranks, labels, weights, keys = _node_columns(order, rank, y, w, n_classes)
    label_bits, id_bits = _key_layout(m, n_classes, rank.shape[1] + 1)
    node_totals = np.zeros(n_classes)
    for p in range(m):
        node_totals[labels[0, p]] += weights[0, p]
    leaf, label = _leaf(node_totals)
    best, found = upper, False
    if leaf < best - tol:
        best, found = leaf, True
        tree[10] = label
    if best <= lower + tol:
        return best, found, tree, 0
    evaluations = 0
    low = np.empty(m)
    high = np.empty(m)
    side = np.empty(m, dtype=np.uint8)
    per_feature = block_count(m, blocks)
    totals = np.zeros((max(per_feature, fine, 2) + 1, n_classes))
    sides = np.empty((max(per_feature, fine, 2) + 1, 4), dtype=np.int64)
    weight = node_totals.sum()
    stack = np.empty((2 * m + 4, 4), dtype=np.int64)
    start, errors = _best_single_tests(ranks, labels, weights, node_totals, n_classes)
    features = np.argsort(errors)
    for f in features:
        if start[f] < 0:
            continue
        positions, before = _feature_candidates(ranks[f], weights[f])
        kept, last = end_run_cuts(ranks[f], labels[f])     # none inside an end run
        positions, before = positions[kept:last + 1], before[kept:last + 1]
        n = len(positions)
        if n == 0:
            continue
        starts, block_errors = np.zeros(2, dtype=np.int64), np.zeros(1)   # no blocks
        fine_starts, fine_errors = starts, block_errors
        if per_feature > 0 and m >= block_rows and n >= 2 * per_feature:
            if 0 <= max_evaluations < evaluations + 2:
                return best, False, tree, ABORTED
            starts, block_errors = _blocks(positions, before, weight, per_feature, ids[f],
                                           labels[f], weights[f], keys, label_bits, id_bits,
                                           weights, features, side, totals, tol, sides)
            evaluations += 1
            if block_bound(starts, block_errors, -1, -1, 0, n - 1) + penalty >= best - tol:
                continue
            if fine > 0 and n >= 2 * fine:
                fine_starts, fine_errors = _blocks(positions, before, weight, fine, ids[f],
                                            labels[f], weights[f], keys, label_bits, id_bits,
                                            weights, features, side, totals, tol, sides)
                evaluations += 1
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n - 1, -1, -1
        top = 1
        first = True
        while top > 0:
            top -= 1
            lo, hi, a, b = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if a >= 0:                                   # neighbourhood of the left one
                gap = low[a] + high[a] + penalty - best
                while lo <= hi and before[lo] - before[a] <= gap - tol:
                    lo += 1
            if b >= 0:                                   # and of the right one
                gap = low[b] + high[b] + penalty - best
                while hi >= lo and before[b] - before[hi] <= gap - tol:
                    hi -= 1
            if lo > hi:
                continue
            # sub-interval pruning, with each side moved by at most the weight between
            bound = range_bound(low[a] if a >= 0 else 0.0, high[a] if a >= 0 else -np.inf,
                                before[a] if a >= 0 else 0.0,
                                low[b] if b >= 0 else -np.inf, high[b] if b >= 0 else 0.0,
                                before[b] if b >= 0 else 0.0, before[lo], before[hi])
            bound = max(bound, (low[a] if a >= 0 else 0.0) + (high[b] if b >= 0 else 0.0)
                        + max(block_bound(starts, block_errors, a, b, lo, hi),
                              block_bound(fine_starts, fine_errors, a, b, lo, hi)))
            if bound + penalty >= best - tol:
                continue
            if 0 <= max_evaluations <= evaluations:
                return best, False, tree, ABORTED
            mid = min(max(start[f] - kept, 0), n - 1) if first else (lo + hi) // 2
            first = False
            split = positions[mid]
            totals[:] = 0.0
            for p in range(m):
                s = np.uint8(p >= split)
                side[ids[f, p]] = s
                totals[s, labels[f, p]] += weights[f, p]
            low[mid], high[mid] = _best_tests_of_sides(keys, label_bits, id_bits, weights,
                                                       features, side, totals[:3], tol,
                                                       sides, penalty)
            evaluations += 1
            cost = low[mid] + high[mid] + penalty
            if cost < best - tol:
                best, found = cost, True
                tree[0], tree[1] = f, ranks[f, split]
                tree[2], tree[3], tree[4], tree[5] = sides[0, 0], sides[0, 1], sides[0, 2], \
                    sides[0, 3]
                tree[6], tree[7], tree[8], tree[9] = sides[1, 0], sides[1, 1], sides[1, 2], \
                    sides[1, 3]
                if best <= lower + tol:
                    return best, found, tree, evaluations
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = lo, mid - 1, a, mid
            stack[top + 1, 0], stack[top + 1, 1] = mid + 1, hi
            stack[top + 1, 2], stack[top + 1, 3] = mid, b
            top += 2
    return best, found, tree, evaluations


@njit(cache=True)
def _blocks(positions, before, weight, k, ids, labels, row_weights, keys, label_bits,
            id_bits, weights, features, side, totals, tol, sides):
    """(starts, depth-1 optima) of about ``k`` blocks of one root feature (``depth2_blocks``)
    from one pass over the node's rows."""
    starts = block_starts(before, weight, k)
    k = starts.shape[0] - 1
    block_sides(positions, starts, ids, side, ids.shape[0])
    totals[:] = 0.0
    for p in range(ids.shape[0]):
        totals[side[ids[p]], labels[p]] += row_weights[p]
    return starts, _best_tests_of_sides(keys, label_bits, id_bits, weights, features, side,
                                        totals[:k + 1], tol, sides, 0.0, k)


@njit(cache=True)
def relabelled(tree, rows, rank, y, w, n_classes, penalty):
    """The tests of a depth-2 tree (``TREE_FIELDS``, as ``best_depth2`` returns it) on the
    rows ``rows``, each leaf relabelled to its heaviest class there: (its cost, that tree).
    A tree, so its cost bounds the rows' optimum from above (``search`` starts the sweeps of
    a child from the tree of the same side of a nearby root threshold)."""
    out = tree.copy()
    counts = np.zeros((4, n_classes))
    tests = 0
    if tree[0] >= 0:
        tests = 1 + int(tree[2] >= 0) + int(tree[6] >= 0)
    for r in rows:
        leaf = 0
        if tree[0] >= 0:
            side = 4 * int(rank[tree[0], r] >= tree[1])
            if tree[2 + side] >= 0 and rank[tree[2 + side], r] >= tree[3 + side]:
                leaf = 1
            leaf += side // 2
        counts[leaf, y[r]] += w[r]
    cost = float(tests) * penalty
    for leaf in range(4):
        errors, label = _leaf(counts[leaf])
        cost += errors
        if tree[0] < 0:
            if leaf == 0:
                out[10] = label
        else:
            out[4 + (leaf // 2) * 4 + leaf % 2] = label
            if tree[2 + (leaf // 2) * 4] < 0 and leaf % 2 == 0:
                out[5 + (leaf // 2) * 4] = label
    return cost, out


def warm_up() -> None:
    """Compile (or load) every kernel of the ordered search (``solve.warm_kernels``): this
    module is the family "dtmax-ordered" of ``trees.compiling.kernel_cache``."""
    from occamlearn.trees.dtmax.ordered.solve import warm_kernels

    warm_kernels()


# numba keys its cache to this file alone: also to the modules whose kernels these call
key_cache_to_sources(__name__)
