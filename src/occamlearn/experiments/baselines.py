"""The scikit-learn baselines of Table 6 (Sec. 9.2): psk, lsk and ask.

Each baseline returns *candidate* trees learned on the fixed training part; the Table 6 runner
picks one per random selection/test split exactly as for the MaxSAT methods. Following the
paper, the candidates differ by ``random_state`` (scikit-learn breaks ties between equally good
splits at random, which on binary features happens often):

* ``psk`` -- ``DecisionTreeClassifier`` grown until every leaf is pure;
* ``lsk`` -- the same, limited to the minimum pure tree's number of leaves (``max_leaf_nodes``),
  so it has the MPDT size but need not be pure;
* ``ask`` -- every size from 3 nodes up to the largest psk tree (``max_leaf_nodes`` 2, 3, ...),
  each with the same seeds, so it sees many more trees than the other methods.

Identical trees from different seeds are kept once (the selection step draws uniformly among
the best candidates, so duplicates would weight it).
"""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

__all__ = ["BASELINES", "Candidates", "all_sizes_sklearn", "limited_sklearn", "pure_sklearn"]


class Candidates:
    """Fitted candidate predictors and their sizes (decision nodes + leaves)."""

    def __init__(self):
        self.predictors, self.sizes, self._seen = [], [], set()

    def add(self, tree: DecisionTreeClassifier) -> None:
        t = tree.tree_
        key = (t.feature.tobytes(), t.children_left.tobytes(), t.threshold.tobytes(),
               np.argmax(t.value, axis=-1).tobytes())
        if key not in self._seen:
            self._seen.add(key)
            self.predictors.append(tree)
            self.sizes.append(int(t.node_count))

    def __len__(self) -> int:
        return len(self.predictors)


def _fit(X, y, seed: int, max_leaf_nodes=None) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(random_state=seed, max_leaf_nodes=max_leaf_nodes).fit(X, y)


def _check_seeds(n_seeds) -> int:
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds must be a positive integer; got {n_seeds!r}")
    return int(n_seeds)


def pure_sklearn(X, y, n_seeds: int, **_) -> Candidates:
    """psk: trees grown until pure, one per seed 0..n_seeds-1."""
    out = Candidates()
    for seed in range(_check_seeds(n_seeds)):
        out.add(_fit(X, y, seed))
    return out


def limited_sklearn(X, y, n_seeds: int, *, minimum_size: int, **_) -> Candidates:
    """lsk: trees with at most the minimum pure tree's leaves, ``(minimum_size + 1) // 2``."""
    if minimum_size < 3:
        raise ValueError(f"minimum_size must be at least 3 nodes; got {minimum_size!r}")
    out = Candidates()
    for seed in range(_check_seeds(n_seeds)):
        out.add(_fit(X, y, seed, max_leaf_nodes=(minimum_size + 1) // 2))
    return out


def all_sizes_sklearn(X, y, n_seeds: int, **_) -> Candidates:
    """ask: every size from 3 nodes to the largest psk tree, ``n_seeds`` seeds each."""
    n_seeds = _check_seeds(n_seeds)
    largest = max(_fit(X, y, seed).get_n_leaves() for seed in range(n_seeds))
    out = Candidates()
    for leaves in range(2, max(largest, 2) + 1):
        for seed in range(n_seeds):
            out.add(_fit(X, y, seed, max_leaf_nodes=leaves))
    return out


BASELINES = {
    "psk": pure_sklearn,
    "lsk": limited_sklearn,
    "ask": all_sizes_sklearn,
}
