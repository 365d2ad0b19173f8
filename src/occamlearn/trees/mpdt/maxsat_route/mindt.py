"""MinDT: the SAT baseline of Narodytska et al. (2018), as compared in Sec. 3 and 9.1.

MinDT asks a SAT solver "is there a pure tree of exactly n nodes?", and after each tree found
re-encodes the question from scratch for the next size down, n - 2 (tree sizes are odd). The
first UNSAT answer proves the last tree minimum. Unlike the Linear MaxSAT loop (Alg. 1) it
keeps no learnt clauses between sizes and cannot skip sizes: that is the contrast Table 5
measures.

The exactly-n query is the hard part of the MPDT encoding with ``lower_bound = upper_bound =
n`` (``encode_mpdt(X, y, k, n, n).wcnf.hard``): eq. 3 forces eta(n), eq. 2 then forces every
eta_i with i <= n, so every node is used, and the encoding's "a used node's children are
used" and eqs. 7, 9, 15 make the n nodes one tree -- exactly the MinDT formula (the eta
variables and the soft clauses become constants). Going down by 2 is sound: any pure tree
smaller than the largest possible one can be grown by 2 nodes (split a leaf on a feature its
path does not test; an empty leaf is pure), so UNSAT at n - 2 means no smaller tree at all.

The search is the size loop every route shares (``size_search.SizeSearch``) with two parts
of its own: the query (the exactly-n formula) and a "back-end" that answers it with one
plain SAT call (``ExactSizeSAT``, on the same PySAT solver as the Linear MaxSAT loop,
CaDiCaL 1.9.5 by default, under the remaining time: ``maxsat.oracle.limited_solve``); with a
re-encoding ratio of 1 every tree found asks for the next size down. It starts like the
MaxSAT search: the smallest greedy pure tree is the upper bound and the first point of the
anytime trace; the first SAT query asks for ub - 2 nodes.
"""

from __future__ import annotations

import numpy as np
from pysat.formula import WCNF

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult, check_sat_solver
from occamlearn.maxsat.oracle import limited_solve
from occamlearn.maxsat.solvers import new_sat_solver
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.greedy import greedy_upper_bound_within, single_leaf
from occamlearn.trees.mpdt.maxsat_route.encoding import (
    encode_mpdt,
    unique_rows,
    validate_binary_data,
)
from occamlearn.trees.mpdt.maxsat_route.search import check_bound
from occamlearn.trees.mpdt.maxsat_route.size_search import SizeSearch
from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["ExactSizeSAT", "exact_size_query", "find_minimum_tree_mindt"]

def exact_size_query(X, y, n_classes: int, n_nodes: int):
    """The MinDT formula "a pure tree of exactly ``n_nodes`` nodes": (hard clauses, encoding)."""
    encoding = encode_mpdt(X, y, n_classes, n_nodes, n_nodes)
    return encoding.wcnf.hard, encoding


class _ExactSizeQuery:
    """MinDT's part of the size loop: the exactly-n formula, each query recorded as
    [n, answer, encode seconds, SAT seconds] (answer True/False/None: None = stopped)."""

    def __init__(self, X, y, n_classes: int):
        self.X, self.y, self.n_classes = X, y, n_classes
        self.queries: list[list] = []

    def encode(self, n_nodes: int, lower: int, deadline: Deadline):
        began = CLOCK()
        encoding = encode_mpdt(self.X, self.y, self.n_classes, n_nodes, n_nodes,
                               deadline=deadline)
        self.queries.append([n_nodes, None, CLOCK() - began, 0.0])
        return encoding

    def skip_reason(self, n_nodes: int, deadline: Deadline) -> str | None:
        return None  # MinDT, as published, always asks; the encoding stops at the deadline


