"""DT(max) on a binary matrix: the most accurate tree of depth <= D, by method.

DT(max) of Hu, Siala, Hebrard and Huguet (IJCAI 2020), the depth-2/3/4 baseline of the MaxSAT
paper (Alós, Ansótegui and Torres, Sec. 3 and end of Sec. 9.2): among all trees of depth <= ``max_depth``
over the binary features, one that misclassifies the fewest training rows, proven optimal.
Two exact methods find it:

* ``method="dp"`` (and "auto"): the dynamic programme of MurTree/STreeD
  (``trees.dtmax.dynamic_programme``), which proves depth-4 optima on every bundled dataset in
  seconds;
* ``method="maxsat"``: the paper's and Hu et al.'s route, binary matrix -> ``encode_dtmax``
  (complete tree, one soft clause per distinct row and label, weighted by its count) ->
  MaxSAT back-end ``solver`` -> compact ``Tree``. It is kept as the independent check of the
  dynamic programme (tests compare the two) and for formulas one wants to hand to other
  solvers; it is 10-1000x slower (``benchmarks/results/dtmax_runtime.md``).

``find_max_accuracy_tree`` starts from scikit-learn's greedy tree of the same depth, which is
the answer ("feasible") if the search proves nothing in ``time_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from occamlearn.maxsat.backends import make_backend
from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.data_reduction import (
    ExampleGroups,
    ReducedColumns,
    group_examples,
    reduce_columns,
)
from occamlearn.trees.dtmax.decode import decode_complete_tree, embed_in_complete_tree
from occamlearn.trees.dtmax.dynamic_programme import best_tree_within_depth
from occamlearn.trees.dtmax.encoding import effective_depth, encode_dtmax
from occamlearn.trees.exact.data import validate_binary_data
from occamlearn.trees.greedy import sklearn_to_tree
from occamlearn.trees.weights import integer_weights

__all__ = ["BACKEND_AUTO", "METHODS", "MaxAccuracyResult", "find_max_accuracy_tree"]

# "dp" is the dynamic programme of ``trees.dtmax.dynamic_programme``; "auto" takes it (measured
# 10-1000x faster than MaxSAT on DT(max)); "maxsat" solves the encoding with ``solver``.
METHODS = ("auto", "dp", "maxsat")
DP_METHODS = ("auto", "dp")
BACKEND_AUTO = "auto"   # LSU, or RC2 when duplicated rows make the weights large
# [weights adapter] The dynamic programme sums counts in float32 and keeps them as int32
# (``dp_counts``), exact below 2**24: integer-scaled weights summing to more take the
# MaxSAT route under "auto" (RC2 weighs clauses natively) and are a ValueError under "dp".
DP_MAX_TOTAL_WEIGHT = (1 << 24) - 1
# prefer_small's MaxSAT size call bounds the errors with a totalizer over each group's
# literal repeated by its (integer) weight; beyond this many the call is skipped and the
# size is left unproven ("feasible") rather than building a formula of that size.
SIZE_TOTALIZER_LITERALS = 1_000_000


@dataclass(frozen=True)
class MaxAccuracyResult:
    """The best tree found, whether it is proven best, and the proven bound on errors."""

    tree: Tree
    status: str                      # "optimal" | "feasible"
    training_errors: int             # misclassified training rows of ``tree``
    errors_lower_bound: int          # no tree of the depth bound makes fewer errors
    stats: dict = field(default_factory=dict)
    trace: tuple = ()                # ((seconds, errors), ...) at each improvement


def _greedy_tree(groups: ExampleGroups, depth: int, X, y, n_classes: int,
                 weight=None) -> Tree:
    """scikit-learn's tree of depth ``depth``, compacted like a decoded solution."""
    if depth == 0:
        column, flipped = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        leaf_class = np.array([np.bincount(y, weights=weight, minlength=n_classes).argmax()])
    else:
        model = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(
            X, y, sample_weight=weight)
        tree = sklearn_to_tree(model, X.shape[1], n_classes, X, y)
        depth = tree.depth             # lay out only as deep as the tree is, not 2**max_depth
        column, flipped, leaf_class = embed_in_complete_tree(tree, depth)
    return decode_complete_tree(depth=depth, column=column, flipped=flipped,
                                leaf_class=leaf_class, groups=groups, n_classes=n_classes,
                                n_features=X.shape[1])


def _errors(tree: Tree, X: np.ndarray, y: np.ndarray, weight=None) -> int:
    """Misclassified rows, or their total (integer) weight."""
    wrong = tree.predict(X) != y
    return int(wrong.sum() if weight is None else weight[wrong].sum())


def _decisions(tree: Tree) -> int:
    return tree.n_nodes - tree.n_leaves


