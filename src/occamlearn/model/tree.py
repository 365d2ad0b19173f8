"""A fitted binary decision tree as plain, picklable arrays.

Nodes are numbered 0..n-1 with the root at 0. A decision node tests one binary feature:
examples with value 0 go to ``left``, value 1 to ``right`` (the MaxSAT paper's convention:
positive answers go right). Leaves have ``feature == -1`` and carry a class index in
``label``. ``counts[node, k]`` is how many training examples of class k reach the node, so
``predict_proba`` returns leaf class frequencies. The tree holds no solver, pool or formula:
it can be pickled, compared and written to JSON exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["LEAF", "Tree"]

LEAF = -1


def _as_int_array(values) -> np.ndarray:
    array = np.asarray(values, dtype=np.int64).copy()
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Tree:
    """Decision tree over binary features.

    feature, left, right, label : int arrays of length n_nodes (-1 where not applicable)
    counts : (n_nodes, n_classes) int array of training examples per node and class
    n_features : number of binary input features the tree expects
    """

    feature: np.ndarray
    left: np.ndarray
    right: np.ndarray
    label: np.ndarray
    counts: np.ndarray
    n_features: int
    feature_names: tuple = field(default=())

    def __post_init__(self):
        for name in ("feature", "left", "right", "label", "counts"):
            object.__setattr__(self, name, _as_int_array(getattr(self, name)))
        n = len(self.feature)
        if not (len(self.left) == len(self.right) == len(self.label) == n == len(self.counts)):
            raise ValueError("Tree arrays must all have one entry per node.")
        object.__setattr__(self, "feature_names", tuple(self.feature_names))

    # -- structure -----------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def n_classes(self) -> int:
        return self.counts.shape[1]

    @property
    def is_leaf(self) -> np.ndarray:
        return self.feature == LEAF

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def depth(self) -> int:
        """Edges on the longest root-to-leaf path (a single leaf has depth 0)."""
        depths = self.node_depths()
        return int(depths.max()) if len(depths) else 0

    def node_depths(self) -> np.ndarray:
        depths = np.zeros(self.n_nodes, dtype=np.int64)
        for node in self._preorder():
            if not self.is_leaf[node]:
                depths[self.left[node]] = depths[self.right[node]] = depths[node] + 1
        return depths

    def _preorder(self):
        stack = [0]
        while stack:
            node = stack.pop()
            yield node
            if self.feature[node] != LEAF:
                stack.extend((int(self.right[node]), int(self.left[node])))

    def feature_name(self, index: int) -> str:
        if self.feature_names:
            return str(self.feature_names[index])
        return f"x[{index}]"

    # -- prediction ------------------------------------------------------------------------
    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf index reached by each row of the binary matrix ``X``."""
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has shape {X.shape}; this tree expects {self.n_features} binary features."
            )
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        active = ~self.is_leaf[node]
        while active.any():
            idx = rows[active]
            at = node[idx]
            goes_right = X[idx, self.feature[at]] != 0
            node[idx] = np.where(goes_right, self.right[at], self.left[at])
            active = ~self.is_leaf[node]
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class index (into the estimator's ``classes_``) for each row."""
        return self.label[self.apply(X)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Training class frequencies of the leaf each row reaches.

        A leaf no training example reached (possible only in hand-made trees) predicts its
        label with probability 1.
        """
        leaves = self.apply(X)
        counts = self.counts[leaves].astype(float)
        totals = counts.sum(axis=1, keepdims=True)
        empty = totals[:, 0] == 0
        counts[empty, self.label[leaves[empty]]] = 1.0
        totals[empty] = 1.0
        return counts / totals

    def with_counts(self, X: np.ndarray, y: np.ndarray) -> Tree:
        """A copy whose ``counts`` are recomputed from data (``y`` as class indices)."""
        n_classes = self.n_classes
        counts = np.zeros((self.n_nodes, n_classes), dtype=np.int64)
        node = np.zeros(len(y), dtype=np.int64)
        np.add.at(counts, (node, y), 1)
        rows = np.arange(len(y))
        active = ~self.is_leaf[node]
        while active.any():
            idx = rows[active]
            at = node[idx]
            goes_right = np.asarray(X)[idx, self.feature[at]] != 0
            node[idx] = np.where(goes_right, self.right[at], self.left[at])
            np.add.at(counts, (node[idx], y[idx]), 1)
            active = ~self.is_leaf[node]
        return Tree(self.feature, self.left, self.right, self.label, counts,
                    self.n_features, self.feature_names)

    def is_pure_on(self, X: np.ndarray, y: np.ndarray) -> bool:
        """True iff the tree classifies every row of (X, y) correctly."""
        return bool(np.array_equal(self.predict(X), np.asarray(y)))

    # -- identity and serialisation -----------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "feature": self.feature.tolist(),
            "left": self.left.tolist(),
            "right": self.right.tolist(),
            "label": self.label.tolist(),
            "counts": self.counts.tolist(),
            "n_features": int(self.n_features),
            "feature_names": list(self.feature_names),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        counts = np.asarray(data["counts"], dtype=np.int64).reshape(len(data["feature"]), -1)
        return cls(data["feature"], data["left"], data["right"], data["label"], counts,
                   int(data["n_features"]), tuple(data.get("feature_names", ())))

    def structure_key(self) -> tuple:
        """Hashable identity of the tree's shape, tests and leaf labels (not counts)."""
        return (self.feature.tobytes(), self.left.tobytes(), self.right.tobytes(),
                self.label.tobytes())

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (self.structure_key() == other.structure_key()
                and np.array_equal(self.counts, other.counts)
                and self.n_features == other.n_features
                and self.feature_names == other.feature_names)

    def __hash__(self) -> int:
        return hash(self.structure_key())
