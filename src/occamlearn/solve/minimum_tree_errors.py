"""Smallest decision tree with at most e training errors: greedy bound, relaxed MPDT, MaxSAT.

The same three steps as ``find_minimum_tree`` (Alg. 3 lines 3-5 of Alcázar et al.), on the
error-budget encoding of ``encode.error_budget``:

1. a single leaf is the answer if its errors fit the budget;
2. otherwise the greedy pure tree of the majority-filtered rows (its errors are exactly those
   that conflicting rows force, so it fits any feasible budget) is the upper bound ub;
3. the encoding with n = ub - 2 nodes asks for a strictly smaller tree; UNSAT proves the greedy
   tree minimum, an optimum is the minimum, a time limit leaves the best found ("feasible").

A budget below the errors that conflicting rows force is infeasible: ``ValueError``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from occamlearn.encode.bounds import greedy_upper_bound, single_leaf
from occamlearn.encode.dtmax_data import group_examples
from occamlearn.encode.error_budget import encode_error_budget
from occamlearn.encode.mpdt import validate_binary_data
from occamlearn.model.tree import Tree
from occamlearn.solve.backends import make_backend
from occamlearn.solve.base import check_time_limit
from occamlearn.solve.minimum_tree import MinimumTreeResult

__all__ = ["find_minimum_tree_with_errors"]

TreeCallback = Callable[[Tree, float], None]


def _errors(tree: Tree, X: np.ndarray, y: np.ndarray) -> int:
    return int((tree.predict(X) != y).sum())


def _majority_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Boolean mask keeping, for every distinct row, only the rows of its commonest label."""
    groups = group_examples(X, y)
    best = np.full(groups.n_patterns, -1)
    biggest = np.zeros(groups.n_patterns, dtype=np.int64)
    for g in np.argsort(-groups.count, kind="stable"):
        p = groups.pattern[g]
        if best[p] < 0:
            best[p], biggest[p] = groups.label[g], groups.count[g]
    _, pattern_of_row = np.unique(X.astype(np.uint8), axis=0, return_inverse=True)
    return y == best[pattern_of_row.reshape(-1)]


def find_minimum_tree_with_errors(X, y, n_classes: int, max_errors: int, *,
                                  solver: str = "lsu", sat_solver: str = "cadical195",
                                  time_limit: float | None = None,
                                  on_improve: TreeCallback | None = None
                                  ) -> MinimumTreeResult:
    """Smallest tree over 0/1 matrix ``X`` misclassifying at most ``max_errors`` rows of ``y``.

    ``y`` holds class indices; identical rows with different labels are allowed (they use up
    budget). solver / sat_solver / time_limit / on_improve as in ``find_minimum_tree``.
    ``stats["training_errors"]`` is the returned tree's error count.
    """
    start = time.perf_counter()
    X, y = validate_binary_data(X, y, n_classes)
    time_limit = check_time_limit(time_limit)
    if not isinstance(max_errors, (int, np.integer)) or isinstance(max_errors, bool) \
            or max_errors < 0:
        raise ValueError(f"max_errors must be a non-negative int; got {max_errors!r}.")
    forced = group_examples(X, y).forced_errors()
    if max_errors < forced:
        raise ValueError(f"max_errors={max_errors} is below the {forced} errors that identical "
                         "rows with different labels force; no tree fits that budget.")
    backend = make_backend(solver, sat_solver=sat_solver)
    stats = {"max_errors": int(max_errors), "forced_errors": forced, "encode_seconds": 0.0,
             "solve_seconds": 0.0, "sat_calls": 0}
    majority = int(np.bincount(y, minlength=n_classes).argmax())
    leaf = single_leaf(X, np.full_like(y, majority), n_classes).with_counts(X, y)
    trace = []

    def report(tree: Tree) -> None:
        trace.append((time.perf_counter() - start, tree.n_nodes))
        if on_improve is not None:
            on_improve(tree, trace[-1][0])

    def finish(tree: Tree, status: str, lower: int) -> MinimumTreeResult:
        stats["training_errors"] = _errors(tree, X, y)
        stats["seconds"] = time.perf_counter() - start
        return MinimumTreeResult(tree, status, int(lower), tree.n_nodes, stats, tuple(trace))

    if _errors(leaf, X, y) <= max_errors:
        report(leaf)
        return finish(leaf, "optimal", 1)
    keep = _majority_rows(X, y)
    greedy = greedy_upper_bound(X[keep], y[keep], n_classes)
    best = greedy.tree.with_counts(X, y)
    stats["greedy_size"] = best.n_nodes
    report(best)
    n_nodes = best.n_nodes - 2
    if n_nodes < 3:
        return finish(best, "optimal", best.n_nodes)
    began = time.perf_counter()
    encoding = encode_error_budget(X, y, n_classes, int(max_errors), n_nodes)
    stats["encode_seconds"] = time.perf_counter() - began
    stats.update(n_vars=encoding.wcnf.nv, n_hard=len(encoding.wcnf.hard),
                 n_nodes_encoded=n_nodes)

    def improved(cost, model, seconds):
        nonlocal best
        tree = encoding.decode(model)
        if tree.n_nodes < best.n_nodes:
            best = tree
            report(tree)

    remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
    if remaining is not None and remaining <= 0:
        return finish(best, "feasible", 3)
    with backend:
        answer = backend.solve(encoding.wcnf, time_limit=remaining, on_improve=improved)
    stats["solve_seconds"] = answer.stats.get("seconds", 0.0)
    stats["sat_calls"] = answer.stats.get("sat_calls", 0)
    if answer.model is not None:
        improved(answer.cost, answer.model, 0.0)
    if answer.status == "unsatisfiable":          # no tree of size 3 .. n_nodes
        status = "optimal" if best.n_nodes == n_nodes + 2 else "feasible"
        return finish(best, status, n_nodes + 2)
    if answer.status == "optimal":
        return finish(best, "optimal", best.n_nodes)
    return finish(best, "feasible", max(3, 2 * answer.lower_bound - 1))
