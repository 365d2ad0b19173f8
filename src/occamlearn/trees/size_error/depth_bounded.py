"""The size-error front under a depth bound: for each number of leaves L <= ``max_leaves``,
the fewest weighted errors of a tree of depth <= d with at most L leaves
(``trees.size_error.frontier``'s route when ``max_depth`` is given).

``front(S, d)`` maps leaf counts to (errors, tree) for the row set S: a leaf, or for each
split the min-plus combination of its children's fronts at depth d - 1 (the recursion of the
exact core's ``size_error_front`` objective, and its proof). Two things make it fast enough:

* **Depth two in closed form** (as MurTree's and the DT(max) programme's depth-2 solvers):
  with the class weights ``c[k, f]`` of the rows of S with x_f = 1 and the pair weights
  ``C[k, f, g]`` of those with x_f = x_g = 1 (one matrix product per class), every side of
  every split f and sub-split g has its class weights by inclusion-exclusion, so the best
  tree with 1, 2, 3 and 4 leaves of depth <= 2 is a minimum over arrays. A sub-split g = f
  (or any g leaving one side empty) is a leaf, so the minima also cover unsplit sides.
* **Memo** of fronts per (row set, depth), row sets as bytes of a pattern mask.

Rows are the distinct patterns with per-class integer weights (``exact.data``), so integer
weights are repeated rows exactly. Above depth two the splits are tried one by one in Python
(a time limit is polled between them); the root keeps the front of the splits done so far,
so a stop returns true trees (upper bounds) and the one-leaf point proven.
"""

from __future__ import annotations

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.trees.exact.data import group_examples, reduce_columns
from occamlearn.trees.exact.stop import Poll, Stop
from occamlearn.trees.weights import integer_weights

__all__ = ["DepthBoundedFront", "depth_bounded_frontier"]


def _leaf_errors(weights: np.ndarray) -> np.ndarray:
    """Errors of one leaf per class-weight vector (class axis first)."""
    return weights.sum(axis=0) - weights.max(axis=0)


