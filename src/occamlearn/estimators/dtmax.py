"""``MaxAccuracyTreeClassifier``: the most accurate decision tree of bounded depth (DT(max)).

A scikit-learn facade over ``trees.dtmax.search.find_max_accuracy_tree``: table -> binariser ->
binary matrix -> exact search (the dynamic programme, or the MaxSAT encoding of Hu et al.) ->
``Tree``. Unlike a pure tree it exists on noisy data (identical rows with different labels), so
no conflict filter is applied.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.estimators._base import (
    CLASS_WEIGHT,
    DEFAULT_TIME_LIMIT,
    ENCODINGS,
    SAT_SOLVERS,
    FittedTreeMixin,
    binarizer_to_fit,
    leaf_weights,
    no_limit_as_none,
    prepare_training_data,
)
from occamlearn.estimators._dtmax_chains import fit_readable_chains, prefers_readable_chains
from occamlearn.estimators._dtmax_ordered import fit_ordered, prefers_ordered
from occamlearn.estimators._progress import UserProgress, fit_progress, watching_interrupts
from occamlearn.estimators._record import fit_date
from occamlearn.estimators.size_error_path import SizeErrorPath, fit_max_leaves, size_error_path
from occamlearn.maxsat.backends import BACKENDS
from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline
from occamlearn.trees.dtmax.search import BACKEND_AUTO, METHODS, find_max_accuracy_tree

ORDERED = "ordered"  # trees.dtmax.ordered: every threshold of numeric columns, natively

__all__ = ["MaxAccuracyTreeClassifier"]


class MaxAccuracyTreeClassifier(ClassifierMixin, FittedTreeMixin, BaseEstimator):
    """Decision tree of depth <= ``max_depth`` with the fewest training errors (MaxSAT).

    Parameters
    ----------
    max_depth : int >= 1 or None, default=3
        Depth bound (edges from the root to the deepest leaf). None (no depth bound) needs
        ``max_leaves``.
    max_leaves : int >= 1 or None, default=None
        Leaf bound: the tree with the fewest (weighted) training errors among those with at
        most ``max_leaves`` leaves (and depth <= ``max_depth`` unless that is None: both
        bind), and among those the one with the fewest leaves. Solved by
        ``trees.frontier`` (the error-budget branch and bound walked down its budgets; with
        a depth bound, an exhaustive search with depth two in closed form), which needs
        ``method="auto"``; ``verbose`` and ``callback`` are not called there. When
        ``max_leaves >= 2 ** max_depth`` only the depth binds and ``fit`` is the plain
        depth-bounded one. See also ``size_error_path``.
    binarizer : {"readable", "binary", "onehot", "threshold"}, transformer or None,
        default="readable"
        Turns the table into 0/1 features (cloned at fit): "readable" (the default) is
        ``ThresholdBinarizer()`` (thresholds between training values, one-hot categories),
        the others ``FeatureBinarizer(encoding=...)``. ``None``: X is already a 0/1 matrix.
    method : {"auto", "dp", "maxsat"}, default="auto"
        "dp": exact dynamic programme (``trees.dtmax.dynamic_programme``). "maxsat": the
        MaxSAT encoding of Hu et al. solved by ``solver``. Both are exact over the binariser's
        features; they may return different trees of equal accuracy. "ordered":
        ``trees.dtmax.ordered``, exact over *every* threshold of the numeric columns (the
        readable binariser's cap of ``max_thresholds`` cuts does not apply), anytime;
        thresholds print as the binariser prints them. "auto": with ``prefer_small`` and
        the readable binariser, the ordered engine over the binariser's own cuts (each
        numeric column's nested cuts as one ordered column: exact over the same features as
        "dp"; on 5,000 x 30 numeric rows proven optimal in 2.5 s where "dp" proves nothing
        in 60, ``benchmarks/results/dtmax_default_numeric.md``) where it is expected faster
        (``estimators._dtmax_chains``: 8 cuts or more, and chains outnumbering the 0/1
        columns or a dense binary matrix); with
        ``prefer_small=False``, "ordered" when the readable binariser would keep only some
        thresholds of a numeric column (measured faster there too); else "dp".
    solver : {"auto", "lsu", "rc2", ...}, default="auto"
        MaxSAT back-end of ``method="maxsat"``: "auto" is LSU, or RC2 when duplicated rows make
        the example weights large (total weight > twice the soft clauses); any key of
        ``occamlearn.maxsat.backends.BACKENDS`` names one.
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float >= 0 or None, default=60
        Seconds for the whole ``fit`` (the command line's default too); when reached, the
        best tree so far is kept with ``status_="feasible"``. ``None`` or ``0``: no limit.
    prefer_small : bool, default=True
        Among the most accurate trees, take one with the fewest nodes (lexicographic), as
        ``occamlearn fit --max-depth`` does. With False, the dynamic programme takes a test
        only where it makes fewer errors, so its trees hold no useless tests either, and it
        stops as soon as no tree can be more accurate (faster: see
        ``benchmarks/results/dtmax_runtime_dp.md``), but it may return a larger tree.
    verbose : int, default=0
        If > 0, print each better tree (its training errors) to stderr, one line each (what
        ``occamlearn fit --max-depth`` shows off a terminal).
    callback : callable, ProgressSink or None, default=None
        ``callback(tree, seconds)`` with each better ``Tree`` found (seconds since ``fit``
        started); an ``occamlearn.stopping.ProgressSink`` receives every report,
        ``(training errors, None, seconds, tree)``.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}``, or "balanced"
        (``n_samples / (n_classes * np.bincount(y))``); they multiply ``sample_weight``.

    With ``sample_weight`` (in ``fit``) or ``class_weight`` the tree minimises the total
    weight of the misclassified rows: integer weights act exactly as repeated rows, weight 0
    as a dropped row (also for the binariser, which never sees it). Weights must be ratios of
    integers with denominators up to 10**6 (integer weights, "balanced" and dicts of decimals
    are; random floats are a ValueError asking to round them), so the search stays exact.
    ``tree_.counts`` count rows, unweighted; ``predict_proba`` gives weighted frequencies
    (``leaf_weights_``), so it agrees with ``predict``.

    Attributes
    ----------
    tree_ : Tree over the binary features (labels index ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (no tree of depth <= max_depth, and with at most max_leaves leaves,
        makes fewer errors; with prefer_small or max_leaves, no tree with as few errors is
        smaller) or "feasible" (time limit: best so far)
    training_errors_ : misclassified training rows of ``tree_`` (with weights: their total
        weight, a float)
    errors_lower_bound_ : proven minimum number (weight) of errors (equals
        ``training_errors_`` when optimal)
    leaf_weights_ : (n_nodes, n_classes) total training weight per leaf and class, or None
        after an unweighted fit
    lower_bound_, upper_bound_ : None (the size is not what is optimised; read by exporters)
    solve_stats_ : dict -- encoding size, seconds, ``trace`` of (seconds, errors)
    classes_, binarizer_, feature_names_, n_features_in_, feature_names_in_ (DataFrames)
    fitted_at_ : when ``fit`` ran (ISO 8601, UTC); ``to_record()`` holds it all as plain data
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_leaves": [Interval(Integral, 1, None, closed="left"), None],
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(ENCODINGS)), None],
        "method": [StrOptions(set(METHODS) | {ORDERED})],
        "solver": [StrOptions(set(BACKENDS) | {BACKEND_AUTO})],
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
        """Learn the most accurate tree of depth <= max_depth on (X, y), rows weighted by
        ``sample_weight`` (and ``class_weight``); returns self."""
        deadline = Deadline.after(no_limit_as_none(self.time_limit))  # the fit's one deadline
        if self.max_leaves is not None and not (  # 2**depth leaves: only the depth binds
                self.max_depth is not None and self.max_leaves >= 2 ** self.max_depth):
            return fit_max_leaves(self, X, y, sample_weight, deadline)
        if self.max_depth is None:
            raise ValueError("max_depth=None needs max_leaves: without either bound the most "
                             "accurate tree is simply the largest. Pass max_depth or "
                             "max_leaves.")
        if self.method == ORDERED or (self.method == "auto" and prefers_ordered(
                self.binarizer, X, self.prefer_small)):
            return fit_ordered(self, X, y, sample_weight, deadline)
        data = prepare_training_data(self, X, y, binarizer=binarizer_to_fit(self.binarizer),
                                     on_conflict="relax",  # DT(max) may err: keep every row
                                     sample_weight=sample_weight,
                                     class_weight=self.class_weight)
        if prefers_readable_chains(self) and fit_readable_chains(self, data,
                                                                 deadline) is not None:
            return self
        self.classes_, self.binarizer_ = data.classes, data.binarizer
        self.fitted_at_ = fit_date()
        self.feature_names_ = data.feature_names
        X_bin, y_index = data.X_bin, data.y
        prepared = CLOCK()
        names = tuple(str(n) for n in self.feature_names_)
        user = UserProgress(self, names, lambda tree, errors: (
            f"depth <= {self.max_depth} tree with {errors:g} training errors"))
        progress = fit_progress(user, lower=0)
        with watching_interrupts(deadline, progress):
            result = find_max_accuracy_tree(
                X_bin, y_index, len(self.classes_), self.max_depth, method=self.method,
                solver=self.solver, sat_solver=self.sat_solver, deadline=deadline,
                prefer_small=self.prefer_small, progress=progress,
                sample_weight=data.weight)
        tree = result.tree
        self.tree_ = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                          tree.n_features, names)
        self.leaf_weights_ = leaf_weights(self.tree_, X_bin, y_index, data.weight)
        self.n_nodes_ = self.tree_.n_nodes
        self.depth_ = self.tree_.depth
        self.status_ = result.status
        self.training_errors_ = result.training_errors
        self.errors_lower_bound_ = result.errors_lower_bound
        self.lower_bound_ = self.upper_bound_ = None
        stats = dict(result.stats)
        as_number = int if data.weight is None else float
        stats["trace"] = [(float(s), as_number(e)) for s, e in progress.improvements()]
        stats["n_rows"], stats["n_binary_features"] = X_bin.shape
        stats["prepare_seconds"] = prepared - deadline.started
        stats["total_seconds"] = deadline.elapsed()
        self.solve_stats_ = stats
        if progress.interrupted_at is not None:  # Ctrl-C: the best tree is kept, raise again
            stats["interrupted"] = True
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
