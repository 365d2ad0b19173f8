"""Smallest decision tree with at most e training errors, by branch and bound over row sets.

The same question as ``error_budget.find_minimum_tree_with_errors`` (MaxSAT), answered by a
memoised search in the style of MurTree / STreeD, on the recursion

    best(S, b) = 1                                        if err(S) <= b
    best(S, b) = min over features j, budgets bL + bR = b of best(S0, bL) + best(S1, bR)

where best(S, b) is the fewest leaves of a tree on the row set S with at most b errors,
err(S) = |S| - (commonest class count) is the errors of one leaf (it predicts the majority),
and S0 / S1 are the rows of S with x_j = 0 / 1 (a size is 2 * leaves - 1 nodes). Rows are
grouped by identical pattern first: a tree sends all rows of a pattern to one leaf, so a row
set is a set of patterns and errors count rows with their multiplicity. Row sets are Python
integers used as bitsets over the rows sorted by pattern and class, so that class counts and
the errors forced by conflicting rows inside S are popcounts.

**Search.** ``solve(S, b, ub)`` returns best(S, b) when it is <= ub, else a proven lower
bound > ub (the DL8.5 / MurTree scheme of the pure search in ``branch_and_bound``). For a
split j the budget of the left child ranges over [max(forced(S0), b - err(S1)),
min(b - forced(S1), err(S0))]: a child never needs more budget than one leaf's errors and
never gets less than its own conflicts (proof: a tree with child errors e0, e1 can be taken
with e0 <= err(S0), e1 <= err(S1) - else a leaf is as good - and then bL = max(e0, b - err(S1))
lies in the range and leaves both children at least their errors; if the range is empty,
b > err(S0) + err(S1) and two leaves fit). Every (split, bL) is a candidate; candidates
are tried in increasing order of their lower bound LB(S0, bL) + LB(S1, b - bL) and the loop
stops when the next bound reaches the best found. The fronts spare most budget splits: once
the left child's best tree within bL is known to make e' < bL errors, the candidates with a
left budget above max(e', lowest) are dominated by that one (same left tree, more budget on
the right) and skipped.

**Front per row set.** Each row set keeps, lazily, both sides of its (errors, leaves) front:
``ach[v]`` the fewest errors of a tree with v leaves found so far (with the split and the
children's leaf counts, so the tree can be rebuilt; the rebuilt tree has at most those
errors because a child's entry only ever improves), and ``lo[b]`` proven lower bounds on
best(S, b). best(S, .) is non-increasing in the budget, so a bound proven for budget b holds
for every smaller budget, and a tree with v leaves and e' errors answers every budget >= e';
best(S, b) is known exactly when the largest bound for b meets min{v : ach[v] <= b}. The
found errors are what is stored, not the budget asked for, so one solve answers a whole
interval of budgets. A greedy tree's subtrees seed the fronts (upper bounds everywhere).

**Lower bounds** on best(S, b) (each with its proof):

* 1 leaf; infeasible (infinite) when b < forced(S), the errors of conflicting rows in S;
* classes: a tree with l leaves predicts at most l classes, so it misclassifies at least the
  rows outside its l largest classes: best(S, b) >= min{l : |S| - top_l(S) <= b};
* b-incompatibility (``error_budget_bnb_kernels``): take items = (pattern, class) groups of S
  and call two items a, c of class k b-incompatible when the rows of other classes in S
  lying in the smallest subcube containing both patterns weigh more than b. A leaf is the set
  of rows of S satisfying the tests on its path; a leaf holding a and c holds that subcube
  (every test on the path is passed by a and c, so it tests a feature on which they agree).
  So two correctly classified items share a leaf only if they have the same class k (the
  leaf's label) and are not b-incompatible (else the leaf alone makes > b errors). For a set
  Q of items pairwise b-incompatible within each class, the correctly classified items of Q
  need one leaf each; at most t items of Q are misclassified, t = the most items of Q whose
  weights fit in b together. Hence best(S, b) >= |Q| - t. (The pure search's bound is the
  case b = 0; its bounds do not transfer to b > 0 without this correction.)
* one-step look-ahead: a failed call stores min over candidates of their proven bounds.

The root loop is iterative deepening on the proven lower bound, after the incumbent: the
smallest pruning of a greedy information-gain tree that fits the budget (a min-plus dynamic
programme over the greedy tree's (leaves, errors) fronts; the unpruned greedy tree makes only
the forced errors, so it always fits). ``time_limit`` (whole call, including the kernel
compile) is checked every 16 calls and ``should_stop()`` every 256; then, on Ctrl-C
(``stats["interrupted"]``) or when the memo reaches its memory cap (``stats["memory_full"]``;
it is never evicted, since rebuilding trees follows its entries), the best tree so far is
returned as "feasible" with the proven lower bound. The cyclic garbage collector is off during
the search (the memo has no cycles; its passes cost two thirds of the time).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable

import numpy as np

from occamlearn.model.tree import LEAF, Tree
from occamlearn.trees.data_reduction import group_examples
from occamlearn.trees.mpdt.search import MinimumTreeResult

__all__ = ["find_minimum_tree_with_errors_bnb"]

TreeCallback = Callable[[Tree, float], None]

INF = 1 << 30
POLL_EVERY = 256  # calls between two polls of should_stop
MEMO_BYTES = 2 * 2**30  # the memo's cap (see _Search.__init__)
# Row sets whose static bounds are cached (the children of every split, most never
# searched: hepa recomputed them 1.4 million times in 20 s without the cache), at most
# STATIC_BYTES of them (about 200 bytes each plus the bitset); the memo gets the rest.
STATIC_CACHE = 1 << 20
STATIC_BYTES = 2**29
CLOCK_EVERY = 16  # calls between two looks at the clock (a call takes ~0.1-1 ms)
# The incompatibility bound costs O(m^2 |Q|) per call; after BOUND_TRIAL calls it is kept only
# if it raised at least one bound in BOUND_GAIN_RATIO calls (as in the pure search).
BOUND_TRIAL = 2000
BOUND_GAIN_RATIO = 20
# Above this many patterns in S the bound is not computed: one call is O(m^2 |Q|) and took
# seconds at m ~ 4000 (mushroom), which also overran time limits.
BOUND_MAX_PATTERNS = 1000

# Indices into a row set's memo entry (a list, for speed).
N, ERR1, FORCED, LABEL, CLASS_ERR, LO, ACH, BOUNDED = range(8)


class _Stop(Exception):
    """Raised inside the recursion when the deadline passed or should_stop() said so."""


def _check_max_errors(max_errors) -> int:
    if not isinstance(max_errors, (int, np.integer)) or isinstance(max_errors, bool) \
            or max_errors < 0:
        raise ValueError(f"max_errors must be a non-negative int; got {max_errors!r}.")
    return int(max_errors)


def _check_time_limit(time_limit) -> float | None:
    if time_limit is None:
        return None
    if not isinstance(time_limit, (int, float, np.integer, np.floating)) \
            or isinstance(time_limit, bool) or time_limit <= 0:
        raise ValueError(f"time_limit must be a positive number of seconds or None; "
                         f"got {time_limit!r}.")
    return float(time_limit)


def _validate(X, y, n_classes) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-d 0/1 matrix; got an array of shape {X.shape}.")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one class index per row of X ({X.shape[0]}); "
                         f"got shape {y.shape}.")
    if X.shape[0] == 0:
        raise ValueError("X has no rows: at least one training example is needed.")
    if X.size and not np.isin(X, (0, 1)).all():
        raise ValueError("X must contain only 0/1 values; got "
                         f"{sorted(set(np.unique(X).tolist()) - {0, 1})[:5]}.")
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive int; got {n_classes!r}.")
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"y must hold class indices in 0..{n_classes - 1}; got values "
                         f"{np.unique(y)[:10].tolist()}.")
    return X.astype(np.int64), y.astype(np.int64)


def _bitset(mask: np.ndarray) -> int:
    return int.from_bytes(np.packbits(mask.astype(np.uint8), bitorder="little").tobytes(),
                          "little")


class _Search:
    """Memoised budgeted branch and bound on bitset row sets of one data set."""

    def __init__(self, X, y, n_classes, *, deadline=None, should_stop=None,
                 use_incompatibility=True):
        groups = group_examples(X, y)
        self.patterns = groups.patterns.astype(np.int64)
        n_patterns = groups.n_patterns
        self.weights = np.zeros((n_patterns, n_classes), dtype=np.int64)
        np.add.at(self.weights, (groups.pattern, groups.label), groups.count)
        self.totals = self.weights.sum(axis=1)
        self.forced_errors = groups.forced_errors()
        self.n_classes = n_classes
        self.n_features = X.shape[1]
        # rows sorted by pattern, then class: pattern p owns bits start[p] .. start[p+1]-1
        row_pattern = np.repeat(np.arange(n_patterns), self.totals)
        row_class = np.concatenate([np.repeat(np.arange(n_classes), self.weights[p])
                                    for p in range(n_patterns)])
        self.n_rows = len(row_pattern)
        self.start = np.concatenate([[0], np.cumsum(self.totals)[:-1]]).astype(np.int64)
        self.n_bytes = (self.n_rows + 7) // 8
        self.class_sets = [_bitset(row_class == k) for k in range(n_classes)]
        majority = self.weights.argmax(axis=1)
        self.minority = _bitset(row_class != majority[row_pattern])
        # informative columns: one per partition of the patterns (complements split alike)
        self.features, self.columns, seen = [], [], set()
        for j in range(self.n_features):
            column = self.patterns[:, j]
            if column.min() == column.max():
                continue
            key = column.astype(np.uint8).tobytes()
            if key in seen:
                continue
            seen.update((key, (1 - column).astype(np.uint8).tobytes()))
            self.features.append(j)
            self.columns.append(_bitset(column[row_pattern] == 1))
        self.memo: dict[int, list] = {}
        self.statics: dict[int, tuple] = {}
        # the memo is never evicted (rebuilding trees follows its entries): when it would pass
        # MEMO_BYTES (about 1000 bytes of lists, dicts and sets per entry, plus the bitset) the
        # search stops as at a time limit, with stats["memory_full"]
        self.static_cap = min(STATIC_CACHE, STATIC_BYTES // (200 + self.n_rows // 8))
        self.max_entries = (MEMO_BYTES - STATIC_BYTES) // (1000 + 2 * (self.n_rows // 8))
        self.memory_full = False
        self.deadline = deadline
        self.should_stop = should_stop
        self.use_incompatibility = use_incompatibility
        self.calls = 0
        self.bound_calls = 0
        self.bound_gains = 0
        self.kernels = None
        if use_incompatibility:
            from occamlearn.trees.mpdt import error_budget_bnb_kernels

            self.kernels = error_budget_bnb_kernels
            self.packed = error_budget_bnb_kernels.pack_rows(self.patterns)

    # -- memo entries and bounds ----------------------------------------------------------
    def static(self, rows: int) -> tuple:
        """(n, err1, forced, label, class_err, None): the first fields of a memo entry, for
        bounds on a row set that may never be searched (no memo entry is made for it); kept
        in a cache that is emptied when full (``static_cap`` row sets)."""
        found = self.statics.get(rows)
        if found is not None:
            return found
        if len(self.statics) >= self.static_cap:
            self.statics.clear()
        counts = [(rows & s).bit_count() for s in self.class_sets]
        n = rows.bit_count()
        ordered = sorted(counts, reverse=True)
        class_err, kept = [n], 0
        for count in ordered:
            kept += count
            class_err.append(n - kept)
        found = (n, n - ordered[0], (rows & self.minority).bit_count(),
                 counts.index(ordered[0]), class_err, None)
        self.statics[rows] = found
        return found

    def entry(self, rows: int) -> list:
        found = self.memo.get(rows)
        if found is not None:
            return found
        n, err1, forced, label, class_err, _ = self.static(rows)
        found = [n, err1, forced, label, class_err, {}, {1: (err1, -1, 0, 0)}, set()]
        self.memo[rows] = found
        return found

    @staticmethod
    def lower(entry: list, budget: int) -> int:
        """Proven lower bound on best(S, budget) from the static bounds and the memo."""
        if budget >= entry[1]:  # ERR1
            return 1
        if budget < entry[2]:  # FORCED
            return INF
        class_err = entry[4]  # CLASS_ERR
        bound = 2
        while class_err[bound] > budget:
            bound += 1
        lo = entry[5]  # LO
        if lo:
            for b, value in lo.items():
                if b >= budget and value > bound:
                    bound = value
        return bound

    @staticmethod
    def upper(entry: list, budget: int) -> int:
        """Fewest leaves of a tree found on S with at most ``budget`` errors (INF: none)."""
        best = INF
        for leaves, achieved in entry[ACH].items():
            if achieved[0] <= budget and leaves < best:
                best = leaves
        return best

    @staticmethod
    def store_lower(entry: list, budget: int, value: int) -> None:
        lo = entry[LO]
        if lo.get(budget, 0) >= value:
            return
        for b in [b for b, v in lo.items() if b < budget and v <= value]:
            del lo[b]  # implied by the new bound (monotone in the budget)
        lo[budget] = value

    @staticmethod
    def store_tree(entry: list, leaves: int, errors: int, feature: int, left_leaves: int,
                   right_leaves: int) -> None:
        known = entry[ACH].get(leaves)
        if known is None or known[0] > errors:
            entry[ACH][leaves] = (errors, feature, left_leaves, right_leaves)

    def incompatibility_bound(self, rows: int, budget: int) -> int:
        self.bound_calls += 1
        bits = np.unpackbits(np.frombuffer(rows.to_bytes(self.n_bytes, "little"),
                                           dtype=np.uint8), bitorder="little")
        patterns = np.flatnonzero(bits[self.start])
        if len(patterns) > BOUND_MAX_PATTERNS:
            return 1
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stop
        return int(self.kernels.incompatibility_bound(self.packed, self.weights, self.totals,
                                                      patterns, budget))

    def bound_pays(self) -> bool:
        return self.use_incompatibility and (
            self.bound_calls < BOUND_TRIAL
            or self.bound_gains * BOUND_GAIN_RATIO >= self.bound_calls)

    def poll(self):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stop
        if self.should_stop is not None and self.should_stop():
            raise _Stop

    # -- search ---------------------------------------------------------------------------
    def solve(self, rows: int, budget: int, ub: int) -> int:
        """best(rows, budget) if it is <= ub, else a proven lower bound > ub."""
        entry = self.entry(rows)
        if budget >= entry[ERR1]:
            return 1
        lower, upper = self.lower, self.upper
        bound = lower(entry, budget)
        if bound > ub:
            return bound
        known = upper(entry, budget)
        if bound >= known:
            return known
        self.calls += 1
        if not self.calls % CLOCK_EVERY:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise _Stop
            if len(self.memo) > self.max_entries:
                self.memory_full = True
                raise _Stop
            if not self.calls % POLL_EVERY:
                self.poll()
        if budget not in entry[BOUNDED] and self.bound_pays():
            entry[BOUNDED].add(budget)
            found = self.incompatibility_bound(rows, budget)
            if found > bound:
                self.bound_gains += 1
                bound = found
                self.store_lower(entry, budget, bound)
                if bound > ub:
                    return bound
                if bound >= known:
                    return known
        static, memo = self.static, self.memo
        memo_get = memo.get
        candidates, seen = [], set()
        for index, column in enumerate(self.columns):
            right = rows & column
            if not right or right == rows or right in seen:
                continue
            left = rows ^ right
            seen.add(left)
            seen.add(right)
            left_entry = memo_get(left) or static(left)
            right_entry = memo_get(right) or static(right)
            low = max(left_entry[FORCED], budget - right_entry[ERR1])
            high = min(budget - right_entry[FORCED], left_entry[ERR1])
            if low > high:  # budget > err(left) + err(right): two leaves fit
                low = high = left_entry[ERR1]
            for left_budget in range(low, high + 1):
                candidates.append((lower(left_entry, left_budget)
                                   + lower(right_entry, budget - left_budget),
                                   index, left_budget, left, right, left_entry, right_entry,
                                   low))
        candidates.sort(key=_first)
        best = min(ub + 1, known)
        failed = INF
        solve = self.solve
        for (split_bound, index, left_budget, left, right, left_entry,
             right_entry, low) in candidates:
            if split_bound >= best:
                failed = min(failed, split_bound)
                break
            right_budget = budget - left_budget
            right_bound = lower(memo_get(right) or right_entry, right_budget)
            left_value = solve(left, left_budget, best - 1 - right_bound)
            left_entry = memo[left]  # made by solve
            if left_value > best - 1 - right_bound:
                failed = min(failed, left_value + right_bound)
                continue
            # Budget dominance: the left tree found makes e' errors; if e' < left_budget, the
            # candidate (same split, left budget max(e', low)) has the same left value and at
            # least as much right budget, so it is at least as good; it is in the list (it
            # has a smaller left budget, so chains of skips end) and is tried or pruned with
            # a bound below this candidate's value. Skipping keeps ``failed`` a valid bound.
            if left_budget > low and left_entry[ACH][left_value][0] < left_budget:
                continue
            right_value = solve(right, right_budget, best - 1 - left_value)
            if right_value > best - 1 - left_value:
                failed = min(failed, left_value + right_value)
                continue
            best = left_value + right_value
            errors = left_entry[ACH][left_value][0] + memo[right][ACH][right_value][0]
            self.store_tree(entry, best, errors, index, left_value, right_value)
        if best <= ub:
            self.store_lower(entry, budget, best)
            return best
        bound = max(bound, failed)  # every candidate was pruned or failed above ub
        self.store_lower(entry, budget, bound)
        return bound

    # -- trees ----------------------------------------------------------------------------
    def nested(self, rows: int, leaves: int):
        """The memoised tree of ``rows`` with ``leaves`` leaves, ("leaf", k) or
        (feature, left, right)."""
        entry = self.entry(rows)
        if leaves == 1:
            return ("leaf", entry[LABEL])
        _, index, left_leaves, right_leaves = entry[ACH][leaves]
        right = rows & self.columns[index]
        return (self.features[index], self.nested(rows ^ right, left_leaves),
                self.nested(right, right_leaves))

    def greedy(self, rows: int):
        """A tree by information gain (ties: lowest column) grown until its leaves are pure
        or single patterns, as (rows, index, left, right) / (rows,) nodes."""
        entry = self.entry(rows)
        if entry[ERR1] == 0:
            return (rows,)
        best_index, best_entropy = -1, np.inf
        for index, column in enumerate(self.columns):
            right = rows & column
            if not right or right == rows:
                continue
            entropy = self._entropy(right) + self._entropy(rows ^ right)
            if entropy < best_entropy - 1e-12:
                best_index, best_entropy = index, entropy
        if best_index < 0:  # a single pattern with conflicting rows
            return (rows,)
        right = rows & self.columns[best_index]
        return (rows, best_index, self.greedy(rows ^ right), self.greedy(right))

    def _entropy(self, rows: int) -> float:
        counts = np.array([(rows & s).bit_count() for s in self.class_sets], dtype=float)
        counts = counts[counts > 0]
        return float(-(counts * np.log2(counts / counts.sum())).sum())

    def seed_fronts(self, node) -> list:
        """Min-plus programme over the greedy tree: front[l] = fewest errors of a pruning of
        ``node`` with l leaves (index 0 unused); every pruning is stored in the memo."""
        entry = self.entry(node[0])
        if len(node) == 1:
            return [INF, entry[ERR1]]
        _, index, left, right = node
        left_front, right_front = self.seed_fronts(left), self.seed_fronts(right)
        front = [INF] * (len(left_front) + len(right_front) - 1)
        choice = [None] * len(front)
        for a in range(1, len(left_front)):
            for b in range(1, len(right_front)):
                errors = left_front[a] + right_front[b]
                if errors < front[a + b]:
                    front[a + b], choice[a + b] = errors, (a, b)
        front[1] = entry[ERR1]
        for leaves in range(2, len(front)):
            a, b = choice[leaves]
            self.store_tree(entry, leaves, front[leaves], index, a, b)
        return front

    def stats(self) -> dict:
        return {"calls": self.calls, "memo_entries": len(self.memo),
                "memory_full": self.memory_full,
                "incompatibility_bounds": self.bound_calls,
                "incompatibility_gains": self.bound_gains}


def _first(candidate):
    return candidate[0]


def _tree_of_nested(nested, n_features: int, n_classes: int) -> Tree:
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
    return Tree(feature, left, right, label, counts, n_features)


def find_minimum_tree_with_errors_bnb(X, y, n_classes: int, max_errors: int, *,
                                      time_limit: float | None = None,
                                      on_improve: TreeCallback | None = None,
                                      should_stop: Callable[[], bool] | None = None,
                                      use_incompatibility: bool = True) -> MinimumTreeResult:
    """Smallest tree over 0/1 matrix ``X`` misclassifying at most ``max_errors`` rows of ``y``,
    by branch and bound (see the module docstring); same meaning and result as
    ``error_budget.find_minimum_tree_with_errors``.

    ``y`` holds class indices; identical rows with different labels are allowed (they use up
    budget; a budget below the errors they force is a ValueError). Status "optimal" means
    proven minimum; "feasible" (time limit, ``should_stop()`` returned True, or Ctrl-C) comes
    with the proven ``lower_bound``. ``on_improve(tree, seconds)`` is called with each smaller
    tree. ``use_incompatibility=False`` drops the compiled bound (slower; for tests).
    ``stats["training_errors"]`` is the returned tree's error count.
    """
    start = time.perf_counter()
    X, y = _validate(X, y, n_classes)
    n_classes = int(n_classes)
    max_errors = _check_max_errors(max_errors)
    time_limit = _check_time_limit(time_limit)
    deadline = None if time_limit is None else start + time_limit
    forced = group_examples(X, y).forced_errors()
    if max_errors < forced:
        raise ValueError(f"max_errors={max_errors} is below the {forced} errors that "
                         "identical rows with different labels force; no tree fits that "
                         "budget.")
    compile_seconds = 0.0
    if use_incompatibility:
        from occamlearn.trees.mpdt import error_budget_bnb_kernels

        compile_seconds = error_budget_bnb_kernels.warm_up()
    search = _Search(X, y, n_classes, deadline=deadline, should_stop=should_stop,
                     use_incompatibility=use_incompatibility)
    root = (1 << search.n_rows) - 1
    # The memo holds millions of small lists and dicts without cycles: the cyclic garbage
    # collector's passes over them cost two thirds of the time (wine, budget 0: 18.5 s with
    # it, 6.2 s without), so it is off during the search.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _search_root(search, root, X, y, n_classes, max_errors, forced, start,
                            compile_seconds, on_improve)
    finally:
        if collecting:
            gc.enable()


def _search_root(search, root, X, y, n_classes, max_errors, forced, start, compile_seconds,
                 on_improve) -> MinimumTreeResult:
    trace: list = []
    state = {"tree": None, "lower": 1}

    def report(nested) -> None:
        tree = _tree_of_nested(nested, X.shape[1], n_classes).with_counts(X, y)
        if state["tree"] is not None and tree.n_nodes >= state["tree"].n_nodes:
            return
        state["tree"] = tree
        trace.append((time.perf_counter() - start, tree.n_nodes))
        if on_improve is not None:
            on_improve(tree, trace[-1][0])

    stopped = interrupted = False
    root_entry = search.entry(root)
    front = search.seed_fronts(search.greedy(root))  # never skipped: a stop returns a tree
    leaves = next(v for v in range(1, len(front)) if front[v] <= max_errors)
    greedy_size = 2 * leaves - 1
    report(search.nested(root, leaves))
    try:
        search.poll()
        bound = search.lower(root_entry, max_errors)
        if bound < leaves and search.use_incompatibility:
            root_entry[BOUNDED].add(max_errors)
            bound = max(bound, search.incompatibility_bound(root, max_errors))
            search.store_lower(root_entry, max_errors, bound)
        state["lower"] = bound
        while bound < search.upper(root_entry, max_errors):
            value = search.solve(root, max_errors, bound)
            if value <= bound:
                state["lower"] = value
                report(search.nested(root, value))
                break
            bound = state["lower"] = value
    except _Stop:
        stopped = True
    except KeyboardInterrupt:
        interrupted = True
    tree = state["tree"]
    lower = 2 * min(state["lower"], search.upper(root_entry, max_errors)) - 1
    lower = min(lower, tree.n_nodes)
    status = "optimal" if lower == tree.n_nodes else "feasible"
    training_errors = int((tree.predict(X) != y).sum())
    if training_errors > max_errors:
        raise RuntimeError(f"branch and bound produced a tree with {training_errors} errors "
                           f"> max_errors={max_errors} (a bug)")
    stats = {"max_errors": max_errors, "forced_errors": forced, "greedy_size": greedy_size,
             "training_errors": training_errors, **search.stats(),
             "kernel_compile_seconds": compile_seconds, "distinct_rows": len(search.totals),
             "informative_features": len(search.features), "stopped": stopped,
             "interrupted": interrupted, "seconds": time.perf_counter() - start}
    return MinimumTreeResult(tree, status, int(lower), tree.n_nodes, stats, tuple(trace))


sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
