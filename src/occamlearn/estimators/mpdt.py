"""``MinimumPureTreeClassifier``: the smallest decision tree that classifies all training data,
or (``max_errors``) all but at most e training rows.

A scikit-learn facade over the MaxSAT pipeline of Alós, Ansótegui and Torres (Sec. 4, Proposition
1): table -> binariser (the paper's binary encoding by default, Sec. 8) -> binary matrix ->
MPDT encoding -> MaxSAT solver (``occamlearn.trees.mpdt.maxsat_route.search``) -> ``Tree``. ``fit``
is three steps -- ``_prepare`` (validate, encode labels, binarise, conflicts), ``_solve`` (one
method returning a ``MinimumTreeResult``; enumeration extends it) and ``set_fitted``
(``_mpdt_fitted``, with ``set_prepared``, all that ``fit`` writes) -- and the
fitted estimator holds only plain data (``tree_`` is arrays), so it pickles and exports.

A pure tree exists only when no two training rows share a binary feature vector with
different labels. By default (``on_conflict="auto"``) a pure tree's conflicts are resolved by
the paper's filter (keep each group's majority label) with a ``UserWarning`` naming the rows
set aside: the tree is then pure on the other rows, ``training_errors_`` counts the rows set aside
it misclassifies, and ``status_``/bounds speak of the rows searched. ``on_conflict="error"``
raises a ``ValueError`` naming the rows instead, and ``on_conflict="relax"`` keeps every row
and asks for the smallest tree making the fewest errors the conflicts force. ``max_errors=e`` asks
for the smallest tree misclassifying at most e training rows (the MPDT encoding with relaxable
examples, ``trees.mpdt.error_budget.encoding`` and ``trees.mpdt.error_budget``); a pure tree is the
``max_errors=None`` case. Both combine with Algorithm 3 (``n_solutions``, ``selection_size``): the
candidates are then many smallest trees within the budget
(``trees.mpdt.all_minimum.minimum_trees.find_minimum_trees(max_errors=...)``).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.estimators._base import (
    CLASS_WEIGHT,
    DEFAULT_TIME_LIMIT,
    ENCODINGS,
    ON_CONFLICT,
    SAT_SOLVERS,
    FittedTreeMixin,
    binarizer_to_fit,
    no_limit_as_none,
    prepare_training_data,
    resolve_n_jobs,
)
from occamlearn.estimators._memorising import warn_if_pure_tree_memorises
from occamlearn.estimators._mpdt_fitted import set_fitted, set_prepared
from occamlearn.estimators._process_exit import freeze_collector_at_exit
from occamlearn.estimators._progress import UserProgress, fit_progress, watching_interrupts
from occamlearn.estimators._selection import store_selection
from occamlearn.maxsat.backends import BACKENDS
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

if TYPE_CHECKING:
    from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["MinimumPureTreeClassifier"]

# The names of ``occamlearn.trees.mpdt.minimum.METHODS`` (a test holds them equal). The
# searches themselves (the minimum-tree engines, Alg. 3's selection, the kernel cache) are
# imported by ``fit``, after its deadline is made: a script that imports this estimator does
# not pay for them before its first fit, and the fit's ``time_limit`` covers them.
METHOD_NAMES = frozenset({"auto", "bnb", "maxsat", "mindt"})

class MinimumPureTreeClassifier(ClassifierMixin, FittedTreeMixin, BaseEstimator):
    """Decision tree with the fewest nodes that is pure on the training data (MaxSAT), or that
    misclassifies at most ``max_errors`` training rows.

    Parameters
    ----------
    binarizer : {"readable", "binary", "onehot", "threshold"}, transformer or None,
        default="readable"
        Turns the table into 0/1 features (cloned at fit). "readable" (the default) is
        ``ThresholdBinarizer()`` fitted with the labels: ``col >= t`` for every gap between
        adjacent training values of a numeric column that a tree can need (thinned only
        past a feature budget, which ``optimal_over_`` then names), ``col == v`` for
        categories; so "optimal" is optimal over every threshold of the data. The others are
        ``FeatureBinarizer(encoding=...)``, "binary" being the paper's encoding (Sec. 8).
        ``None`` means X is already a 0/1 matrix: other values are a ValueError.
    method : {"auto", "bnb", "maxsat", "mindt"}, default="auto"
        How the minimum is searched for and proven: "auto" runs branch and bound over row
        sets, a subset search and the MaxSAT route together and stops when the smallest tree
        any found meets the largest lower bound any proved (``trees.mpdt.portfolio``); "bnb"
        the branch and bound alone; "maxsat" the MPDT encoding solved by ``solver`` (Alg. 1);
        "mindt" the SAT baseline (one exactly-n query per size, pure trees only). With
        ``max_errors`` (or ``on_conflict="relax"``) "auto" and "bnb" run the branch and bound
        with an error budget (``trees.mpdt.error_budget.bnb``), "maxsat" the error-budget
        encoding. Algorithm 3 (``n_solutions``, ``selection_size``) finds the minimum with
        the method and draws the trees from the MPDT encoding of that size (with an error
        budget, from the MaxSAT search).
    n_jobs : int or None, default=None
        Processes for ``method="auto"``, as in scikit-learn: None is 1, -1 all cores, -2 all
        but one (``joblib.effective_n_jobs``). With 2 or more, the engines run side by side
        for the whole time; otherwise, in this process, the branch and bound runs alone for
        the first round (the time limit, or 60 s), then they take turns of doubling length.
    solver : {"lsu", "rc2", ...}, default="lsu"
        MaxSAT back-end of the "maxsat" method, a key of ``occamlearn.maxsat.backends.BACKENDS``.
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float >= 0 or None, default=60
        Seconds, counted from the start of ``fit`` (binarising included; the command line's
        default too); when reached, the best tree found so far is kept with
        ``status_="feasible"`` and its proven bounds. ``None`` or ``0``: no limit. It becomes
        one ``occamlearn.stopping.Deadline`` that every search below shares.
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
        stopped at a deadline), in what is left of ``time_limit``.
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
        If > 0, print each better tree and each better proven lower bound to stderr, one
        line each (what ``occamlearn fit`` shows off a terminal).
    callback : callable, ProgressSink or None, default=None
        Called as ``callback(tree, seconds)`` with each improved ``Tree`` (binary feature names
        attached) and the seconds since ``fit`` started; a callback taking a third
        argument is called as ``callback(tree, seconds, lower_bound)`` with the proven lower
        bound on the minimum size, also when only the bound improved (methods "auto" and
        "bnb" prove bounds as they go). An ``occamlearn.stopping.ProgressSink`` receives
        every report, ``(size, lower bound, seconds, tree or None)``.
    n_solutions, diverse, layouts, selection_size, delta, random_state
        Algorithm 3 (Sec. 7): hold out ``selection_size`` of the rows (stratified when every
        class allows it), draw up to ``n_solutions`` minimum trees of the rest (MDSOL if
        ``diverse``, per tree layout if ``layouts``), keep those whose selection accuracy is
        within ``delta`` of the best and pick one at random (``random_state``). Defaults
        (1, True, False, 0.0, 0.0, None) give the single minimum tree of all rows (mpdt-1).
        With ``max_errors`` or ``on_conflict="relax"`` the minimum trees are those within
        the error budget (see ``max_errors``). See ``occamlearn.trees.mpdt.all_minimum.selection``.
        With methods "auto" and "bnb" (no layouts) the trees come from the branch and bound's
        tree space: every minimum tree (with ``max_errors``: every smallest tree within the
        budget) is counted exactly, the plain draw is the first ``n_solutions`` in a fixed
        order and the diverse draw is MDSOL's greedy step over them
        (``occamlearn.trees.mpdt.all_minimum.tree_space``, ``budget_tree_space``), with no SAT call;
        ``method="maxsat"`` draws them with SAT (blocking clauses or MDSOL).

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as scikit-learn's classifiers take them; each row's weight
        is its ``sample_weight`` times its class's weight. They count where errors count:
        with ``max_errors`` the budget bounds the total weight of the misclassified rows, so
        a heavy class is fitted first (a budget of 1 with ``{0: 1000, 1: 0.0001}`` lets the
        tree give up up to 10,000 rows of class 1). A pure tree (``max_errors=None``)
        classifies every kept row whatever its weight: there the weights decide only the
        majority filter and ``training_errors_``.

    ``fit(X, y, sample_weight)``: one non-negative weight per row. The pure tree itself does
    not depend on weights; they decide (1) the majority filter: among identical binarised
    rows with different labels the label of largest total weight is kept (ties as without
    weights), (2) the error budget: ``max_errors`` bounds the total weight of the
    misclassified rows, and (3) ``training_errors_``, which is that total weight. Integer
    weights act exactly as repeated rows and weight 0 as a dropped row (also for the
    binariser). With a budget, weights must be ratios of integers (denominators up to 10**6);
    Algorithm 3 with a budget takes no weights, and its selection accuracy counts rows.

    Attributes
    ----------
    tree_ : Tree  (binary features, class indices into ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (size proven minimum) or "feasible" (stopped by time limit/interrupt)
    optimal_over_ : str or None -- what "optimal" is restricted to, in words, when the
        binariser left out cuts or categories that could matter (the readable binariser
        thins only past its feature budget: ``"136 cuts per column on 'a', 'b'"``); None
        when the binary features hold every threshold and category of the data (for other
        binarisers: every feature they made). The status line prints it.
    training_errors_ : misclassified training rows of ``tree_`` over all rows passed to
        ``fit``: the rows ``on_conflict="majority"`` set aside count too (so a tree pure on
        the kept rows may err on them), and with ``selection_size > 0`` the selection rows
        (so it may exceed ``max_errors``); with ``sample_weight``, their total weight (float)
    lower_bound_, upper_bound_ : proven bounds on the minimum size (on the rows searched)
    leaf_weights_ : (n_nodes, n_classes) total weight of the rows searched per leaf and
        class (``predict_proba`` reads it), or None after an unweighted fit
    solve_stats_ : dict -- seconds per phase, ``trace`` of (seconds, size) per better tree and
        ``bound_trace`` of (seconds, size, lower bound) per change of either (seconds since
        ``fit`` started: the fit's progress sink's trace); with ``method="auto"`` also
        ``found_by`` / ``bound_by`` / ``proved_by`` (the engine that found the tree, proved
        the bound, or "both")
    classes_, n_features_in_, feature_names_in_ (DataFrame input only)
    binarizer_ : the fitted binariser, or None when ``binarizer=None``
    fitted_at_ : when ``fit`` ran (ISO 8601, UTC); ``to_record()`` holds it all as plain data
    feature_names_ : names of the binary features
    n_conflicts_removed_, conflict_rows_ : how many rows ``on_conflict="majority"`` dropped,
        and their 0-based positions in the training data
    candidate_trees_ : list of (Tree, selection accuracy) -- the minimum trees Alg. 3 saw
    best_trees_ : list of Tree -- the candidates within ``delta`` of the best; ``tree_`` is one
    selection_stratified_ : whether the train/selection split could be stratified
    n_minimum_trees_ : int or None -- with Alg. 3 from the tree space, the exact number of
        minimum trees (pure, or within ``max_errors``) of the training part (None when not
        counted)

    A single-class training set gives a one-leaf tree (size 1, status "optimal"). Ctrl-C
    during ``fit`` stops the search; once a first tree exists the estimator is left fitted
    with the best tree found (status "feasible" unless its bounds already met,
    ``solve_stats_["interrupted"]``) and the ``KeyboardInterrupt`` is then re-raised, so a
    script or a grid search stops while nothing found is lost. Before any tree exists the
    interrupt simply propagates.

    When the proven lower bound shows that a pure tree needs more than 10 % of the training
    rows as leaves (and at least 16 leaves), or the tree found has that many leaves or has
    at least half (and 16) of its leaves holding at most 2 training rows, ``fit`` warns
    (``UserWarning``) and points to ``max_errors`` and ``MaxAccuracyTreeClassifier``: on
    noisy data a pure tree memorises.

    scikit-learn's common checks pass with the default parameters: they fit random labels on
    continuous data, which binning can turn into conflicting rows (the default filter sets
    them aside, with a warning).
    """

    _parameter_constraints: dict = {
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(ENCODINGS)), None],
        "method": [StrOptions(set(METHOD_NAMES))],
        "n_jobs": [Integral, None],
        "solver": [StrOptions(set(BACKENDS))],
        "sat_solver": [StrOptions(set(SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "max_errors": [Interval(Integral, 0, None, closed="left"), None],
        "on_conflict": [StrOptions({"auto", *ON_CONFLICT})],
        "class_weight": CLASS_WEIGHT,
        "verbose": ["verbose"],
        "callback": [callable, HasMethods(["report", "interrupted"]), None],
        "n_solutions": [Interval(Integral, 1, None, closed="left")],
        "diverse": ["boolean"],
        "layouts": ["boolean"],
        "selection_size": [Interval(Real, 0, 1, closed="left")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, binarizer="readable", method="auto", n_jobs=None, solver="lsu",
                 sat_solver="cadical195",
                 time_limit=DEFAULT_TIME_LIMIT, max_errors=None, on_conflict="auto",
                 class_weight=None, verbose=0, callback=None, n_solutions=1, diverse=True,
                 layouts=False, selection_size=0.0, delta=0.0, random_state=None):
        self.binarizer = binarizer
        self.method = method
        self.n_jobs = n_jobs
        self.solver = solver
        self.sat_solver = sat_solver
        self.time_limit = time_limit
        self.max_errors = max_errors
        self.on_conflict = on_conflict
        self.class_weight = class_weight
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
    def fit(self, X, y, sample_weight=None):
        """Learn a minimum pure tree (or one within ``max_errors``) for (X, y); returns self.

        ``sample_weight``: one non-negative weight per row (see the class docstring)."""
        deadline = Deadline.for_fit(no_limit_as_none(self.time_limit))  # the fit's one deadline
        freeze_collector_at_exit()  # the process's exit skips the collector
        from occamlearn.trees.compiling import kernel_cache
        from occamlearn.trees.mpdt.error_budget.small_trees import ERROR_BUDGET_KERNELS

        if self.method in ("auto", "bnb"):  # a fresh install: compile while data is prepared
            kernel_cache.compile_early(ERROR_BUDGET_KERNELS if self._may_err() else "bnb")
        self._check_error_budget_options(sample_weight)
        self._n_jobs = resolve_n_jobs(self.n_jobs)
        data = self._prepare(X, y, sample_weight, deadline)
        prepared = CLOCK()
        kind = "tree" if self._may_err() else "pure tree"
        user = UserProgress(self, self.feature_names_,
                            lambda tree, size: f"{kind} with {size} nodes",
                            lambda lower: f"no {kind} has fewer than {lower} nodes")
        progress = fit_progress(user, lower=1)
        selected = None
        with watching_interrupts(deadline, progress):
            result, selected = self._search(data, deadline, progress, user)
        progress.report(result.upper_bound, result.lower_bound, deadline.elapsed())
        set_fitted(self, result, data, progress)
        warn_if_pure_tree_memorises(self, len(data.y))
        store_selection(self, selected, data)
        self.solve_stats_["prepare_seconds"] = prepared - deadline.started
        self.solve_stats_["total_seconds"] = deadline.elapsed()
        if progress.interrupted_at is not None or result.stats.get("interrupted"):
            # the best tree is kept (status "feasible"); the interrupt still reaches the caller
            self.solve_stats_["interrupted"] = True
            raise KeyboardInterrupt
        return self

    def _search(self, data, deadline: Deadline, progress: ProgressSink, user: UserProgress):
        """(result, Alg. 3's selection or None) of the search ``fit`` asked for, under the
        fit's ``deadline`` (what ``time_limit`` leaves after reading and binarising)."""
        selected = None
        if self.n_solutions == 1 and self.selection_size == 0:
            result = self._solve(data.X_bin, data.y, len(data.classes), deadline, progress,
                                 user, data.weight)
        else:  # Algorithm 3
            from occamlearn.trees.mpdt.all_minimum.selection import (
                find_minimum_trees_with_selection,
            )

            selected = find_minimum_trees_with_selection(
                data.X_bin, data.y, len(data.classes), n_solutions=self.n_solutions,
                diverse=self.diverse, layouts=self.layouts, selection_size=self.selection_size,
                delta=self.delta, random_state=self.random_state, solver=self.solver,
                sat_solver=self.sat_solver, deadline=deadline, method=self.method,
                n_jobs=self._n_jobs, progress=progress, max_errors=self.max_errors,
                relax_conflicts=self.on_conflict == "relax")
            result = selected.result
        return result, selected

    def _may_err(self) -> bool:
        return self.max_errors is not None or self.on_conflict == "relax"

    def _check_error_budget_options(self, sample_weight=None) -> None:
        if not self._may_err():
            return
        what = (f"max_errors={self.max_errors!r}" if self.max_errors is not None
                else "on_conflict='relax'")
        weighted = sample_weight is not None or self.class_weight is not None
        if weighted and (self.n_solutions != 1 or self.selection_size != 0):
            raise ValueError(f"sample_weight or class_weight with {what} is not supported by "
                             "Algorithm 3 (n_solutions > 1 or selection_size > 0): the "
                             "candidates are drawn from unweighted budgets. Fit without one of "
                             "them.")
        from occamlearn.trees.mpdt.minimum import PURE_ONLY_METHODS

        if self.method in PURE_ONLY_METHODS:
            raise ValueError(f"{what} needs method 'auto', 'bnb' or 'maxsat'; "
                             f"method={self.method!r} finds pure trees only.")

    def _prepare(self, X, y, sample_weight=None, deadline=None):
        keep_all = self._may_err() and self.on_conflict != "majority"
        filtering = "majority" if self.on_conflict == "auto" else self.on_conflict
        data = prepare_training_data(self, X, y, binarizer=binarizer_to_fit(self.binarizer),
                                     on_conflict="relax" if keep_all else filtering,
                                     sample_weight=sample_weight, class_weight=self.class_weight,
                                     binarize_with_labels=True, deadline=deadline)
        set_prepared(self, data)
        return data

    def _solve(self, X_bin: np.ndarray, y: np.ndarray, n_classes: int, deadline: Deadline,
               progress: ProgressSink, user: UserProgress, weight=None) -> MinimumTreeResult:
        """The search for ``max_errors``/``on_conflict``; an interrupt returns the best tree so
        far as "feasible" (``estimators._minimum_search.solve_minimum_tree``)."""
        from occamlearn.estimators._minimum_search import solve_minimum_tree

        return solve_minimum_tree(self, X_bin, y, n_classes, deadline, progress, user, weight)
