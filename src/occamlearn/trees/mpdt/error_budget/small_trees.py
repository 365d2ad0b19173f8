"""Exact answers for trees of at most three leaves, stored in a row set's memo entry.

Why. Below a row set S the error-budget search (``bnb_engine``) proves best(S, b) > l by
enumerating every split and every division of b between its sides, recursively, down to
single leaves; its static bounds only say "one leaf if err(S) <= b, else at least two (or
as many as the classes need)". On large budgets and many rows almost all of its time goes
into the last two levels of that enumeration, in Python. The fewest errors with at most one, two and
three leaves, E_S(1) >= E_S(2) >= E_S(3), take one compiled pass over S's patterns instead
(``bnb_kernels.small_tree_errors``: class counts per column and per pair of columns, as
MurTree's depth-two solver by Demirović et al. counts them), and settle those levels.

**Bounds.** best(S, b) >= 3 when E_S(2) > b and best(S, b) >= 4 when E_S(3) > b. Proof: a
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
        self.pending: dict[int, tuple] = {}  # row set -> its 2-leaf tree (errors, column)

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

    def errors(self, rows: int, max_work: int = KernelPace.NO_LIMIT) -> np.ndarray:
        """``small_tree_errors`` on the bit row set ``rows`` (its result, as the kernel
        documents it), e2 = e3 = -1 when the work would pass ``max_work``."""
        self.calls += 1
        bits = np.flatnonzero(np.unpackbits(
            np.frombuffer(rows.to_bytes(self.n_bytes, "little"), dtype=np.uint8),
            bitorder="little"))
        started = CLOCK()
        found = self.kernel(bits, self.bit_pattern, self.bit_class, self.bit_units,
                            self.ones_start, self.ones_index, self.n_patterns,
                            self.n_features, self.n_classes, max_work)
        if found[1] < 0:
            self.skipped += 1
        elif found[6] >= TIMED_WORK:
            self.pace.record(CLOCK() - started, int(found[6]))
        return found

    def store(self, search, rows: int, entry: list) -> None:
        found = [int(v) for v in self.errors(rows, self.max_work())]
        e1, e2, f2, e3, f3, side3, _, g3, child3 = found
        if e2 < 0:  # above the call's work budget: the class-count bounds stay
            return
        if e2 < e1:
            search.store_tree(entry, 2, e2, f2, 1, 1)
        if e3 < e2:
            side3 ^= int(self.flipped[f3])  # the search's zero side is the column's 0
            search.store_tree(entry, 3, e3, f3, 1 + (side3 == 0), 1 + (side3 == 1))
            one_side = rows & search.columns[f3]
            child = one_side if side3 == 1 else rows ^ one_side
            known = search.memo.get(child)
            if known is None:  # the tree is rebuilt through the child's entry
                self.pending[child] = (child3, g3)
            else:
                search.store_tree(known, 2, child3, g3, 1, 1)
        # class_err[l] bounds the errors of a tree with l leaves (``BudgetRowSetSearch.
        # lower``); E_S(l) is the exact minimum, so at least the class-count bound there
        class_err = entry[CLASS_ERR]
        entry[CLASS_ERR] = [class_err[0], e1, e2, e3, *class_err[4:]]

    def settle_pending(self, search, rows: int, entry: list) -> None:
        """Store in ``rows``'s new ``entry`` the 2-leaf tree a parent's 3-leaf tree uses."""
        found = self.pending.pop(rows, None)
        if found is not None:
            search.store_tree(entry, 2, found[0], found[1], 1, 1)
