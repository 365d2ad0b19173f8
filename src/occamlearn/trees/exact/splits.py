"""Splits of a row set over bitset columns, each partition once, and the greedy start.

A row set is a Python int whose bits are rows (distinct rows for the pure search, (row,
class) groups for the searches that count errors); a column is the bitset of the rows where
it is 1. ``distinct_splits`` gives every split that separates the set, once per partition:
two columns equal on the set, or complementary on it, split it identically (the complement
with the children swapped). ``greedy_tree`` is the incumbent of the branch and bound
searches: information gain, ties to the lowest column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["distinct_splits", "entropy", "greedy_tree"]


def distinct_splits(rows: int, columns: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    """``(index, zero_side, one_side)`` for each column splitting ``rows`` into two non-empty
    sides, one column per partition (the first)."""
    seen = set()
    for index, column in enumerate(columns):
        one_side = rows & column
        if not one_side or one_side == rows or one_side in seen:
            continue
        zero_side = rows ^ one_side
        seen.add(zero_side)
        seen.add(one_side)
        yield index, zero_side, one_side


def entropy(weights) -> float:
    """Total entropy ``n * H(class)`` of class weights (n their sum)."""
    weights = np.asarray(weights, dtype=float)
    weights = weights[weights > 0]
    return float(-(weights * np.log2(weights / weights.sum())).sum())


def greedy_tree(matrix: np.ndarray, weights: np.ndarray, bit_start: np.ndarray,
                patterns: np.ndarray | None = None):
    """An information-gain tree over the patterns of a search, grown until each leaf holds one
    class (or patterns no column splits): nested ``(rows,)`` leaves and ``(rows, index,
    zero_side, one_side)`` tests, ``rows`` the node's row set as the search's bitset and
    ``index`` a column of ``matrix``. The split of a node minimises the summed entropy
    ``n * H(class)`` of its two sides (``entropy``), ties to the lowest column.

    ``matrix`` (patterns x columns, 0/1) holds the search's columns, ``weights`` (patterns x
    classes) the class weights of each pattern, and pattern p owns the bits
    ``bit_start[p]`` to ``bit_start[p + 1] - 1`` of a row set (every set a tree makes holds
    whole patterns). ``patterns``: the patterns of the row set to grow the tree on (all by
    default).

    Why not over bitsets: a node's class counts per column cost one pass over its patterns
    (a matrix product), and only the smaller child is counted, the other being its parent
    minus it, so each pattern is counted in at most log2(patterns) nodes: O(P log P x C)
    for P patterns and C columns, against O(nodes x C) bitset operations of P bits each
    (the greedy start on 100,000 rows x 320 columns took a minute that way). The nodes of
    one depth choose their splits together (``_grow``), which spares numpy's per-call cost
    on the many small nodes of small tables; the choice of each node is the same."""
    matrix = np.asarray(matrix)
    weights = np.asarray(weights, dtype=np.float64)
    bit_start = np.asarray(bit_start, dtype=np.int64)
    everything = np.arange(matrix.shape[0]) if patterns is None \
        else np.asarray(patterns, dtype=np.int64)
    count = _counter(matrix, weights)
    tops: dict[int, tuple] = {}  # node id -> (index, zero id, one id), leaves absent
    leaf_rows: dict[int, np.ndarray] = {}  # leaf id -> its patterns
    total = weights[everything].sum(axis=0)
    pending = [(0, everything, total, count(everything) if _splittable(total) else None)]
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0: masked in _best_split
        _grow(pending, matrix, count, tops, leaf_rows)
    return _nested(0, tops, leaf_rows, _bitset_builder(bit_start))


def _grow(pending: list, matrix, count, tops: dict, leaf_rows: dict) -> None:
    """Split the ``pending`` nodes of ``greedy_tree`` down to leaves (ids from 1 up), one
    depth at a time: the best splits of a depth's nodes are chosen together
    (``_best_splits``), so numpy's per-call cost is paid per depth, not per node."""
    next_id = 1
    while pending:
        growing = [item for item in pending if item[3] is not None]
        chosen = dict(zip((item[0] for item in growing),
                          _best_splits([item[3] for item in growing],
                                       [item[2] for item in growing]), strict=True))
        deeper = []
        for node, patterns, total, ones in pending:
            index = chosen.get(node, -1)
            if index < 0:
                leaf_rows[node] = patterns
                continue
            one_mask = matrix[patterns, index] == 1
            sides = [(patterns[~one_mask], total - ones[index]),
                     (patterns[one_mask], ones[index])]
            # a side of one class is a leaf and needs no counts; of two sides to count, the
            # smaller is counted and the other is the parent minus it
            wanted = [_splittable(side_total) for _, side_total in sides]
            counts = [None, None]
            if any(wanted):
                small = 0 if len(sides[0][0]) <= len(sides[1][0]) else 1
                counted = small if wanted[small] or wanted[1 - small] else 1 - small
                counts[counted] = count(sides[counted][0])
                if wanted[1 - counted]:
                    counts[1 - counted] = ones - counts[counted]
                counts = [c if w else None for c, w in zip(counts, wanted, strict=True)]
            tops[node] = (index, next_id, next_id + 1)
            deeper += [(next_id, *sides[0], counts[0]), (next_id + 1, *sides[1], counts[1])]
            next_id += 2
        pending = deeper


def _splittable(total) -> bool:
    """Whether a node with class weights ``total`` holds more than one class."""
    return np.count_nonzero(total) > 1


