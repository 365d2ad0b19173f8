"""``MaxAccuracyTreeClassifier``: the most accurate decision tree within a depth or leaf bound.

A scikit-learn facade over ``trees.dtmax.entry.find_most_accurate_tree``: the table as ordered
columns (``_dtmax_columns``: every threshold of the table as given, or exactly a binariser's
features) -> the one DT(max) entry point, which picks the search -> the fitted attributes
(``_dtmax_fitted.set_fitted``). Unlike a pure tree it exists on noisy data (identical rows with
different labels), so no conflict filter is applied.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.binarize.fit_checks import ParamsCheckedOnce
from occamlearn.estimators._base import (
    CLASS_WEIGHT,
    DEFAULT_TIME_LIMIT,
    ENCODINGS,
    SAT_SOLVERS,
    FittedTreeMixin,
    no_limit_as_none,
)
from occamlearn.estimators._dtmax_columns import table_columns
from occamlearn.estimators._dtmax_fitted import search_progress, set_fitted
from occamlearn.estimators._process_exit import freeze_collector_at_exit
from occamlearn.estimators._progress import watching_interrupts
from occamlearn.estimators.size_error_path import SizeErrorPath, size_error_path
from occamlearn.maxsat.backends import BACKENDS
from occamlearn.stopping import Deadline

# The engine's names of ``method`` (``trees.dtmax.entry.METHODS``) and of the automatic
# ``solver`` (``trees.dtmax.maxsat.solve.BACKEND_AUTO``), written here so that importing the
# estimator does not import the engine, which imports scikit-learn's trees and neighbours
# (0.05-0.06 CPU-s): ``fit`` imports it, under its deadline. A test holds them equal.
METHOD_NAMES = frozenset({"auto", "maxsat"})
SOLVER_AUTO = "auto"
# Names of ``method`` that older versions had (their model files keep them): both now mean
# "auto", which searches every threshold itself.
FORMER_METHODS = ("dp", "ordered")

__all__ = ["MaxAccuracyTreeClassifier"]


class MaxAccuracyTreeClassifier(ParamsCheckedOnce, ClassifierMixin, FittedTreeMixin,
                                BaseEstimator):
    """Decision tree within a depth (and leaf) bound with the fewest training errors.

    DT(max) of Hu, Siala, Hebrard and Huguet (IJCAI 2020), the baseline of the MaxSAT paper
    of Alós, Ansótegui and Torres: exact over the table as given -- every threshold between
    adjacent training values of every numeric column, each category, each flag, and missing
    values sent to either side of each test -- unless a binariser is passed, whose features
    it is then exact over. Among the trees with the fewest weighted errors it takes one with
    the fewest nodes (``prefer_small``), in one search.

    Parameters
    ----------
    max_depth : int >= 1 or None, default=3
        Depth bound (edges from the root to the deepest leaf). None (no depth bound) needs
        ``max_leaves``.
    max_leaves : int >= 1 or None, default=None
        Leaf bound: the tree with the fewest (weighted) training errors among those with at
        most ``max_leaves`` leaves (and depth <= ``max_depth`` unless that is None: both
        bind), and among those the one with the fewest leaves; the last point of
        ``size_error_path``, certified the same way (over every threshold too). When
        ``max_leaves >= 2 ** max_depth`` only the depth binds.
    binarizer : {"readable", "binary", "onehot", "threshold"}, transformer or None,
        default="readable"
        "readable" (the default): every threshold of the table as given, each printed as
        ``ThresholdBinarizer`` prints its cuts (``petal-length >= 2.5``); categories as
        ``col == v`` tests, 0/1 flags as ``col == 1``; a numeric column with missing values
        offers each threshold as ``x >= t`` (other branch ``x < t or missing``) and ``x >= t
        or missing``, plus ``x is missing``. Identifier columns are dropped and rare
        categories folded as the readable binariser does (it is asked what each column is).
        Any other value restricts the search to exactly that binariser's features (cloned
        at fit): a ``ThresholdBinarizer(max_thresholds=8)``, or "binary", "onehot",
        "threshold" (``FeatureBinarizer(encoding=...)``); ``solve_stats_["optimal_over"]``
        and the printed status then say so. ``None``: X is already a 0/1 matrix.
    method : {"auto", "maxsat"}, default="auto"
        "auto": ``trees.dtmax.entry.find_most_accurate_tree`` picks the exact search (the ordered
        search over every threshold; MurTree's compiled search when every column is 0/1;
        the size-error frontier under a binding ``max_leaves``). "maxsat": the MaxSAT
        encoding of Hu et al. solved by ``solver``, over the same tests as 0/1 columns (the
        paper's route, far slower). "dp" and "ordered" (names of earlier versions) mean
        "auto".
    solver : {"auto", "lsu", "rc2", ...}, default="auto"
        MaxSAT back-end of ``method="maxsat"``: "auto" is LSU, or RC2 when duplicated rows make
        the example weights large (total weight > twice the soft clauses); any key of
        ``occamlearn.maxsat.backends.BACKENDS`` names one.
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float >= 0 or None, default=60
        Seconds for the whole ``fit`` (the command line's default too); when reached, the
        best tree so far is kept with ``status_="feasible"`` and a proven
        ``errors_lower_bound_``. ``None`` or ``0``: no limit.
    prefer_small : bool, default=True
        Among the most accurate trees, take one with the fewest nodes (one lexicographic
        cost: errors, then tests), as ``occamlearn fit --max-depth`` does. With False the
        search stops at the first tree with the fewest errors (faster), which holds no test
        that does not lower the errors but may be larger.
    verbose : int, default=0
        If > 0, print each better tree (its training errors) to stderr, one line each (what
        ``occamlearn fit --max-depth`` shows off a terminal).
    callback : callable, ProgressSink or None, default=None
        ``callback(tree, seconds)`` with each better ``Tree`` found (seconds since ``fit``
        started; ``callback(tree, seconds, lower_bound)`` if it takes three arguments); an
        ``occamlearn.stopping.ProgressSink`` receives every report,
        ``(training errors, lower bound, seconds, tree)``.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}``, or "balanced"
        (``n_samples / (n_classes * np.bincount(y))``); they multiply ``sample_weight``.

    With ``sample_weight`` (in ``fit``) or ``class_weight`` the tree minimises the total
    weight of the misclassified rows: integer weights act exactly as repeated rows, weight 0
    as a dropped row (which places no threshold either). Weights must be ratios of integers
    with denominators up to 10**6 (integer weights, "balanced" and dicts of decimals are;
    random floats are a ValueError asking to round them), so the search stays exact.
    ``tree_.counts`` count rows, unweighted; ``predict_proba`` gives weighted frequencies
    (``leaf_weights_``), so it agrees with ``predict``.

    Attributes
    ----------
    tree_ : Tree over the conditions it tests (labels index ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (no tree within the bounds makes fewer errors over what
        ``solve_stats_["optimal_over"]`` names; with ``prefer_small`` or ``max_leaves``, no
        tree with as few errors is smaller) or "feasible" (time limit: best so far;
        ``solve_stats_["unproven"]`` is "errors" or "size", what is not proven)
    training_errors_ : misclassified training rows of ``tree_`` (with weights: their total
        weight, a float; ``solve_stats_["misclassified_rows"]`` counts the rows)
    errors_lower_bound_ : proven minimum number (weight) of errors (equals
        ``training_errors_`` when optimal)
    leaf_weights_ : (n_nodes, n_classes) total training weight per leaf and class, or None
        after an unweighted fit
    lower_bound_, upper_bound_ : None (the size is not what is optimised; read by exporters)
    solve_stats_ : dict -- the search that answered, seconds, ``trace`` of (seconds,
        errors), ``bound_trace`` of (seconds, lower bound)
    classes_, binarizer_ (a ``ConditionBinarizer`` over the tested conditions, the fitted
    binariser passed, or None), feature_names_, n_features_in_, feature_names_in_
    (DataFrames); fitted_at_ : when ``fit`` ran (ISO 8601, UTC); ``to_record()`` holds it all
    as plain data
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_leaves": [Interval(Integral, 1, None, closed="left"), None],
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(ENCODINGS)), None],
        "method": [StrOptions(set(METHOD_NAMES) | set(FORMER_METHODS))],
        "solver": [StrOptions(set(BACKENDS) | {SOLVER_AUTO})],
        "sat_solver": [StrOptions(set(SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "prefer_small": ["boolean"],
        "verbose": ["verbose"],
        "callback": [callable, HasMethods(["report", "interrupted"]), None],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, *, max_depth=3, max_leaves=None, binarizer="readable", method="auto",
                 solver="auto", sat_solver="cadical195", time_limit=DEFAULT_TIME_LIMIT,
                 prefer_small=True, verbose=0, callback=None, class_weight=None):
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.binarizer = binarizer
        self.method = method
        self.solver = solver
        self.sat_solver = sat_solver
        self.time_limit = time_limit
        self.prefer_small = prefer_small
        self.verbose = verbose
        self.callback = callback
        self.class_weight = class_weight

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Learn the most accurate tree within the bounds on (X, y), rows weighted by
        ``sample_weight`` (and ``class_weight``); returns self."""
        deadline = Deadline.for_fit(no_limit_as_none(self.time_limit))  # the fit's one deadline
        freeze_collector_at_exit()  # the process's exit skips the collector
        if self.max_depth is None and self.max_leaves is None:
            raise ValueError("max_depth=None needs max_leaves: without either bound the most "
                             "accurate tree is simply the largest. Pass max_depth or "
                             "max_leaves.")
        from occamlearn.trees.dtmax.entry import find_most_accurate_tree

        columns = table_columns(self, X, y, sample_weight, self.class_weight, deadline)
        progress = search_progress(self, columns)
        with watching_interrupts(deadline, progress):
            result = find_most_accurate_tree(
                columns.data, max_depth=self.max_depth, max_leaves=self.max_leaves,
                prefer_small=self.prefer_small,
                method="maxsat" if self.method == "maxsat" else "auto",
                solver=self.solver, sat_solver=self.sat_solver, deadline=deadline,
                progress=progress)
        set_fitted(self, columns, result, progress, deadline)
        if progress.interrupted_at is not None or result.stats.get("interrupted"):
            self.solve_stats_["interrupted"] = True    # Ctrl-C: the best tree is kept
            raise KeyboardInterrupt
        return self

    def size_error_path(self, X, y, sample_weight=None) -> SizeErrorPath:
        """The size-error curve on (X, y): for L = 1, 2, ... leaves the fewest weighted
        training errors of a tree with at most L leaves, up to ``max_leaves`` or, without it,
        to the smallest tree with the fewest errors; each point certified (``proven``) or,
        past ``time_limit`` (for the whole path), bounded (``errors_lower_bound``). Every
        point has a fitted model; ``SizeErrorPath.select(X_val, y_val)`` picks one by
        validation accuracy (ties to fewer leaves), ``plot()`` draws the curve. With
        ``max_depth`` (default 3) the trees keep that depth bound; ``max_depth=None`` lifts
        it. This estimator is not fitted by the call."""
        return size_error_path(self, X, y, sample_weight)
