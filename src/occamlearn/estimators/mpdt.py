"""``MinimumPureTreeClassifier``: the smallest decision tree that classifies all training data,
or (``max_errors``) all but at most e training rows.

A scikit-learn facade over the MaxSAT pipeline of Alcázar et al. (Sec. 4, Proposition 1):
table -> binariser (the paper's binary encoding by default, Sec. 8) -> binary matrix ->
MPDT encoding -> MaxSAT solver (``occamlearn.trees.mpdt.maxsat_route.search``) -> ``Tree``. ``fit`` is
three steps -- ``_prepare`` (validate, encode labels, binarise, conflicts), ``_solve`` (one
method returning a ``MinimumTreeResult``; enumeration extends it) and ``_store`` -- and the
fitted estimator holds only plain data (``tree_`` is arrays), so it pickles and exports.

A pure tree exists only when no two training rows share a binary feature vector with
different labels. By default (``on_conflict="auto"``) a pure tree's conflicts are resolved by
the paper's filter (keep each group's majority label) with a ``UserWarning`` naming the rows
set aside: the tree is then pure on the other rows, ``training_errors_`` counts the rows set aside
it misclassifies, and ``status_``/bounds speak of the rows searched. ``on_conflict="error"``
raises a ``ValueError`` naming the rows instead, and ``on_conflict="relax"`` keeps every row
and asks for the smallest tree making the fewest errors the conflicts force. ``max_errors=e`` asks for the smallest tree misclassifying
at most e training rows (the MPDT encoding with relaxable examples, ``trees.mpdt.error_budget_encoding`` and
``trees.mpdt.error_budget``); a pure tree is the ``max_errors=None`` case. Both combine with
Algorithm 3 (``n_solutions``, ``selection_size``): the candidates are then many smallest trees
within the budget (``trees.mpdt.minimum_trees.find_minimum_trees(max_errors=...)``).
"""

from __future__ import annotations

import inspect
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.estimators._base import (
    ENCODINGS,
    ON_CONFLICT,
    SAT_SOLVERS,
    FittedTreeMixin,
    binarizer_to_fit,
    prepare_training_data,
    time_left,
    watching_interrupts,
)
from occamlearn.maxsat.backends import BACKENDS
from occamlearn.maxsat.pysat_adapter import SATInterrupt, is_interrupt
from occamlearn.model.tree import Tree
from occamlearn.trees.mpdt.error_budget.maxsat_search import error_budget
from occamlearn.trees.mpdt.many.selection import minimum_trees_with_selection
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeResult
from occamlearn.trees.mpdt.minimum import (
    METHODS,
    PURE_ONLY_METHODS,
    find_minimum_tree,
    find_minimum_tree_within_budget,
)

__all__ = ["MinimumPureTreeClassifier"]



def _accepts_lower_bound(callback) -> bool:
    """Whether ``callback`` can be called as ``callback(tree, seconds, lower_bound)``."""
    try:
        inspect.signature(callback).bind(None, 0.0, 1)
    except (TypeError, ValueError):
        return False
    return True


class _Progress:
    """Forwards each improved tree (and each better proven lower bound) to the user's
    callback and (if verbose) to stderr.

    It also remembers the best tree, so that an interrupt that escapes the solver still
    leaves ``fit`` with the work done so far. A callback that takes a third argument also
    gets the proven lower bound, and is called again (with the same tree) when only the
    bound improved.
    """

    def __init__(self, estimator, feature_names):
        self.estimator = estimator
        self.feature_names = tuple(feature_names)
        self.best = None
        self.lower = None
        self.trace = []
        callback = estimator.callback
        self.with_bound = callback is not None and _accepts_lower_bound(callback)

    def bound(self, lower: int, seconds: float) -> None:
        """A better proven lower bound on the minimum size."""
        self.lower = int(lower)
        if self.estimator.verbose:
            print(f"[{type(self.estimator).__name__}] {seconds:8.2f} s: no pure tree has "
                  f"fewer than {lower} nodes", file=sys.stderr, flush=True)
        if self.with_bound and self.best is not None:
            self.estimator.callback(self.best, seconds, self.lower)

    def __call__(self, tree: Tree, seconds: float) -> None:
        tree = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                    tree.n_features, self.feature_names)
        self.best = tree
        self.trace.append((float(seconds), tree.n_nodes))
        if self.estimator.verbose:
            kind = "tree" if self.estimator._may_err() else "pure tree"
            print(f"[{type(self.estimator).__name__}] {seconds:8.2f} s: {kind} with "
                  f"{tree.n_nodes} nodes", file=sys.stderr, flush=True)
        if self.with_bound:
            self.estimator.callback(tree, seconds, self.lower)
        elif self.estimator.callback is not None:
            self.estimator.callback(tree, seconds)