# Rows per block of the count's matrix product: its float copy stays about 10 MB.
COUNT_BLOCK_CELLS = 1 << 20
# A matrix of at most this many cells is counted by one float64 product per node (numpy's
# per-call overhead, not the arithmetic, is then the cost), and a row set of at most
# SMALL_BITS bits is built as a sum of per-pattern Python ints.
SMALL_CELLS = 1 << 14
SMALL_BITS = 1 << 12
SPLIT_BLOCK_CELLS = 1 << 18  # (node, column, class) cells of one block of ``_best_splits``


def _counter(matrix, weights):
    """``count(patterns)``: the (columns, classes) weight of the ``patterns`` with a 1 in
    each column. With weights 0 or 1 (the pure searches, unweighted rows) a count of the 1s
    among each class's patterns (``count_nonzero`` of a bool block: several times faster
    than a float product), else a float product in blocks (float32 sums whole numbers
    exactly below 2**24). A matrix of at most ``SMALL_CELLS`` cells: one float64 product
    per call, whole numbers summed exactly below 2**53. Every way gives the same counts."""
    if matrix.size <= SMALL_CELLS:
        dense = matrix.astype(np.float64)

        def count(patterns):
            return (weights[patterns].T @ dense[patterns]).T
        return count
    ones_only = bool(((weights == 0) | (weights == 1)).all())
    exact = np.float32 if weights.sum() < 2**24 else np.float64
    step = max(1, COUNT_BLOCK_CELLS // max(1, matrix.shape[1]))
    if ones_only:
        members = weights == 1

        def count(patterns):
            return np.stack([np.count_nonzero(matrix[patterns[members[patterns, k]]], axis=0)
                             for k in range(weights.shape[1])], axis=1).astype(np.float64)
        return count

    def count(patterns):
        counts = np.zeros((weights.shape[1], matrix.shape[1]))
        for start in range(0, len(patterns), step):
            block = patterns[start:start + step]
            counts += weights[block].T.astype(exact) @ matrix[block].astype(exact)
        return counts.T
    return count


def _best_splits(ones: list, totals: list) -> list:
    """For each node (its (columns, classes) weights ``ones`` of the rows with a 1 in each
    column, and its class weights ``totals``), the column of least summed side entropy among
    those splitting it (-1: none), the lowest of those within 1e-12 of the least. Each side's
    ``entropy`` is -sum_k c_k log2(c_k / n) over its positive class weights c_k (0 log 0
    masked; the caller ignores numpy's division warnings once per tree), for every side,
    column and node in one array (in blocks of about ``SPLIT_BLOCK_CELLS`` cells, so that
    the half-dozen temporaries of a block stay a few MB each)."""
    n_columns, n_classes = ones[0].shape if ones else (0, 0)
    if n_columns == 0:  # nothing splits
        return [-1] * len(ones)
    step = max(1, SPLIT_BLOCK_CELLS // (n_columns * n_classes))
    chosen = []
    for start in range(0, len(ones), step):
        one = np.stack(ones[start:start + step])  # (node, column, class)
        total = np.stack(totals[start:start + step])[:, None, :]
        one_weight = one.sum(axis=2)
        splits = (one_weight > 0) & (one_weight < total.sum(axis=2))
        sides = np.stack((one, total - one))  # (side, node, column, class)
        terms = np.where(sides > 0, sides * np.log2(sides / sides.sum(axis=3, keepdims=True)),
                         0.0)
        sums = terms.sum(axis=3)
        value = np.where(splits, -sums[0] + -sums[1], np.inf)
        near = value <= value.min(axis=1, keepdims=True) + 1e-12
        chosen += np.where(splits.any(axis=1), near.argmax(axis=1), -1).tolist()
    return chosen


def _nested(root: int, tops: dict, leaf_rows: dict, bitset_of):
    """The nested tuples of ``greedy_tree``, each node's bitset built once: a leaf's from its
    patterns' bits (``bitset_of``), a test's as the union of its children's (children
    first)."""
    built: dict[int, tuple] = {}
    order, stack = [], [root]
    while stack:  # parents before children; built in reverse
        node = stack.pop()
        order.append(node)
        if node in tops:
            stack += tops[node][1:]
    for node in reversed(order):
        if node in tops:
            index, zero, one = tops[node]
            zero_node, one_node = built.pop(zero), built.pop(one)
            built[node] = (zero_node[0] | one_node[0], index, zero_node, one_node)
        else:
            built[node] = (bitset_of(leaf_rows[node]),)
    return built[root]


def _bitset_builder(bit_start):
    """``bitset_of(patterns)``: the row set holding every bit of ``patterns``. Up to
    ``SMALL_BITS`` bits, the sum of the patterns' own bitsets (disjoint, so their union),
    made once; else set in a byte buffer with numpy."""
    n_bits = int(bit_start[-1])
    if n_bits <= SMALL_BITS:
        owned = [((1 << int(stop - start)) - 1) << int(start)
                 for start, stop in zip(bit_start[:-1], bit_start[1:], strict=True)]
        return lambda patterns: sum(map(owned.__getitem__, patterns.tolist()))
    n_bytes = (n_bits + 7) // 8
    return lambda patterns: _bitset_of(patterns, bit_start, n_bytes)


def _bitset_of(patterns, bit_start, n_bytes: int) -> int:
    """The row set holding every bit of ``patterns``."""
    starts, stops = bit_start[patterns], bit_start[patterns + 1]
    lengths = stops - starts
    bits = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    buffer = np.zeros(n_bytes, dtype=np.uint8)
    np.bitwise_or.at(buffer, bits >> 3, (1 << (bits & 7)).astype(np.uint8))
    return int.from_bytes(buffer.tobytes(), "little")
