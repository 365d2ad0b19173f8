"""The search a ``MinimumPureTreeClassifier`` fit runs: a pure tree
(``trees.mpdt.minimum.find_minimum_tree``) or, with ``max_errors`` or ``on_conflict="relax"``,
the smallest tree within an error budget (``find_minimum_tree_within_budget``), the budget in
integer weight units when rows are weighted. An interrupt (Ctrl-C, or the SAT solver's)
returns the best tree reported so far, marked "feasible".
"""

from __future__ import annotations

import numpy as np

from occamlearn.estimators._progress import UserProgress
from occamlearn.maxsat.pysat_adapter import SATInterrupt, is_interrupt
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.mpdt.error_budget.maxsat_search import error_budget
from occamlearn.trees.mpdt.minimum import find_minimum_tree, find_minimum_tree_within_budget
from occamlearn.trees.mpdt.result import MinimumTreeResult
from occamlearn.trees.weights import integer_weights

__all__ = ["solve_minimum_tree"]


def solve_minimum_tree(estimator, X_bin: np.ndarray, y: np.ndarray, n_classes: int,
                       deadline: Deadline, progress: ProgressSink, user: UserProgress,
                       weight=None) -> MinimumTreeResult:
    """Run the search ``estimator``'s parameters ask for (method, solver, ``max_errors``,
    ``on_conflict``); an interrupt returns the best tree so far as "feasible".

    ``weight`` (the kept rows' weights, or None) matters only with an error budget: the
    budget is then counted in units of 1/scale of a weight, scale making them integers."""
    started = CLOCK()
    options = {"solver": estimator.solver, "sat_solver": estimator.sat_solver,
               "deadline": deadline, "progress": progress}
    units, scale = (None, 1) if weight is None or not estimator._may_err() \
        else integer_weights(weight, len(y))
    try:
        budget = error_budget(X_bin, y, None if estimator.max_errors is None
                              else _scaled_budget(estimator.max_errors, scale),
                              relax_conflicts=estimator.on_conflict == "relax",
                              sample_weight=units)
        if budget is None:
            return find_minimum_tree(X_bin, y, n_classes, method=estimator.method,
                                     n_jobs=estimator._n_jobs, **options)
        return find_minimum_tree_within_budget(X_bin, y, n_classes, budget,
                                               method=estimator.method, sample_weight=units,
                                               **options)
    except (KeyboardInterrupt, SATInterrupt) as exc:
        if user.best is None or not is_interrupt(exc):
            raise
        progress.interrupted(deadline.elapsed())
        size = user.best.n_nodes
        lower = max(1 if n_classes < 2 else 3, progress.lower or 1)
        return MinimumTreeResult(
            tree=user.best, status="feasible", lower_bound=min(lower, size),
            upper_bound=size,
            stats={"interrupted": True, "solve_seconds": CLOCK() - started},
            trace=tuple(progress.improvements()))


def _scaled_budget(max_errors: int, scale: int) -> int:
    """``max_errors`` (in weight units) in units of 1/scale: the most the scaled weights of
    the misclassified rows may sum to."""
    return int(max_errors) * int(scale)
