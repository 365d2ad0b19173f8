"""``MaxAccuracyTreeClassifier``: the most accurate decision tree of bounded depth (DT(max)).

DT(max) of Hu, Siala, Hebrard and Huguet (IJCAI 2020), the depth-2/3/4 baseline of the MaxSAT
paper (Alcázar et al., Sec. 3 and end of Sec. 9.2): among all trees of depth <= ``max_depth``
over the binary features, one that misclassifies the fewest training rows, proven optimal.
Unlike a pure tree it exists on noisy data (identical rows with different labels), so no
conflict filter is applied. Two exact searches find it:

* ``solver="dp"`` (and "auto"): the dynamic programme of MurTree/STreeD (``solve.dtmax_dp``),
  which proves depth-4 optima on every bundled dataset in seconds;
* a MaxSAT back-end (``"maxsat"``, ``"lsu"``, ``"rc2"``, ...), the paper's and Hu et al.'s
  route: table -> binariser -> binary matrix -> ``encode_dtmax`` (complete tree, one soft
  clause per distinct row and label, weighted by its count) -> MaxSAT -> compact ``Tree``.
  It is kept as the independent check of the dynamic programme (tests compare the two) and
  for formulas one wants to hand to other solvers; it is 10-1000x slower
  (``benchmarks/results/dtmax_runtime.md``).

``find_max_accuracy_tree`` is the search on a binary matrix. It starts from scikit-learn's
greedy tree of the same depth, which is the answer ("feasible") if the search proves nothing
in ``time_limit``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from pysat.solvers import SolverNames
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from occamlearn.binarize import FeatureBinarizer
from occamlearn.encode.bounds import sklearn_to_tree
from occamlearn.encode.dtmax import effective_depth, encode_dtmax
from occamlearn.encode.dtmax_data import (
    ExampleGroups,
    ReducedColumns,
    group_examples,
    reduce_columns,
)
from occamlearn.encode.dtmax_decode import decode_complete_tree, embed_in_complete_tree
from occamlearn.encode.mpdt import validate_binary_data
from occamlearn.estimators._base import (
    FittedTreeMixin,
    _binary_feature_names,
    check_binary_matrix,
    encode_labels,
    validate_table,
)
from occamlearn.model.tree import Tree
from occamlearn.solve import BACKENDS
from occamlearn.solve.backends import make_backend
from occamlearn.solve.base import check_time_limit
from occamlearn.solve.dtmax_dp import best_tree_within_depth

__all__ = ["MaxAccuracyResult", "MaxAccuracyTreeClassifier", "find_max_accuracy_tree"]

_ENCODINGS = ("binary", "onehot", "threshold")
_SAT_SOLVERS = frozenset(alias for name, aliases in vars(SolverNames).items()
                         if not name.startswith("_") for alias in aliases)

TreeCallback = Callable[[Tree, float], None]

# Exact searches that are not MaxSAT back-ends: "dp" is the dynamic programme of
# ``solve.dtmax_dp``; "auto" takes it (measured 10-1000x faster than MaxSAT on DT(max)).
DP_SOLVERS = ("auto", "dp")
MAXSAT_AUTO = "maxsat"   # LSU, or RC2 when duplicated rows make the weights large


@dataclass(frozen=True)
class MaxAccuracyResult:
    """The best tree found, whether it is proven best, and the proven bound on errors."""

    tree: Tree
    status: str                      # "optimal" | "feasible"
    training_errors: int             # misclassified training rows of ``tree``
    errors_lower_bound: int          # no tree of the depth bound makes fewer errors
    stats: dict = field(default_factory=dict)
    trace: tuple = ()                # ((seconds, errors), ...) at each improvement


def _greedy_tree(groups: ExampleGroups, depth: int, X, y, n_classes: int) -> Tree:
    """scikit-learn's tree of depth ``depth``, compacted like a decoded solution."""
    if depth == 0:
        column, flipped = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        leaf_class = np.array([np.bincount(y, minlength=n_classes).argmax()])
    else:
        model = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
        tree = sklearn_to_tree(model, X.shape[1], n_classes, X, y)
        depth = tree.depth             # lay out only as deep as the tree is, not 2**max_depth
        column, flipped, leaf_class = embed_in_complete_tree(tree, depth)
    return decode_complete_tree(depth=depth, column=column, flipped=flipped,
                                leaf_class=leaf_class, groups=groups, n_classes=n_classes,
                                n_features=X.shape[1])


def _errors(tree: Tree, X: np.ndarray, y: np.ndarray) -> int:
    return int((tree.predict(X) != y).sum())