class DepthBoundedFront:
    """Fronts of trees of bounded depth over patterns ``P`` (0/1) with per-pattern class
    weights ``W`` (n_patterns x n_classes, whole numbers as float64)."""

    def __init__(self, patterns: np.ndarray, weights: np.ndarray, max_leaves: int | None,
                 poll):
        kept = reduce_columns(patterns)
        self.features = kept.column.astype(int)
        self.P = patterns[:, self.features].astype(np.float64)
        self.W = weights.astype(np.float64)
        self.cap = max_leaves
        self.poll = poll
        self.memo: dict = {}
        self.root_partial: dict = {}

    # -- fronts ---------------------------------------------------------------------------
    def front(self, mask: np.ndarray, depth: int, root: bool = False) -> dict:
        key = (mask.tobytes(), depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        self.poll.tick()
        W = self.W[mask]
        totals = W.sum(axis=0)
        label = int(np.argmax(totals))
        found = {1: (float(totals.sum() - totals[label]), ("leaf", label))}
        if depth == 0 or found[1][0] == 0 or self.P.shape[1] == 0 or self.cap == 1:
            pass
        elif depth <= 2:
            found = self._merge(found, self._depth_two(mask, depth))
        else:
            seen = set()
            for j in range(self.P.shape[1]):
                one = mask & (self.P[:, j] == 1)
                zero = mask & ~one
                if not one.any() or not zero.any() or one.tobytes() in seen:
                    continue
                seen.add(one.tobytes())
                seen.add(zero.tobytes())
                split = self._combine(int(self.features[j]), self.front(zero, depth - 1),
                                      self.front(one, depth - 1))
                found = self._merge(found, split)
                if root:
                    self.root_partial = found
                self.poll.check()
        self.memo[key] = found
        return found

    def _combine(self, feature, zero_side, one_side) -> dict:
        points: dict = {}
        for a, (ea, ta) in zero_side.items():
            for b, (eb, tb) in one_side.items():
                if self.cap is not None and a + b > self.cap:
                    continue
                if a + b not in points or ea + eb < points[a + b][0]:
                    points[a + b] = (ea + eb, (feature, ta, tb))
        return points

    @staticmethod
    def _merge(a: dict, b: dict) -> dict:
        merged = dict(a)
        for leaves, point in b.items():
            if leaves not in merged or point[0] < merged[leaves][0]:
                merged[leaves] = point
        front, fewest = {}, None
        for leaves in sorted(merged):  # keep only points whose errors fall
            if fewest is None or merged[leaves][0] < fewest:
                front[leaves], fewest = merged[leaves], merged[leaves][0]
        return front

    # -- depth <= 2 in closed form --------------------------------------------------------
    def _depth_two(self, mask: np.ndarray, depth: int) -> dict:
        """Points 2..4 of depth <= ``depth`` (1 or 2); columns constant on S are left out
        (their split has an empty side: a leaf, already a point)."""
        P, W = self.P[mask], self.W[mask]
        varying = np.flatnonzero(P.any(axis=0) & ~P.all(axis=0))
        if not len(varying):
            return {}
        P = P[:, varying]
        n = W.sum(axis=0)                                    # (K,)
        c = (P.T @ W).T                                      # (K, F): rows with x_f = 1
        one, zero = c, n[:, None] - c
        err_one, err_zero = _leaf_errors(one), _leaf_errors(zero)
        points = {}
        two = err_zero + err_one
        f = int(np.argmin(two))
        points[2] = (float(two[f]), self._tree(mask, [(int(varying[f]), None, None)]))
        if depth == 2 and (self.cap is None or self.cap >= 3):
            C = np.einsum("rf,rg,rk->kfg", P, P, W, optimize=True)  # x_f = x_g = 1
            one_one, one_zero = C, one[:, :, None] - C
            zero_one = c[:, None, :] - C
            zero_zero = n[:, None, None] - c[:, :, None] - c[:, None, :] + C
            split_one = (_leaf_errors(one_one) + _leaf_errors(one_zero)).min(axis=1)
            arg_one = (_leaf_errors(one_one) + _leaf_errors(one_zero)).argmin(axis=1)
            split_zero = _leaf_errors(zero_one) + _leaf_errors(zero_zero)
            arg_zero = split_zero.argmin(axis=1)
            split_zero = split_zero.min(axis=1)
            for leaves, values, choice in (
                    (3, np.minimum(split_zero + err_one, err_zero + split_one),
                     lambda g: (g, arg_zero[g], None) if split_zero[g] + err_one[g]
                     <= err_zero[g] + split_one[g] else (g, None, arg_one[g])),
                    (4, split_zero + split_one, lambda g: (g, arg_zero[g], arg_one[g]))):
                if self.cap is not None and leaves > self.cap:
                    break
                g = int(np.argmin(values))
                points[leaves] = (float(values[g]), self._tree(mask, [
                    tuple(None if x is None else int(varying[x]) for x in choice(g))]))
        return points

    def _tree(self, mask, plan) -> tuple:
        """The nested tree of a depth-2 plan ``(f, zero_split, one_split)`` (None: leaf)."""
        f, zero_split, one_split = plan[0]
        one = mask & (self.P[:, f] == 1)
        zero = mask & ~one
        return (int(self.features[f]), self._side(zero, zero_split),
                self._side(one, one_split))

    def _side(self, mask, split) -> tuple:
        if split is None:
            return ("leaf", int(np.argmax(self.W[mask].sum(axis=0))))
        return self._tree(mask, [(int(split), None, None)])


def depth_bounded_front(patterns, weights, max_leaves, max_depth, poll):
    """(root front, stopped, interrupted): the front of every row; at a ``Stop`` or Ctrl-C
    the front of the root's splits searched so far (true trees, not proven beyond one
    leaf)."""
    search = DepthBoundedFront(patterns, weights, max_leaves, poll)
    root = np.ones(len(patterns), dtype=bool)
    interrupted = False
    try:
        return search.front(root, max_depth, root=True), False, False
    except (Stop, KeyboardInterrupt) as reason:
        interrupted = isinstance(reason, KeyboardInterrupt)
        W = search.W.sum(axis=0)
        label = int(np.argmax(W))
        leaf = {1: (float(W.sum() - W[label]), ("leaf", label))}
        return search._merge(leaf, search.root_partial), True, interrupted


def depth_bounded_frontier(X, y, n_classes: int, max_leaves, max_depth: int, sample_weight,
                           deadline):
    """``trees.size_error.frontier.Frontier`` of trees of depth <= ``max_depth`` (see the module
    docstring). At a ``deadline`` only the one-leaf point is proven; the others keep the
    best trees of the root's splits searched so far, with the forced errors as their lower
    bound."""
    from occamlearn.trees.size_error.frontier import Frontier

    weight, scale = (None, 1) if sample_weight is None else integer_weights(sample_weight,
                                                                             X.shape[0])
    groups = group_examples(X, y, weight)
    X_rows, y_rows = groups.rows()
    front, stopped, interrupted = depth_bounded_front(
        groups.patterns, groups.class_weights(n_classes), max_leaves, max_depth, Poll(deadline))
    as_errors = (lambda units: units / scale) if sample_weight is not None else int
    last = max_leaves if max_leaves is not None else max(front)
    forced = groups.forced_errors()
    trees, errors, lower, best, built = [], [], [], None, {}
    for count in range(1, last + 1):
        if count in front and (best is None or front[count][0] < front[best][0]):
            best = count
        if best not in built:
            built[best] = Tree.from_nested(front[best][1], X.shape[1], n_classes) \
                .with_counts(X_rows, y_rows)
        trees.append(built[best])
        errors.append(front[best][0])
        lower.append(front[best][0] if not stopped or count == 1 else forced)
    return Frontier(np.array([as_errors(e) for e in errors]),
                    np.array([as_errors(e) for e in lower]), tuple(trees),
                    "feasible" if stopped and last > 1 else "optimal",
                    {"stopped": stopped, "interrupted": interrupted, "max_depth": max_depth})
