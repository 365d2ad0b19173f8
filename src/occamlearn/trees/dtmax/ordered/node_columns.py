"""The rows of a depth-2 node laid out for the sweeps of ``depth2``, and the per-feature facts
the sweeps start from (each value's first position, the best single test).

Why a layout of its own: the pass of ``depth2._best_tests_of_sides`` is the innermost loop of
every search of depth >= 2 (about 90 % of the time). Reading it through the data's global
arrays (``rank[g, row]``, ``y[row]``, ``w[row]`` for the row ids in ``order[g]``) costs four
scattered loads per row; ``_node_columns`` copies the node's rows once per call into
per-feature arrays in sorted order (row's local id, rank, class, weight, and the packed key of
rank, local id and class), so the pass reads two of them in sequence and only the side of the
row (one byte per node row) by id. The copy is O(rows x features), paid once per call against
the hundreds of root tests a call tries.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.trees.dtmax.ordered.kernels import _split_errors

__all__: list[str] = []        # compiled into ``depth2.best_depth2``, its one public kernel


@njit(cache=True)
def _bits(n):
    """How many bits hold the numbers 0 .. n - 1 (at least one)."""
    bits = 1
    while (1 << bits) < n:
        bits += 1
    return bits


@njit(cache=True)
def _node_columns(order, rank, y, w, n_classes):
    """The node's rows for sequential passes: for feature g and position p of ``order[g]``,
    ``ids[g, p]`` the row's local id (its position in ``order[0]``), ``ranks``, ``labels``
    and ``weights`` of that row (of ``w``'s type: whole weights as int64 make the running
    counts integer additions, about 10 % faster than floats), and ``keys[g, p]``: its rank,
    local id and label in one int64 (``_key_layout``), so that the pass of
    ``_best_tests_of_sides`` reads two arrays a row instead of four (10-20 % less time a
    pass on a 6,400-row node of make_classification 20,000 x 20)."""
    n_features, m = order.shape
    local = np.empty(rank.shape[1], dtype=np.int32)
    for p in range(m):
        local[order[0, p]] = p
    label_bits, id_bits = _key_layout(m, n_classes, rank.shape[1] + 1)
    ids = np.empty((n_features, m), dtype=np.int32)
    ranks = np.empty((n_features, m), dtype=np.int32)
    labels = np.empty((n_features, m), dtype=np.int32)
    weights = np.empty((n_features, m), dtype=w.dtype)
    keys = np.empty((n_features, m), dtype=np.int64)
    for g in range(n_features):
        column = rank[g]
        for p in range(m):
            r = order[g, p]
            ids[g, p] = local[r]
            ranks[g, p] = column[r]
            labels[g, p] = y[r]
            weights[g, p] = w[r]
            keys[g, p] = (np.int64(column[r]) << (label_bits + id_bits)) \
                | (np.int64(local[r]) << label_bits) | y[r]
    return ids, ranks, labels, weights, keys


@njit(cache=True)
def _key_layout(m, n_classes, n_values):
    """(label bits, id bits) of a node's keys: label in the low bits, the local id above it,
    the rank (below ``n_values``) in the top bits; they fit an int64 while the three widths
    add up to 63 (tables below 2**28 rows with up to 128 classes always do)."""
    label_bits, id_bits = _bits(n_classes), _bits(m)
    if label_bits + id_bits + _bits(n_values) > 63:
        raise ValueError("a node's rank, row and class do not fit 63 bits: too many rows "
                         "or classes for the depth-2 solver")
    return label_bits, id_bits


@njit(cache=True)
def _feature_candidates(ranks, weights):
    """Of one sorted column: the positions where a new value starts (each a threshold that
    splits the node) and ``before[i]``, the weight of the rows below position i."""
    m = ranks.shape[0]
    positions = np.empty(m, dtype=np.int64)
    before = np.empty(m)
    n, cum = 0, 0.0
    for p in range(m):
        if p > 0 and ranks[p] != ranks[p - 1]:
            positions[n] = p
            before[n] = cum
            n += 1
        cum += weights[p]
    return positions[:n], before[:n]


@njit(cache=True)
def _best_single_tests(ranks, labels, weights, totals, n_classes):
    """For each feature, the candidate index of its single test with the fewest errors (-1 if
    the feature does not split the node) and those errors."""
    n_features, m = ranks.shape
    position = np.full(n_features, -1, dtype=np.int64)
    errors = np.full(n_features, np.inf)
    acc = np.zeros(n_classes)
    for f in range(n_features):
        acc[:] = 0.0
        n = 0
        for p in range(m):
            if p > 0 and ranks[f, p] != ranks[f, p - 1]:
                low_e, high_e, a, b = _split_errors(acc, totals, n_classes)
                if low_e + high_e < errors[f]:
                    errors[f], position[f] = low_e + high_e, n
                n += 1
            acc[labels[f, p]] += weights[f, p]
    return position, errors