def _decisions(tree: Tree) -> int:
    return tree.n_nodes - tree.n_leaves


class _Search:
    """The incumbent tree, its trace, and MaxSAT calls sharing one deadline."""

    def __init__(self, X, y, solver, sat_solver, time_limit, on_improve):
        self.start = time.perf_counter()
        self.X, self.y = X, y
        self.solver, self.sat_solver = solver, sat_solver
        self.deadline = None if time_limit is None else self.start + time_limit
        self.on_improve = on_improve
        self.best, self.best_key, self.trace = None, None, []
        self.stats = {"encode_seconds": 0.0, "solve_seconds": 0.0, "sat_calls": 0}

    def offer(self, tree: Tree) -> None:
        """Keep ``tree`` if it has fewer errors, or as many and fewer decisions. (Always both:
        a key without decisions would let an equally accurate but larger tree from the
        errors-only MaxSAT call replace a smaller incumbent, and then the size call's answer
        would no longer count as an improvement.)"""
        key = (_errors(tree, self.X, self.y), _decisions(tree))
        if self.best_key is None or key < self.best_key:
            self.best, self.best_key = tree, key
            self.trace.append((time.perf_counter() - self.start, key[0]))
            if self.on_improve is not None:
                self.on_improve(tree, self.trace[-1][0])

    def backend_for(self, wcnf) -> str:
        """``solver``, or for "maxsat": LSU unless weights are large. LSU counts a weight w as w
        copies of a literal, so heavily duplicated rows (titanic: 1408 rows, 14 distinct)
        make its totalizer huge, while RC2's stratification handles weights natively."""
        if self.solver != MAXSAT_AUTO:
            return self.solver
        return "rc2" if sum(wcnf.wght) > 2 * len(wcnf.wght) else "lsu"

    def solve(self, wcnf, decode):
        """One MaxSAT call; improving models are offered. None if no time is left."""
        remaining = None if self.deadline is None else self.deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            return None
        name = self.backend_for(wcnf)
        self.stats.setdefault("backends", []).append(name)
        with make_backend(name, sat_solver=self.sat_solver) as backend:
            answer = backend.solve(wcnf, time_limit=remaining,
                                   on_improve=lambda c, m, s: self.offer(decode(m)))
        if answer.model is not None:
            self.offer(decode(answer.model))
        self.stats["solve_seconds"] += answer.stats.get("seconds", 0.0)
        self.stats["sat_calls"] += answer.stats.get("sat_calls", 0)
        return answer


def find_max_accuracy_tree(X, y, n_classes: int, max_depth: int, *, solver: str = "auto",
                           sat_solver: str = "cadical195", time_limit: float | None = None,
                           prefer_small: bool = False,
                           on_improve: TreeCallback | None = None) -> MaxAccuracyResult:
    """Most accurate tree of depth <= ``max_depth`` on 0/1 matrix ``X``, class indices ``y``.

    solver : "auto" or "dp" (dynamic programme), "maxsat" (LSU, or RC2 when duplicated rows
        make the weights large) or a MaxSAT back-end name; sat_solver : PySAT SAT solver;
        time_limit : seconds for the whole search. prefer_small : among the most accurate
        trees, one with the fewest nodes (with MaxSAT a second call; "optimal" then means
        both are proven). Without it the dynamic programme still takes a test only where it
        makes fewer errors.
    on_improve(tree, seconds) : called with the greedy tree, then with each better tree.
    """
    X, y = validate_binary_data(X, y, n_classes)
    if solver not in (*DP_SOLVERS, MAXSAT_AUTO):
        make_backend(solver, sat_solver=sat_solver).close()       # validate names first
    search = _Search(X, y, solver, sat_solver, check_time_limit(time_limit), on_improve)
    groups = group_examples(X, y)
    columns = reduce_columns(groups.patterns)
    depth = effective_depth(max_depth, groups, columns)
    forced = groups.forced_errors()
    search.stats.update(depth_encoded=depth, n_patterns=groups.n_patterns, forced_errors=forced)
    if solver not in DP_SOLVERS or depth > 3:
        # (at depth <= 3 the dynamic programme is one uninterruptible pass, faster than the
        # greedy tree that would be its fallback)
        search.offer(_greedy_tree(groups, depth, X, y, n_classes))
    stats = search.stats
    if solver in DP_SOLVERS:
        return _dynamic_programme(search, groups, columns, n_classes, depth, forced,
                                  prefer_small)
    errors_proven = search.best_key[0] == forced
    size_proven = not prefer_small or _decisions(search.best) == 0
    lower = forced
    if not (errors_proven and size_proven):
        began = time.perf_counter()
        encoding = encode_dtmax(X, y, n_classes, max_depth, prefer_small=prefer_small)
        stats.update(encode_seconds=time.perf_counter() - began,
                     n_columns=encoding.columns.n_kept, n_vars=encoding.wcnf.nv,
                     n_hard=len(encoding.wcnf.hard), n_soft=len(encoding.wcnf.soft))
        if not errors_proven:
            answer = search.solve(encoding.wcnf, encoding.decode)
            if answer is not None:
                proven = answer.cost if answer.status == "optimal" else answer.lower_bound
                lower = max(lower, proven or 0)
                stats["solver_status"] = answer.status
            errors_proven = lower >= search.best_key[0]
        if errors_proven and not size_proven:
            wcnf = encoding.smallest_within(search.best_key[0])
            answer = search.solve(wcnf, encoding.decode)
            size_proven = answer is not None and answer.status == "optimal"
            stats["size_solver_status"] = None if answer is None else answer.status
    stats["seconds"] = time.perf_counter() - search.start
    errors = search.best_key[0]
    status = "optimal" if errors_proven and size_proven else "feasible"
    return MaxAccuracyResult(search.best, status, errors, errors if errors_proven else lower,
                             stats, tuple(search.trace))


