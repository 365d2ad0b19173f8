"""Exact branch and bound over row sets for the minimum pure decision tree.

A minimum pure tree of a row set S has one leaf if S has one class, else the fewest leaves
over the features j of ``leaves(S ∩ {x_j = 0}) + leaves(S ∩ {x_j = 1})`` (a split with an
empty side is never in a minimum tree). ``solve(S, budget)`` returns the exact minimum when it
is at most ``budget`` and otherwise a proven lower bound above the budget (DL8.5 / MurTree's
"solve within an upper bound, else remember the lower bound"). Every row set is memoised:
exact values with a minimum split, and after a failed call the bound it proved, so that a
later call with a larger budget starts from there (MurTree's lower-bound cache).

Lower bounds, each proven where it is used:

* classes: a pure tree of S has at least as many leaves as classes present in S;
* leaf incompatibility (``bnb_kernels.incompatibility_lower_bound``, new here): a leaf holds
  every row of S satisfying the conjunction on its path, so if rows a, b share a leaf, so
  does every row of S agreeing with both wherever a and b agree; if such a row has another
  class, a and b need different leaves. A set of pairwise incompatible rows (greedy, per
  class) needs one leaf each. At the root it gives tic-tac-toe 15 leaves (class count: 2),
  mux6 its exact minimum, spect 16; it prunes little on hepa, so it switches itself off
  where it rarely beats the class count, and it is skipped below the root on sets of more
  than 256 rows (mushr), where it costs more than it saves;
* one-step look-ahead: a node failing its budget stores ``min over splits of LB(L) + LB(R)``;
* memoised bounds are only reused for the same row set. GOSDT's similar-support bound
  ``LB(S) >= LB(S') - |S' \\ S|`` is valid for misclassification costs but not for pure
  trees (one extra row can force a chain of many splits), so it is not used; the only valid
  comparison (a subset never needs more leaves) needs subset queries a hash memo cannot do.

Search. Splits at a node are tried in increasing order of their lower bound, each partition
once (identical and complementary columns on S give the same one), stopping when the next
bound reaches the best found. The root does iterative deepening on its proven lower bound
(measured: each step costs 2-3x the previous, the last dominates), so the lower bound
reported grows anytime. The incumbent is a greedy information-gain tree (or the caller's
``upper_bound_tree`` if smaller), improved before the deepening by replacing its subtrees,
bottom-up, by minimum ones where a solve limited to ``IMPROVE_CALLS`` calls finds one.

Two engines run the same recursion: ``_Search`` in Python on integer bitsets and dicts, and
``_CompiledSearch``, which runs ``bnb_kernels.solve`` (numba) on uint64 word bitsets with an
array hash table as memo, returning every few thousand calls so the clock and
``should_stop`` are polled. The compiled engine is chosen unless its compile (first use
ever: tens of seconds, then cached on disk; about a second to load) would eat a short time
limit. On a stop, time limit or KeyboardInterrupt the incumbent is returned as "feasible"
with the proven bound; on Ctrl-C ``stats["interrupted"]`` is True and the exception is not
re-raised, so scripts stop cleanly with a result.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.tree import LEAF, Tree

__all__ = ["BranchAndBoundResult", "minimum_tree_branch_and_bound"]

NO_TREE = 2**31 - 1  # upper bound reported when no tree is known
POLL_EVERY = 256  # calls between two polls of the clock and should_stop
IMPROVE_CALLS = 2000  # calls allowed to each subtree of the greedy tree when improving it
QUICK_CALLS = 5000  # calls of the numba-free first phase that finishes easy instances


@dataclass(frozen=True)
class BranchAndBoundResult:
    """Outcome of ``minimum_tree_branch_and_bound``; sizes in nodes (2 * leaves - 1)."""

    tree: Tree | None
    status: str  # "optimal" | "feasible" | "unknown"
    lower_bound: int
    upper_bound: int
    trace: list = field(default_factory=list)  # [(seconds, upper_bound, lower_bound)]
    stats: dict = field(default_factory=dict)


def _first(split):
    return split[0]


def _class_counter(class_sets):
    """A fast ``rows -> number of classes present`` for the given class bitsets."""
    if len(class_sets) == 1:
        return lambda rows: 1
    if len(class_sets) == 2:
        a, b = class_sets
        return lambda rows: (rows & a != 0) + (rows & b != 0)
    if len(class_sets) == 3:
        a, b, c = class_sets
        return lambda rows: (rows & a != 0) + (rows & b != 0) + (rows & c != 0)
    return lambda rows: sum(1 for s in class_sets if rows & s)


class _Stop(Exception):
    """Raised inside the recursion when the deadline passed or should_stop() said so."""


class _OutOfCalls(Exception):
    """Raised inside a budgeted solve (``improve``) when its calls are spent."""


def _prepare(X, y, n_classes):
    """Distinct rows, informative columns, bitsets. Raises ValueError on conflicting rows."""
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X has shape {X.shape} but y has {y.shape[0]} entries.")
    if X.shape[0] == 0:
        raise ValueError("No rows: a tree needs at least one training example.")
    X = (X != 0).astype(np.int64)
    if y.min() < 0:
        raise ValueError("Class indices must be >= 0.")
    n_classes = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if y.max() >= n_classes:
        raise ValueError(f"Class index {int(y.max())} is not below n_classes={n_classes}.")
    rows, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    labels = y[first]
    conflicting = np.unique(inverse[y != labels[inverse]])
    if len(conflicting):
        raise ValueError(f"{len(conflicting)} groups of identical rows have different classes: "
                         "no pure tree exists (remove conflicts first, e.g. resolve_conflicts).")
    kept, seen = [], set()
    for j in range(rows.shape[1]):
        column = rows[:, j]
        key = column.tobytes()
        if column.min() == column.max() or key in seen:
            continue
        seen.update((key, (1 - column).tobytes()))  # complementary columns split identically
        kept.append(j)
    return rows, labels, n_classes, kept


def _bitset(mask: np.ndarray) -> int:
    return int.from_bytes(np.packbits(mask.astype(np.uint8), bitorder="little").tobytes(),
                          "little")


class _Search:
    """Memoised branch and bound on bitset row sets of one prepared data set."""

    def __init__(self, rows, labels, n_classes, kept, *, use_incompatibility=True,
                 deadline=None, should_stop=None):
        self.n_rows = len(labels)
        self.labels = labels
        self.n_classes = n_classes
        self.features = kept
        self.columns = [_bitset(rows[:, j] == 1) for j in kept]
        self.class_sets = [s for s in (_bitset(labels == k) for k in range(n_classes)) if s]
        self.classes_in = _class_counter(self.class_sets)
        self.class_of_set = {s: int(labels[(s & -s).bit_length() - 1]) for s in self.class_sets}
        self.use_incompatibility = use_incompatibility
        if use_incompatibility:  # without it, no numba import (the quick first phase)
            from occamlearn.trees.mpdt import bnb_kernels

            self.kernels = bnb_kernels
            self.packed = bnb_kernels.pack_rows(rows[:, kept] if kept else rows)
        self.n_bytes = (self.n_rows + 7) // 8
        self.exact: dict[int, int] = {}  # row set -> minimum leaves
        self.split_of: dict[int, int] = {}  # row set -> column of a minimum split
        self.lower: dict[int, int] = {}  # row set -> proven lower bound on leaves
        self.deadline = deadline
        self.should_stop = should_stop
        self.calls = 0
        self.kernel_calls = 0
        self.call_cap = None  # set while improving the incumbent with budgeted solves

    # -- bounds ------------------------------------------------------------------------------
    def quick_bound(self, rows: int) -> int:
        value = self.exact.get(rows)
        if value is not None:
            return value
        value = self.lower.get(rows)
        if value is not None:
            return value
        return self.classes_in(rows)

    def incompatibility_bound(self, rows: int) -> int:
        self.kernel_calls += 1
        indices = np.flatnonzero(np.unpackbits(
            np.frombuffer(rows.to_bytes(self.n_bytes, "little"), dtype=np.uint8),
            bitorder="little"))
        return int(self.kernels.incompatibility_lower_bound(
            self.packed, self.labels, indices, self.n_classes, self.kernels.BOUND_WORK))

    def root_bound(self, rows: int) -> int:
        """The best static bound on ``rows`` (classes, incompatibility), memoised."""
        bound = self.quick_bound(rows)
        if bound > 1 and self.use_incompatibility and rows not in self.exact:
            bound = max(bound, self.incompatibility_bound(rows))
            self.lower[rows] = bound
        return bound

    def stats(self) -> dict:
        return {"calls": self.calls, "memo_entries": len(self.exact) + len(self.lower),
                "incompatibility_bounds": self.kernel_calls}

    def poll(self):
        if self.call_cap is not None and self.calls >= self.call_cap:
            raise _OutOfCalls
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stop
        if self.should_stop is not None and self.should_stop():
            raise _Stop

    # -- search ------------------------------------------------------------------------------
    def solve(self, rows: int, budget: int) -> int:
        """Minimum leaves of a pure tree on ``rows`` if <= budget, else a lower bound > budget."""
        exact, lower = self.exact, self.lower
        value = exact.get(rows)
        if value is not None:
            return value
        self.calls += 1
        if self.calls % POLL_EVERY == 0:
            self.poll()
        bound = lower.get(rows)
        if bound is None:
            bound = self.classes_in(rows)
            if bound == 1:
                exact[rows] = 1
                return 1
            if self.use_incompatibility and rows.bit_count() <= self.kernels.BOUND_MAX_ROWS:
                bound = max(bound, self.incompatibility_bound(rows))
            lower[rows] = bound
        if bound > budget:
            return bound
        exact_get, lower_get, classes_in = exact.get, lower.get, self.classes_in
        splits, seen = [], set()
        for index, column in enumerate(self.columns):
            right = rows & column
            if not right or right == rows or right in seen:
                continue
            left = rows ^ right
            seen.add(left)
            seen.add(right)
            # a stored value is >= 1, so ``or`` falls through only when nothing is stored
            split_bound = (exact_get(left) or lower_get(left) or classes_in(left)) + (
                exact_get(right) or lower_get(right) or classes_in(right))
            splits.append((split_bound, index, left, right))
        splits.sort(key=_first)
        best, best_index, failed_bound = budget + 1, -1, NO_TREE
        solve = self.solve
        for split_bound, index, left, right in splits:
            if split_bound >= best:
                failed_bound = min(failed_bound, split_bound)
                break
            right_bound = exact_get(right) or lower_get(right) or classes_in(right)
            left_value = solve(left, best - 1 - right_bound)
            if left_value > best - 1 - right_bound:
                failed_bound = min(failed_bound, left_value + right_bound)
                continue
            right_value = solve(right, best - 1 - left_value)
            if right_value > best - 1 - left_value:
                failed_bound = min(failed_bound, left_value + right_value)
                continue
            best, best_index = left_value + right_value, index
        if best <= budget:
            exact[rows] = best
            self.split_of[rows] = best_index
            lower.pop(rows, None)
            return best
        # every split was pruned or failed with a bound above the budget: their minimum holds
        bound = max(bound, failed_bound)
        lower[rows] = bound
        return bound

    # -- trees -------------------------------------------------------------------------------
    def nested(self, rows: int):
        """The memoised minimum tree of ``rows`` as ("leaf", k) / (feature, left, right)."""
        if self.classes_in(rows) == 1:
            return ("leaf", next(self.class_of_set[s] for s in self.class_sets if rows & s))
        index = self.split_of[rows]
        right = rows & self.columns[index]
        return (self.features[index], self.nested(rows ^ right), self.nested(right))

    def improve(self, nested, rows: int, calls_each: int):
        """The tree ``nested`` with, bottom-up, each subtree replaced by a minimum one when a
        solve limited to ``calls_each`` calls finds one smaller: an anytime upper bound
        before the deepening proves anything at the root. Returns (tree, leaves)."""
        if nested[0] == "leaf":
            return nested, 1
        feature, left, right = nested
        right_rows = rows & self.columns[self.features.index(feature)]
        left, left_leaves = self.improve(left, rows ^ right_rows, calls_each)
        right, right_leaves = self.improve(right, right_rows, calls_each)
        leaves = left_leaves + right_leaves
        self.call_cap = self.calls + calls_each
        try:
            value = self.solve(rows, leaves - 1)
        except _OutOfCalls:
            value = NO_TREE
        finally:
            self.call_cap = None
        if value <= leaves - 1:
            return self.nested(rows), value
        return (feature, left, right), leaves

    def greedy(self, rows: int):
        """A pure tree by information gain (ties: lowest column), as a nested tuple."""
        if self.classes_in(rows) == 1:
            return ("leaf", next(self.class_of_set[s] for s in self.class_sets if rows & s))
        best_index, best_entropy = -1, np.inf
        for index, column in enumerate(self.columns):
            right = rows & column
            if not right or right == rows:
                continue
            entropy = self._entropy(right) + self._entropy(rows ^ right)
            if entropy < best_entropy - 1e-12:
                best_index, best_entropy = index, entropy
        right = rows & self.columns[best_index]
        return (self.features[best_index], self.greedy(rows ^ right), self.greedy(right))

    def _entropy(self, rows: int) -> float:
        """Total entropy n * H(class | rows) of the class distribution on ``rows``."""
        counts = np.array([(rows & s).bit_count() for s in self.class_sets], dtype=float)
        counts = counts[counts > 0]
        return float(-(counts * np.log2(counts / counts.sum())).sum())


class _CompiledSearch(_Search):
    """The same search run by ``bnb_kernels.solve`` on uint64 word bitsets and an array hash
    table: about an order of magnitude fewer seconds per call than the Python loop. The
    compiled recursion returns every ``chunk`` calls so that the clock and ``should_stop``
    are polled; its memo survives, so the next call resumes where it stopped."""

    MEMORY_BYTES = 768 * 2**20  # cap on the memo table; when full it takes no new entries
    INITIAL_CAPACITY = 1 << 16

    def __init__(self, rows, labels, n_classes, kept, *, child_bounds=False, **options):
        super().__init__(rows, labels, n_classes, kept, **options)
        self.words = (self.n_rows + 63) // 64
        self.column_words = np.stack([self.to_words(c) for c in self.columns]) if kept \
            else np.zeros((0, self.words), dtype=np.uint64)
        self.class_words = np.stack([self.to_words(c) for c in self.class_sets])
        entry_bytes = 8 * self.words + 8
        self.max_capacity = max(self.INITIAL_CAPACITY,
                                1 << (self.MEMORY_BYTES // entry_bytes).bit_length() - 1)
        self.table = self.kernels.new_table(self.INITIAL_CAPACITY, self.words)
        self.counters = self.kernels.new_counters()
        # rebuilds a subtree the saturated table dropped; it must not stop half-way
        self.fallback = _Search(rows, labels, n_classes, kept,
                                use_incompatibility=self.use_incompatibility)
        self.counters[self.kernels.GROWABLE] = self.INITIAL_CAPACITY * 4 <= self.max_capacity
        self.counters[self.kernels.CHILD_BOUNDS] = child_bounds
        self.counters[self.kernels.USE_BOUND] = self.use_incompatibility
        self.chunk = 2000

    def to_words(self, rows: int) -> np.ndarray:
        return np.frombuffer(rows.to_bytes(8 * self.words, "little"), dtype="<u8").astype(
            np.uint64)

    def solve(self, rows: int, budget: int) -> int:
        kernels, counters = self.kernels, self.counters
        words = self.to_words(rows)
        while True:
            counters[kernels.FLAG] = 0
            counters[kernels.CALL_LIMIT] = counters[kernels.CALLS] + self.chunk
            if self.call_cap is not None:
                counters[kernels.CALL_LIMIT] = min(counters[kernels.CALL_LIMIT], self.call_cap)
            started = time.perf_counter()
            value = kernels.solve(words, budget, self.column_words, self.class_words,
                                  self.packed, self.labels, self.table, counters)
            self.calls = int(counters[kernels.CALLS])
            self.kernel_calls = int(counters[kernels.BOUND_CALLS])
            if value != kernels.ABORTED:
                return int(value)
            if counters[kernels.FLAG] == kernels.FLAG_FULL:
                self.grow()
            else:  # aim at ~20 ms between polls
                spent = time.perf_counter() - started
                self.chunk = int(min(max(self.chunk * 0.02 / max(spent, 1e-6), 1), 10**6))
                self.poll()

    def grow(self):
        capacity = self.table.shape[0]
        bigger = self.kernels.new_table(capacity * 4, self.words)
        self.kernels.rehash(self.table, bigger, self.counters)
        self.table = bigger
        self.counters[self.kernels.GROWABLE] = capacity * 16 <= self.max_capacity

    def stats(self) -> dict:
        return {**super().stats(), "memo_entries": int(self.counters[self.kernels.ENTRIES]),
                "table_capacity": self.table.shape[0],
                "table_saturated": not self.counters[self.kernels.GROWABLE]}

    def root_bound(self, rows: int) -> int:
        """The incompatibility bound whatever the size of ``rows`` (once, at the root), and
        the kernel's static bound (a first visit stores it; budget 0 always fails)."""
        bound = self.solve(rows, 0)
        if self.use_incompatibility and bound > 1:
            bound = max(bound, self.incompatibility_bound(rows))
        return bound

    def nested(self, rows: int):
        if self.classes_in(rows) == 1:
            return ("leaf", next(self.class_of_set[s] for s in self.class_sets if rows & s))
        value, is_exact, index = self.kernels.lookup(self.table, self.to_words(rows))
        if not is_exact:  # not kept by a saturated table: solve it again in Python
            budget = self.fallback.classes_in(rows)
            while (value := self.fallback.solve(rows, budget)) > budget:
                budget = value
            return self.fallback.nested(rows)
        right = rows & self.columns[index]
        return (self.features[index], self.nested(rows ^ right), self.nested(right))


