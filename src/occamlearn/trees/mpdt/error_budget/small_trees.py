"""Exact answers for trees of at most three leaves, stored in a row set's memo entry.

Why. Below a row set S the error-budget search (``bnb_engine``) proves best(S, b) > l by
enumerating every split and every division of b between its sides, recursively, down to
single leaves; its static bounds only say "one leaf if err(S) <= b, else at least two (or
as many as the classes need)". On large budgets and many rows almost all of its time goes
into the last two levels of that enumeration, in Python. The fewest errors with at most one, two and
three leaves, E_S(1) >= E_S(2) >= E_S(3), take one compiled pass over S's patterns instead
(``bnb_kernels.small_tree_errors``: class counts per column and per pair of columns, as
MurTree's depth-two solver by Demirović et al. counts them), and settle those levels.

**Bounds.** best(S, b) >= 3 when E_S(2) > b, best(S, b) >= 4 when E_S(3) > b and
best(S, b) >= 5 when E_S(4) > b (``store_four``, see Four leaves). Proof: a
tree with at most l leaves makes at least E_S(l) errors, by the definition of E_S(l) as a
minimum over all such trees; so a tree within budget b < E_S(l) has more than l leaves (and,
best being non-increasing in the budget, so has one within any smaller budget). The minima
are exact: a tree of at most three leaves is one leaf, one split with two leaves, or a split
whose one child is a leaf and whose other is a split with two leaves, and the kernel takes
the minimum over every column for each split (the columns of the search, one per class of
equal or complementary data columns: a column equal to a kept one, or its complement,
splits every row set into the same two sides; a column constant on S splits nothing).

The bounds go into the entry's ``class_err`` list, whose l-th item is a lower bound on the
errors of a tree with l leaves (before: the class-count bound; E_S(l) is at least that,
being the exact minimum, and both fall with l, so the list stays non-increasing). ``lower``
and the inline two-class bounds of ``bnb_candidates`` read it; the dict of stored bounds
stays empty, which keeps the inline bounds on their fast path.

**Trees.** The trees behind E_S(2) and E_S(3) are stored in the entry's fronts, so that a
query they answer returns at once. The 3-leaf tree is stored only when it makes fewer errors
than the 2-leaf one, and with it the 2-leaf tree of its split child, in that child's entry
(``pending`` until the entry exists): the rebuilt tree then makes at most the stored errors,
also when the child's own small trees were skipped (see Time).

**Four leaves.** E_S(4) costs a pair-count table per column of S
(``small_tree_kernels.four_leaf_errors``), so it is computed only where it can settle a query:
once per row set holding at least half the root's weight (``bnb_engine``'s ``FOUR_ROOT_SHARE``:
on small row sets enumerating the four-leaf trees is cheaper), when a search asks it at a
budget b below its E_S(3) (where the bounds above stop at four leaves). The kernel then answers
E_S(4) if it is at most b, else b + 1 (a lower bound: it prunes what cannot fall below b + 1);
either goes into ``class_err[4]``, and a four-leaf tree within b is stored in the fronts as the
three-leaf one is. The search stops asking when fewer than one call in ``FOUR_GAIN_RATIO``
raises a bound (``bnb_engine``).

Row sets hold all groups of a pattern or none (``exact.bits``), but the kernel does not rely
on it: it sums the weights of the bits it is given.

**Time.** One call costs about the pairs of 1s in each pattern of S plus the squared number of
columns that split S (the kernel's ``work``): a large fraction of a second at the root of
a table of a few hundred rows and a thousand columns, and far more on larger tables, with no
look at the clock inside. So under a time limit each call gets a work budget of
``Deadline.step_seconds()`` (1 % of the limit) at the measured seconds per step, and a row set above
it gets no small trees: its entry keeps the class-count bounds, which are weaker but just as valid
(so does a row set whose pair-count table, columns^2 x classes cells, would pass its share of the
memory left: ``occamlearn.memory``). The rate
starts at ``SECONDS_PER_STEP`` (the slowest measured) and follows the calls that are timed.
The entries of the greedy start get theirs only when a search first visits them
(``BudgetRowSetSearch.entry``), so that the first tree waits for no kernel call; so do the
entries a search makes for a side whose budget one leaf meets (``BudgetRowSetSearch.solve``:
the answer is 1 whatever the small trees say, and most sides of a split are first asked at
such a budget).
"""