def _dynamic_programme(search: _Search, groups: ExampleGroups, columns: ReducedColumns,
                       n_classes: int, depth: int, forced: int,
                       prefer_small: bool) -> MaxAccuracyResult:
    """``solver="dp"``: ``solve.dtmax_dp`` (errors, then with ``prefer_small`` decisions,
    exactly). On a deadline or Ctrl-C the better of its best tree and the greedy one is
    kept, "feasible". Without ``prefer_small`` a tree making only the errors forced by
    conflicting rows is optimal already, so then the greedy tree may need no search."""
    search.stats.pop("encode_seconds", None)                     # nothing is encoded
    found = None
    if search.best is None or prefer_small or search.best_key[0] > forced:
        try:
            found = best_tree_within_depth(groups, n_classes, depth, prefer_small=prefer_small,
                                           deadline=search.deadline, columns=columns)
        except KeyboardInterrupt:
            found = None
    if found is None and search.best is None:                   # Ctrl-C before any tree
        search.offer(_greedy_tree(groups, depth, search.X, search.y, n_classes))
    if found is not None:
        search.offer(found.tree)
        search.stats.update(solver_status=found.status, backends=["dp"],
                            solve_seconds=found.stats["seconds"],
                            dp_subproblems=found.stats["subproblems"],
                            n_columns=found.stats["n_columns"])
    errors = search.best_key[0]
    proven = ((found is not None and found.status == "optimal")
              or (not prefer_small and errors == forced))
    search.stats["seconds"] = time.perf_counter() - search.start
    return MaxAccuracyResult(search.best, "optimal" if proven else "feasible", errors,
                             errors if proven else forced, search.stats,
                             tuple(search.trace))


class MaxAccuracyTreeClassifier(ClassifierMixin, FittedTreeMixin, BaseEstimator):
    """Decision tree of depth <= ``max_depth`` with the fewest training errors (MaxSAT).

    Parameters
    ----------
    max_depth : int >= 1, default=3
        Depth bound (edges from the root to the deepest leaf).
    binarizer : {"binary", "onehot", "threshold"}, transformer or None, default="binary"
        Turns the table into 0/1 features (cloned at fit); a string is shorthand for
        ``FeatureBinarizer(encoding=...)``. ``None``: X is already a 0/1 matrix.
    solver : {"auto", "dp", "maxsat", "lsu", "rc2", ...}, default="auto"
        "auto" and "dp": exact dynamic programme (``solve.dtmax_dp``; measured fastest).
        "maxsat": LSU, or RC2 when duplicated rows make the example weights large (total
        weight > twice the soft clauses). Any key of ``occamlearn.solve.BACKENDS`` names one
        MaxSAT back-end. All are exact; they may return different trees of equal accuracy.
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
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(_ENCODINGS)), None],
        "solver": [StrOptions(set(BACKENDS) | {*DP_SOLVERS, MAXSAT_AUTO})],
        "sat_solver": [StrOptions(set(_SAT_SOLVERS))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "prefer_small": ["boolean"],
        "verbose": ["verbose"],
        "callback": [callable, None],
    }

    def __init__(self, *, max_depth=3, binarizer="binary", solver="auto",
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
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             "is None.")
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
