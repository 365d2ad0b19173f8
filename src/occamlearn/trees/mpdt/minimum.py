"""The minimum pure tree of a binary matrix, by the method the caller names.

One entry point for every exact search of the family, so that estimators, experiments and the
CLI choose a *method* (how the minimum is searched for and proven) separately from a *solver*
(which MaxSAT back-end runs the MaxSAT method):

* ``"maxsat"`` -- the MPDT encoding solved by a MaxSAT back-end (Alós, Ansótegui and Torres,
  Alg. 1 with ``solver="lsu"``), ``search.find_minimum_tree_maxsat``;
* ``"mindt"`` -- MinDT's sequence of exactly-n SAT queries (Narodytska et al.), the SAT
  baseline of Table 5, ``mindt.find_minimum_tree_mindt``;
* ``"bnb"`` -- branch and bound over row sets (``branch_and_bound``), which proves most
  benchmark minima in seconds and reports a lower bound as it goes;
* ``"auto"`` -- the two exact engines together (``portfolio``): the smallest tree either
  finds, the largest bound either proves, proven when they meet.

Every method takes the same arguments and returns a ``MinimumTreeResult``; the time and the
progress travel as one ``stopping.Deadline`` and one ``stopping.ProgressSink``, made by the
caller (the estimator's ``fit``) and passed down to the innermost loop unchanged.

Before any method runs, the columns that provably no minimum tree needs are dropped
(``trees.exact.reductions``: equivalent and twin-covered columns); every tree the method
reports, in progress and in the result, is mapped back to the original columns.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occamlearn.maxsat.backends import make_backend
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.compiling import kernel_cache
from occamlearn.trees.exact.data import distinct_rows
from occamlearn.trees.exact.reductions import ColumnReduction, reduce_for_pure_tree
from occamlearn.trees.mpdt.maxsat_route.mindt import find_minimum_tree_mindt
from occamlearn.trees.mpdt.maxsat_route.search import check_bound, find_minimum_tree_maxsat
from occamlearn.trees.mpdt.portfolio import find_minimum_tree_bnb, find_minimum_tree_portfolio
from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["METHODS", "find_minimum_tree", "find_minimum_tree_within_budget"]


def _maxsat(X, y, n_classes, *, solver, n_jobs, **options) -> MinimumTreeResult:
    return find_minimum_tree_maxsat(X, y, n_classes, solver=solver, **options)


def _mindt(X, y, n_classes, *, solver, n_jobs, **options) -> MinimumTreeResult:
    return find_minimum_tree_mindt(X, y, n_classes, **options)  # a SAT search: no back-end


def _bnb(X, y, n_classes, *, solver, n_jobs, sat_solver, **options) -> MinimumTreeResult:
    return find_minimum_tree_bnb(X, y, n_classes, **options)  # no SAT solver at all


def _auto(X, y, n_classes, **options) -> MinimumTreeResult:
    return find_minimum_tree_portfolio(X, y, n_classes, **options)


METHODS = {"auto": _auto, "bnb": _bnb, "maxsat": _maxsat, "mindt": _mindt}
# Methods that search pure trees only (an error budget needs "auto", "bnb" or "maxsat").
PURE_ONLY_METHODS = frozenset({"mindt"})


def find_minimum_tree(X, y, n_classes: int, *, method: str = "auto", solver: str = "lsu",
                      sat_solver: str = "cadical195", deadline: Deadline | None = None,
                      progress: ProgressSink | None = None, upper_bound: int | None = None,
                      lower_bound: int | None = None, n_jobs: int | None = None,
                      reductions: bool = True) -> MinimumTreeResult:
    """Minimum pure decision tree of the 0/1 matrix X and class indices y.

    method : a key of ``METHODS``; solver : MaxSAT back-end name (``maxsat.backends.BACKENDS``)
    for the MaxSAT method; sat_solver : PySAT SAT solver name. deadline : a
    ``stopping.Deadline`` for the whole search (None: until proven; ``Deadline.after(seconds)``
    makes one). progress : a ``stopping.ProgressSink``, told ``(size, lower bound, seconds,
    tree)`` as the bounds improve (methods "auto" and "bnb" report lower bounds as they go,
    the others in the result only). upper_bound / lower_bound : optional known bounds on the
    minimum size (odd). n_jobs : processes for ``method="auto"`` (>= 2: the engines run side
    by side). reductions : drop the columns no minimum tree needs before searching
    (``trees.exact.reductions``; the size found and proven is the same, the tree tests
    original columns; ``stats["reductions"]`` counts the columns).
    """
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}. Valid methods: {', '.join(sorted(METHODS))}.")
    check_bound("upper_bound", upper_bound)
    check_bound("lower_bound", lower_bound)
    if method in ("auto", "maxsat"):
        make_backend(solver, sat_solver=sat_solver).close()  # names checked before any work
    if method in ("auto", "bnb"):  # a fresh install: the compile starts with the search
        kernel_cache.compile_early("bnb")
    reduction = _column_reduction(X, y) if reductions else None
    if reduction is None:
        return METHODS[method](X, y, n_classes, solver=solver, sat_solver=sat_solver,
                               deadline=Deadline.coerce(deadline), progress=progress,
                               upper_bound=upper_bound, lower_bound=lower_bound,
                               n_jobs=n_jobs)
    X = np.asarray(X)

    def in_original(tree):
        return reduction.tree_in_original(tree, X, y) if isinstance(tree, Tree) else tree

    inner = None if progress is None else ProgressSink(
        lambda upper, lower, seconds, tree: progress.report(upper, lower, seconds,
                                                            in_original(tree)))
    result = METHODS[method](reduction.reduce(X), y, n_classes, solver=solver,
                             sat_solver=sat_solver, deadline=Deadline.coerce(deadline),
                             progress=inner, upper_bound=upper_bound,
                             lower_bound=lower_bound, n_jobs=n_jobs)
    return replace(result, tree=in_original(result.tree),
                   stats={**result.stats, "reductions": reduction.stats()})


# The reductions run on at most this many (distinct rows x columns), where they take well
# under a second (benchmarks/results/reductions.md). Above it the search starts at once (its
# engines drop the equivalent columns themselves).
REDUCTION_CELLS = 1_000_000


def _column_reduction(X, y) -> ColumnReduction | None:
    """The columns to search over, or None to search X as it is: when nothing is dropped,
    when every column goes (one class: a leaf, which the method finds), above
    ``REDUCTION_CELLS``, and when the input is not a valid conflict-free 0/1 matrix (the
    method then raises its own error)."""
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],) or 0 in X.shape \
            or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
        return None
    ones = X == 1  # one byte a cell: the input may be large
    if not (ones | (X == 0)).all():
        return None
    X = ones.view(np.uint8)
    if distinct_rows(X)[0].size > REDUCTION_CELLS:
        return None
    try:
        reduction = reduce_for_pure_tree(X, y)
    except ValueError:  # conflicting rows: no pure tree (the method says so)
        return None
    return reduction if 0 < reduction.n_kept < X.shape[1] else None


# The error-budget branch and bound's first tree (its set-up, the greedy tree and the
# min-plus programme over it, none of which looks at the deadline) costs up to this many
# seconds per (distinct row x varying column): 9.1 CPU s on 100,000 x 320 noisy rows, 2.7 s
# on 20,000 x 640 (benchmarks/limits.py's cases; 32 s there before the greedy start was
# counted with numpy). Above BUDGET_BNB_CELLS cells, "auto" with a time limit takes the
# MaxSAT route, whose greedy bound and encodings are sized to the time left, when that first
# tree is predicted to take more than BUDGET_BNB_SHARE of the time left.
BUDGET_BNB_CELLS = 2_000_000
BUDGET_BNB_SECONDS_PER_CELL = 3e-7
BUDGET_BNB_SHARE = 0.25


def _greedy_cells(X) -> int:
    X = np.asarray(X)
    if X.size == 0:
        return 0
    distinct, _ = distinct_rows(X)
    return len(distinct) * int((distinct.min(axis=0) != distinct.max(axis=0)).sum())


def find_minimum_tree_within_budget(X, y, n_classes: int, max_errors: int, *,
                                    method: str = "auto", solver: str = "lsu",
                                    sat_solver: str = "cadical195",
                                    deadline: Deadline | None = None,
                                    progress: ProgressSink | None = None,
                                    sample_weight=None) -> MinimumTreeResult:
    """Smallest tree misclassifying at most ``max_errors`` rows of (X, y) (conflicting rows
    allowed: they use up the budget). With ``sample_weight`` (non-negative integers, one per
    row) the budget bounds the total weight of the misclassified rows.

    ``method="maxsat"`` solves the error-budget encoding (``error_budget``); "auto" and "bnb"
    run the branch and bound over row sets with a budget (``error_budget.bnb``), which proves
    more instances than the MaxSAT route and none fewer
    (``benchmarks/results/error_budget_runtime.md``). On wide data under a time limit
    (``BUDGET_BNB_CELLS``) "auto" starts with the MaxSAT route, and when none of its encodings
    fits the budget the branch and bound takes the time left (``_bnb_takes_over``). "mindt" searches
    pure trees only: a ValueError.
    """
    if method in PURE_ONLY_METHODS:
        raise ValueError(f"method={method!r} finds pure trees only; an error budget needs "
                         "'auto', 'bnb' or 'maxsat'.")
    deadline = Deadline.coerce(deadline)
    cells = _greedy_cells(X) if method == "auto" and deadline.limited else 0
    if cells > BUDGET_BNB_CELLS and not _bnb_fits(cells, deadline, BUDGET_BNB_SHARE):
        method = "maxsat"  # the branch and bound's greedy start would take the time left
    if method == "maxsat":
        from occamlearn.trees.mpdt.error_budget.maxsat_search import find_minimum_tree_with_errors

        result = find_minimum_tree_with_errors(X, y, n_classes, max_errors, solver=solver,
                                               sat_solver=sat_solver, deadline=deadline,
                                               progress=progress, sample_weight=sample_weight)
        if not _bnb_takes_over(result, cells, deadline):
            return result
        bnb = find_minimum_tree_within_budget(X, y, n_classes, max_errors, method="bnb",
                                              deadline=deadline, progress=progress,
                                              sample_weight=sample_weight)
        return _better_of(result, bnb)
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    return find_minimum_tree_with_errors_bnb(X, y, n_classes, max_errors, deadline=deadline,
                                             progress=progress, sample_weight=sample_weight)


def _bnb_takes_over(result: MinimumTreeResult, cells: int, deadline: Deadline) -> bool:
    """Whether "auto", having taken the MaxSAT route for wide data, hands the rest of the
    time to the branch and bound: when no encoding could be built within the memory or time
    budget (so the MaxSAT route only returned its greedy tree), and the branch and bound's
    greedy start, predicted from ``cells``, fits in half the time left."""
    if cells <= BUDGET_BNB_CELLS or result.status == "optimal" \
            or not str(result.stats.get("encoding_skipped", "")).startswith("predicted"):
        return False
    return _bnb_fits(cells, deadline, 0.5)


def _bnb_fits(cells: int, deadline: Deadline, share: float) -> bool:
    """Whether the branch and bound's first tree is predicted within ``share`` of the time
    left (``BUDGET_BNB_SECONDS_PER_CELL``)."""
    return cells * BUDGET_BNB_SECONDS_PER_CELL < share * deadline.remaining()


def _better_of(first: MinimumTreeResult, second: MinimumTreeResult) -> MinimumTreeResult:
    """The smaller tree of the MaxSAT route (``first``) and the branch and bound
    (``second``) on the same question, with the larger proven lower bound of the two (each
    is a proof about the same minimum); ``stats`` are the winner's, with ``route`` naming
    it and ``other_route`` holding the other's."""
    best = second if second.upper_bound < first.upper_bound else first
    lower = max(first.lower_bound, second.lower_bound)
    status = "optimal" if lower >= best.upper_bound else "feasible"
    other = second if best is first else first
    stats = dict(best.stats, route="bnb" if best is second else "maxsat",
                 other_route=dict(other.stats))
    trace = tuple(sorted(first.trace + second.trace))
    return replace(best, status=status, lower_bound=min(lower, best.upper_bound),
                   stats=stats, trace=trace)