from __future__ import annotations

import numpy as np

from occamlearn import memory
from occamlearn.stopping import CLOCK, KernelPace
from occamlearn.trees.mpdt.error_budget.bnb_candidates import CLASS_ERR

__all__ = ["ERROR_BUDGET_KERNELS", "SmallTrees", "load_kernels"]

# The kernel families an error-budget search uses: its bounds and small trees, and the pure
# branch and bound and one-deletion search of its one-error phase (``one_error``).
ERROR_BUDGET_KERNELS = ("error-budget", "bnb", "one-error")

# Seconds per step of ``small_tree_errors`` before calls are timed: the slowest measured
# (breast_cancer's root, loaded 2-core machine); calls of at least TIMED_WORK steps are timed.
SECONDS_PER_STEP = 4e-8
# the same for ``four_leaf_errors``, whose steps (table rows zeroed and subtracted, splits
# skipped by the target) are far cheaper: 1.1e-9 s per step measured on hepa's row sets
# (10-160 ms a call), taken twice
FOUR_SECONDS_PER_STEP = 2e-9
TIMED_WORK = 100_000
MEMORY_SHARE = 0.25  # of the memory left, the most one call's pair-count table may take
MEMORY_RECHECK_CALLS = 64  # calls between two reads of the memory left, while tables are small


def load_kernels(use_incompatibility: bool = True, deadline=None) -> tuple[float, bool, bool]:
    """Load the error-budget kernels for a search: (seconds, use_incompatibility,
    use_small_trees), the last two as ``BudgetRowSetSearch`` takes them. The small-tree
    kernels are loaded only from the disk cache; else the incompatibility bound alone is
    compiled here, as before them (1.6 s instead of 4.5 s cold), and the background compile
    (``kernel_cache``) readies the rest for the next search. A broken cache (which
    ``kernel_cache.load`` resets) leaves the search without either; so does
    ``use_incompatibility=False``, which loads nothing, and so does a ``deadline`` with
    too little time left to compile (``kernel_cache.foreground_compile_fits``)."""
    from occamlearn.trees.compiling import kernel_cache

    if not use_incompatibility:
        return 0.0, False, False
    try:
        if kernel_cache.kernels_ready("error-budget"):
            return kernel_cache.load("error-budget"), True, True
        if not kernel_cache.foreground_compile_fits(deadline):  # too little time to compile
            kernel_cache.start_background_compile(ERROR_BUDGET_KERNELS)
            return 0.0, False, False
        seconds = kernel_cache.load("error-budget", small_trees=False)
    except kernel_cache.KernelsUnavailable:
        return 0.0, False, False
    kernel_cache.start_background_compile(ERROR_BUDGET_KERNELS)
    return seconds, True, False