class ExactSizeSAT(MaxSATBackend):
    """MinDT's "back-end": one SAT call on the hard clauses of the exactly-n formula.

    A model is reported as a tree found (the size loop then asks for n - 2); UNSAT is
    "unsatisfiable" (no tree of exactly n nodes, hence none smaller). The soft clauses are
    constants in this formula and are ignored.
    """

    name = "mindt"

    def __init__(self, sat_solver: str, query: _ExactSizeQuery):
        super().__init__(sat_solver)
        self.query = query

    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        began = CLOCK()
        with new_sat_solver(self.sat_solver, wcnf.hard) as solver:
            answer = limited_solve(solver, self.sat_solver, [], deadline)
            model = solver.get_model() if answer else None
        seconds = CLOCK() - began
        self.query.queries[-1][1:] = [answer, self.query.queries[-1][2], seconds]
        stats = {"seconds": seconds, "sat_calls": 1}
        if answer is None:
            return MaxSATResult("unknown", None, None, 0, stats=stats)
        if answer is False:
            return MaxSATResult("unsatisfiable", None, None, 0, stats=stats)
        if progress is not None:
            progress.report(0, None, Deadline.coerce(deadline).elapsed(), model)
        return MaxSATResult("feasible", 0, model, 0, stats=stats)


def find_minimum_tree_mindt(X, y, n_classes: int, *, sat_solver: str = "cadical195",
                            deadline: Deadline | None = None,
                            progress: ProgressSink | None = None,
                            upper_bound: int | None = None,
                            lower_bound: int | None = None) -> MinimumTreeResult:
    """Minimum pure tree by MinDT's sequence of exactly-n SAT queries (n = ub-2, ub-4, ...).

    Same arguments and result as the MaxSAT search (``solver`` aside). ``trace`` holds
    (seconds, size) for the greedy tree and each smaller tree found; ``stats["queries"]``
    lists (n, answer, encode seconds, SAT seconds) per query, answer True/False/None
    (None: stopped by the deadline).
    """
    start = CLOCK()
    deadline = Deadline.coerce(deadline)
    progress = ProgressSink.coerce(progress)
    X, y = validate_binary_data(X, y, n_classes)
    sat_solver = check_sat_solver(sat_solver, incremental=True)
    upper_bound = check_bound("upper_bound", upper_bound)
    lower_bound = check_bound("lower_bound", lower_bound)
    n_classes = int(n_classes)
    if len(np.unique(y)) <= 1:
        tree, seconds = single_leaf(X, y, n_classes), deadline.elapsed()
        progress.report(1, 1, seconds, tree)
        return MinimumTreeResult(tree, "optimal", 1, 1, {"ub_source": "single leaf"},
                                 ((seconds, 1),))
    unique_rows(X, y)  # ValueError on conflicting rows
    greedy = greedy_upper_bound_within(X, y, n_classes, deadline)
    lower = max(3, lower_bound or 3)
    stats = {"algorithm": "mindt", "ub_source": greedy.source, "greedy_size": greedy.size,
             "ub_seconds": CLOCK() - start}
    trace = [(deadline.elapsed(), greedy.size)]
    progress.report(greedy.size, None, trace[0][0], greedy.tree)
    query = _ExactSizeQuery(X, y, n_classes)
    first = upper_bound if upper_bound is not None and upper_bound < greedy.size else None
    loop = SizeSearch(query, ExactSizeSAT(sat_solver, query), deadline=deadline,
                      stats=stats, trace=trace, progress=progress, reencode_ratio=1.0)
    outcome = loop.run(greedy.tree, lower, first_query=first)
    if outcome.tree.n_nodes not in (greedy.size, *(q[0] for q in query.queries if q[1])):
        raise RuntimeError(f"an exactly-n query decoded to a tree of {outcome.tree.n_nodes} "
                           "nodes (encoding bug)")
    stats["queries"] = [tuple(q) for q in query.queries]
    stats["seconds"] = CLOCK() - start
    return MinimumTreeResult(outcome.tree, outcome.status, int(outcome.lower_bound),
                             outcome.tree.n_nodes, stats, tuple(trace))