def _tree_of_nested(nested, n_features, n_classes, feature_names) -> Tree:
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
            feature[at] = node[0]
            left[at] = add(node[1])
            right[at] = add(node[2])
        return at

    add(nested)
    counts = np.zeros((len(feature), n_classes), dtype=np.int64)
    return Tree(feature, left, right, label, counts, n_features, feature_names)


def _leaves(tree: Tree) -> int:
    return (tree.n_nodes + 1) // 2


def _check_pure(tree: Tree, X, y, origin: str = "found") -> Tree:
    """The tree with training counts. A found tree misclassifying a row is a bug
    (RuntimeError); a given upper_bound_tree doing so is the caller's error (ValueError)."""
    wrong = int(np.count_nonzero(tree.predict(X) != y))
    if wrong and origin == "given":
        raise ValueError(f"upper_bound_tree misclassifies {wrong} training rows: not pure")
    if wrong:
        raise RuntimeError(f"branch and bound produced a tree misclassifying {wrong} rows")
    return tree.with_counts(X, y)


def minimum_tree_branch_and_bound(X, y, n_classes=None, *, time_limit=None,
                                  upper_bound_tree=None, on_progress=None, should_stop=None,
                                  feature_names=()) -> BranchAndBoundResult:
    """Smallest pure decision tree of the 0/1 matrix X and class indices y, proven minimum.

    time_limit : seconds for the whole call, including the kernel compile (None: until
    proven). upper_bound_tree : a pure Tree from elsewhere, used as incumbent if smaller than
    the greedy tree. on_progress(upper_bound, lower_bound, seconds, tree_or_None) : called
    when a bound improves (sizes in nodes; the tree when the incumbent improves).
    should_stop() : polled during the search; True stops it with status "feasible".
    Ctrl-C during the search is caught: the incumbent comes back as "feasible" with the proven
    lower bound and ``stats["interrupted"] = True`` (a script that wants to stop re-raises).
    The first call ever compiles the numba kernels (tens of seconds, cached on disk; a short
    time limit then runs the Python engine instead): ``bnb_kernels.warm_up()`` does it ahead.
    Raises ValueError if identical rows have different classes.
    """
    return _run(X, y, n_classes, time_limit=time_limit, upper_bound_tree=upper_bound_tree,
                on_progress=on_progress, should_stop=should_stop, feature_names=feature_names)