class SmallTrees:
    """The kernel's inputs for one search (``search.view``, a ``exact.bits.GroupBits``),
    built once; ``store(search, rows, entry)`` puts the bounds and trees of the module
    docstring into ``entry``, the memo entry of ``rows``. ``deadline`` (a
    ``stopping.Deadline`` or None) sizes each call's work budget."""

    def __init__(self, view, kernels, deadline=None):
        groups = view.groups
        self.kernel = kernels.small_tree_errors
        self.four_kernel = kernels.four_leaf_errors
        group = view.group_of_bit
        self.bit_pattern = groups.pattern[group].astype(np.int64)
        self.bit_class = groups.label[group].astype(np.int64)
        self.bit_units = (np.ones(len(group), dtype=np.int64) if view.one_unit
                          else view.units[group].astype(np.int64))
        # the search's columns, each oriented to have 1 on at most half of the patterns: the
        # pair counts cost (ones per pattern)^2, and a split's two sides are the same either
        # way round
        kept = groups.patterns[:, view.features] == 1
        self.flipped = 2 * kept.sum(axis=0) > kept.shape[0]
        kept ^= self.flipped
        self.ones_start = np.concatenate([[0], np.cumsum(kept.sum(axis=1))]).astype(np.int64)
        self.ones_index = np.nonzero(kept)[1].astype(np.int64)  # row-major: increasing per row
        self.n_patterns, self.n_features = kept.shape
        self.n_classes = view.n_classes
        # the most cells a call's pair-count table can have, and the memory share last read
        self.largest_table = self.n_features * self.n_features * self.n_classes
        self.memory_cells, self.memory_read_at = 0, -MEMORY_RECHECK_CALLS
        self.n_bytes = (view.n_bits + 7) // 8
        self.calls = 0
        self.skipped = 0  # calls above their work budget (no small trees stored)
        self.deadline = deadline
        self.pace = KernelPace(SECONDS_PER_STEP)
        self.four_pace = KernelPace(FOUR_SECONDS_PER_STEP)
        self.four_calls = 0
        # row set -> the trees a parent's stored tree rebuilds through, until it has an entry
        self.pending: dict[int, list] = {}

    def max_work(self) -> int:
        """The steps one call may take: ``step_seconds`` at the measured pace, and no more
        than a quarter of the memory left holds as the kernel's pair-count table (8 bytes a
        cell, at most one cell per step).

        The memory left is read (``/proc/self/statm``, a system call that cost about a third
        of the search's CPU time when made on every call) at every call while the largest
        table this search can build passes a quarter of the last share read, and otherwise
        every ``MEMORY_RECHECK_CALLS`` calls. So a call's table is at most the share read at
        this call, or at most a quarter of one read within the last ``MEMORY_RECHECK_CALLS``
        calls."""
        if (4 * self.largest_table > self.memory_cells
                or self.calls >= self.memory_read_at + MEMORY_RECHECK_CALLS):
            self.memory_cells = memory.share(MEMORY_SHARE) // 8
            self.memory_read_at = self.calls
        return min(self.pace.budget(self.deadline), self.memory_cells)

    def _call(self, kernel, rows: int, *args) -> np.ndarray:
        bits = np.flatnonzero(np.unpackbits(
            np.frombuffer(rows.to_bytes(self.n_bytes, "little"), dtype=np.uint8),
            bitorder="little"))
        return kernel(bits, self.bit_pattern, self.bit_class, self.bit_units,
                      self.ones_start, self.ones_index, self.n_patterns, self.n_features,
                      self.n_classes, *args)

    def errors(self, rows: int, max_work: int = KernelPace.NO_LIMIT) -> np.ndarray:
        """``small_tree_errors`` on the bit row set ``rows`` (its result, as the kernel
        documents it), e2 = e3 = -1 when the work would pass ``max_work``."""
        self.calls += 1
        started = CLOCK()
        found = self._call(self.kernel, rows, max_work)
        if found[1] < 0:
            self.skipped += 1
        elif found[6] >= TIMED_WORK:
            self.pace.record(CLOCK() - started, int(found[6]))
        return found

    def four_errors(self, rows: int, target: int = KernelPace.NO_LIMIT,
                    max_work: int = KernelPace.NO_LIMIT) -> list[int]:
        """``four_leaf_errors`` on the bit row set ``rows`` (its result, as the kernel
        documents it): E_S(4) if below ``target``, else ``target``; -1 when the work would
        pass ``max_work``."""
        self.four_calls += 1
        started = CLOCK()
        found = self._call(self.four_kernel, rows, target, max_work).tolist()
        if found[0] >= 0 and found[1] >= TIMED_WORK:
            self.four_pace.record(CLOCK() - started, found[1])
        return found

    def store_four(self, search, rows: int, entry: list, budget: int) -> int:
        """Put a lower bound on E_S(4) into ``entry``'s ``class_err[4]`` (read by ``lower``
        as best(S, b) >= 5 when it passes b): E_S(4) itself when at most ``budget``, else
        budget + 1; returns it, or -1 when the call is over its work budget (the budget of
        ``max_work`` at this kernel's own pace; its tables, three of columns^2 x classes
        cells, at most the memory share of ``max_work``, counted in cells: the work counts
        at least two such tables). The four-leaf tree found below E_S(3) is stored in the
        fronts (through its children's entries, as ``store`` does for three leaves). Called
        by the search for a row set once its exact E_S(3) passes a budget asked
        (``BudgetRowSetSearch.solve``)."""
        self.max_work()  # the memory share, read again if due
        e4, _, kind, i, a, ea, b, eb, c = self.four_errors(
            rows, budget + 1, min(self.four_pace.budget(self.deadline),
                                  self.memory_cells * 2 // 3))
        class_err = entry[CLASS_ERR]
        if e4 > class_err[4]:
            entry[CLASS_ERR] = [*class_err[:4], e4, *class_err[5:]]
        if kind == 1:  # two leaves a side
            zero, _ = self._side(search, rows, i, 0)
            one, _ = self._side(search, rows, i, 1)
            search.store_tree(entry, 4, e4, i, 2, 2)
            self._store(search, zero, (2, ea, a, 1, 1))
            self._store(search, one, (2, eb, b, 1, 1))
        elif kind > 1:  # a leaf on one side, three leaves on the other
            chain, chain_side = self._side(search, rows, i, 1 if kind == 2 else 0)
            search.store_tree(entry, 4, e4, i, 3 - 2 * chain_side, 1 + 2 * chain_side)
            split, split_side = self._side(search, chain, a, b)
            self._store(search, chain, (3, ea, a, 2 - split_side, 1 + split_side))
            self._store(search, split, (2, eb, c, 1, 1))
        return e4

    def _side(self, search, rows: int, column: int, kernel_side: int) -> tuple[int, int]:
        """(the rows of ``rows`` on the kernel's side ``kernel_side`` of ``column``, that
        side in the search's terms: 0 for its zero side, 1 for its one side); the kernel's
        columns are oriented to have few 1s (``flipped``)."""
        side = kernel_side ^ int(self.flipped[column])
        one = rows & search.columns[column]
        return (one if side == 1 else rows ^ one), side

    def _store(self, search, rows: int, tree: tuple) -> None:
        """Store ``tree`` (leaves, errors, column, left leaves, right leaves) in the fronts of
        ``rows``, now or once its entry exists (``settle_pending``): a parent's stored tree
        is rebuilt through it."""
        known = search.memo.get(rows)
        if known is None:
            self.pending.setdefault(rows, []).append(tree)
        else:
            search.store_tree(known, *tree)

    def store(self, search, rows: int, entry: list) -> None:
        found = [int(v) for v in self.errors(rows, self.max_work())]
        e1, e2, f2, e3, f3, side3, _, g3, child3 = found
        if e2 < 0:  # above the call's work budget: the class-count bounds stay
            return
        if e2 < e1:
            search.store_tree(entry, 2, e2, f2, 1, 1)
        if e3 < e2:
            child, side3 = self._side(search, rows, f3, side3)
            search.store_tree(entry, 3, e3, f3, 1 + (side3 == 0), 1 + (side3 == 1))
            self._store(search, child, (2, child3, g3, 1, 1))
        # class_err[l] bounds the errors of a tree with l leaves (``BudgetRowSetSearch.
        # lower``); E_S(l) is the exact minimum, so at least the class-count bound there
        class_err = entry[CLASS_ERR]
        entry[CLASS_ERR] = [class_err[0], e1, e2, e3, *class_err[4:]]

    def settle_pending(self, search, rows: int, entry: list) -> None:
        """Store in ``rows``'s new ``entry`` the trees a parent's stored tree uses."""
        for tree in self.pending.pop(rows, ()):
            search.store_tree(entry, *tree)
