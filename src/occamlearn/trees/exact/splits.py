"""Splits of a row set over bitset columns, each partition once, and the greedy start.

A row set is a Python int whose bits are rows (distinct rows for the pure search, (row,
class) groups for the searches that count errors); a column is the bitset of the rows where
it is 1. ``distinct_splits`` gives every split that separates the set, once per partition:
two columns equal on the set, or complementary on it, split it identically (the complement
with the children swapped). ``greedy_tree`` is the incumbent of the branch and bound
searches: information gain, ties to the lowest column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

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


def greedy_tree(rows: int, columns: Sequence[int], class_weights: Callable[[int], list],
                is_leaf: Callable[[int], bool]):
    """An information-gain tree on ``rows``, grown until ``is_leaf``: nested
    ``(rows,)`` leaves and ``(rows, index, zero_side, one_side)`` tests (index into
    ``columns``). A set no column splits is a leaf too."""
    if is_leaf(rows):
        return (rows,)
    best_index, best_entropy = -1, np.inf
    for index, column in enumerate(columns):
        one_side = rows & column
        if not one_side or one_side == rows:
            continue
        value = entropy(class_weights(one_side)) + entropy(class_weights(rows ^ one_side))
        if value < best_entropy - 1e-12:
            best_index, best_entropy = index, value
    if best_index < 0:
        return (rows,)
    one_side = rows & columns[best_index]
    return (rows, best_index, greedy_tree(rows ^ one_side, columns, class_weights, is_leaf),
            greedy_tree(one_side, columns, class_weights, is_leaf))
