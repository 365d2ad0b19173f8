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
  The pair weights come a block of split features f at a time (one BLAS product per class
  and block; the minima over g are per f, so blocks change no answer, and a later block
  replaces a point only with strictly fewer errors, as one argmin over every f would): the
  time limit is read between blocks, and memory is planned before each search
  (``pair_block``). All pairs at once would be classes x features^2 floats, 144 MB at
  3,000 features and two classes, 6.4 GB at 20,000; a block holds a few rows of that
  (~2 MB per f at 20,000 features), at most 64 MiB and half the room left.
* **Compact patterns.** The patterns stay 0/1 bytes; the products read float64 columns
  (BLAS multiplies floats), made a planned tile at a time (``FloatColumns``): the whole
  node when its float copy fits ``FLOAT_COPY_BYTES`` and a quarter of the room (144 MB at
  6,000 x 3,000 under the default limit), else tiles of columns of that size: a float64
  copy of every pattern takes 8 bytes a cell (960 MB at 6,000 x 20,000, where a quarter
  of the default limit's room holds about a third of it). Tiles change no answer: every
  product sums whole numbers (weights are integers), exact in float64 below 2**53 in any
  order, so each entry is the one the whole product gives. A node's own 0/1 rows are
  copied only after their bytes are compared with the room (a stop as at the memory limit
  otherwise), and the patterns themselves are a MemoryError naming their size when they
  do not fit.
* **Memo** of fronts per (row set, depth), row sets as bytes of a pattern mask.

Rows are the distinct patterns with per-class integer weights (``exact.data``), so integer
weights are repeated rows exactly. Above depth two the splits are tried one by one in Python
(a time limit is polled between them); the root keeps the front of the splits done so far
(or, for a depth-two root, of the blocks done), so a stop returns true trees (upper bounds)
and the one-leaf point proven.
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.model.tree import Tree
from occamlearn.trees.exact.data import group_examples, reduce_columns
from occamlearn.trees.exact.stop import Poll, Stop
from occamlearn.trees.weights import integer_weights

__all__ = ["DepthBoundedFront", "depth_bounded_frontier", "pair_block"]

PAIR_BLOCK_BYTES = 64 << 20  # at most this (and half the memory room) per pair-weight block
# At most this (and a quarter of the room) of float64 columns: a node's whole copy below it
# (one conversion per node), tiles above, each converted again for every block of roots
FLOAT_COPY_BYTES = 1 << 30
ROOM_CHECK_BYTES = 1 << 20  # a node's 0/1 copy is weighed against the room above this
PAIR_BLOCK_WORK = 1 << 26  # multiply-adds per block: tens of milliseconds between two polls
MIN_PAIR_BLOCK = 8


def _leaf_errors(weights: np.ndarray) -> np.ndarray:
    """Errors of one leaf per class-weight vector (class axis first)."""
    return weights.sum(axis=0) - weights.max(axis=0)


def pair_block(rows: int, features: int, classes: int, budget: int) -> int:
    """How many root features one block of the depth-two pair weights covers: its arrays
    (four of classes x block x features floats, four of block x features, the block's
    float columns and their weighted copy per class) fit ``budget`` bytes, and its matrix
    products (rows x block x features x classes multiply-adds) stay near
    ``PAIR_BLOCK_WORK``, so the deadline is read every few tens of milliseconds. At least
    one feature (a row of the arrays, ~2 MB at 20,000 features and two classes), at least
    ``MIN_PAIR_BLOCK`` when memory allows (a product of fewer columns runs at a fraction of
    the BLAS speed)."""
    per_feature = 8 * ((4 * classes + 4) * features + (classes + 1) * rows)
    by_memory = max(1, budget // per_feature)
    by_work = max(MIN_PAIR_BLOCK, PAIR_BLOCK_WORK // max(1, rows * features * classes))
    return int(max(1, min(features, by_memory, by_work)))


class FloatColumns:
    """The float64 columns of a 0/1 byte matrix ``P`` for the matrix products: the whole
    copy, made once, when it takes at most ``budget`` bytes, else tiles of as many columns
    as fit it (at least one), made when read."""

    def __init__(self, P: np.ndarray, budget: int):
        self.P = P
        rows, self.n_columns = P.shape
        self.width = int(max(1, min(self.n_columns, budget // max(1, 8 * rows))))
        self.whole = P.astype(np.float64) if self.width >= self.n_columns else None

    def tiles(self):
        """(columns, their float64 copy) covering every column in order."""
        if self.whole is not None:
            yield slice(0, self.n_columns), self.whole
            return
        for start in range(0, self.n_columns, self.width):
            columns = slice(start, start + self.width)
            yield columns, self.P[:, columns].astype(np.float64)

    def block(self, columns: slice) -> np.ndarray:
        """The float64 copy of the columns of one block."""
        return self.whole[:, columns] if self.whole is not None \
            else self.P[:, columns].astype(np.float64)

    def class_weights(self, W: np.ndarray) -> np.ndarray:
        """(classes, columns): the class weights of the rows with a 1 in each column (the
        transpose of a (columns, classes) array, as the one product over every column
        gives it)."""
        by_column = np.empty((self.n_columns, W.shape[1]))
        for columns, tile in self.tiles():
            by_column[columns] = tile.T @ W
        return by_column.T

    def pair_weights(self, W: np.ndarray, block: slice) -> np.ndarray:
        """``C[k, f, g]``: the class-k weight of the rows with a 1 in column f of ``block``
        and in column g, one matrix product per class and tile."""
        left = self.block(block)
        weighted = [(left * W[:, [k]]).T for k in range(W.shape[1])]
        if self.whole is not None:  # (stacked products: 1.15x faster minima after than
            return np.stack([part @ self.whole for part in weighted])  # products into one)
        C = np.empty((W.shape[1], weighted[0].shape[0], self.n_columns))
        for columns, tile in self.tiles():
            for k, part in enumerate(weighted):
                C[k, :, columns] = part @ tile
        return C


def _depth_two_block(P: FloatColumns, W, n, c, err_one, err_zero, block: slice) -> dict:
    """The best 3- and 4-leaf trees of depth two whose root is a feature of ``block``:
    leaves -> (errors, (root, zero-side split, one-side split)), columns of ``P``, None for
    a leaf, the first root and split of least errors. ``C[k, f, g]``, the class-k weight
    of the rows with x_f = x_g = 1, is one matrix product per class for the block's f;
    every side of the split f, sub-split g follows by inclusion-exclusion from it, the
    class weights ``c`` of x_f = 1 and the totals ``n``."""
    first = block.start
    C = P.pair_weights(W, block)
    c_root = c[:, block, None]
    split_one = _leaf_errors(C) + _leaf_errors(c_root - C)           # x_f = 1 side by g
    arg_one, split_one = split_one.argmin(axis=1), split_one.min(axis=1)
    zero_one = c[:, None, :] - C                                      # x_f = 0, x_g = 1
    split_zero = _leaf_errors(zero_one)
    zero_one -= n[:, None, None] - c_root                             # -(x_f = x_g = 0)
    split_zero += _leaf_errors(-zero_one)
    arg_zero, split_zero = split_zero.argmin(axis=1), split_zero.min(axis=1)
    on_one, on_zero = err_one[block], err_zero[block]
    three = np.minimum(split_zero + on_one, on_zero + split_one)
    g = int(np.argmin(three))
    zero_side = split_zero[g] + on_one[g] <= on_zero[g] + split_one[g]
    four = split_zero + split_one
    h = int(np.argmin(four))
    return {3: (float(three[g]), (first + g, int(arg_zero[g]), None) if zero_side
                else (first + g, None, int(arg_one[g]))),
            4: (float(four[h]), (first + h, int(arg_zero[h]), int(arg_one[h])))}


class DepthBoundedFront:
    """Fronts of trees of bounded depth over patterns ``P`` (0/1) with per-pattern class
    weights ``W`` (n_patterns x n_classes, whole numbers as float64)."""

    def __init__(self, patterns: np.ndarray, weights: np.ndarray, max_leaves: int | None,
                 poll):
        self.features = reduce_columns(patterns).column.astype(int)
        if len(self.features) == patterns.shape[1] and patterns.dtype == np.uint8:
            self.P = patterns             # every column kept (in order): read, not copied
        else:
            _check_room(patterns.shape[0] * len(self.features),
                        f"the {patterns.shape[0]} x {len(self.features)} 0/1 patterns")
            self.P = patterns[:, self.features].astype(np.uint8, copy=False)
        self.W = weights.astype(np.float64)
        self.cap = max_leaves
        self.poll = poll
        self.pair_bytes = memory.share(0.5, PAIR_BLOCK_BYTES)  # planned once per search
        self.float_bytes = memory.share(0.25, FLOAT_COPY_BYTES)
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
            found = self._merge(found, self._depth_two(mask, depth, root))
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
    def _depth_two(self, mask: np.ndarray, depth: int, root: bool = False) -> dict:
        """Points 2..4 of depth <= ``depth`` (1 or 2); columns constant on S are left out
        (their split has an empty side: a leaf, already a point). The pair weights come a
        block of root features at a time (``pair_block``): the deadline is read between
        blocks, and at the root the best trees of the blocks done are kept for a stop."""
        P, W = self.P, self.W
        if not mask.all():
            self._room_for(np.count_nonzero(mask) * P.shape[1])
            P, W = P[mask], W[mask]
        varying = np.flatnonzero(P.any(axis=0) & ~P.all(axis=0))
        if not len(varying):
            return {}
        if len(varying) < P.shape[1]:
            self._room_for(P.shape[0] * len(varying))
            P = P[:, varying]
        P = FloatColumns(P, self.float_bytes)
        n = W.sum(axis=0)                                    # (K,)
        c = P.class_weights(W)                               # (K, F): rows with x_f = 1
        err_one, err_zero = _leaf_errors(c), _leaf_errors(n[:, None] - c)
        points = {}
        two = err_zero + err_one
        f = int(np.argmin(two))
        points[2] = (float(two[f]), self._tree(mask, [(int(varying[f]), None, None)]))
        if depth < 2 or (self.cap is not None and self.cap < 3):
            return points
        best: dict = {}  # leaves -> (errors, plan over columns of P), first minimum kept
        block = pair_block(*P.P.shape, W.shape[1], self.pair_bytes)
        for start in range(0, P.n_columns, block):
            if start:
                if root:  # what a stop here keeps: true trees, the best of the blocks done
                    self.root_partial = self._with_plans(mask, points, best, varying)
                self.poll.check()
            rows = slice(start, start + block)
            for leaves, (errors, plan) in _depth_two_block(P, W, n, c, err_one, err_zero,
                                                           rows).items():
                if self.cap is not None and leaves > self.cap:
                    continue
                if leaves not in best or errors < best[leaves][0]:
                    best[leaves] = (errors, plan)
        return self._with_plans(mask, points, best, varying)

    def _room_for(self, needed: int) -> None:
        """Stop the search as at the memory limit unless ``needed`` more bytes fit (a copy
        below ``ROOM_CHECK_BYTES`` is not weighed: reading the process's memory costs
        about as much as making it)."""
        if needed > ROOM_CHECK_BYTES:
            self.poll.need_room(needed)

    def _with_plans(self, mask, points: dict, best: dict, varying) -> dict:
        """``points`` with the trees of ``best``'s plans (over the varying columns)."""
        points = dict(points)
        for leaves, (errors, plan) in best.items():
            points[leaves] = (errors, self._tree(mask, [
                tuple(None if x is None else int(varying[x]) for x in plan)]))
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


def _check_room(needed: int, what: str) -> None:
    """A MemoryError naming ``what`` and its size unless ``needed`` bytes fit the room."""
    if needed > memory.room():
        raise MemoryError(
            f"The depth-bounded size-error search needs {needed / 2**20:.0f} MiB for {what}; "
            f"{memory.room() / 2**20:.0f} MiB are left under the memory limit of "
            f"{memory.limit_bytes() / 2**20:.0f} MiB. Pass fewer thresholds (a binariser with "
            "fewer cuts, e.g. ThresholdBinarizer(max_thresholds=32)) or fewer columns, or "
            "raise the limit (OCCAMLEARN_MEMORY_LIMIT).")


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
