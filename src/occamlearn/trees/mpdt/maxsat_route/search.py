"""Minimum pure decision tree of a binary matrix: greedy bound, MPDT encoding, MaxSAT.

``find_minimum_tree`` is what the estimators call (Alg. 3 lines 3-5 of Alós, Ansótegui and Torres):
the smallest greedy pure tree gives the upper bound ub and a fallback answer; the encoding
with n = ub - 2 nodes asks for a strictly smaller tree, and a MaxSAT back-end minimises it.
UNSAT there proves the greedy tree minimum. When the Linear SAT-UNSAT loop finds a tree of
size s <= 0.85 n, the query is re-encoded with n = s - 2 (a smaller formula); the last query
is solved to optimality, so its live solver holds the optimum (Sec. 6); the loop itself is
``size_search.SizeSearch``, shared with the error-budget search and MinDT. Status "feasible"
means the deadline (or Ctrl-C) stopped the search: the tree is the best found, not
proven minimum. The ``deadline`` (a ``stopping.Deadline``, made once by the caller) covers
the greedy bound and every encoding (an encoding cannot be interrupted, so none is started once the
deadline has passed or when it is predicted to end after it; the back-end gets what is
left). The greedy tree is then the answer.

``MinimumTreeSearch`` is the same search kept alive for the enumeration of optima (Sec. 6):
``optimal_solver()`` returns a SAT solver, assumptions and the encoding whose models are
exactly the minimum trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn import memory
from occamlearn.maxsat.backends import make_backend
from occamlearn.maxsat.solvers import SATSolver, new_sat_solver
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.greedy import greedy_upper_bound_within, single_leaf
from occamlearn.trees.mpdt.maxsat_route.encoding import (
    MPDTEncoding,
    encode_mpdt,
    unique_rows,
    validate_binary_data,
)
from occamlearn.trees.mpdt.maxsat_route.size_search import SizeSearch
from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["MinimumTreeSearch", "OptimalSolver", "find_minimum_tree_maxsat"]

# Before the first encoding, its seconds are predicted as this x nodes x distinct rows x
# non-constant columns: below the fastest rate measured on the benchmark (halved), so that
# only encodings sure to end after the deadline are skipped.
ENCODE_SECONDS_PER_CELL = 5e-8
# Peak bytes per cell of building an encoding and loading it into the SAT solver: 59-76
# measured (breast_cancer and digits, 15-41 nodes; about 58 per literal), rounded up. An
# encoding predicted to need more than the memory left (``occamlearn.memory.room``) is not
# built: on digits (600 x 772 columns) the 117-node encoding would have taken 4 GB.
ENCODE_BYTES_PER_CELL = 80


@dataclass
class OptimalSolver:
    """A live SAT solver whose models under ``assumptions`` are the minimum trees.

    Decode a model with ``encoding.decode(model)``; the diversity targets of Alg. 2 are
    ``encoding.target_variables()``. Add blocking clauses with ``solver.add_clause``.
    """

    solver: SATSolver
    assumptions: list
    encoding: MPDTEncoding


def check_bound(name: str, value) -> int | None:
    if value is None:
        return None
    if not isinstance(value, (int, np.integer)) or value < 1 or value % 2 == 0:
        raise ValueError(f"{name} must be an odd positive int (a tree size) or None; "
                         f"got {value!r}.")
    return int(value)


class PureQuery:
    """The pure search's part of the size loop (``size_search.SizeQuery``): the MPDT
    encoding of "a pure tree of lower .. n nodes", and how long it would take to build."""

    def __init__(self, X, y, n_classes: int, distinct_rows: np.ndarray):
        self.X, self.y, self.n_classes = X, y, n_classes
        varying = (int((distinct_rows.min(axis=0) != distinct_rows.max(axis=0)).sum())
                   if len(distinct_rows) else 0)
        # seconds per node of encoding: predicted from the data's size until one is measured
        self.seconds_per_node = ENCODE_SECONDS_PER_CELL * len(distinct_rows) * varying
        self.bytes_per_node = ENCODE_BYTES_PER_CELL * len(distinct_rows) * varying

    def encode(self, n_nodes: int, lower: int, deadline: Deadline) -> MPDTEncoding:
        began = CLOCK()
        encoding = encode_mpdt(self.X, self.y, self.n_classes, n_nodes, lower,
                               deadline=deadline)
        self.seconds_per_node = (CLOCK() - began) / n_nodes
        return encoding

    def skip_reason(self, n_nodes: int, deadline: Deadline) -> str | None:
        needed, room = self.bytes_per_node * n_nodes, memory.room()
        if needed > room:
            return (f"predicted {needed / 2**30:.1f} GiB for {n_nodes} nodes, "
                    f"{room / 2**30:.1f} GiB left under the memory limit")
        if not deadline.limited:
            return None
        predicted, left = self.seconds_per_node * n_nodes, deadline.remaining()
        if predicted < left:
            return None
        return f"predicted {predicted:.1f} s for {n_nodes} nodes, {max(left, 0.0):.1f} s left"


class MinimumTreeSearch:
    """One minimum-tree search; ``run()`` returns the result, the solver stays alive."""

    def __init__(self, X, y, n_classes: int, *, solver: str = "lsu",
                 sat_solver: str = "cadical195", deadline: Deadline | None = None,
                 progress: ProgressSink | None = None, upper_bound: int | None = None,
                 lower_bound: int | None = None):
        self.X, self.y = validate_binary_data(X, y, n_classes)
        self.n_classes = int(n_classes)
        self.backend = make_backend(solver, sat_solver=sat_solver)
        self.sat_solver = sat_solver
        self.deadline = Deadline.coerce(deadline)
        self.progress = ProgressSink.coerce(progress)
        self.upper_bound = check_bound("upper_bound", upper_bound)
        self.lower_bound = check_bound("lower_bound", lower_bound)
        self.encoding: MPDTEncoding | None = None
        self.result: MinimumTreeResult | None = None
        self._backend_holds_optimum = False

    def run(self) -> MinimumTreeResult:
        start, deadline = CLOCK(), self.deadline
        X, y = self.X, self.y
        if len(np.unique(y)) <= 1:
            tree = single_leaf(X, y, self.n_classes)
            seconds = deadline.elapsed()
            self.progress.report(1, 1, seconds, tree)
            self.result = MinimumTreeResult(tree, "optimal", 1, 1, {"ub_source": "single leaf"},
                                            ((seconds, 1),))
            return self.result
        Xu, _ = unique_rows(X, y)  # ValueError on conflicting rows
        greedy = greedy_upper_bound_within(X, y, self.n_classes, deadline)
        ub = greedy.size if self.upper_bound is None else min(self.upper_bound, greedy.size)
        # lower bounds: the caller's, and one leaf per class present (2K - 1 nodes)
        lb = max(3, self.lower_bound or 3, 2 * len(np.unique(y)) - 1)
        stats = {"ub_source": greedy.source, "ub_seconds": CLOCK() - start,
                 "greedy_size": greedy.size, "n_vars": 0, "n_clauses": 0, "n_literals": 0}
        trace = [(deadline.elapsed(), greedy.size)]
        self.progress.report(greedy.size, None, trace[0][0], greedy.tree)
        if ub < lb:  # the caller's upper bound is below the lower bound: nothing to ask, and
            # the greedy tree (all we have) is minimum only if it reaches the lower bound
            status = "optimal" if greedy.size <= lb else "feasible"
            self.result = MinimumTreeResult(greedy.tree, status, min(lb, greedy.size),
                                            greedy.size, stats, tuple(trace))
            return self.result
        loop = SizeSearch(PureQuery(X, y, self.n_classes, Xu), self.backend,
                          deadline=deadline, stats=stats, trace=trace, progress=self.progress)
        # with the greedy tree in hand, ask for a strictly smaller one (or for a size the
        # caller knows a tree of)
        outcome = loop.run(greedy.tree, lb, first_query=None if ub == greedy.size else ub)
        self.encoding = loop.encoding
        if self.encoding is not None:
            stats.update(n_clauses=self.encoding.n_clauses, n_literals=self.encoding.n_literals)
        self._backend_holds_optimum = outcome.backend_proved
        self.result = MinimumTreeResult(outcome.tree, outcome.status, int(outcome.lower_bound),
                                        outcome.tree.n_nodes, stats, tuple(trace))
        return self.result

    def adopt(self, result: MinimumTreeResult) -> MinimumTreeResult:
        """Take ``result`` (found and proven by another exact search, e.g. the portfolio's
        branch and bound) as this search's answer instead of calling ``run()``: the
        enumeration of optima (``optimal_solver``) then encodes n = the proven minimum at once
        instead of searching for it again."""
        if not result.tree.is_pure_on(self.X, self.y):
            raise ValueError("adopt() needs a tree that is pure on this search's data.")
        self.result = result
        self._backend_holds_optimum = False
        return result

    def optimal_solver(self) -> OptimalSolver:
        """A SAT solver whose models (under its assumptions) are exactly the minimum trees.

        Reuses the live Linear SAT-UNSAT solver when it proved the optimum (Sec. 6: the last
        satisfiable instance, with its learnt clauses); otherwise (greedy tree proven
        minimum, or the rc2 back-end) encodes n = lower_bound = the minimum size afresh.
        """
        if self.result is None or self.result.status != "optimal":
            raise ValueError("optimal_solver() needs a run() that proved the optimum.")
        size = self.result.tree.n_nodes
        if size == 1:
            raise ValueError("the minimum tree is a single leaf: there is nothing to enumerate.")
        if self._backend_holds_optimum and self.backend.keeps_solver:
            cost = self.encoding.cost_of_size(size)
            solver, assumptions = self.backend.solver_for_cost(cost)
            return OptimalSolver(solver, assumptions, self.encoding)
        encoding = encode_mpdt(self.X, self.y, self.n_classes, size, size)
        return OptimalSolver(new_sat_solver(self.sat_solver, encoding.wcnf.hard),
                             [], encoding)

    def close(self) -> None:
        self.backend.close()


def find_minimum_tree_maxsat(X, y, n_classes: int, *, solver: str = "lsu",
                      sat_solver: str = "cadical195", deadline: Deadline | None = None,
                      progress: ProgressSink | None = None,
                      upper_bound: int | None = None,
                      lower_bound: int | None = None) -> MinimumTreeResult:
    """Minimum pure decision tree of the 0/1 matrix X and class indices y.

    solver : MaxSAT back-end name (a key of ``BACKENDS``: "lsu", "rc2", ...);
    sat_solver : PySAT SAT solver name.
    deadline : a ``stopping.Deadline`` for the whole search (None: until proven).
    progress : a ``stopping.ProgressSink``; each smaller tree found (the greedy one first) is
    reported as ``(size, None, seconds, tree)``.
    upper_bound / lower_bound : optional known bounds on the minimum size (odd ints).
    """
    search = MinimumTreeSearch(X, y, n_classes, solver=solver, sat_solver=sat_solver,
                               deadline=deadline, progress=progress,
                               upper_bound=upper_bound, lower_bound=lower_bound)
    try:
        return search.run()
    finally:
        search.close()
