"""Turn a solved complete tree (DT(max) encoding) into a compact ``Tree``.

The encoding fixes a complete topology of depth d, so a solution usually contains tests that
change nothing on the training data. Two rewrites remove them; neither changes the class of
any training row:

* a test whose two subtrees are single leaves with the same class becomes that leaf (applied
  bottom-up, so a whole single-class subtree becomes one leaf);
* a test that sends no training row one way is replaced by the subtree on the other side.

The children of a node testing a complemented column (see ``dtmax_data``) are swapped, so the
tree tests the original column with the usual convention: value 0 left, value 1 right.
"""

from __future__ import annotations

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.trees.exact.data import ExampleGroups

__all__ = ["decode_complete_tree", "embed_in_complete_tree", "tree_of_nested"]


def _rows_per_node(depth: int, column: np.ndarray, flipped: np.ndarray,
                   groups: ExampleGroups) -> np.ndarray:
    """Training rows reaching each node (heap order) of the complete tree."""
    n_internal = 2 ** depth - 1
    weight = np.zeros(groups.n_patterns, dtype=np.int64)
    np.add.at(weight, groups.pattern, groups.count)
    reached = np.zeros(2 * n_internal + 1, dtype=np.int64)
    node = np.zeros(groups.n_patterns, dtype=np.int64)
    reached[0] = weight.sum()
    rows = np.arange(groups.n_patterns)
    for _ in range(depth):
        goes_right = groups.patterns[rows, column[node]].astype(bool) ^ flipped[node]
        node = 2 * node + 1 + goes_right
        np.add.at(reached, node, weight)
    return reached


def decode_complete_tree(*, depth: int, column: np.ndarray, flipped: np.ndarray,
                         leaf_class: np.ndarray, groups: ExampleGroups, n_classes: int,
                         n_features: int, feature_names=()) -> Tree:
    """Compact ``Tree`` of a complete tree given per internal node (heap order) the original
    ``column`` it tests and whether the encoding complemented it, and the class of each leaf."""
    n_internal = 2 ** depth - 1
    reached = _rows_per_node(depth, column, flipped, groups)

    def compact(node: int):
        if node >= n_internal:
            return ("leaf", int(leaf_class[node - n_internal]))
        zero_side, one_side = 2 * node + 1, 2 * node + 2
        if flipped[node]:
            zero_side, one_side = one_side, zero_side
        if reached[zero_side] == 0 and reached[node] > 0:
            return compact(one_side)
        if reached[one_side] == 0:
            return compact(zero_side)
        left, right = compact(zero_side), compact(one_side)
        if left[0] == "leaf" and left == right:
            return left
        return ("test", int(column[node]), left, right)

    return tree_of_nested(compact(0), groups, n_classes, n_features, feature_names)


def tree_of_nested(subtree: tuple, groups: ExampleGroups, n_classes: int, n_features: int,
                   feature_names=()) -> Tree:
    """``Tree`` of a nested ``("leaf", class)`` / ``("test", column, zero_side, one_side)``
    over the original columns, with training counts from ``groups``."""
    tree = Tree.from_nested(subtree, n_features, n_classes, feature_names)
    return tree.with_counts(*groups.rows())


def embed_in_complete_tree(tree: Tree, depth: int):
    """``(column, flipped, leaf_class)`` of ``tree`` (depth <= ``depth``) laid out as the
    complete tree of depth ``depth``: a leaf above the last level fills its subtree with tests
    of column 0 and leaves of its class. ``decode_complete_tree`` of the result compacts it."""
    if tree.depth > depth:
        raise ValueError(f"tree has depth {tree.depth}, more than depth={depth}.")
    n_internal = 2 ** depth - 1
    column = np.zeros(n_internal, dtype=np.int64)
    leaf_class = np.zeros(2 ** depth, dtype=np.int64)
    stack = [(0, 0)]                                   # (complete-tree node, tree node)
    while stack:
        slot, node = stack.pop()
        if slot >= n_internal:
            leaf_class[slot - n_internal] = tree.label[node]
        elif tree.is_leaf[node]:
            stack += [(2 * slot + 1, node), (2 * slot + 2, node)]
        else:
            column[slot] = tree.feature[node]
            stack += [(2 * slot + 1, int(tree.left[node])), (2 * slot + 2, int(tree.right[node]))]
    return column, np.zeros(n_internal, dtype=bool), leaf_class
