"""Trees of the exact searches as nested tuples, rebuilt from their memo.

A search stores, per row set, only what its best tree does at the top: a leaf, or a split
column and the keys under which its two children's best trees are stored (a leaf count for
the error-budget search, nothing for the pure search). ``rebuild`` follows those entries down
to a nested tuple -- ``("leaf", class)`` or ``(feature, zero_side, one_side)`` -- which
``model.tree.Tree.from_nested`` turns into a ``Tree``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["rebuild", "tree_of_greedy"]


def rebuild(rows: int, key, columns: Sequence[int], features: Sequence[int],
            decide: Callable[[int, object], tuple]) -> tuple:
    """The nested tree of ``rows``: ``decide(rows, key)`` is ``("leaf", class)`` or
    ``(index, zero_key, one_key)``, a split on ``columns[index]`` (original column
    ``features[index]``) whose children are rebuilt with their keys."""
    found = decide(rows, key)
    if found[0] == "leaf":
        return found
    index, zero_key, one_key = found
    one_side = rows & columns[index]
    return (features[index], rebuild(rows ^ one_side, zero_key, columns, features, decide),
            rebuild(one_side, one_key, columns, features, decide))


def tree_of_greedy(node: tuple, features: Sequence[int], label_of: Callable[[int], int]):
    """The nested tree of a ``splits.greedy_tree`` node."""
    if len(node) == 1:
        return ("leaf", label_of(node[0]))
    _, index, zero_side, one_side = node
    return (features[index], tree_of_greedy(zero_side, features, label_of),
            tree_of_greedy(one_side, features, label_of))
