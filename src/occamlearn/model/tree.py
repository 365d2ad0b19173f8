"""A fitted binary decision tree as plain, picklable arrays.

Nodes are numbered 0..n-1 with the root at 0. A decision node tests one binary feature:
examples with value 0 go to ``left``, value 1 to ``right`` (the MaxSAT paper's convention:
positive answers go right). Leaves have ``feature == -1`` and carry a class index in
``label``. ``counts[node, k]`` is how many training examples of class k reach the node (every row
passed to ``fit``, rows a learner set aside included), so ``predict_proba`` returns leaf class
frequencies; they are saved with the tree. The tree holds no solver, pool or formula:
it can be pickled, compared and written to JSON exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["LEAF", "Tree", "check_tree_dict"]

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

    def on_features(self, features) -> Tree:
        """The same tree reading only the binary columns ``features`` (sorted indices that
        include every feature it tests): node ``i`` tests column ``features.index(feature[i])``
        of a matrix holding just those columns, so ``on_features(f).apply(X[:, f])`` is
        ``apply(X)``."""
        features = np.asarray(features, dtype=np.int64)
        tests = ~self.is_leaf
        remapped = self.feature.copy()
        remapped[tests] = np.searchsorted(features, self.feature[tests])
        if tests.any() and not np.array_equal(features[remapped[tests]], self.feature[tests]):
            raise ValueError("features must include every feature the tree tests")
        names = tuple(self.feature_names[j] for j in features) if self.feature_names else ()
        return Tree(remapped, self.left, self.right, self.label, self.counts, len(features),
                    names)

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
        y = np.asarray(y, dtype=np.int64)
        size = self.n_nodes * n_classes

        def tally(nodes, labels):           # bincount: np.add.at is 10x slower
            return np.bincount(nodes * n_classes + labels, minlength=size)

        node = np.zeros(len(y), dtype=np.int64)
        flat = tally(node, y)
        rows = np.arange(len(y))
        active = ~self.is_leaf[node]
        while active.any():
            idx = rows[active]
            at = node[idx]
            goes_right = np.asarray(X)[idx, self.feature[at]] != 0
            node[idx] = np.where(goes_right, self.right[at], self.left[at])
            flat = flat + tally(node[idx], y[idx])
            active = ~self.is_leaf[node]
        counts = flat.reshape(self.n_nodes, n_classes).astype(np.int64)
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
    def from_nested(cls, nested: tuple, n_features: int, n_classes: int,
                    feature_names=()) -> Tree:
        """The tree of a nested tuple, as the exact searches build them: a leaf is
        ``("leaf", class)``, a decision node ``(feature, zero_side, one_side)`` (or tagged,
        ``("test", feature, zero_side, one_side)``). Nodes are numbered in preorder; counts
        are zero (``with_counts`` fills them)."""
        feature, left, right, label = [], [], [], []

        def add(node) -> int:
            at = len(feature)
            feature.append(LEAF)
            left.append(-1)
            right.append(-1)
            label.append(-1)
            if node[0] == "leaf":
                label[at] = node[1]
            else:
                test, zero_side, one_side = node[1:] if node[0] == "test" else node
                feature[at] = test
                left[at] = add(zero_side)
                right[at] = add(one_side)
            return at

        add(nested)
        counts = np.zeros((len(feature), n_classes), dtype=np.int64)
        return cls(feature, left, right, label, counts, n_features, feature_names)

    @classmethod
    def from_dict(cls, data: dict, where: str = "tree") -> Tree:
        """Inverse of ``to_dict``; a dict that is not a valid tree is a ValueError naming the
        field (``where`` prefixes the field names, e.g. ``"tree.left[3]"``)."""
        check_tree_dict(data, where)
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


# -- validation of a tree read from a file ----------------------------------------------------
_TREE_KEYS = ("feature", "left", "right", "label", "counts", "n_features")


def _is_int(value) -> bool:
    """An integer that fits an int64 (the arrays' type)."""
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and -(2**63) <= value < 2**63)


def _int_list(data: dict, key: str, where: str) -> list:
    values = data[key]
    if not isinstance(values, list):
        raise ValueError(f'"{where}.{key}" must be a list of integers; got '
                         f"{type(values).__name__}")
    for i, value in enumerate(values):
        if not _is_int(value):
            raise ValueError(f'"{where}.{key}[{i}]" = {value!r} is not an integer')
    return values


