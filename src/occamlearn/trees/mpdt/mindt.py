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

The search starts like ``find_minimum_tree``: the smallest greedy pure tree is the upper
bound and the first point of the anytime trace; the first SAT query asks for ub - 2 nodes.
Each SAT call runs on the same PySAT solver as the Linear MaxSAT loop (CaDiCaL 1.9.5 by
default) under the remaining time (``solve.oracle.limited_solve``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from pysat.solvers import Solver

from occamlearn.maxsat.base import check_sat_solver, check_time_limit
from occamlearn.maxsat.oracle import limited_solve
from occamlearn.model.tree import Tree
from occamlearn.trees.greedy import greedy_upper_bound, single_leaf
from occamlearn.trees.mpdt.encoding import encode_mpdt, unique_rows, validate_binary_data
from occamlearn.trees.mpdt.search import MinimumTreeResult, _check_bound

__all__ = ["exact_size_query", "find_minimum_tree_mindt"]

TreeCallback = Callable[[Tree, float], None]


def exact_size_query(X, y, n_classes: int, n_nodes: int):
    """The MinDT formula "a pure tree of exactly ``n_nodes`` nodes": (hard clauses, encoding)."""
    encoding = encode_mpdt(X, y, n_classes, n_nodes, n_nodes)
    return encoding.wcnf.hard, encoding


def find_minimum_tree_mindt(X, y, n_classes: int, *, sat_solver: str = "cadical195",
                            time_limit: float | None = None,
                            on_improve: TreeCallback | None = None,
                            upper_bound: int | None = None,
                            lower_bound: int | None = None) -> MinimumTreeResult:
    """Minimum pure tree by MinDT's sequence of exactly-n SAT queries (n = ub-2, ub-4, ...).

    Same arguments and result as ``find_minimum_tree`` (``solver`` aside). ``trace`` holds
    (seconds, size) for the greedy tree and each smaller tree found; ``stats["queries"]``
    lists (n, answer, encode seconds, SAT seconds) per query, answer True/False/None
    (None: stopped by the time limit).
    """
    start = time.perf_counter()
    X, y = validate_binary_data(X, y, n_classes)
    sat_solver = check_sat_solver(sat_solver, incremental=True)
    time_limit = check_time_limit(time_limit)
    upper_bound = _check_bound("upper_bound", upper_bound)
    lower_bound = _check_bound("lower_bound", lower_bound)
    deadline = None if time_limit is None else start + time_limit
    n_classes = int(n_classes)
    if len(np.unique(y)) <= 1:
        return MinimumTreeResult(single_leaf(X, y, n_classes), "optimal", 1, 1,
                                 {"ub_source": "single leaf"}, ((0.0, 1),))
    unique_rows(X, y)  # ValueError on conflicting rows
    greedy = greedy_upper_bound(X, y, n_classes)
    lb = max(3, lower_bound or 3)
    stats = {"algorithm": "mindt", "ub_source": greedy.source, "greedy_size": greedy.size,
             "ub_seconds": time.perf_counter() - start, "encode_seconds": 0.0,
             "sat_seconds": 0.0, "sat_calls": 0, "queries": []}
    best = greedy.tree
    trace = [(time.perf_counter() - start, greedy.size)]
    if on_improve is not None:
        on_improve(best, trace[0][0])
    n_nodes = greedy.size - 2
    if upper_bound is not None and upper_bound < greedy.size:
        n_nodes = upper_bound  # a known bound without its tree: ask for that size first
    proven = lb  # every pure tree has at least this many nodes
    while n_nodes >= lb:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        began = time.perf_counter()
        hard, encoding = exact_size_query(X, y, n_classes, n_nodes)
        encoded = time.perf_counter()
        with Solver(name=sat_solver, bootstrap_with=hard) as solver:
            answer = limited_solve(solver, sat_solver, [], deadline)
            model = solver.get_model() if answer else None
        solved = time.perf_counter()
        stats["encode_seconds"] += encoded - began
        stats["sat_seconds"] += solved - encoded
        stats["sat_calls"] += 1
        stats["queries"].append((n_nodes, answer, encoded - began, solved - encoded))
        if answer is None:
            break
        if answer is False:
            proven = n_nodes + 2  # no tree of n_nodes, hence none smaller
            break
        tree = encoding.decode(model)
        if tree.n_nodes != n_nodes:
            raise RuntimeError(f"exactly-{n_nodes} query decoded to a tree of "
                               f"{tree.n_nodes} nodes (encoding bug)")
        best = tree
        trace.append((time.perf_counter() - start, tree.n_nodes))
        if on_improve is not None:
            on_improve(tree, trace[-1][0])
        n_nodes -= 2
    if n_nodes < lb:
        proven = best.n_nodes  # the loop ran down to the lower bound
    status = "optimal" if proven >= best.n_nodes else "feasible"
    lower = best.n_nodes if status == "optimal" else proven
    stats["seconds"] = time.perf_counter() - start
    return MinimumTreeResult(best, status, int(lower), best.n_nodes, stats, tuple(trace))