class _Search:
    """The incumbent tree, its trace, and MaxSAT calls sharing one deadline; each better tree
    is reported to ``progress`` as ``(errors, None, seconds, tree)``."""

    def __init__(self, X, y, solver, sat_solver, deadline: Deadline,
                 progress: ProgressSink, weight=None, scale: int = 1):
        """solver: the MaxSAT back-end name, or ``BACKEND_AUTO``; weight: integer row
        weights (errors are their sum), or None; progress hears errors in the caller's
        units (the integer weights divided by ``scale``)."""
        self.start = CLOCK()
        self.X, self.y, self.weight, self.scale = X, y, weight, scale
        self.solver, self.sat_solver = solver, sat_solver
        self.deadline, self.progress = deadline, progress
        self.best, self.best_key, self.trace = None, None, []
        self.stats = {"encode_seconds": 0.0, "solve_seconds": 0.0, "sat_calls": 0}

    def offer(self, tree: Tree) -> None:
        """Keep ``tree`` if it has fewer errors, or as many and fewer decisions. (Always both:
        a key without decisions would let an equally accurate but larger tree from the
        errors-only MaxSAT call replace a smaller incumbent, and then the size call's answer
        would no longer count as an improvement.)"""
        key = (_errors(tree, self.X, self.y, self.weight), _decisions(tree))
        if self.best_key is None or key < self.best_key:
            self.best, self.best_key = tree, key
            self.trace.append((self.deadline.elapsed(), key[0]))
            errors = key[0] if self.weight is None else key[0] / self.scale
            self.progress.report(errors, None, self.trace[-1][0], tree)

    def backend_for(self, wcnf) -> str:
        """``solver``, or for ``BACKEND_AUTO``: LSU unless weights are large. LSU counts a weight w as w
        copies of a literal, so heavily duplicated rows (titanic: 1408 rows, 14 distinct)
        make its totalizer huge, while RC2's stratification handles weights natively."""
        if self.solver != BACKEND_AUTO:
            return self.solver
        return "rc2" if sum(wcnf.wght) > 2 * len(wcnf.wght) else "lsu"

    def solve(self, wcnf, decode):
        """One MaxSAT call; improving models are offered. None if no time is left."""
        if self.deadline.expired():
            return None
        name = self.backend_for(wcnf)
        self.stats.setdefault("backends", []).append(name)
        improved = ProgressSink(lambda cost, lower, seconds, model: self.offer(decode(model)))
        with make_backend(name, sat_solver=self.sat_solver) as backend:
            answer = backend.solve(wcnf, deadline=self.deadline, progress=improved)
        if answer.model is not None:
            self.offer(decode(answer.model))
        self.stats["solve_seconds"] += answer.stats.get("seconds", 0.0)
        self.stats["sat_calls"] += answer.stats.get("sat_calls", 0)
        return answer


def find_max_accuracy_tree(X, y, n_classes: int, max_depth: int, *, method: str = "auto",
                           solver: str = BACKEND_AUTO, sat_solver: str = "cadical195",
                           deadline: Deadline | None = None,
                           prefer_small: bool = False,
                           progress: ProgressSink | None = None,
                           sample_weight=None) -> MaxAccuracyResult:
    """Most accurate tree of depth <= ``max_depth`` on 0/1 matrix ``X``, class indices ``y``.

    method : "auto" or "dp" (dynamic programme) or "maxsat"; solver : the MaxSAT back-end of
        "maxsat" ("auto": LSU, or RC2 when duplicated rows make the weights large);
        sat_solver : PySAT SAT solver;
        deadline : a ``stopping.Deadline`` for the whole search (None: until proven).
        prefer_small : among the most accurate
        trees, one with the fewest nodes (with MaxSAT a second call; "optimal" then means
        both are proven). Without it the dynamic programme still takes a test only where it
        makes fewer errors.
    progress : a ``stopping.ProgressSink`` told ``(errors, None, seconds, tree)`` for the
        greedy tree, then for each better tree.
    sample_weight : non-negative weight per row, or None. Errors are then the total weight of
        the misclassified rows (integer weights act as repeated rows, weight 0 as a dropped
        row); ``training_errors``, ``errors_lower_bound`` and the trace are weighted
        (floats). Weights must be ratios of integers (``trees.weights.integer_weights``).
    """
    X, y = validate_binary_data(X, y, n_classes)
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}. Valid methods: {', '.join(METHODS)}.")
    if method == "maxsat" and solver != BACKEND_AUTO:
        make_backend(solver, sat_solver=sat_solver).close()       # validate names first
    weight, scale = (None, 1) if sample_weight is None else integer_weights(sample_weight,
                                                                             len(y))
    if weight is not None and not weight.all():                  # weight 0: a dropped row
        X, y, weight = X[weight > 0], y[weight > 0], weight[weight > 0]
    if weight is not None and method in DP_METHODS and int(weight.sum()) > DP_MAX_TOTAL_WEIGHT:
        if method == "dp":
            raise ValueError(
                f"the weights sum to {int(weight.sum())} units of 1/{scale}, more than the "
                f"dynamic programme counts exactly ({DP_MAX_TOTAL_WEIGHT}); use "
                "method='maxsat' (or 'auto', which does), or round the weights coarser.")
        method = "maxsat"
    search = _Search(X, y, solver, sat_solver, Deadline.coerce(deadline),
                     ProgressSink.coerce(progress), weight, scale)
    # Weighted groups: ``count`` is each group's total integer weight, which the dynamic
    # programme and the encoding count as rows. [weights adapter: core's
    # best_tree_within_depth(sample_weight=) replaces this on merge]
    groups = group_examples(X, y, weight)
    columns = reduce_columns(groups.patterns)
    depth = effective_depth(max_depth, groups, columns)
    forced = groups.forced_errors()
    search.stats.update(depth_encoded=depth, n_patterns=groups.n_patterns, forced_errors=forced)
    if method not in DP_METHODS:
        # (the dynamic programme is usually faster than the greedy tree that would be its
        # fallback: that is built only if it stops early)
        search.offer(_greedy_tree(groups, depth, X, y, n_classes, weight))
    stats = search.stats
    if method in DP_METHODS:
        return _unscaled(_dynamic_programme(search, groups, columns, n_classes, depth, forced,
                                            prefer_small), scale, weight is not None)
    errors_proven = search.best_key[0] == forced
    size_proven = not prefer_small or _decisions(search.best) == 0
    lower = forced
    if not (errors_proven and size_proven):
        began = CLOCK()
        encoding = encode_dtmax(X, y, n_classes, max_depth, prefer_small=prefer_small,
                                sample_weight=weight)
        stats.update(encode_seconds=CLOCK() - began,
                     n_columns=encoding.columns.n_kept, n_vars=encoding.wcnf.nv,
                     n_hard=len(encoding.wcnf.hard), n_soft=len(encoding.wcnf.soft))
        if not errors_proven:
            answer = search.solve(encoding.wcnf, encoding.decode)
            if answer is not None:
                proven = answer.cost if answer.status == "optimal" else answer.lower_bound
                lower = max(lower, proven or 0)
                stats["solver_status"] = answer.status
            errors_proven = lower >= search.best_key[0]
        repeated = int(groups.count[groups.count <= search.best_key[0]].sum())
        if errors_proven and not size_proven and repeated > SIZE_TOTALIZER_LITERALS:
            # [weights] the size call's error bound repeats each literal by its weight
            stats["size_solver_status"] = (f"skipped: the error bound would count {repeated} "
                                           "weight units")
        elif errors_proven and not size_proven:
            wcnf = encoding.smallest_within(search.best_key[0])
            answer = search.solve(wcnf, encoding.decode)
            size_proven = answer is not None and answer.status == "optimal"
            stats["size_solver_status"] = None if answer is None else answer.status
    stats["seconds"] = CLOCK() - search.start
    errors = search.best_key[0]
    status = "optimal" if errors_proven and size_proven else "feasible"
    return _unscaled(MaxAccuracyResult(search.best, status, errors,
                                       errors if errors_proven else lower, stats,
                                       tuple(search.trace)), scale, weight is not None)