def check_tree_dict(data, where: str = "tree") -> None:
    """ValueError naming the field unless ``data`` is ``Tree.to_dict`` of a well-formed tree:
    equal array lengths, a root at 0 from which every node is reached exactly once (no cycle,
    no shared or orphan node), leaves (feature -1) without children and with a label in
    ``range(n_classes)``, decision nodes testing a feature in ``range(n_features)``, and
    ``counts`` of shape (n_nodes, n_classes) with non-negative entries."""
    if not isinstance(data, dict):
        raise ValueError(f'"{where}" must be an object; got {type(data).__name__}')
    for key in _TREE_KEYS:
        if key not in data:
            raise ValueError(f'"{where}" lacks the key "{key}"')
    feature, left, right, label = (_int_list(data, k, where)
                                   for k in ("feature", "left", "right", "label"))
    n = len(feature)
    if n == 0:
        raise ValueError(f'"{where}.feature" is empty: a tree has at least one node')
    for key, values in (("left", left), ("right", right), ("label", label)):
        if len(values) != n:
            raise ValueError(f'"{where}.{key}" has {len(values)} entries; "{where}.feature" '
                             f"has {n} (one per node)")
    n_features = data["n_features"]
    if not _is_int(n_features) or n_features < 0:
        raise ValueError(f'"{where}.n_features" = {n_features!r} is not a count')
    counts = data["counts"]
    if not isinstance(counts, list) or len(counts) != n:
        raise ValueError(f'"{where}.counts" must be a list of {n} rows (one per node)')
    n_classes = None
    for i, row in enumerate(counts):
        if not isinstance(row, list):
            raise ValueError(f'"{where}.counts[{i}]" must be a list of counts per class')
        if n_classes is None:
            n_classes = len(row)
            if n_classes == 0:
                raise ValueError(f'"{where}.counts[0]" is empty: a tree has at least one class')
        elif len(row) != n_classes:
            raise ValueError(f'"{where}.counts[{i}]" has {len(row)} entries; '
                             f'"{where}.counts[0]" has {n_classes} (one per class)')
        for k, value in enumerate(row):
            if not _is_int(value) or value < 0:
                raise ValueError(f'"{where}.counts[{i}][{k}]" = {value!r} is not a count')
    for node in range(n):
        test = feature[node]
        if test == LEAF:
            for key, values in (("left", left), ("right", right)):
                if values[node] != LEAF:
                    raise ValueError(f'"{where}.{key}[{node}]" = {values[node]} but node '
                                     f"{node} is a leaf (feature -1): a leaf has no children")
            if not 0 <= label[node] < n_classes:
                raise ValueError(f'"{where}.label[{node}]" = {label[node]} is not a class '
                                 f"index (the tree has {n_classes} classes)")
        else:
            if not 0 <= test < n_features:
                raise ValueError(f'"{where}.feature[{node}]" = {test} is not -1 (leaf) nor a '
                                 f"feature index below n_features={n_features}")
            for key, values in (("left", left), ("right", right)):
                if not 0 <= values[node] < n:
                    raise ValueError(f'"{where}.{key}[{node}]" = {values[node]} is not a node '
                                     f"index (the tree has {n} nodes)")
    _check_reachability(feature, left, right, where)
    names = data.get("feature_names", [])
    if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
        raise ValueError(f'"{where}.feature_names" must be a list of strings')
    if names and len(names) != n_features:
        raise ValueError(f'"{where}.feature_names" has {len(names)} entries; '
                         f'"{where}.n_features" is {n_features}')


def _check_reachability(feature, left, right, where: str) -> None:
    """Every node reached exactly once from the root 0: a tree, not a graph."""
    n = len(feature)
    parent = [-2] * n  # -2: not reached yet
    parent[0] = -1
    stack = [0]
    while stack:
        node = stack.pop()
        if feature[node] == LEAF:
            continue
        for key, child in (("left", left[node]), ("right", right[node])):
            if parent[child] != -2:
                ancestor, seen = node, False
                while ancestor != -1 and not seen:
                    seen, ancestor = ancestor == child, parent[ancestor]
                what = "points back to an ancestor" if seen else (
                    f"is also a child of node {parent[child]}" if parent[child] >= 0
                    else "points back to the root")
                raise ValueError(f'"{where}.{key}[{node}]" = {child} {what}')
            parent[child] = node
            stack.append(child)
    orphans = [node for node in range(n) if parent[node] == -2]
    if orphans:
        raise ValueError(f'"{where}" node {orphans[0]} is not reachable from the root (node 0)'
                         + (f" ({len(orphans)} such nodes)" if len(orphans) > 1 else ""))