def _choose_engine(kernels, time_limit) -> str:
    """"compiled" unless a compile (about 20 s the first time, about 1 s to load from the disk
    cache) would eat a large share of a short time limit; then the Python search."""
    if time_limit is None or time_limit >= 120:
        return "compiled"
    return "compiled" if kernels.search_is_cached() and time_limit >= 5 else "python"


def _run(X, y, n_classes, *, time_limit, upper_bound_tree, on_progress, should_stop,
         feature_names, **options) -> BranchAndBoundResult:
    start = time.perf_counter()
    rows, labels, n_classes, kept = _prepare(X, y, n_classes)
    X_checked = (np.asarray(X) != 0).astype(np.int64)
    y_checked = np.asarray(y, dtype=np.int64).ravel()
    n_features = X_checked.shape[1]
    deadline = None if time_limit is None else start + float(time_limit)
    engine = options.pop("engine", None)
    improve_calls = options.pop("improve_calls", IMPROVE_CALLS)
    quick_calls = options.pop("quick_calls", QUICK_CALLS)
    # quick phase: the Python search with the class bound only needs no numba at all
    search = _Search(rows, labels, n_classes, kept, use_incompatibility=False,
                     deadline=deadline, should_stop=should_stop)
    root = (1 << search.n_rows) - 1
    trace: list = []
    state = {"tree": None, "ub": NO_TREE, "lb": 1}
    compile_seconds, quick_phase_calls = 0.0, 0

    def report(tree=None, lower=None):
        seconds = time.perf_counter() - start
        if tree is not None and tree.n_nodes < state["ub"]:
            state["tree"], state["ub"] = tree, tree.n_nodes
        else:
            tree = None
        if lower is not None and lower > state["lb"]:
            state["lb"] = lower
        elif tree is None:
            return
        trace.append((seconds, state["ub"], state["lb"]))
        if on_progress is not None:
            on_progress(state["ub"], state["lb"], seconds, tree)

    def deepen(budget: int) -> None:
        """Iterative deepening at the root from a proven bound until a tree is found."""
        while 2 * budget - 1 < state["ub"]:
            value = search.solve(root, budget)
            if value <= budget:
                report(tree=as_tree(search.nested(root)), lower=2 * value - 1)
                return
            budget = value
            report(lower=2 * budget - 1)

    def as_tree(nested) -> Tree:
        tree = _tree_of_nested(nested, n_features, n_classes, tuple(feature_names))
        return _check_pure(tree, X_checked, y_checked)

    interrupted = stopped = False
    try:
        greedy = search.greedy(root)
        candidates = [as_tree(greedy)]  # never skipped: a stop returns a tree
        if upper_bound_tree is not None:
            candidates.append(_check_pure(upper_bound_tree, X_checked, y_checked, "given"))
        report(tree=min(candidates, key=lambda tree: tree.n_nodes),
               lower=2 * search.classes_in(root) - 1)
        search.poll()
        if quick_calls:
            search.call_cap = quick_calls
            try:
                deepen(search.classes_in(root))
            except _OutOfCalls:  # not easy: the full search, from the bound proven so far
                search.call_cap, quick_phase_calls = None, search.calls
        if state["lb"] < state["ub"]:
            from occamlearn.trees.mpdt import bnb_kernels

            engine = engine or _choose_engine(bnb_kernels, time_limit)
            compile_seconds = bnb_kernels.warm_up(search=engine == "compiled")
            search = (_CompiledSearch if engine == "compiled" else _Search)(
                rows, labels, n_classes, kept, deadline=deadline, should_stop=should_stop,
                **options)
            budget = max(search.root_bound(root), (state["lb"] + 1) // 2)
            report(lower=2 * budget - 1)
            if improve_calls and 2 * budget - 1 < state["ub"]:
                report(tree=as_tree(search.improve(greedy, root, improve_calls)[0]))
            deepen(budget)
    except _Stop:
        stopped = True
    except KeyboardInterrupt:
        interrupted = True
    lower = min(state["lb"], state["ub"])
    status = ("optimal" if state["tree"] is not None and lower == state["ub"]
              else "feasible" if state["tree"] is not None else "unknown")
    stats = {**search.stats(), "quick_phase_calls": quick_phase_calls,
             "kernel_compile_seconds": compile_seconds, "engine": engine or "quick",
             "distinct_rows": search.n_rows, "informative_features": len(kept),
             "stopped": stopped, "interrupted": interrupted,
             "seconds": time.perf_counter() - start}
    return BranchAndBoundResult(state["tree"], status, lower, state["ub"], trace, stats)


sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
