"""``MaxAccuracyTreeClassifier``: the most accurate decision tree of bounded depth (DT(max)).

DT(max) of Hu, Siala, Hebrard and Huguet (IJCAI 2020), the depth-2/3/4 baseline of the MaxSAT
paper (Alcázar et al., Sec. 3 and end of Sec. 9.2): among all trees of depth <= ``max_depth``
over the binary features, one that misclassifies the fewest training rows, proven by MaxSAT.
Unlike a pure tree it exists on noisy data (identical rows with different labels), so no
conflict filter is applied. Pipeline: table -> binariser -> binary matrix -> ``encode_dtmax``
(complete tree, one soft clause per distinct row and label, weighted by its count) -> MaxSAT
back-end (``occamlearn.solve``) -> compact ``Tree``.

``find_max_accuracy_tree`` is the search on a binary matrix. It starts from scikit-learn's
greedy tree of the same depth, which is the answer ("feasible") if the solver proves nothing
in ``time_limit``, and which is proven optimal if the solver's lower bound reaches it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Callable, Optional

import numpy as np
from pysat.solvers import SolverNames
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from occamlearn.binarize import FeatureBinarizer
from occamlearn.encode.bounds import sklearn_to_tree
from occamlearn.encode.dtmax import DTmaxEncoding, encode_dtmax
from occamlearn.encode.dtmax_decode import decode_complete_tree, embed_in_complete_tree
from occamlearn.encode.mpdt import validate_binary_data
from occamlearn.estimators._base import (_binary_feature_names, binary_matrix,
                                         check_binary_matrix, encode_labels, validate_table)
from occamlearn.model.tree import Tree
from occamlearn.solve import BACKENDS
from occamlearn.solve.backends import make_backend
from occamlearn.solve.base import check_time_limit

__all__ = ["MaxAccuracyTreeClassifier", "find_max_accuracy_tree", "MaxAccuracyResult"]

_ENCODINGS = ("binary", "onehot", "threshold")
_SAT_SOLVERS = frozenset(alias for name, aliases in vars(SolverNames).items()
                         if not name.startswith("_") for alias in aliases)

TreeCallback = Callable[[Tree, float], None]


@dataclass(frozen=True)
class MaxAccuracyResult:
    """The best tree found, whether it is proven best, and the proven bound on errors."""

    tree: Tree
    status: str                      # "optimal" | "feasible"
    training_errors: int             # misclassified training rows of ``tree``
    errors_lower_bound: int          # no tree of the depth bound makes fewer errors
    stats: dict = field(default_factory=dict)
    trace: tuple = ()                # ((seconds, errors), ...) at each improvement


def _objective(encoding: DTmaxEncoding, tree: Tree, errors: int, prefer_small: bool) -> int:
    decisions = tree.n_nodes - tree.n_leaves
    return errors * encoding.example_weight + (decisions if prefer_small else 0)


def _greedy_tree(encoding: DTmaxEncoding, X, y, n_classes: int) -> Tree:
    """scikit-learn's tree of the encoding's depth, compacted like a decoded solution."""
    if encoding.depth == 0:
        return decode_complete_tree(depth=0, column=np.zeros(0, dtype=np.int64),
                                    flipped=np.zeros(0, dtype=bool),
                                    leaf_class=np.array([np.bincount(y).argmax()]),
                                    groups=encoding.groups, n_classes=n_classes,
                                    n_features=X.shape[1])
    model = DecisionTreeClassifier(max_depth=encoding.depth, random_state=0).fit(X, y)
    tree = sklearn_to_tree(model, X.shape[1], n_classes, X, y)
    column, flipped, leaf_class = embed_in_complete_tree(tree, encoding.depth)
    return decode_complete_tree(depth=encoding.depth, column=column, flipped=flipped,
                                leaf_class=leaf_class, groups=encoding.groups,
                                n_classes=n_classes, n_features=X.shape[1])


def find_max_accuracy_tree(X, y, n_classes: int, max_depth: int, *, solver: str = "rc2",
                           sat_solver: str = "cadical195", time_limit: Optional[float] = None,
                           prefer_small: bool = False,
                           on_improve: Optional[TreeCallback] = None) -> MaxAccuracyResult:
    """Most accurate tree of depth <= ``max_depth`` on 0/1 matrix ``X``, class indices ``y``.

    solver : MaxSAT back-end ("rc2" default: the soft clauses are weighted; "lsu" counts a
        weight w as w copies, fine for small counts). time_limit : seconds for the search.
    prefer_small : among the most accurate trees, return one with the fewest nodes.
    on_improve(tree, seconds) : called with the greedy tree, then with each better tree.
    """
    start = time.perf_counter()
    X, y = validate_binary_data(X, y, n_classes)
    time_limit = check_time_limit(time_limit)
    backend = make_backend(solver, sat_solver=sat_solver)
    encoding = encode_dtmax(X, y, n_classes, max_depth, prefer_small=prefer_small)
    stats = {"encode_seconds": time.perf_counter() - start, "depth_encoded": encoding.depth,
             "n_patterns": encoding.groups.n_patterns, "n_columns": encoding.columns.n_kept,
             "n_vars": encoding.wcnf.nv, "n_hard": len(encoding.wcnf.hard),
             "n_soft": len(encoding.wcnf.soft), "solve_seconds": 0.0}
    best = _greedy_tree(encoding, X, y, n_classes)
    best_errors = int((best.predict(X) != y).sum())
    best_cost = _objective(encoding, best, best_errors, prefer_small)
    trace = [(time.perf_counter() - start, best_errors)]
    if on_improve is not None:
        on_improve(best, trace[0][0])
    lower = encoding.groups.forced_errors() * encoding.example_weight
    status = "optimal" if lower >= best_cost else "feasible"

    def improved(cost, model, seconds):
        nonlocal best, best_errors, best_cost
        if cost < best_cost:
            best, best_cost = encoding.decode(model), cost
            best_errors = int((best.predict(X) != y).sum())
            trace.append((time.perf_counter() - start, best_errors))
            if on_improve is not None:
                on_improve(best, trace[-1][0])

    remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
    if status != "optimal" and (remaining is None or remaining > 0):
        with backend:
            answer = backend.solve(encoding.wcnf, time_limit=remaining, on_improve=improved)
        stats["solve_seconds"] = answer.stats.get("seconds", 0.0)
        stats["sat_calls"] = answer.stats.get("sat_calls", 0)
        if answer.model is not None:
            improved(answer.cost, answer.model, 0.0)
        lower = max(lower, answer.cost if answer.status == "optimal" else answer.lower_bound)
        status = "optimal" if answer.status == "optimal" or lower >= best_cost else "feasible"
        stats["solver_status"] = answer.status
    stats["seconds"] = time.perf_counter() - start
    errors_lower = best_errors if status == "optimal" else encoding.training_errors(lower)
    return MaxAccuracyResult(best, status, best_errors, errors_lower, stats, tuple(trace))


class MaxAccuracyTreeClassifier(ClassifierMixin, BaseEstimator):
    """Decision tree of depth <= ``max_depth`` with the fewest training errors (MaxSAT).

    Parameters
    ----------
    max_depth : int >= 1, default=3
        Depth bound (edges from the root to the deepest leaf).
    binarizer : {"binary", "onehot", "threshold"}, transformer or None, default="binary"
        Turns the table into 0/1 features (cloned at fit); a string is shorthand for
        ``FeatureBinarizer(encoding=...)``. ``None``: X is already a 0/1 matrix.
    solver : {"rc2", "lsu"}, default="rc2"
        MaxSAT back-end (a key of ``occamlearn.solve.BACKENDS``).
    sat_solver : str, default="cadical195"
        PySAT SAT oracle name.
    time_limit : float or None, default=None
        Seconds; when reached, the best tree so far is kept with ``status_="feasible"``.
    prefer_small : bool, default=False
        Among the most accurate trees, take one with the fewest nodes (lexicographic).
    verbose : int, default=0
        If > 0, print each improvement to stderr.
    callback : callable or None, default=None
        ``callback(tree, seconds)`` with each better ``Tree`` found.

    Attributes
    ----------
    tree_ : Tree over the binary features (labels index ``classes_``)
    n_nodes_, depth_ : size and depth of ``tree_``
    status_ : "optimal" (no tree of depth <= max_depth makes fewer errors) or "feasible"
    training_errors_ : misclassified training rows of ``tree_``
    errors_lower_bound_ : proven minimum number of errors (equals ``training_errors_`` when
        optimal)
    lower_bound_, upper_bound_ : None (the size is not what is optimised; read by exporters)
    solve_stats_ : dict -- encoding size, seconds, ``trace`` of (seconds, errors)
    classes_, binarizer_, feature_names_, n_features_in_, feature_names_in_ (DataFrames)
    """

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(_ENCODINGS)), None],
        "solver": [StrOptions(set(BACKENDS))],
        "sat_solver": [StrOptions(set(_SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "prefer_small": ["boolean"],
        "verbose": ["verbose"],
        "callback": [callable, None],
    }

    def __init__(self, *, max_depth=3, binarizer="binary", solver="rc2",
                 sat_solver="cadical195", time_limit=None, prefer_small=False, verbose=0,
                 callback=None):
        self.max_depth = max_depth
        self.binarizer = binarizer
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
        X, y = validate_table(self, X, y, reset=True)
        self.classes_, y_index = encode_labels(y)
        binarizer = (FeatureBinarizer(encoding=self.binarizer)
                     if isinstance(self.binarizer, str) else self.binarizer)
        if binarizer is None:
            self.binarizer_ = None
            X_bin = check_binary_matrix(X, getattr(self, "feature_names_in_", None))
        else:
            self.binarizer_ = clone(binarizer)
            X_bin = np.asarray(self.binarizer_.fit_transform(X), dtype=np.uint8)
        self.feature_names_ = _binary_feature_names(self.binarizer_, self, X_bin.shape[1])
        prepared = time.perf_counter()
        names = tuple(str(n) for n in self.feature_names_)
        result = find_max_accuracy_tree(
            X_bin, y_index, len(self.classes_), self.max_depth, solver=self.solver,
            sat_solver=self.sat_solver, time_limit=self.time_limit,
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
        return self

    def _report(self, tree: Tree, seconds: float) -> None:
        named = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                     tree.n_features, tuple(str(n) for n in self.feature_names_))
        if self.verbose:
            errors = int(named.counts.sum() - named.counts[named.is_leaf].max(axis=1).sum())
            print(f"[{type(self).__name__}] {seconds:8.2f} s: depth <= {self.max_depth} tree "
                  f"with {errors} training errors", file=sys.stderr, flush=True)
        if self.callback is not None:
            self.callback(named, seconds)

    # -- prediction -------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """Index in ``tree_`` of the leaf each row reaches."""
        check_is_fitted(self)
        return self.tree_.apply(binary_matrix(self, X))

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self.classes_[self.tree_.predict(binary_matrix(self, X))]

    def predict_proba(self, X) -> np.ndarray:
        """Class frequencies of the training rows in each row's leaf."""
        check_is_fitted(self)
        return self.tree_.predict_proba(binary_matrix(self, X))

    def export_text(self, **kwargs) -> str:
        """The fitted tree as text (see ``occamlearn.export.export_text``)."""
        from occamlearn.export.tree_text import export_text

        check_is_fitted(self)
        return export_text(self, **kwargs)

    def __str__(self) -> str:
        if not hasattr(self, "tree_"):
            return repr(self)
        return f"{type(self).__name__}: {self.export_text()}"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
