"""DT(max)'s numpy engine: the dynamic programme on batched count tables.

``dynamic_programme.best_tree_within_depth`` runs it while the compiled kernels
(``dp_compiled``) are not yet in numba's disk cache, or when their count tables would not fit
in memory. Depths 1 to 3 are closed forms over class counts (``dp_counts``: MurTree's
depth-2 solver, batched over every root test for depth 3); deeper levels branch on each
useful test with the bounds described in ``dynamic_programme``. Depth-3 count tables are
predicted before they are built and taken in chunks of root tests when they would exceed
``MEMORY_BUDGET`` (or, with a deadline, take more than a fraction of a second), so wide data
runs in bounded memory; the clock is checked between chunks and between top-level tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.dp_counts import (
    Counts,
    depth2_costs,
    depth2_costs_of_roots,
    leaf_errors,
    pair_counts_of,
    subset_counts,
    triple_counts,
    triple_counts_bytes,
    triple_counts_of,
)
from occamlearn.trees.exact.stop import Stop

__all__ = ["MEMORY_BUDGET", "NumpyDepthSearch", "Subtree", "one_blas_thread"]

Subtree = tuple  # ("leaf", class) | ("test", column, zero_side, one_side)

# One controller for the process: building one scans the loaded libraries (7 ms a fit).
_BLAS = []


def one_blas_thread():
    """Context limiting BLAS to one thread (see ``dynamic_programme.best_tree_within_depth``)."""
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


# Children of a depth-4 node get their counts from the parent's (``_SharedCounts``) when the
# node has at least this many rows per useful column: then counting rows dominates (mushroom,
# 5,199 rows x 54 columns: 3.3 -> 1.4 s CPU); with few rows the gathers cost more than they
# save (audio, 123 x 74: 1.2 -> 1.8 s). Measured with scratch A/B runs at depth 4.
SHARED_COUNTS_MIN_RATIO = 8

# Memory a depth-3 pass may hold for its count tables (bytes). Above it -- or, with a
# deadline, above ``CHUNK_ELEMENTS`` triple counts -- the root tests are taken in chunks
# (``triple_counts_of``), the clock checked between chunks. Wide data needed it: 200 x 600
# random bits took 4.3 GB in one pass, 200 x 2,000 would have taken 130 GB.
MEMORY_BUDGET = 1 << 30
# One chunk: at most this many triple counts (classes x roots x features x features; 0.2 s
# of depth-2 evaluation) and multiply-adds counting them (rows x those; ~0.1 s of BLAS).
CHUNK_ELEMENTS = 1 << 23
CHUNK_WORK = 1e9

@dataclass(frozen=True)
class _SharedCounts:
    """Counts of a depth-4 node's rows over its useful ``columns``, from which each test's
    two children get theirs by counting only the smaller child (half the work or less)."""

    columns: np.ndarray
    counts: Counts
    triple: np.ndarray

    @classmethod
    def of(cls, search: NumpyDepthSearch, rows: np.ndarray, columns: np.ndarray) -> _SharedCounts:
        X, C = search.X[np.ix_(rows, columns)], search.C[rows]
        return cls(columns, subset_counts(X, C), triple_counts(X, C))

    def split(self, search, column, zero_rows, one_rows):
        """((counts, triple) of the zero child, the same of the one child)."""
        small = zero_rows if len(zero_rows) <= len(one_rows) else one_rows
        X, C = search.X[np.ix_(small, self.columns)], search.C[small]
        counts, triple = subset_counts(X, C), triple_counts(X, C)
        rest = (Counts(self.counts.total - counts.total, self.counts.single - counts.single,
                       self.counts.pair - counts.pair), self.triple - triple)
        return ((counts, triple), rest) if small is zero_rows else (rest, (counts, triple))


class NumpyDepthSearch:
    """``best(rows, depth)`` over distinct rows ``X`` (0/1) with class weights ``C``."""

    def __init__(self, X: np.ndarray, C: np.ndarray, scale: int, decision: int,
                 deadline: Deadline | None):
        self.X = X.astype(np.float32)
        self.bits = X.astype(bool)
        self.C = C.astype(np.float32)
        self.forced = leaf_errors(C.T).astype(np.int64)   # per distinct row
        self.scale, self.decision, self.deadline = scale, decision, deadline
        self.cache: dict[tuple[bytes, int], tuple[int, Subtree]] = {}
        self.costs: dict[tuple[bytes, int], int] = {}          # cost only (no tree built)
        self.stats = {"subproblems": 0, "cache_hits": 0, "pruned": 0}
        self.stopped = False                 # the deadline or Ctrl-C ended the search
        self.rebuilding = 0                  # > 0 inside ``subtree``: no clock checks

    # -- small pieces ------------------------------------------------------------------------
    def leaf(self, rows: np.ndarray) -> tuple[int, Subtree]:
        total = self.C[rows].sum(axis=0)
        errors = int(np.rint(total.sum() - total.max()))
        return errors * self.scale, ("leaf", int(total.argmax()))

    def useful_columns(self, rows: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
        """Columns (of ``among``, default all) that split ``rows``, one per distinct split
        (the first of equal columns); returned as positions in ``among``."""
        block = self.bits[rows] if among is None else self.bits[np.ix_(rows, among)]
        ones = block.sum(axis=0)
        candidates = np.flatnonzero((ones > 0) & (ones < len(rows)))
        if len(candidates) <= 1:
            return candidates
        packed = np.packbits(block[:, candidates], axis=0).T
        first = {}
        for position, column in enumerate(packed):
            first.setdefault(column.tobytes(), position)
        return candidates[sorted(first.values())]

    def floor(self, rows: np.ndarray) -> int:
        """A lower bound on ``best(rows, d)`` for any d: the errors forced by identical rows
        with different labels, plus one decision unless a leaf makes only those."""
        forced = int(self.forced[rows].sum()) * self.scale
        return min(self.leaf(rows)[0], forced + self.decision)

    def split(self, rows: np.ndarray, column: int) -> tuple[np.ndarray, np.ndarray]:
        one = self.X[rows, column] > 0
        return rows[~one], rows[one]

    def check_deadline(self) -> None:
        if self.deadline is not None and not self.rebuilding and self.deadline.expired():
            raise Stop

    def subtree(self, rows: np.ndarray, depth: int) -> Subtree:
        """``best(rows, depth)``'s tree for an answer whose cost is known, with the clock
        not checked: after a stop the chosen test's children are rebuilt in full (a child
        whose tree was not kept, only its cost), never cut short into a tree that costs
        more than the answer says."""
        self.rebuilding += 1
        try:
            return self.best(rows, depth)[1]
        finally:
            self.rebuilding -= 1

    def root_chunks(self, n_rows: int, n_features: int) -> int:
        """Root tests per chunk of a depth-3 pass over ``n_rows`` x ``n_features``, or 0 for
        one pass with ``triple_counts`` (fits ``MEMORY_BUDGET``, and quick if there is a
        deadline), or -1 when one root's tables alone exceed ``MEMORY_BUDGET`` (about 5,000
        columns): then the root tests are tried one at a time (``_branch``), their children
        solved by the chunked depth-2 pass."""
        k, square = self.C.shape[1], n_features ** 2
        whole = k * n_features * square
        quick = whole <= CHUNK_ELEMENTS and n_rows * whole / 2 <= CHUNK_WORK
        if (triple_counts_bytes(n_rows, n_features, k) <= MEMORY_BUDGET
                and (self.deadline is None or not self.deadline.limited or quick)):
            return 0
        # a chunk of b roots holds rows x k x b x F products and ~6 (k, b, F, F) tables
        by_memory = MEMORY_BUDGET // (4 * (n_rows * k * n_features + 6 * k * square))
        if by_memory == 0:  # not even one root: each test's children searched one by one
            return -1
        by_time = min(CHUNK_ELEMENTS // (k * square), CHUNK_WORK // (n_rows * k * square))
        return int(max(1, min(by_memory, by_time, n_features)))

    def pair_chunks(self, n_rows: int, n_features: int) -> int:
        """Root tests per chunk of a depth-2 pass, or 0 for one pass over the whole pair
        table. One pass holds ~8 (classes, features, features) tables: 569 rows x 15,310
        threshold columns (breast_cancer, every threshold) took 6.5 GB and 74 s there, with
        no clock check; chunks hold ~8 (classes, roots, features) tables and check it."""
        k = self.C.shape[1]
        whole = k * n_features ** 2
        quick = whole <= CHUNK_ELEMENTS
        if 4 * 8 * whole <= MEMORY_BUDGET and (
                self.deadline is None or not self.deadline.limited or quick):
            return 0
        by_memory = MEMORY_BUDGET // (4 * (n_rows * k + 8 * k * n_features))
        by_time = CHUNK_ELEMENTS // (k * n_features)
        return int(max(1, min(by_memory, by_time, n_features)))

    # -- the recursion -------------------------------------------------------------------------
    def settled(self, rows: np.ndarray, depth: int):
        """``(leaf cost, leaf, answer)``: ``answer`` is ``best(rows, depth)`` when it needs
        no search -- the leaf (depth 0, or it makes only forced errors) or a cached answer
        -- else None."""
        leaf_cost, leaf = self.leaf(rows)
        if depth == 0 or leaf_cost == int(self.forced[rows].sum()) * self.scale:
            return leaf_cost, leaf, (leaf_cost, leaf)
        answer = self.cache.get((rows.tobytes(), depth))
        if answer is not None:
            self.stats["cache_hits"] += 1
        return leaf_cost, leaf, answer

    def best(self, rows: np.ndarray, depth: int) -> tuple[int, Subtree]:
        leaf_cost, leaf, known = self.settled(rows, depth)
        if known is not None:
            return known
        key = (rows.tobytes(), depth)
        self.stats["subproblems"] += 1
        columns = self.useful_columns(rows)
        if len(columns) == 0:
            answer = (leaf_cost, leaf)
        elif depth <= 2:
            answer = self._shallow(rows, columns, depth, leaf_cost, leaf)
        elif depth == 3:
            answer = self._depth3(rows, columns, leaf_cost, leaf)
        else:
            answer = self._branch(rows, columns, depth, leaf_cost, leaf)
        self.cache[key] = answer
        return answer

    def _shallow(self, rows, columns, depth, leaf_cost, leaf, *,
                 top=False) -> tuple[int, Subtree]:
        """Depth 1 or 2 from the pair counts (closed form); depth 2 in chunks of root tests
        when the pair table is large (``pair_chunks``)."""
        if depth == 2 and self.pair_chunks(len(rows), len(columns)):
            return self._shallow_chunks(rows, columns, leaf_cost, leaf, top=top)
        counts = subset_counts(self.X[np.ix_(rows, columns)], self.C[rows])
        if depth == 1:
            ones, zeros = counts.single, counts.total[:, None] - counts.single
            cost = ((leaf_errors(ones) + leaf_errors(zeros)).astype(np.int64) * self.scale
                    + self.decision)
            test = int(cost.argmin())
            if cost[test] >= leaf_cost:
                return leaf_cost, leaf
            zero_rows, one_rows = self.split(rows, columns[test])
            return int(cost[test]), ("test", int(columns[test]), self.leaf(zero_rows)[1],
                                     self.leaf(one_rows)[1])
        d2 = depth2_costs(counts.pair[:, None], counts.single[:, None],
                          counts.total[:, None], self.scale, self.decision)
        root = int(d2.root[0])
        if root < 0:
            return leaf_cost, leaf
        return int(d2.best[0]), self._depth2_tree(rows, columns, root, int(d2.left[0, root]),
                                                  int(d2.right[0, root]))

    def _depth2_tree(self, rows, columns, root: int, zero_test: int, one_test: int) -> Subtree:
        """The tree testing ``columns[root]``, then on each side its test (-1: a leaf)."""
        zero_rows, one_rows = self.split(rows, columns[root])
        children = []
        for side_rows, child in ((zero_rows, zero_test), (one_rows, one_test)):
            if child < 0:
                children.append(self.leaf(side_rows)[1])
            else:
                low, high = self.split(side_rows, columns[child])
                children.append(("test", int(columns[child]), self.leaf(low)[1],
                                 self.leaf(high)[1]))
        return ("test", int(columns[root]), *children)

    def _shallow_chunks(self, rows, columns, leaf_cost, leaf, *,
                        top=False) -> tuple[int, Subtree]:
        """Depth 2 over chunks of root tests, most promising first, the clock checked
        between chunks; the same tree as one pass (ties go to the smallest column). A stop
        raises ``Stop`` except at the top, which keeps the best root of the chunks done."""
        X, C = self.X[np.ix_(rows, columns)], self.C[rows]
        single = np.ascontiguousarray(np.rint(C.T @ X).astype(np.int64))
        total = np.rint(C.sum(axis=0)).astype(np.int64)
        order = np.argsort(leaf_errors(single) + leaf_errors(total[:, None] - single),
                           kind="stable")
        step = self.pair_chunks(len(rows), len(columns))
        best = None                                   # (cost, root, left test, right test)
        try:
            for start in range(0, len(order), step):
                self.check_deadline()
                roots = np.sort(order[start:start + step])
                cost, left, right = depth2_costs_of_roots(
                    pair_counts_of(X, C, roots), single, total, roots, self.scale,
                    self.decision)
                at = int(cost.argmin())
                key = (int(cost[at]), int(roots[at]), int(left[at]), int(right[at]))
                if best is None or key[:2] < best[:2]:
                    best = key
        except (Stop, KeyboardInterrupt):
            if not top:
                raise
            self.stopped = True
        if best is None or best[0] >= leaf_cost:
            return leaf_cost, leaf
        return best[0], self._depth2_tree(rows, columns, *best[1:])

    def _depth3_costs(self, counts: Counts, triple: np.ndarray,
                      roots=slice(None)) -> np.ndarray:
        """Cost of the best depth-3 tree with each root test (triple counts, batched);
        ``triple`` holds the root tests ``roots`` (all by default)."""
        # batch index = the root test f; rows with x_f = 1, then rows with x_f = 0
        pair, single = counts.pair[:, roots], counts.single[:, roots]
        ones = depth2_costs(triple, pair, single, self.scale, self.decision).best
        zeros = depth2_costs(counts.pair[:, None] - triple,
                             counts.single[:, None, :] - pair,
                             counts.total[:, None] - single, self.scale,
                             self.decision).best
        return zeros + ones + self.decision

    def _depth3(self, rows, columns, leaf_cost, leaf, *, top=False) -> tuple[int, Subtree]:
        """Depth 3: the depth-2 closed form below every root test at once -- in chunks of
        root tests when the tables would be large (``root_chunks``). A deadline between
        chunks raises ``Stop``; at the top the best root test of the chunks done is kept."""
        step = self.root_chunks(len(rows), len(columns))
        if step < 0:
            return self._branch(rows, columns, 3, leaf_cost, leaf, top=top)
        X, C = self.X[np.ix_(rows, columns)], self.C[rows]
        counts = subset_counts(X, C)
        if step == 0:
            cost = self._depth3_costs(counts, triple_counts(X, C))
            test = int(cost.argmin())
            best_cost = int(cost[test])
        else:                # most promising roots first: a good tree early on a stop
            order = np.argsort(leaf_errors(counts.single)
                               + leaf_errors(counts.total[:, None] - counts.single),
                               kind="stable")
            best_cost, test = None, -1
            try:
                for start in range(0, len(order), step):
                    self.check_deadline()
                    roots = np.sort(order[start:start + step])
                    part = self._depth3_costs(counts, triple_counts_of(X, C, roots), roots)
                    at = int(part.argmin())      # ties: the smallest column, like argmin
                    key = (int(part[at]), int(roots[at]))
                    if best_cost is None or key < (best_cost, test):
                        best_cost, test = key
            except (Stop, KeyboardInterrupt):
                if not top:
                    raise
                self.stopped = True
        if test < 0 or best_cost >= leaf_cost:
            return leaf_cost, leaf
        zero_rows, one_rows = self.split(rows, columns[test])
        return best_cost, ("test", int(columns[test]), self.subtree(zero_rows, 2),
                           self.subtree(one_rows, 2))

    def _depth3_cost_of_child(self, rows, parent: _SharedCounts, side) -> int:
        """``best(rows, 3)``'s cost for a child of a depth-4 node, from counts derived from
        the parent's (``side()``: the child's counts over the parent's columns)."""
        leaf_cost, _, known = self.settled(rows, 3)
        if known is not None:
            return known[0]
        key = (rows.tobytes(), 3)
        if key in self.costs:
            self.stats["cache_hits"] += 1
            return self.costs[key]
        self.stats["subproblems"] += 1
        kept = self.useful_columns(rows, parent.columns)
        cost = leaf_cost
        if len(kept):
            counts, triple = side()
            counts = Counts(counts.total, np.ascontiguousarray(counts.single[:, kept]),
                            np.ascontiguousarray(counts.pair[:, kept][:, :, kept]))
            triple = np.ascontiguousarray(triple[:, kept][:, :, kept][:, :, :, kept])
            cost = min(leaf_cost, int(self._depth3_costs(counts, triple).min()))
        self.costs[key] = cost
        return cost

    def _branch(self, rows, columns, depth, leaf_cost, leaf, *, top=False):
        """Depth >= 4: try each useful test, most promising first, with branch and bound."""
        best_cost, best_test = leaf_cost, None
        shared = (_SharedCounts.of(self, rows, columns)
                  if depth == 4 and len(rows) >= SHARED_COUNTS_MIN_RATIO * len(columns)
                  and self.root_chunks(len(rows), len(columns)) == 0 else None)
        try:
            for column in self._promising_first(rows, columns):
                self.check_deadline()
                zero_rows, one_rows = self.split(rows, column)
                zero_floor, one_floor = self.floor(zero_rows), self.floor(one_rows)
                if zero_floor + one_floor + self.decision >= best_cost:
                    self.stats["pruned"] += 1
                    continue
                child_cost = self._child_cost(shared, column, zero_rows, one_rows, depth - 1)
                zero_cost = child_cost(0)
                if zero_cost + one_floor + self.decision >= best_cost:
                    self.stats["pruned"] += 1
                    continue
                one_cost = child_cost(1)
                if zero_cost + one_cost + self.decision < best_cost:
                    best_cost, best_test = zero_cost + one_cost + self.decision, int(column)
        except (Stop, KeyboardInterrupt):
            if not top:
                raise
            self.stopped = True
        if best_test is None:
            return leaf_cost, leaf
        zero_rows, one_rows = self.split(rows, best_test)
        return best_cost, ("test", best_test, self.subtree(zero_rows, depth - 1),
                           self.subtree(one_rows, depth - 1))

    def _child_cost(self, shared, column, zero_rows, one_rows, depth):
        """``side -> best(child rows, depth)[0]``; below a depth-4 node the children's counts
        come from the parent's: the smaller child is counted, the other is the difference."""
        if shared is None:
            return lambda side: self.best((zero_rows, one_rows)[side], depth)[0]
        counted = []

        def side_counts(side):
            if not counted:
                counted.extend(shared.split(self, column, zero_rows, one_rows))
            return counted[side]

        return lambda side: self._depth3_cost_of_child(
            (zero_rows, one_rows)[side], shared, lambda: side_counts(side))

    def _promising_first(self, rows, columns) -> np.ndarray:
        """Tests ordered by the errors of their depth-1 tree (a good tree early prunes more)."""
        X, C = self.X[np.ix_(rows, columns)], self.C[rows]
        ones = C.T @ X
        zeros = C.sum(axis=0)[:, None] - ones
        errors = leaf_errors(ones) + leaf_errors(zeros)
        return columns[np.argsort(errors, kind="stable")]

    def solve_top(self, depth: int) -> tuple[int, Subtree]:
        """``best`` of all rows; above depth 3 the top level keeps its best on a stop."""
        rows = np.arange(self.X.shape[0])
        if depth <= 1:
            return self.best(rows, depth)
        if depth == 2:
            leaf_cost, leaf, known = self.settled(rows, 2)
            columns = self.useful_columns(rows)
            if known is not None or len(columns) == 0:
                return leaf_cost, leaf
            self.stats["subproblems"] += 1
            return self._shallow(rows, columns, 2, leaf_cost, leaf, top=True)
        leaf_cost, leaf = self.leaf(rows)
        if leaf_cost == int(self.forced.sum()) * self.scale:
            return leaf_cost, leaf
        columns = self.useful_columns(rows)
        if len(columns) == 0:
            return leaf_cost, leaf
        if depth == 3:
            self.stats["subproblems"] += 1
            return self._depth3(rows, columns, leaf_cost, leaf, top=True)
        return self._branch(rows, columns, depth, leaf_cost, leaf, top=True)
