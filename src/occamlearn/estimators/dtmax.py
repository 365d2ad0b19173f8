"""``MaxAccuracyTreeClassifier``: the most accurate decision tree of bounded depth (DT(max)).

A scikit-learn facade over ``trees.dtmax.search.find_max_accuracy_tree``: table -> binariser ->
binary matrix -> exact search (the dynamic programme, or the MaxSAT encoding of Hu et al.) ->
``Tree``. Unlike a pure tree it exists on noisy data (identical rows with different labels), so
no conflict filter is applied.
"""

from __future__ import annotations

import sys
import time
from numbers import Integral, Real
from typing import ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.estimators._base import (
    ENCODINGS,
    SAT_SOLVERS,
    FittedTreeMixin,
    binarizer_to_fit,
    prepare_training_data,
    time_left,
    watching_interrupts,
)
from occamlearn.estimators._dtmax_ordered import prefers_ordered
from occamlearn.maxsat.backends import BACKENDS
from occamlearn.model.tree import Tree
from occamlearn.trees.dtmax.search import BACKEND_AUTO, METHODS, find_max_accuracy_tree

ORDERED = "ordered"  # trees.dtmax.ordered: every threshold of numeric columns, natively

__all__ = ["MaxAccuracyTreeClassifier"]


class MaxAccuracyTreeClassifier(ClassifierMixin, FittedTreeMixin, BaseEstimator):
    """Decision tree of depth <= ``max_depth`` with the fewest training errors (MaxSAT).

    Parameters
    ----------
    max_depth : int >= 1, default=3
        Depth bound (edges from the root to the deepest leaf).
    binarizer : {"readable", "binary", "onehot", "threshold"}, transformer or None,
        default="readable"
        Turns the table into 0/1 features (cloned at fit): "readable" (the default) is
        ``ThresholdBinarizer()`` (thresholds between training values, one-hot categories),
        the others ``FeatureBinarizer(encoding=...)``. ``None``: X is already a 0/1 matrix.
    method : {"auto", "dp", "maxsat", "ordered"}, default="auto"
        "dp": exact dynamic programme (``trees.dtmax.dynamic_programme``). "auto": "ordered"
        when the readable binariser would keep only some thresholds of a numeric column (more
        distinct values than its ``max_thresholds`` + 1; measured faster there too), else
        "dp". "maxsat": the MaxSAT encoding of Hu et al. solved by ``solver``. Both are
        exact over the binariser's features; they may return different trees of equal
        accuracy. "ordered": ``trees.dtmax.ordered``, exact over *every* threshold of the
        numeric columns (the readable binariser's cap of ``max_thresholds`` cuts per column
        does not apply), weighted, anytime; thresholds print as the binariser prints them.
    solver : {"auto", "lsu", "rc2", ...}, default="auto"
        MaxSAT back-end of ``method="maxsat"``: "auto" is LSU, or RC2 when duplicated rows make
        the example weights large (total weight > twice the soft clauses); any key of
        ``occamlearn.maxsat.backends.BACKENDS`` names one.
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float or None, default=None
        Seconds; when reached, the best tree so far is kept with ``status_="feasible"``.
    prefer_small : bool, default=False
        Among the most accurate trees, take one with the fewest nodes (lexicographic).
        Without it, the dynamic programme takes a test only where it makes fewer errors, so
        its trees hold no useless tests either, and it stops as soon as no tree can be more
        accurate (faster: see ``benchmarks/results/dtmax_runtime_dp.md``).
    verbose : int, default=0
        If > 0, print each improvement to stderr.
    callback : callable or None, default=None
        ``callback(tree, seconds)`` with each better ``Tree`` found.

    Attributes
    ----------
    tree_ : Tree over the binary features (labels index ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (no tree of depth <= max_depth makes fewer errors; with prefer_small,
        no tree with as few errors is smaller) or "feasible" (time limit: best so far)
    training_errors_ : misclassified training rows of ``tree_``
    errors_lower_bound_ : proven minimum number of errors (equals ``training_errors_`` when
        optimal)
    lower_bound_, upper_bound_ : None (the size is not what is optimised; read by exporters)
    solve_stats_ : dict -- encoding size, seconds, ``trace`` of (seconds, errors)
    classes_, binarizer_, feature_names_, n_features_in_, feature_names_in_ (DataFrames)
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(ENCODINGS)), None],
        "method": [StrOptions(set(METHODS) | {ORDERED})],
        "solver": [StrOptions(set(BACKENDS) | {BACKEND_AUTO})],
        "sat_solver": [StrOptions(set(SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "prefer_small": ["boolean"],
        "verbose": ["verbose"],
        "callback": [callable, None],
    }

    def __init__(self, *, max_depth=3, binarizer="readable", method="auto", solver="auto",
                 sat_solver="cadical195", time_limit=None, prefer_small=False, verbose=0,
                 callback=None):
        self.max_depth = max_depth
        self.binarizer = binarizer
        self.method = method
        self.solver = solver
        self.sat_solver = sat_solver
        self.time_limit = time_limit
        self.prefer_small = prefer_small
        self.verbose = verbose
        self.callback = callback

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the most accurate tree of depth <= max_depth on (X, y); returns self."""
        start = time.perf_counter()
        if self.method == ORDERED or (self.method == "auto" and prefers_ordered(
                self.binarizer, X, self.prefer_small)):
            return self._fit_ordered(X, y, start)
        data = prepare_training_data(self, X, y, binarizer=binarizer_to_fit(self.binarizer),
                                     on_conflict="relax")  # DT(max) may err: keep every row
        self.classes_, self.binarizer_ = data.classes, data.binarizer
        self.feature_names_ = data.feature_names
        X_bin, y_index = data.X_bin, data.y
        prepared = time.perf_counter()
        names = tuple(str(n) for n in self.feature_names_)
        with watching_interrupts() as watch:
            result = find_max_accuracy_tree(
                X_bin, y_index, len(self.classes_), self.max_depth, method=self.method,
                solver=self.solver, sat_solver=self.sat_solver,
                time_limit=time_left(self.time_limit, start),
                prefer_small=self.prefer_small, on_improve=self._report)
        tree = result.tree
        self.tree_ = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                          tree.n_features, names)
        self.n_nodes_ = self.tree_.n_nodes
        self.depth_ = self.tree_.depth
        self.status_ = result.status
        self.training_errors_ = result.training_errors
        self.errors_lower_bound_ = result.errors_lower_bound
        self.lower_bound_ = self.upper_bound_ = None
        stats = dict(result.stats)
        stats["trace"] = [(float(s), int(e)) for s, e in result.trace]
        stats["n_rows"], stats["n_binary_features"] = X_bin.shape
        stats["prepare_seconds"] = prepared - start
        stats["total_seconds"] = time.perf_counter() - start
        self.solve_stats_ = stats
        if watch["interrupted"]:  # Ctrl-C: the best tree is kept, the interrupt goes on
            stats["interrupted"] = True
            raise KeyboardInterrupt
        return self

    def _fit_ordered(self, X, y, start, sample_weight=None):
        """``method="ordered"`` (``estimators._dtmax_ordered``)."""
        from occamlearn.estimators._dtmax_ordered import fit_ordered
        from occamlearn.stopping import Deadline

        if self.prefer_small:
            raise ValueError("prefer_small=True needs method='dp' or 'maxsat'; "
                             "method='ordered' minimises errors only.")
        seconds = None if self.time_limit is None else time_left(self.time_limit, start)
        with watching_interrupts() as watch:
            fit = fit_ordered(self, X, y, binarizer=binarizer_to_fit(self.binarizer),
                              max_depth=self.max_depth, sample_weight=sample_weight,
                              deadline=Deadline.after(seconds),
                              on_improve=(self._report_ordered
                                          if self.verbose or self.callback else None))
        self.classes_, self.binarizer_, self.feature_names_ = (fit.classes, fit.binarizer,
                                                               fit.feature_names)
        self.tree_, self.n_nodes_, self.depth_ = fit.tree, fit.tree.n_nodes, fit.tree.depth
        self.status_, self.training_errors_ = fit.status, fit.errors
        self.errors_lower_bound_ = fit.lower_bound
        self.lower_bound_ = self.upper_bound_ = None
        self.solve_stats_ = dict(fit.stats, total_seconds=time.perf_counter() - start)
        if watch["interrupted"]:
            self.solve_stats_["interrupted"] = True
            raise KeyboardInterrupt
        return self

    def _report_ordered(self, tree: Tree, errors: float, seconds: float) -> None:
        if self.verbose:
            print(f"[{type(self).__name__}] {seconds:8.2f} s: depth <= {self.max_depth} tree "
                  f"with {errors:g} training errors", file=sys.stderr, flush=True)
        if self.callback is not None:
            self.callback(tree, seconds)

    def _report(self, tree: Tree, seconds: float) -> None:
        named = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                     tree.n_features, tuple(str(n) for n in self.feature_names_))
        if self.verbose:
            leaves = named.counts[named.is_leaf]  # every training row in exactly one leaf
            errors = int(leaves.sum() - leaves.max(axis=1).sum())
            print(f"[{type(self).__name__}] {seconds:8.2f} s: depth <= {self.max_depth} tree "
                  f"with {errors} training errors", file=sys.stderr, flush=True)
        if self.callback is not None:
            self.callback(named, seconds)
