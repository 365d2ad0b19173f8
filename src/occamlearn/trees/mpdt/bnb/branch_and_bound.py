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
* nested sides (``trees.exact.nesting``, both engines): the fewest leaves is monotone
  under adding rows, so a side's bound is raised to the bound of every side of another column
  it contains -- thresholds of one numeric column are nested, so the bounds at the ends of a
  range of thresholds bound the whole range, and a child that fails its budget raises the
  bounds of its neighbours before they are tried. The failed bound of a node is then the
  least, over its splits, of the split's bound raised this way;
* bounds proven on subsets (``subset_trie``, the compiled engine; Witty's subset caching,
  by Staus, Komusiewicz, Sommer and Sorge): a subset never needs more leaves, so
  ``LB(S) >= LB(T)`` for every stored T ⊆ S. Small row sets with their proven values go
  into a set-trie that answers "the largest value stored for a subset of S"; a node whose
  budget is below it fails without being split. (GOSDT's similar-support bound
  ``LB(S) >= LB(S') - |S' \\ S|`` is valid for misclassification costs but not for pure
  trees -- one extra row can force a chain of many splits -- so it is not used.)
* pairs (``pair_bound``, Witty's PairLB; off by default, see ``pair_bound.SEED_SECONDS``;
  the compiled engine, on the root's sides once the deepening has made ``PAIR_AFTER_CALLS``
  calls): rows of different classes part at an inner node whose column separates
  them, so weights on such pairs with every column's load at most 1 sum to at most the
  inner nodes (a linear program, HiGHS); the root's weights restricted to a side bound it
  with no solve.

Splits are reduced per row set before any child is looked at (``split_reductions``, the
compiled engine; a proof with each rule): one split per unordered partition, class counts
before the memo, and a split whose pure side lies inside a larger pure side of another
column is dropped (Witty's largest pure side).

Search. Splits at a node are tried in increasing order of their lower bound, each partition once
(identical and complementary columns on S give the same one), stopping when the next bound reaches
the best found. A split solves its side with fewer rows first, within the budget minus the other
side's known bound, and then the other side within the budget minus the first side's value
(``kernels._first_side`` says why this order costs fewer calls). The root does iterative deepening
on its proven lower bound (measured: each step costs 2-3x the previous, the last dominates), so the
lower bound reported grows anytime. The incumbent is a greedy information-gain tree (or the caller's
``upper_bound_tree`` if smaller), improved before the deepening by replacing its subtrees,
bottom-up, by minimum ones where a solve limited to ``IMPROVE_CALLS`` calls finds one. Once the
deepening has spent ``NEIGHBOURHOOD["after_calls"]`` calls, a search for smaller trees
(``neighbourhoods``: limited solves, and splits opened two levels deep where they run out) takes
turns with it on the same memo (``Turns``): the deepening's last step, which searches for a tree at
the minimum, costs as much as all the steps before it, and is skipped when the other search has
found that tree (measured on back at the paper's bits, branch and bound alone: proven in 2.7 M calls
instead of 9.8 M).

Two engines run the same recursion: ``RowSetSearch`` in Python on integer bitsets and dicts, and
``CompiledRowSetSearch``, which runs ``bnb_kernels.solve`` (numba) on uint64 word bitsets with an
array hash table as memo, returning every few thousand calls so the deadline is polled. The compiled
engine runs when its kernels are in numba's disk cache (about a second to load); on first use the
Python engine searches while a background process compiles them, then the compiled engine takes over
from the incumbent, the proven bound and the Python memo (``engine_switch``, ``kernel_cache``). On a
stop, time limit or KeyboardInterrupt the incumbent is returned as "feasible" with the proven bound;
on Ctrl-C ``stats["interrupted"]`` is True and the exception is not re-raised, so scripts stop
cleanly with a result.

Weights change nothing here (a tree is pure whatever its rows weigh) except that rows of
weight 0 are dropped. The two engines (Python and compiled) are ``engines``, their kernels
``kernels``; the data view, polls, splits and the anytime loop are the core's
(``trees.exact``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.exact.anytime import Anytime
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.mpdt.bnb.engine_switch import (
    carry_over,
    choose_engine,
    new_search,
    user_stop,
)
from occamlearn.trees.mpdt.bnb.engines import (
    CompiledRowSetSearch,
    OutOfCalls,
    RowSetSearch,
    greedy_start,
    prepare_rows,
)
from occamlearn.trees.mpdt.bnb.neighbourhoods import smaller_trees
from occamlearn.trees.recursion import deep_recursion

__all__ = ["BranchAndBoundResult", "find_minimum_tree_branch_and_bound"]

IMPROVE_CALLS = 2000  # calls allowed to each subtree of the greedy tree when improving it
# Below this many seconds left no numba is imported (about 1 s to load numba and the cached
# kernels in a fresh process, tens of seconds to compile them the first time).
NUMBA_MIN_SECONDS = 2.0
QUICK_CALLS = 5000  # calls of the numba-free first phase that finishes easy instances
# The search for smaller trees (``neighbourhoods``) beside the deepening: it starts once the
# deepening has spent ``after_calls`` calls (easy instances never pay for it), then the two
# take turns, ``slice_calls`` calls of deepening and ``share`` times that of the other.
NEIGHBOURHOOD = {"after_calls": 200_000, "slice_calls": 100_000, "share": 0.5}
# The pair bound is stored on the root's sides (``pair_bound.seed_root_sides``, seconds) at
# the first deepening step after this many calls: easy instances never pay for it.
PAIR_AFTER_CALLS = 200_000


@dataclass(frozen=True)
class BranchAndBoundResult:
    """Outcome of ``find_minimum_tree_branch_and_bound``; sizes in nodes (2 * leaves - 1)."""

    tree: Tree | None
    status: str  # "optimal" | "feasible" | "unknown"
    lower_bound: int
    upper_bound: int
    trace: list = field(default_factory=list)  # [(seconds, upper_bound, lower_bound)]
    stats: dict = field(default_factory=dict)


class Turns:
    """The deepening's ``solve(root, budget)`` in slices of calls, with the search for smaller
    trees (``neighbourhoods.smaller_trees``) run between them; every tree it finds goes to
    ``state`` (checked pure by ``as_tree``). Both use ``search`` and its memo: a stopped solve
    resumes from the memo, so slicing loses only the walk back down to where it stopped."""

    def __init__(self, search, root: int, state: Anytime, as_tree, *, after_calls: int,
                 slice_calls: int, share: float):
        self.search, self.root, self.state, self.as_tree = search, root, state, as_tree
        if slice_calls < 1 or share <= 0:
            raise ValueError(f"slice_calls must be >= 1 and share > 0; got {slice_calls}, "
                             f"{share}.")
        self.slice_calls, self.share = slice_calls, share
        self.next_turn = search.calls + after_calls
        self.probes = smaller_trees(search, root, lambda: (state.upper + 1) // 2)

    def solve(self, budget: int) -> int | None:
        """``search.solve(root, budget)``, or None once the incumbent has at most ``budget``
        leaves (found by the other search: the deepening at this budget is then moot)."""
        search = self.search
        while True:
            if self.probes is None:
                return search.solve(self.root, budget)
            search.poll.call_cap = self.next_turn
            try:
                return search.solve(self.root, budget)
            except OutOfCalls:
                pass
            finally:
                search.poll.call_cap = None
            self._probe(max(1, int(self.share * self.slice_calls)))
            if self.state.upper <= 2 * budget - 1:
                return None
            self.next_turn = search.calls + self.slice_calls

    def _probe(self, calls: int) -> None:
        end = self.search.calls + calls
        while self.probes is not None and self.search.calls < end:
            found = next(self.probes, False)
            if found is False:  # nothing left to try
                self.probes = None
            elif found is not None:
                self.state.offer(self.as_tree(found[1]))


def _seed_pairs(search, root: int, deadline: Deadline | None) -> dict:
    """The pair bound on the root's sides (``pair_bound.seed_root_sides``) within its share
    of the time left; {"pair_sides": 0} when switched off. (Imported here: scipy's
    optimiser loads in about half a second, which easy instances never pay.)"""
    from occamlearn.trees.mpdt.bnb import pair_bound

    seconds = pair_bound.SEED_SECONDS
    if deadline is not None and deadline.limited:
        seconds = min(seconds, pair_bound.SEED_SHARE * deadline.remaining())
    if seconds <= 0:
        return {"pair_sides": 0}
    stop = Deadline.after(seconds) if deadline is None else deadline.within(seconds)
    return pair_bound.seed_root_sides(search, root, stop)


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


def find_minimum_tree_branch_and_bound(X, y, n_classes=None, *, deadline: Deadline | None = None,
                                  progress: ProgressSink | None = None, sample_weight=None,
                                  upper_bound_tree=None, feature_names=(),
                                  on_search=None, engine: str | None = None,
                                  quick_calls: int = QUICK_CALLS,
                                  improve_calls: int = IMPROVE_CALLS,
                                  neighbourhood: dict = NEIGHBOURHOOD) -> BranchAndBoundResult:
    """Smallest pure decision tree of the 0/1 matrix X and class indices y, proven minimum.

    deadline : when to stop, including the kernel compile (None: until proven); a stop
    request on it ends the search too. progress : receives ``report(upper, lower, seconds,
    tree_or_None)`` when a bound improves (sizes in nodes; the tree when the incumbent
    improves). sample_weight : per row; a pure tree does not depend on it, except that rows
    of weight 0 are dropped. upper_bound_tree : a pure Tree from elsewhere, used as
    incumbent if smaller than the greedy tree. on_search : called at the end with the
    search engine (``engines``), so that a later search on the same rows can reuse its memo.
    A stop returns the incumbent as "feasible" with the proven lower bound; so does Ctrl-C,
    with ``stats["interrupted"] = True`` (a script that wants to stop re-raises).
    The first call ever runs the Python engine while a background process compiles the numba
    kernels into the disk cache, and switches when they are ready (``occamlearn warm-up``
    compiles them ahead); ``stats["switched_to_compiled_at"]`` says when.
    Raises ValueError if identical rows have different classes.

    The phases, for tests and benchmarks (the defaults are what a fit runs): ``engine`` forces
    "python", "compiled" or "python-only" (None: chosen by the kernel cache);
    ``quick_calls`` caps the numba-free first phase (0: none); ``improve_calls`` is given to
    each subtree of the greedy tree (0: no improvement); ``neighbourhood`` sets the search
    for smaller trees beside the deepening (``NEIGHBOURHOOD``'s keys; {}: off).
    """
    return _run(X, y, n_classes, deadline=deadline, progress=progress,
                sample_weight=sample_weight, upper_bound_tree=upper_bound_tree,
                feature_names=feature_names, on_search=on_search, engine=engine,
                quick_calls=quick_calls, improve_calls=improve_calls,
                neighbourhood=neighbourhood)


@deep_recursion()
def _run(X, y, n_classes, *, deadline=None, progress=None, sample_weight=None,
         upper_bound_tree=None, feature_names=(), **options) -> BranchAndBoundResult:
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes, sample_weight)
    X_checked = (np.asarray(X) != 0).view(np.uint8)  # one byte a cell (100,000 rows: 32 MB)
    y_checked = np.asarray(y, dtype=np.int64).ravel()
    if sample_weight is not None:  # the tree must be pure on the rows that weigh
        positive = np.asarray(sample_weight, dtype=float) > 0
        X_checked, y_checked = X_checked[positive], y_checked[positive]
    n_features = X_checked.shape[1]
    engine = options.pop("engine", None)
    on_search = options.pop("on_search", None)
    improve_calls = options.pop("improve_calls", IMPROVE_CALLS)
    quick_calls = options.pop("quick_calls", QUICK_CALLS)
    # the search for smaller trees beside the deepening: {} turns it off
    neighbourhood = options.pop("neighbourhood", NEIGHBOURHOOD)
    state = Anytime(deadline, progress)

    def as_tree(nested) -> Tree:
        tree = Tree.from_nested(nested, n_features, n_classes, tuple(feature_names))
        return _check_pure(tree, X_checked, y_checked)

    # the first tree before any search is set up (the diagram of nested sides, the bitsets:
    # seconds on 100,000 rows), so that a short time limit still returns it
    greedy = greedy_start(rows, labels, n_classes, kept)
    candidates = [as_tree(greedy)]
    if upper_bound_tree is not None:
        candidates.append(_check_pure(upper_bound_tree, X_checked, y_checked, "given"))
    state.offer(min(candidates, key=lambda tree: tree.n_nodes),
                2 * len(np.unique(labels)) - 1)
    # quick phase: the Python search with the class bound only needs no numba at all
    search = RowSetSearch(rows, labels, n_classes, kept, use_incompatibility=False,
                          deadline=deadline, nested_sides=options.get("nested_sides", True))
    options["nested_sides"] = search.nesting  # built once, shared by the later searches
    root = (1 << search.n_rows) - 1
    compile_seconds, quick_phase_calls = 0.0, 0
    switch = {"at": None, "carried": 0}  # when the engine switched, memo entries carried
    pair_seeded = {}  # what the pair bound stored on the root's sides (``pair_bound``)

    def deepen(budget: int, beside: bool = False) -> None:
        """Iterative deepening at the root from a proven bound until a tree is found; with
        ``beside``, the search for smaller trees (``neighbourhoods``) takes turns with it."""
        turns = Turns(search, root, state, as_tree, **neighbourhood) if beside else None
        while 2 * budget - 1 < state.upper:
            value = search.solve(root, budget) if turns is None else turns.solve(budget)
            if value is None:  # the other search found a tree at the proven bound
                return
            if value <= budget:
                state.offer(as_tree(search.nested(root)), 2 * value - 1)
                return
            budget = value
            state.offer(lower=2 * budget - 1)
            if not pair_seeded and search.calls >= PAIR_AFTER_CALLS \
                    and isinstance(search, CompiledRowSetSearch):
                pair_seeded.update(_seed_pairs(search, root, deadline))

    def body():
        nonlocal search, engine, options, compile_seconds, quick_phase_calls
        search.poll.check()
        if quick_calls:
            search.poll.call_cap = quick_calls
            try:
                deepen(search.classes_in(root))
            except OutOfCalls:  # not easy: the full search, from the bound proven so far
                search.poll.call_cap, quick_phase_calls = None, search.calls
        if state.lower < state.upper:
            left = float("inf") if deadline is None else deadline.remaining()
            if engine is None and left < NUMBA_MIN_SECONDS:
                # importing numba and loading (or compiling) the kernels would eat the time
                # left: the Python search, without the compiled bound
                engine, options = "python-only", {**options, "use_incompatibility": False}
                ready_check = None
            else:
                engine, ready_check = (engine, None) if engine else choose_engine()
            python_search = None
            while True:  # once more after a switch from the Python to the compiled engine
                if engine == "python-only":
                    search = RowSetSearch(rows, labels, n_classes, kept, deadline=deadline,
                                          **options)
                else:
                    search, engine, seconds = new_search(engine, rows, labels, n_classes, kept,
                                                         options, deadline, ready_check)
                    compile_seconds += seconds
                    if python_search is not None and engine == "compiled":
                        switch["carried"] = carry_over(python_search, search)
                try:
                    budget = max(search.root_bound(root), (state.lower + 1) // 2)
                    state.offer(lower=2 * budget - 1)
                    if improve_calls and 2 * budget - 1 < state.upper:
                        state.offer(as_tree(search.improve(greedy, root, improve_calls)[0]))
                    deepen(budget, beside=bool(neighbourhood))
                    break
                except Stop:
                    if not (engine == "python" and ready_check is not None and ready_check.ready
                            and not user_stop(deadline)):
                        raise
                # the kernels are ready: the compiled engine resumes from the incumbent, the
                # proven lower bound and the Python search's memo
                engine, ready_check, python_search = "compiled", None, search
                switch["at"] = state.duration()

    state.run(body)
    if on_search is not None:
        on_search(search)
    stats = {**search.stats(), "quick_phase_calls": quick_phase_calls,
             "kernel_compile_seconds": compile_seconds, "engine": engine or "quick",
             "switched_to_compiled_at": switch["at"], "memo_carried_over": switch["carried"],
             **pair_seeded, "distinct_rows": search.n_rows, "informative_features": len(kept),
             "stopped": state.stopped, "interrupted": state.interrupted,
             "seconds": state.duration()}
    return BranchAndBoundResult(state.tree, state.status, state.proven, state.upper,
                                state.trace, stats)

