"""Smallest decision tree with at most e training errors: greedy bound, relaxed MPDT, MaxSAT.

The same three steps as ``find_minimum_tree`` (Alg. 3 lines 3-5 of Alós, Ansótegui and Torres), on
the error-budget encoding of ``trees.mpdt.error_budget.encoding``:

1. a single leaf is the answer if its errors fit the budget;
2. otherwise the greedy pure tree of the majority-filtered rows (its errors are exactly those
   that conflicting rows force, so it fits any feasible budget) is the upper bound ub;
3. the encoding with n = ub - 2 nodes asks for a strictly smaller tree; UNSAT proves the greedy
   tree minimum, an optimum is the minimum, a time limit leaves the best found ("feasible").

A budget below the errors that conflicting rows force is infeasible: ``ValueError``.
As in ``find_minimum_tree``, the Linear MaxSAT solver starts from the greedy tree as phase
hints: its first models are then near a tree already known to fit the budget. Phases only
order the solver's choices, so they change no answer, only how soon smaller trees are found.

``ErrorBudgetSearch`` is that search kept alive for Alg. 3 (line 6: many minimum trees):
``formula()`` is the SAT instance whose models are the trees of the best size within the
budget (``OptimalFormula`` with ``block_labels``, see ``trees.mpdt.all_minimum.enumerate``): the
Linear MaxSAT solver itself when it found the best tree (Sec. 6: its last satisfiable instance,
learnt clauses included; also after a time limit, when the size is only the best found), with the
size pinned by two assumptions, eta(size) and not eta(size + 2) (eq. 2 makes the used nodes
a prefix); else a fresh encoding with exactly that many nodes (n = lower bound = size).
``leaf_trees()`` are the one-leaf trees within the budget (one per class that fits).
"""

from __future__ import annotations

import numpy as np

from occamlearn.maxsat.backends import make_backend
from occamlearn.memory import room as memory_room
from occamlearn.model.tree import LEAF, Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.exact.data import distinct_rows, group_examples
from occamlearn.trees.greedy import (
    greedy_upper_bound_within,
    single_leaf,
)
from occamlearn.trees.mpdt.all_minimum.enumerate import OptimalFormula
from occamlearn.trees.mpdt.error_budget.encoding import (
    encode_error_budget,
    error_budget_encoding_size,
)
from occamlearn.trees.mpdt.maxsat_route.encoding import validate_binary_data
from occamlearn.trees.mpdt.maxsat_route.size_search import SizeSearch
from occamlearn.trees.mpdt.result import MinimumTreeResult
from occamlearn.trees.pruning import smallest_pruning

__all__ = ["ErrorBudgetSearch", "check_max_errors", "error_budget", "find_minimum_tree_with_errors"]

# Before encoding, its seconds are predicted as this x its literals (hard clauses): the
# fastest rate measured (3.8e-7 s on 500 x 200 random bits, 7e-7 s on 20,000 x 10), more than
# halved, so that only encodings sure to end after the deadline are skipped. Whatever starts
# is built in slices, the deadline checked between them.
ENCODE_SECONDS_PER_LITERAL = 1.5e-7
# Peak bytes per literal while building (numpy blocks, then Python lists: 58-62 measured); an
# encoding predicted to need more than the memory left (``occamlearn.memory.room``) is not
# built. An on_conflict="relax" fit on 50,000 x 20 numeric rows was still encoding after
# 300 s with 21.8 GB; now it is skipped at once.
ENCODE_BYTES_PER_LITERAL = 64

def _errors(tree: Tree, X: np.ndarray, y: np.ndarray, weight=None) -> int:
    """Misclassified rows, or their total integer weight."""
    wrong = tree.predict(X) != y
    return int(wrong.sum() if weight is None else weight[wrong].sum())


def check_max_errors(max_errors) -> int:
    if not isinstance(max_errors, (int, np.integer)) or isinstance(max_errors, bool) \
            or max_errors < 0:
        raise ValueError(f"max_errors must be a non-negative int; got {max_errors!r}.")
    return int(max_errors)


def error_budget(X, y, max_errors: int | None, *, relax_conflicts: bool,
                 sample_weight=None) -> int | None:
    """The budget a fit on (X, y) uses: ``max_errors``, raised to the errors that conflicting
    rows force when ``relax_conflicts`` (``on_conflict="relax"``); None for a pure tree.
    With integer ``sample_weight`` errors are weights (the forced ones too)."""
    if not relax_conflicts:
        return None if max_errors is None else check_max_errors(max_errors)
    forced = group_examples(np.asarray(X), np.asarray(y), sample_weight).forced_errors()
    return max(0 if max_errors is None else check_max_errors(max_errors), forced)


