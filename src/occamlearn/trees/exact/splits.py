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
    (the greedy start on 100,000 rows x 320 columns took a minute that way)."""
    matrix = np.asarray(matrix)
    weights = np.asarray(weights, dtype=np.float64)
    bit_start = np.asarray(bit_start, dtype=np.int64)
    n_bytes = (int(bit_start[-1]) + 7) // 8
    everything = np.arange(matrix.shape[0]) if patterns is None \
        else np.asarray(patterns, dtype=np.int64)
    count = _counter(matrix, weights)
    tops: dict[int, tuple] = {}  # node id -> (index, zero id, one id), leaves absent
    leaf_rows: dict[int, np.ndarray] = {}  # leaf id -> its patterns
    total = weights[everything].sum(axis=0)
    pending = [(0, everything, total, count(everything) if _splittable(total) else None)]
    next_id = 1
    while pending:
        node, patterns, total, ones = pending.pop()
        index = -1 if ones is None else _best_split(ones, total)
        if index < 0:
            leaf_rows[node] = patterns
            continue
        one_mask = matrix[patterns, index] == 1
        sides = [(patterns[~one_mask], total - ones[index]), (patterns[one_mask], ones[index])]
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
        pending += [(next_id + 1, *sides[1], counts[1]), (next_id, *sides[0], counts[0])]
        next_id += 2
    return _nested(0, tops, leaf_rows, bit_start, n_bytes)


def _splittable(total) -> bool:
    """Whether a node with class weights ``total`` holds more than one class."""
    return np.count_nonzero(total) > 1


# Rows per block of the count's matrix product: its float copy stays about 10 MB.
COUNT_BLOCK_CELLS = 1 << 20


def _counter(matrix, weights):
    """``count(patterns)``: the (columns, classes) weight of the ``patterns`` with a 1 in
    each column. With weights 0 or 1 (the pure searches, unweighted rows) a count of the 1s
    among each class's patterns (``count_nonzero`` of a bool block: several times faster
    than a float product), else a float product in blocks (float32 sums whole numbers
    exactly below 2**24)."""
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


def _side_entropy(counts) -> np.ndarray:
    """``entropy`` of each row of ``counts`` (one side per column)."""
    sums = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log2(counts / sums), 0.0)
    return -terms.sum(axis=1)


def _best_split(ones, total) -> int:
    """The column of least summed side entropy among those splitting the node (-1: none),
    the lowest of those within 1e-12 of the least."""
    one_weight = ones.sum(axis=1)
    splits = (one_weight > 0) & (one_weight < total.sum())
    if not splits.any():
        return -1
    value = np.where(splits, _side_entropy(ones) + _side_entropy(total - ones), np.inf)
    return int(np.flatnonzero(value <= value.min() + 1e-12)[0])


def _nested(root: int, tops: dict, leaf_rows: dict, bit_start, n_bytes: int):
    """The nested tuples of ``greedy_tree``, each node's bitset built once: a leaf's from its
    patterns' bits, a test's as the union of its children's (children first)."""
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
            built[node] = (_bitset_of(leaf_rows[node], bit_start, n_bytes),)
    return built[root]


def _bitset_of(patterns, bit_start, n_bytes: int) -> int:
    """The row set holding every bit of ``patterns``."""
    starts, stops = bit_start[patterns], bit_start[patterns + 1]
    lengths = stops - starts
    bits = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    buffer = np.zeros(n_bytes, dtype=np.uint8)
    np.bitwise_or.at(buffer, bits >> 3, (1 << (bits & 7)).astype(np.uint8))
    return int.from_bytes(buffer.tobytes(), "little")
