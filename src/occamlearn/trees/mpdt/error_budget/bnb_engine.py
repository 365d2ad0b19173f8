"""The search engine of the error-budget branch and bound (``error_budget.bnb``).

``BudgetRowSetSearch.solve(S, b, ub)`` returns the fewest leaves of a tree of row set S with at
most b errors if that is at most ``ub``, else a proven lower bound above it, keeping per row
set the (leaves, errors) front it has found and the bounds it has proved. The bounds and why
they hold are in ``error_budget.bnb``'s docstring; the compiled incompatibility bound is
``bnb_kernels``; the candidates of a node (splits and budget divisions) are built by
``bnb_candidates``. The data view, the poll, the split enumeration, the greedy start and the
tree rebuild are the exact-search core's (``trees.exact``).

A row set is a bitset over the (pattern, class) groups (``exact.bits.GroupBits``); errors are
counted in the groups' integer weights (rows, without sample weights), divided by their
common divisor. A budget is split between two children unit by unit, so fine weights (many
units per row) make many candidate splits of a budget.
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.stopping import CLOCK, KernelPace
from occamlearn.trees.exact.bits import GroupBits
from occamlearn.trees.exact.data import ExampleGroups
from occamlearn.trees.exact.nested import rebuild
from occamlearn.trees.exact.splits import greedy_tree
from occamlearn.trees.exact.stop import POLL_EVERY, Poll, Stop
from occamlearn.trees.mpdt.error_budget.bnb_candidates import ENTRY_FIELDS, INF, split_candidates
from occamlearn.trees.pruning import min_plus

__all__ = ["BOUNDED", "BudgetRowSetSearch"]

# The memo's cap (see BudgetRowSetSearch.__init__): this share of what the process's memory
# limit leaves when the search starts (``occamlearn.memory``), at most MEMO_BYTES; and every
# MEMORY_LOOK_EVERY calls a look at the process's resident memory, in case the estimate of
# the bytes per entry falls short.
MEMO_BYTES = 2 * 2**30
MEMO_SHARE = 0.6
MEMORY_LOOK_EVERY = 1 << 14
# Row sets whose static bounds are cached (the children of every split, most never
# searched: hepa recomputed them 1.4 million times in 20 s without the cache), at most
# STATIC_BYTES of them (about 200 bytes each plus the bitset); the memo gets the rest.
STATIC_CACHE = 1 << 20
STATIC_BYTES = 2**29
# The incompatibility bound costs O(m^2 |Q|) per call; after BOUND_TRIAL calls it is kept only
# if it raised at least one bound in BOUND_GAIN_RATIO calls (as in the pure search).
BOUND_TRIAL = 2000
BOUND_GAIN_RATIO = 20
# Above this many patterns in S the bound is not computed: one call is O(m^2 |Q|), seconds
# at a few thousand patterns, and it does not look at the deadline.
BOUND_MAX_PATTERNS = 1000
# Seconds per step of the bound's kernel (one pattern scanned by a witness test) until its
# calls are timed; a call's work is capped at ``Deadline.step_seconds()`` (1 % of the limit).
BOUND_SECONDS_PER_STEP = 2e-8

# Indices into a row set's memo entry (a list, for speed): ``bnb_candidates``'.
N, ERR1, FORCED, LABEL, CLASS_ERR, LO, ACH, BOUNDED, SPLITS = ENTRY_FIELDS


class BudgetRowSetSearch:
    """Memoised budgeted branch and bound on bitset row sets of one data set."""

    def __init__(self, groups: ExampleGroups, n_classes: int, *, deadline=None,
                 use_incompatibility=True, use_small_trees=False):
        view = GroupBits(groups, n_classes)
        self.unit, self.group_units = view.unit, view.units
        self.patterns = groups.patterns.astype(np.int64)
        self.weights, self.totals = view.weights, view.weights.sum(axis=1)
        self.n_classes = n_classes
        self.n_rows = view.n_bits
        self.view = view
        self.class_weights, self.forced_weight = view.class_weights, view.forced_weight
        self.one_unit, self.class_sets, self.minority = (view.one_unit, view.class_sets,
                                                         view.minority)
        self.features, self.columns = view.features, view.columns
        self.memo: dict[int, list] = {}
        self.statics: dict[int, tuple] = {}
        # the memo is never evicted (rebuilding trees follows its entries): when it would pass
        # its share of the memory left (about 1000 bytes of lists, dicts and sets per entry,
        # 24 per split in its split list, plus the bitset) the search stops as at a time
        # limit, with stats["memory_full"]
        memo_bytes = memory.share(MEMO_SHARE, cap=MEMO_BYTES)
        static_bytes = min(STATIC_BYTES, memo_bytes // 4)
        self.static_cap = min(STATIC_CACHE, static_bytes // (200 + self.n_rows // 8))
        self.max_entries = (memo_bytes - static_bytes) // (
            1000 + 24 * len(view.columns) + 2 * (self.n_rows // 8))
        self.memory_full = False
        self.poll = Poll(deadline)
        self.bound_calls = 0
        self.bound_gains = 0
        self.bound_pace = KernelPace(BOUND_SECONDS_PER_STEP)
        self.pure = None  # a ``pure_oracle.PureOracle`` for the smallest budgets, if set
        self.use_incompatibility, self.kernels = False, None
        self.small = None
        self.small_later: set[int] = set()  # entries whose small trees wait (``entry``)
        self.use_kernels(use_incompatibility, use_small_trees)

    def use_kernels(self, use_incompatibility: bool, use_small_trees: bool) -> None:
        """Use the compiled incompatibility bound and the exact answers up to three leaves per
        new row set (``small_trees``), whose kernels the caller has loaded
        (``small_trees.load_kernels``). A search may start without them (its greedy start
        needs none, so its first tree does not wait for numba) and take them later: the
        entries made before then wait for their small trees until a search visits them, as
        the greedy start's entries do (``entry``)."""
        self.use_incompatibility = use_incompatibility
        if use_incompatibility and self.kernels is None:
            from occamlearn.trees.mpdt.error_budget import bnb_kernels

            self.kernels = bnb_kernels
            self.packed = bnb_kernels.pack_rows(self.patterns)
        if use_small_trees and self.small is None:
            from occamlearn.trees.mpdt.error_budget import bnb_kernels
            from occamlearn.trees.mpdt.error_budget.small_trees import SmallTrees

            self.small = SmallTrees(self.view, bnb_kernels, self.poll.deadline)
            self.small_later.update(rows for rows, entry in self.memo.items()
                                    if entry[ERR1] > entry[FORCED])

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
        if self.one_unit:  # popcounts inline: this runs for every child of every split
            counts = [(rows & s).bit_count() for s in self.class_sets]
            n, forced = rows.bit_count(), (rows & self.minority).bit_count()
        else:
            counts = self.class_weights(rows)
            n, forced = sum(counts), self.forced_weight(rows)
        ordered = sorted(counts, reverse=True)
        class_err, kept = [n], 0
        for count in ordered:
            kept += count
            class_err.append(n - kept)
        class_err += [0] * (5 - len(class_err))  # indices 2-4 always there (``small_trees``)
        found = (n, n - ordered[0], forced,
                 counts.index(ordered[0]), class_err, None)
        self.statics[rows] = found
        return found

    def entry(self, rows: int, small: bool = True) -> list:
        """The memo entry of ``rows``, made if new, with its small trees (``small_trees``)
        unless ``small`` is False: then they wait until a search first visits the row set
        (``solve``), so that building the greedy start's entries costs no kernel call."""
        found = self.memo.get(rows)
        if found is not None:
            return found
        n, err1, forced, label, class_err, _ = self.static(rows)
        found = [n, err1, forced, label, class_err, {}, {1: (err1, -1, 0, 0)}, set(), None]
        self.memo[rows] = found
        if self.small is not None:
            self.small.settle_pending(self, rows, found)
            if err1 > forced:
                if small:
                    self.small.store(self, rows, found)
                else:
                    self.small_later.add(rows)
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
        patterns = self.view.patterns_in(rows)
        if len(patterns) > BOUND_MAX_PATTERNS:
            return 1
        self.poll.check()
        started = CLOCK()
        bound, work = self.kernels.incompatibility_bound(
            self.packed, self.weights, self.totals, patterns, budget,
            self.bound_pace.budget(self.poll.deadline))
        self.bound_pace.record(CLOCK() - started, int(work))
        return int(bound)

    def bound_pays(self) -> bool:
        return self.use_incompatibility and (
            self.bound_calls < BOUND_TRIAL
            or self.bound_gains * BOUND_GAIN_RATIO >= self.bound_calls)

    # -- search ---------------------------------------------------------------------------
    def solve(self, rows: int, budget: int, ub: int) -> int:
        """best(rows, budget) if it is <= ub, else a proven lower bound > ub."""
        entry = self.memo.get(rows)
        if entry is None:
            # where one leaf answers, the new entry's small trees wait until a search needs
            # them (``entry``), as the greedy start's do: a kernel call here would be spent
            # on a side that fits its budget with one leaf
            one_leaf = budget >= self.static(rows)[ERR1]
            if self.small is not None and not one_leaf:  # a small-tree kernel call follows
                self.poll.check()
            entry = self.entry(rows, small=not one_leaf)
        if budget >= entry[ERR1]:
            return 1
        if self.small_later and rows in self.small_later:  # its small trees waited
            self.small_later.discard(rows)
            self.poll.check()
            self.small.store(self, rows, entry)
        lower, upper = self.lower, self.upper
        bound = lower(entry, budget)
        if bound > ub:
            return bound
        known = upper(entry, budget)
        if bound >= known:
            return known
        self.poll.tick()
        if not self.poll.calls % POLL_EVERY and (
                len(self.memo) > self.max_entries
                or not self.poll.calls % MEMORY_LOOK_EVERY and not memory.room()):
            self.memory_full = True
            raise Stop
        pure = self.pure
        if pure is not None and budget < entry[FORCED] + pure.margin:
            # the margin filter (``pure_oracle``): best(S, b) >= pure(F ∩ S), equal with two
            # classes, where the tree that shows it is seeded into the memo
            found = pure.leaves(rows, ub)
            if found > bound:
                bound = found
                self.store_lower(entry, budget, bound)
            if bound > ub:
                return bound
            if pure.exact:
                self.seed_fronts(pure.node(rows))
                return bound
            if bound >= known:
                return known
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
        best = min(ub + 1, known)
        candidates, failed = split_candidates(self, rows, entry, budget, best)
        memo = self.memo
        memo_get = memo.get
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
        return rebuild(rows, leaves, self.columns, self.features, self._decide)

    def _decide(self, rows: int, leaves: int):
        entry = self.entry(rows)
        if leaves == 1:
            return ("leaf", entry[LABEL])
        _, index, left_leaves, right_leaves = entry[ACH][leaves]
        return (index, left_leaves, right_leaves)

    def greedy(self, rows: int):
        """A tree by information gain (ties: lowest column) grown until its leaves are pure
        or single patterns, as (rows, index, left, right) / (rows,) nodes."""
        view = self.view
        start = np.append(view.start, view.n_bits)
        return greedy_tree(view.groups.patterns[:, self.features] == 1, view.weights, start,
                           view.patterns_in(rows))

    def seed_fronts(self, node) -> list:
        """Min-plus programme over the greedy tree: front[l] = fewest errors of a pruning of
        ``node`` with l leaves (index 0 unused); every pruning is stored in the memo. Children
        before parents, without recursion (a greedy tree on many rows may be deep), and each
        node's min-plus product in numpy (``trees.pruning.min_plus``): the product costs
        |left| x |right| (the whole programme up to the square of the leaves, tens of
        thousands on 100,000 noisy rows), in compiled loops."""
        order, stack = [], [node]
        while stack:  # parents before children; taken in reverse below
            top = stack.pop()
            order.append(top)
            if len(top) == 4:
                stack += [top[2], top[3]]
        fronts: dict[int, np.ndarray] = {}
        for top in reversed(order):
            entry = self.entry(top[0], small=False)
            if len(top) == 1:
                fronts[id(top)] = np.array([INF, entry[ERR1]], dtype=np.int64)
                continue
            _, index, left, right = top
            front, choice = min_plus(fronts.pop(id(left)), fronts.pop(id(right)))
            front[1] = entry[ERR1]
            store_tree = self.store_tree
            for leaves, (errors, a) in enumerate(zip(front[2:].tolist(), choice[2:].tolist()),
                                                 start=2):
                store_tree(entry, leaves, errors, index, a, leaves - a)
            fronts[id(top)] = front
        return fronts[id(node)].tolist()

    def stats(self) -> dict:
        return {"calls": self.poll.calls, "memo_entries": len(self.memo),
                "memory_full": self.memory_full,
                "incompatibility_bounds": self.bound_calls,
                "incompatibility_gains": self.bound_gains,
                "small_tree_calls": self.small.calls if self.small is not None else 0,
                "small_tree_skipped": self.small.skipped if self.small is not None else 0}