def _unscaled(result: MaxAccuracyResult, scale: int, weighted: bool) -> MaxAccuracyResult:
    """The result with errors in the caller's weight units (integer weights were scaled by
    ``scale``); unweighted results are returned as they are (integer row counts)."""
    if not weighted:
        return result
    stats = dict(result.stats, weight_scale=scale)
    if "forced_errors" in stats:
        stats["forced_errors"] = stats["forced_errors"] / scale
    return MaxAccuracyResult(result.tree, result.status, result.training_errors / scale,
                             result.errors_lower_bound / scale, stats,
                             tuple((s, e / scale) for s, e in result.trace))


def _dynamic_programme(search: _Search, groups: ExampleGroups, columns: ReducedColumns,
                       n_classes: int, depth: int, forced: int,
                       prefer_small: bool) -> MaxAccuracyResult:
    """``method="dp"``: ``trees.dtmax.dynamic_programme`` (errors, then with ``prefer_small`` decisions,
    exactly). On a deadline or Ctrl-C the better of its best tree and the greedy one is
    kept, "feasible". Without ``prefer_small`` a tree making only the errors forced by
    conflicting rows is optimal already, so then the greedy tree may need no search."""
    search.stats.pop("encode_seconds", None)                     # nothing is encoded
    found, greedy_offered = None, search.best is not None
    if search.best is None or prefer_small or search.best_key[0] > forced:
        try:
            found = best_tree_within_depth(groups, n_classes, depth, prefer_small=prefer_small,
                                           deadline=search.deadline, columns=columns)
        except KeyboardInterrupt:
            found = None
    if found is not None:
        search.offer(found.tree)
        search.stats.update(solver_status=found.status, backends=["dp"],
                            solve_seconds=found.stats["seconds"],
                            dp_subproblems=found.stats["subproblems"],
                            n_columns=found.stats["n_columns"])
    if not greedy_offered and (found is None or found.status != "optimal"):
        # stopped (deadline or Ctrl-C): the greedy tree may be better than the best so far
        search.offer(_greedy_tree(groups, depth, search.X, search.y, n_classes,
                                  search.weight))
    errors = search.best_key[0]
    proven = ((found is not None and found.status == "optimal")
              or (not prefer_small and errors == forced))
    search.stats["seconds"] = CLOCK() - search.start
    return MaxAccuracyResult(search.best, "optimal" if proven else "feasible", errors,
                             errors if proven else forced, search.stats,
                             tuple(search.trace))