def _majority_rows(X: np.ndarray, y: np.ndarray, weight=None) -> np.ndarray:
    """Boolean mask keeping, for every distinct row, only the rows of its commonest label
    (of largest total weight)."""
    groups = group_examples(X, y, weight)
    best = np.full(groups.n_patterns, -1)
    biggest = np.zeros(groups.n_patterns, dtype=np.int64)
    for g in np.argsort(-groups.count, kind="stable"):
        p = groups.pattern[g]
        if best[p] < 0:
            best[p], biggest[p] = groups.label[g], groups.count[g]
    _, pattern_of_row = distinct_rows(X)
    return y == best[pattern_of_row]


class _BudgetQuery:
    """The error-budget search's part of the size loop (``size_search.SizeQuery``)."""

    def __init__(self, search: ErrorBudgetSearch, stats: dict):
        self.search, self.stats = search, stats

    def encode(self, n_nodes: int, lower: int, deadline: Deadline):
        s = self.search
        return encode_error_budget(s.X, s.y, s.n_classes, s.max_errors, n_nodes, lower,
                                   deadline=deadline, sample_weight=s.weight)

    def skip_reason(self, n_nodes: int, deadline: Deadline) -> str | None:
        return self.search.skip_reason(n_nodes, deadline, self.stats)


