"""Block bounds inside the depth-2 sweeps: a root feature's thresholds bounded, before any of
them is evaluated, by the depth-1 optima of the blocks of rows between them.

The argument is ``blocks``' (superadditivity), one level down. At a depth-2 node the children
are trees of depth <= 1. Cut a root feature f's candidate thresholds t_0 < ... < t_{n-1} into
consecutive blocks at candidate indices c_0 = 0 < c_1 < ... < c_K = n: block j holds the node's
rows whose rank lies in [t_{c_j}, t_{c_{j+1}}) (t_n standing for "above every value"). Let
``E(B)`` be the fewest weighted errors of a tree of depth <= 1 on the rows B, with no penalty.
For candidate indices a < i < b (a = -1: no rows below, L = 0; b = -1: no rows above, H = 0),
the rows below t_i hold those below t_a and every block with c_j >= a and c_{j+1} <= i, and the
rows at or above t_i hold those at or above t_b and every block with c_j >= i and c_{j+1} <= b.
The best tree of a set restricted to disjoint parts of it is a tree of each part, so (S the sum
of ``E`` over the blocks between a and b, M the largest of those a threshold of [lo, hi] can
cut: c_j < hi and c_{j+1} > lo) every root test on f at a threshold of [lo, hi] costs at least

    L(a) + H(b) + S - M + penalty,

as at most one block is cut and the others each lie wholly on one side.

Why it pays here: all K blocks' ``E`` come from *one* pass over the node's sorted rows (each
row's side is its block, ``depth2._best_tests_of_sides`` with K sides), the cost of evaluating
one root threshold. On a feature that splits the node no better than a random cut the blocks
are random samples and their optima add up to nearly the node's depth-1 optimum, above the
best depth-2 tree, so the feature is ruled out by one pass, where the sub-interval bound needs
several threshold evaluations (make_classification 20,000 x 20 at depth 3: 62,280 -> 43,788
passes over the depth-2 nodes' rows to the same proof, ``benchmarks/results/dtmax_depth3_ab5.md``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["BLOCKS", "BLOCK_ROWS", "BLOCK_SIZE", "FINE", "block_bound", "block_count",
           "block_sides", "block_starts"]

# Blocks per root feature, and the fewest node rows (with at least 2 * BLOCKS candidate
# thresholds on the feature) for which the sweeps compute them. ``FINE``: blocks of a second,
# finer pass on a feature the first does not rule out (0: none); on the depth-2 solves of
# make_classification 5,000 x 20 at depth 3, 32 fine blocks cut 4 % of the rows passed over
# but not the CPU (the pass with 33 sides is slower than one with 3), so it is off.
BLOCKS = 8
BLOCK_ROWS = 256
FINE = 0
# Rows a block is cut to on large nodes (``block_count``): on the depth-2 solves of
# make_classification 20,000 x 20 at depth 3 (6,400-row children), 16 blocks a feature took
# 0.83-0.88 of the CPU of 8 (rows passed over 0.91), 24 and 32 about as 16; on 1,600-row
# children 8, 12 and 16 took about the same.
BLOCK_SIZE = 400


@njit(cache=True)
def block_count(m, least):
    """Blocks per root feature on a node of ``m`` rows: ``least``, or blocks of about
    ``BLOCK_SIZE`` rows where that makes more, at most ``4 * least``."""
    if m < least * BLOCK_SIZE:
        return least
    return min(m // BLOCK_SIZE, 4 * least)


@njit(cache=True)
def block_starts(before, total, k):
    """Candidate indices c_0 = 0 < ... < c_K = n cutting the weight from the first threshold
    to the end (``before[i]``: weight of the rows below threshold i, ``total`` of all rows)
    into about ``k`` equal parts (fewer where a value's rows are heavier than a part)."""
    n = before.shape[0]
    starts = np.empty(k + 1, dtype=np.int64)
    starts[0] = 0
    count, i = 1, 0
    step = (total - before[0]) / k
    for j in range(1, k):
        target = before[0] + step * j
        while i < n and before[i] < target:
            i += 1
        if i >= n:
            break
        if i > starts[count - 1]:
            starts[count] = i
            count += 1
    starts[count] = n
    return starts[:count + 1]


@njit(cache=True)
def block_sides(positions, starts, ids, side, m):
    """``side[local id]`` of each row of the node: its block (rows sorted by the feature at
    positions 0 .. m - 1, ``positions[i]`` where threshold i's value starts), or the number of
    blocks for rows below the first threshold (in no block)."""
    k = starts.shape[0] - 1
    block = 0
    edge = positions[starts[1]] if k > 1 else m
    for p in range(m):
        if p < positions[0]:
            side[ids[p]] = k
            continue
        while p >= edge:
            block += 1
            edge = positions[starts[block + 1]] if block + 1 < k else m
        side[ids[p]] = block


@njit(cache=True)
def block_bound(starts, errors, a, b, lo, hi):
    """S - M of the module doc for thresholds ``lo..hi`` between candidate indices a and b
    (-1: no end), from the blocks ``starts`` and their depth-1 optima ``errors``."""
    k = starts.shape[0] - 1
    low_end = max(a, 0)
    high_end = starts[k] if b < 0 else b
    total, largest = 0.0, 0.0
    for j in range(k):
        if starts[j] >= low_end and starts[j + 1] <= high_end:
            total += errors[j]
            if starts[j] < hi and starts[j + 1] > lo and errors[j] > largest:
                largest = errors[j]
    return total - largest