class MinimumPureTreeClassifier(ClassifierMixin, FittedTreeMixin, BaseEstimator):
    """Decision tree with the fewest nodes that is pure on the training data (MaxSAT), or that
    misclassifies at most ``max_errors`` training rows.

    Parameters
    ----------
    binarizer : {"readable", "binary", "onehot", "threshold"}, transformer or None,
        default="readable"
        Turns the table into 0/1 features (cloned at fit). "readable" (the default) is
        ``ThresholdBinarizer()``: ``col >= t`` between adjacent training values of numeric
        columns (at most 32 per column), ``col == v`` for categories; the others are
        ``FeatureBinarizer(encoding=...)``, "binary" being the paper's encoding (Sec. 8).
        ``None`` means X is already a 0/1 matrix: other values are a ValueError.
    method : {"auto", "bnb", "maxsat", "mindt"}, default="auto"
        How the minimum is searched for and proven: "auto" runs branch and bound over row
        sets, a subset search and the MaxSAT route together and stops when the smallest tree
        any found meets the largest lower bound any proved (``trees.mpdt.portfolio``); "bnb"
        the branch and bound alone; "maxsat" the MPDT encoding solved by ``solver`` (Alg. 1);
        "mindt" the SAT baseline (one exactly-n query per size, pure trees only). With
        ``max_errors`` (or ``on_conflict="relax"``) "auto" and "bnb" run the branch and bound
        with an error budget (``trees.mpdt.error_budget_bnb``), "maxsat" the error-budget
        encoding. Algorithm 3 (``n_solutions``, ``selection_size``) finds the minimum with
        the method and draws the trees from the MPDT encoding of that size (with an error
        budget, from the MaxSAT search).
    n_jobs : int or None, default=None
        Processes for ``method="auto"``: with 2 or more, the two engines run side by side
        for the whole time; otherwise they take turns of doubling length in this process.
    solver : {"lsu", "rc2", ...}, default="lsu"
        MaxSAT back-end of the "maxsat" method, a key of ``occamlearn.maxsat.backends.BACKENDS``.
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float or None, default=None
        Seconds; when reached, the best tree found so far is kept with ``status_="feasible"``.
    max_errors : int >= 0 or None, default=None
        Training rows the tree may misclassify; the result is the smallest such tree, proven
        minimum ("optimal") unless stopped. None: a pure tree (every row correct). With a
        budget, conflicting rows are kept (unless ``on_conflict="majority"``) and use it up;
        a budget below the errors they force is a ValueError. With Algorithm 3 the budget
        counts errors on the rows the candidates are learnt from (all rows but the
        ``selection_size`` part), and ``n_solutions`` distinct trees of the smallest size
        within it are drawn: distinct means different tests or different leaf labels (a leaf
        may predict a class other than its rows' majority if the budget pays for it), never
        just a different choice of which rows are errors. If ``time_limit`` stops the search,
        the trees of the best size found are still drawn (``status_="feasible"``), by plain
        enumeration (``diverse`` and ``layouts`` are ignored then: their SAT calls cannot be
        stopped at a deadline), for at most ``time_limit`` seconds more.
    on_conflict : {"auto", "majority", "error", "relax"}, default="auto"
        What to do with identical binary rows carrying different labels. "auto": for a pure
        tree, "majority" with a ``UserWarning`` naming the rows set aside; with
        ``max_errors``, keep them (they use up the budget, so ``training_errors_`` stays
        within it). "majority": drop all but each group's majority label (the paper's
        filter), "error": raise a ``ValueError`` naming them, "relax": keep them all and allow
        the
        fewest errors they force (``relax_errors_needed``; with ``max_errors``, the larger of
        the two budgets) instead of deleting rows. With Algorithm 3 the forced errors are
        those of the rows the candidates are learnt from.
    verbose : int, default=0
        If > 0, print each improvement of the bound to stderr.
    callback : callable or None, default=None
        Called as ``callback(tree, seconds)`` with each improved ``Tree`` (binary feature names
        attached) and the seconds since the solver started; a callback taking a third
        argument is called as ``callback(tree, seconds, lower_bound)`` with the proven lower
        bound on the minimum size (None until one is known), also when only the bound
        improved (methods "auto" and "bnb").
    n_solutions, diverse, layouts, selection_size, delta, random_state
        Algorithm 3 (Sec. 7): hold out ``selection_size`` of the rows (stratified when every
        class allows it), draw up to ``n_solutions`` minimum trees of the rest (MDSOL if
        ``diverse``, per tree layout if ``layouts``), keep those whose selection accuracy is
        within ``delta`` of the best and pick one at random (``random_state``). Defaults
        (1, True, False, 0.0, 0.0, None) give the single minimum tree of all rows (mpdt-1).
        With ``max_errors`` or ``on_conflict="relax"`` the minimum trees are those within
        the error budget (see ``max_errors``). See ``occamlearn.trees.mpdt.many.selection``.
        With methods "auto" and "bnb" (no layouts, no error budget) the trees come from the
        branch and bound's tree space: every minimum tree is counted exactly, the plain draw
        is the first ``n_solutions`` in a fixed order and the diverse draw is MDSOL's greedy
        step over them (``occamlearn.trees.mpdt.many.tree_space``), with no SAT call;
        ``method="maxsat"`` draws them with SAT (blocking clauses or MDSOL).

    Attributes
    ----------
    tree_ : Tree  (binary features, class indices into ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (size proven minimum) or "feasible" (stopped by time limit/interrupt)
    training_errors_ : misclassified training rows of ``tree_`` over all rows passed to
        ``fit``: the rows ``on_conflict="majority"`` set aside count too (so a tree pure on
        the kept rows may err on them), and with ``selection_size > 0`` the selection rows
        (so it may exceed ``max_errors``)
    lower_bound_, upper_bound_ : proven bounds on the minimum size (on the rows searched)
    solve_stats_ : dict -- seconds per phase, ``trace``; with ``method="auto"`` also
        ``found_by`` / ``bound_by`` / ``proved_by`` (the engine that found the tree, proved
        the bound, or "both") and ``bound_trace`` of (seconds, size, lower bound)
    classes_, n_features_in_, feature_names_in_ (DataFrame input only)
    binarizer_ : the fitted binariser, or None when ``binarizer=None``
    feature_names_ : names of the binary features
    n_conflicts_removed_, conflict_rows_ : how many rows ``on_conflict="majority"`` dropped,
        and their 0-based positions in the training data
    candidate_trees_ : list of (Tree, selection accuracy) -- the minimum trees Alg. 3 saw
    best_trees_ : list of Tree -- the candidates within ``delta`` of the best; ``tree_`` is one
    selection_stratified_ : whether the train/selection split could be stratified
    n_minimum_trees_ : int or None -- with Alg. 3 from the tree space, the exact number of
        minimum pure trees of the training part (None when not counted)

    A single-class training set gives a one-leaf tree (size 1, status "optimal"). Ctrl-C
    during ``fit`` stops the search; once a first tree exists the estimator is left fitted
    with the best tree found (status "feasible" unless its bounds already met,
    ``solve_stats_["interrupted"]``) and the ``KeyboardInterrupt`` is then re-raised, so a
    script or a grid search stops while nothing found is lost. Before any tree exists the
    interrupt simply propagates.

    scikit-learn's common checks pass with the default parameters: they fit random labels on
    continuous data, which binning can turn into conflicting rows (the default filter sets
    them aside, with a warning).
    """

    _parameter_constraints: dict = {
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(ENCODINGS)), None],
        "method": [StrOptions(set(METHODS))],
        "n_jobs": [Interval(Integral, 1, None, closed="left"), None],
        "solver": [StrOptions(set(BACKENDS))],
        "sat_solver": [StrOptions(set(SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "max_errors": [Interval(Integral, 0, None, closed="left"), None],
        "on_conflict": [StrOptions({"auto", *ON_CONFLICT})],
        "verbose": ["verbose"],
        "callback": [callable, None],
        "n_solutions": [Interval(Integral, 1, None, closed="left")],
        "diverse": ["boolean"],
        "layouts": ["boolean"],
        "selection_size": [Interval(Real, 0, 1, closed="left")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, binarizer="readable", method="auto", n_jobs=None, solver="lsu",
                 sat_solver="cadical195",
                 time_limit=None, max_errors=None, on_conflict="auto", verbose=0,
                 callback=None, n_solutions=1, diverse=True, layouts=False,
                 selection_size=0.0, delta=0.0, random_state=None):
        self.binarizer = binarizer
        self.method = method
        self.n_jobs = n_jobs
        self.solver = solver
        self.sat_solver = sat_solver
        self.time_limit = time_limit
        self.max_errors = max_errors
        self.on_conflict = on_conflict
        self.verbose = verbose
        self.callback = callback
        self.n_solutions = n_solutions
        self.diverse = diverse
        self.layouts = layouts
        self.selection_size = selection_size
        self.delta = delta
        self.random_state = random_state

    # -- fitting ----------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn a minimum pure tree (or one within ``max_errors``) for (X, y); returns self."""
        start = time.perf_counter()
        self._check_error_budget_options()
        data = self._prepare(X, y)
        prepared = time.perf_counter()
        selected = None
        with watching_interrupts() as watch:
            result, selected = self._search(data, time_left(self.time_limit, start))
        self._store(result, data)
        _store_selection(self, selected, data)
        self.solve_stats_["prepare_seconds"] = prepared - start
        self.solve_stats_["total_seconds"] = time.perf_counter() - start
        if watch["interrupted"] or result.stats.get("interrupted"):
            # the best tree is kept (status "feasible"); the interrupt still reaches the caller
            self.solve_stats_["interrupted"] = True
            raise KeyboardInterrupt
        return self

    def _search(self, data, time_left):
        """(result, Alg. 3's selection or None) of the search ``fit`` asked for, within
        ``time_left`` seconds (what ``time_limit`` leaves after reading and binarising)."""
        selected = None
        if self.n_solutions == 1 and self.selection_size == 0:
            result = self._solve(data.X_bin, data.y, len(data.classes), time_left)
        else:  # Algorithm 3
            selected = minimum_trees_with_selection(
                data.X_bin, data.y, len(data.classes), n_solutions=self.n_solutions,
                diverse=self.diverse, layouts=self.layouts, selection_size=self.selection_size,
                delta=self.delta, random_state=self.random_state, solver=self.solver,
                sat_solver=self.sat_solver, time_limit=time_left, method=self.method,
                n_jobs=self.n_jobs, on_improve=_Progress(self, self.feature_names_),
                max_errors=self.max_errors,
                relax_conflicts=self.on_conflict == "relax")
            result = selected.result
        return result, selected

    def _may_err(self) -> bool:
        return self.max_errors is not None or self.on_conflict == "relax"

    def _check_error_budget_options(self) -> None:
        if not self._may_err():
            return
        what = (f"max_errors={self.max_errors!r}" if self.max_errors is not None
                else "on_conflict='relax'")
        if self.method in PURE_ONLY_METHODS:
            raise ValueError(f"{what} needs method 'auto', 'bnb' or 'maxsat'; "
                             f"method={self.method!r} finds pure trees only.")

    def _prepare(self, X, y):
        keep_all = self._may_err() and self.on_conflict != "majority"
        filtering = "majority" if self.on_conflict == "auto" else self.on_conflict
        data = prepare_training_data(self, X, y, binarizer=binarizer_to_fit(self.binarizer),
                                     on_conflict="relax" if keep_all else filtering)
        self.classes_ = data.classes
        self.binarizer_ = data.binarizer
        self.feature_names_ = data.feature_names
        self.conflict_rows_ = data.conflict_rows
        self.n_conflicts_removed_ = len(data.conflict_rows)
        if len(data.conflict_rows) and self.on_conflict == "auto":
            shown = ", ".join(str(int(r)) for r in data.conflict_rows[:10])
            more = "" if len(data.conflict_rows) <= 10 else f", ... ({len(data.conflict_rows)})"
            warnings.warn(
                f"{len(data.conflict_rows)} training row(s) share their binarised features "
                f"with rows of another label and were set aside (0-based rows {shown}{more}; "
                "the default on_conflict='auto' keeps each group's majority label): the tree "
                "is pure "
                "on the other rows, and training_errors_ counts these. Pass "
                "on_conflict='error' to refuse such data, or 'relax' to keep every row.",
                UserWarning, stacklevel=3)
        return data

    def _solve(self, X_bin: np.ndarray, y: np.ndarray, n_classes: int,
               time_left: float | None) -> MinimumTreeResult:
        """Run the search; an interrupt returns the best tree so far as "feasible"."""
        progress = _Progress(self, self.feature_names_)
        started = time.perf_counter()
        options = {"solver": self.solver, "sat_solver": self.sat_solver,
                   "time_limit": time_left, "on_improve": progress}
        try:
            budget = error_budget(X_bin, y, self.max_errors,
                                  relax_conflicts=self.on_conflict == "relax")
            if budget is None:
                return find_minimum_tree(X_bin, y, n_classes, method=self.method,
                                         n_jobs=self.n_jobs, on_bound=progress.bound,
                                         **options)
            return find_minimum_tree_within_budget(X_bin, y, n_classes, budget,
                                                   method=self.method, **options)
        except (KeyboardInterrupt, SATInterrupt) as exc:
            if progress.best is None or not is_interrupt(exc):
                raise
            return MinimumTreeResult(
                tree=progress.best, status="feasible", lower_bound=1 if n_classes < 2 else 3,
                upper_bound=progress.best.n_nodes,
                stats={"interrupted": True, "solve_seconds": time.perf_counter() - started},
                trace=tuple(progress.trace))

    def _store(self, result: MinimumTreeResult, data) -> None:
        tree = result.tree
        blank = np.zeros((tree.n_nodes, len(data.classes)), dtype=np.int64)
        self.tree_ = Tree(tree.feature, tree.left, tree.right, tree.label, blank,
                          tree.n_features, tuple(str(n) for n in self.feature_names_)
                          ).with_counts(data.X_bin, data.y)
        self.n_nodes_ = self.tree_.n_nodes
        self.depth_ = self.tree_.depth
        # every row passed to fit counts, also those the majority filter set aside
        self.training_errors_ = int((self.tree_.predict(data.all_X_bin) != data.all_y).sum())
        self.status_ = result.status
        self.lower_bound_ = int(result.lower_bound)
        self.upper_bound_ = int(result.upper_bound)
        stats = dict(result.stats)
        stats["trace"] = [(float(s), int(n)) for s, n in result.trace]
        stats["n_rows"], stats["n_binary_features"] = data.X_bin.shape
        self.solve_stats_ = stats


def _store_selection(estimator, selected, data) -> None:
    """Set ``candidate_trees_``, ``best_trees_`` and ``selection_stratified_`` on a fitted
    ``MinimumPureTreeClassifier`` (after ``tree_`` is stored). Candidate trees carry the
    binary feature names and counts over all training rows, like ``tree_``."""
    estimator.n_minimum_trees_ = None if selected is None else selected.count
    if selected is None:
        estimator.candidate_trees_ = [(estimator.tree_, 1.0)]
        estimator.best_trees_ = [estimator.tree_]
        estimator.selection_stratified_ = True
        return
    names = estimator.tree_.feature_names

    def named(tree):
        if tree is selected.result.tree:
            return estimator.tree_
        return Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                    tree.n_features, names).with_counts(data.X_bin, data.y)

    trees = [named(tree) for tree in selected.candidates]
    estimator.candidate_trees_ = [(tree, float(acc))
                                  for tree, acc in zip(trees, selected.accuracies, strict=True)]
    estimator.best_trees_ = [trees[i] for i in selected.best]
    estimator.selection_stratified_ = bool(selected.stratified)
    estimator.solve_stats_.update(n_candidates=len(trees), n_best=len(selected.best),
                                  enumeration_complete=bool(selected.complete),
                                  n_train_rows=selected.n_train,
                                  n_selection_rows=selected.n_selection)