class ErrorBudgetSearch:
    """One search for the smallest tree within ``max_errors``; ``run()`` returns the result,
    the MaxSAT solver stays alive (for ``formula``) until ``close()``. With integer
    ``sample_weight`` the budget and every error count are total weights."""

    def __init__(self, X, y, n_classes: int, max_errors: int, *, solver: str = "lsu",
                 sat_solver: str = "cadical195", deadline: Deadline | None = None,
                 progress: ProgressSink | None = None, sample_weight=None):
        self.X, self.y = validate_binary_data(X, y, n_classes)
        self.weight = None
        if sample_weight is not None:
            weight = np.asarray(sample_weight)
            if weight.shape != self.y.shape or (weight < 0).any() or (
                    weight.dtype.kind not in "iu"
                    and not np.array_equal(weight, np.round(weight))):
                raise ValueError("sample_weight must hold one non-negative integer per row "
                                 "(scale fractions with trees.weights.integer_weights).")
            keep = weight > 0                          # weight 0: as if the row were dropped
            self.X, self.y = self.X[keep], self.y[keep]
            self.weight = weight[keep].astype(np.int64)
        self.n_classes = int(n_classes)
        self.deadline = Deadline.coerce(deadline)
        self.progress = ProgressSink.coerce(progress)
        self.max_errors = check_max_errors(max_errors)
        forced = group_examples(self.X, self.y, self.weight).forced_errors()
        if self.max_errors < forced:
            raise ValueError(f"max_errors={max_errors} is below the {forced} errors that "
                             "identical rows with different labels force; no tree fits that "
                             "budget.")
        self.forced_errors = forced
        self.backend = make_backend(solver, sat_solver=sat_solver)
        self.sat_solver = sat_solver
        self.encoding = None
        self.result: MinimumTreeResult | None = None
        self._backend_found_best = False  # the back-end's solver has a model of the best tree

    def run(self) -> MinimumTreeResult:
        start, deadline = CLOCK(), self.deadline
        X, y, n_classes, max_errors = self.X, self.y, self.n_classes, self.max_errors
        weight = self.weight
        stats = {"max_errors": max_errors, "forced_errors": self.forced_errors}
        majority = int(np.bincount(y, weights=weight, minlength=n_classes).argmax())
        leaf = single_leaf(X, np.full_like(y, majority), n_classes).with_counts(X, y)
        trace = []

        def finish(tree: Tree, status: str, lower: int) -> MinimumTreeResult:
            stats["training_errors"] = _errors(tree, X, y, weight)
            stats["seconds"] = CLOCK() - start
            self.result = MinimumTreeResult(tree, status, int(lower), tree.n_nodes, stats,
                                            tuple(trace))
            return self.result

        def report(tree: Tree) -> None:
            trace.append((deadline.elapsed(), tree.n_nodes))
            self.progress.report(tree.n_nodes, None, trace[-1][0], tree)

        if _errors(leaf, X, y, weight) <= max_errors:
            report(leaf)
            return finish(leaf, "optimal", 1)
        keep = _majority_rows(X, y, weight)
        greedy = greedy_upper_bound_within(X[keep], y[keep], n_classes, deadline)
        stats["greedy_trees"] = len(greedy.sizes)
        # its smallest pruning within the budget (the greedy tree itself makes only the
        # forced errors: 10,133 nodes where 2,249 fit a budget of 500 on 100,000 rows)
        best = smallest_pruning(greedy.tree, X, y, max_errors, weight, deadline)
        stats["greedy_size"] = best.n_nodes
        report(best)
        if best.n_nodes < 5:  # a leaf does not fit, so one decision (3 nodes) is the least
            return finish(best, "optimal", best.n_nodes)
        loop = SizeSearch(_BudgetQuery(self, stats), self.backend, deadline=deadline,
                          stats=stats, trace=trace, progress=self.progress)
        outcome = loop.run(best, 3)
        self.encoding = loop.encoding
        self._backend_found_best = outcome.backend_holds_best
        return finish(outcome.tree, outcome.status, outcome.lower_bound)

    def skip_reason(self, n_nodes: int, deadline: Deadline, stats: dict) -> str | None:
        """Why the encoding with ``n_nodes`` nodes is not built (predicted to end after the
        deadline, or to need more memory than the limit leaves), or None to build it."""
        size = error_budget_encoding_size(group_examples(self.X, self.y, self.weight),
                                          self.max_errors, n_nodes)
        seconds = ENCODE_SECONDS_PER_LITERAL * size.literals
        needed = ENCODE_BYTES_PER_LITERAL * size.literals
        stats.update(predicted_clauses=size.clauses, predicted_literals=size.literals)
        room = memory_room()
        if needed > room:
            return (f"predicted {needed / 2**30:.1f} GiB for {n_nodes} nodes, "
                    f"{room / 2**30:.1f} GiB left under the memory limit")
        if deadline.limited:
            left = deadline.remaining()
            if seconds >= left:
                return (f"predicted {seconds:.1f} s for {n_nodes} nodes, "
                        f"{max(left, 0.0):.1f} s left")
        return None

    def leaf_trees(self) -> list[Tree]:
        """Every one-node tree within the budget, commonest class first (the search's leaf
        leads); empty unless the search's answer is a single leaf."""
        if self.result is None or self.result.tree.n_nodes != 1:
            return []
        counts = np.bincount(self.y, weights=self.weight, minlength=self.n_classes)
        order = np.argsort(-counts, kind="stable")
        empty = np.zeros((1, self.n_classes), dtype=np.int64)
        return [Tree([LEAF], [-1], [-1], [int(k)], empty, self.X.shape[1]
                     ).with_counts(self.X, self.y)
                for k in order if counts.sum() - counts[k] <= self.max_errors]

    def formula(self, *, live: bool = True, deadline: Deadline | None = None) -> OptimalFormula:
        """The SAT instance whose models are the trees of the result's size within budget.

        ``live`` reuses the Linear MaxSAT solver when it found the result's tree (proven
        optimal or not), with the size held by assumptions; otherwise the data is encoded
        afresh with exactly ``size`` nodes (``BudgetEncodingDeadline`` if ``deadline`` passes
        while it is built). The search's tree is the formula's ``first_tree``.
        """
        if self.result is None:
            raise ValueError("formula() needs run() first.")
        tree = self.result.tree
        size = tree.n_nodes
        if size < 3:
            raise ValueError("the smallest tree is a single leaf: use leaf_trees().")
        options = {"first_tree": tree, "sat_solver": self.sat_solver, "block_labels": True}
        if live and self._backend_found_best and self.backend.keeps_solver:
            try:
                solver, assumptions = self.backend.solver_for_cost(
                    self.encoding.cost_of_size(size))
            except ValueError:  # stopped before the bound on the cost was in place
                solver = None
            if solver is not None:
                eta = self.encoding.variables.eta
                pinned = [int(eta[size])]
                if size + 2 <= self.encoding.n:
                    pinned.append(-int(eta[size + 2]))
                return OptimalFormula(self.encoding, size, solver, [*assumptions, *pinned],
                                      **options)
        encoding = encode_error_budget(self.X, self.y, self.n_classes, self.max_errors,
                                       size, size, deadline=deadline,
                                       sample_weight=self.weight)
        # start next to the search's tree: phases order the solver's choices only, so every
        # model is still a tree within the budget, and the enumeration reaches other trees of
        # the optimum sooner
        return OptimalFormula(encoding, size, phases=encoding.mpdt.tree_literals(tree),
                              **options)

    def close(self) -> None:
        self.backend.close()


def find_minimum_tree_with_errors(X, y, n_classes: int, max_errors: int, *,
                                  solver: str = "lsu", sat_solver: str = "cadical195",
                                  deadline: Deadline | None = None,
                                  progress: ProgressSink | None = None,
                                  sample_weight=None) -> MinimumTreeResult:
    """Smallest tree over 0/1 matrix ``X`` misclassifying at most ``max_errors`` rows of ``y``.

    ``y`` holds class indices; identical rows with different labels are allowed (they use up
    budget). solver / sat_solver / deadline / progress as in ``find_minimum_tree``.
    ``stats["training_errors"]`` is the returned tree's error count. ``sample_weight``
    (non-negative integers, one per row): ``max_errors`` and the error counts are then
    total weights, as if each row were repeated its weight times.
    """
    search = ErrorBudgetSearch(X, y, n_classes, max_errors, solver=solver,
                               sat_solver=sat_solver, deadline=deadline, progress=progress,
                               sample_weight=sample_weight)
    try:
        return search.run()
    finally:
        search.close()
