"""The smallest pruning of a tree within an error budget (``trees.pruning``) against every
pruning, enumerated, on small random trees with weights and three classes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.model.tree import LEAF, Tree
from occamlearn.trees.pruning import smallest_pruning


def _random_tree(rng, n_features: int, depth: int) -> Tree:
    feature, left, right = [], [], []

    def grow(level: int) -> int:
        at = len(feature)
        feature.append(LEAF)
        left.append(-1)
        right.append(-1)
        if level < depth and rng.random() < 0.75:
            feature[at] = int(rng.integers(n_features))
            left[at] = grow(level + 1)
            right[at] = grow(level + 1)
        return at

    grow(0)
    size = len(feature)
    return Tree(np.array(feature), np.array(left), np.array(right),
                np.where(np.array(feature) == LEAF, 0, -1), np.zeros((size, 3), dtype=np.int64),
                n_features)


def _prunings(tree: Tree, node: int = 0):
    """Every pruning below ``node``: (leaves, the leaf nodes of the original tree)."""
    yield [node]
    if not tree.is_leaf[node]:
        for a in _prunings(tree, int(tree.left[node])):
            for b in _prunings(tree, int(tree.right[node])):
                yield a + b


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 12), st.booleans())
def test_smallest_pruning_is_the_fewest_leaves_within_the_budget(seed, budget, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (30, 4))
    y = rng.integers(0, 3, 30)
    weight = rng.integers(1, 4, 30).astype(float) if weighted else None
    w = np.ones(30) if weight is None else weight
    tree = _random_tree(rng, 4, 4).with_counts(X, y)
    reached = {node: np.zeros(3) for node in range(tree.n_nodes)}
    for row in range(30):  # the weight of each class reaching each node
        node = 0
        while True:
            reached[node][y[row]] += w[row]
            if tree.is_leaf[node]:
                break
            node = int(tree.right[node] if X[row, tree.feature[node]] else tree.left[node])
    best = min((len(leaves) for leaves in _prunings(tree)
                if sum(reached[v].sum() - reached[v].max() for v in leaves) <= budget),
               default=None)
    pruned = smallest_pruning(tree, X, y, budget, weight)
    errors = w[pruned.predict(X) != y].sum()
    if best is None:  # no pruning fits: the tree itself comes back
        assert pruned is tree
    else:
        assert pruned.n_leaves == best and errors <= budget + 1e-9


def test_a_passed_deadline_returns_the_tree_unpruned():
    from occamlearn.stopping import Deadline

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 4))
    y = rng.integers(0, 3, 30)
    tree = _random_tree(rng, 4, 4).with_counts(X, y)
    assert smallest_pruning(tree, X, y, 30, deadline=Deadline.after(0)) is tree
    assert smallest_pruning(tree, X, y, 30, deadline=Deadline.after(60)).n_nodes == 1
