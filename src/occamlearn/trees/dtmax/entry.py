"""The one entry point of DT(max): the most accurate tree within the bounds, by one search.

``find_most_accurate_tree(data, max_depth=..., max_leaves=...)`` takes the training table as
``data.OrderedData`` (every column as ranks, so a test is "rank of f >= t" for any threshold
t between adjacent values) and returns a ``result.DtmaxResult``. It picks the search; the
caller holds no routing rule. What it does, in order:

1. Weights become whole units (``trees.weights.integer_weights``: a weight w is w repeated
   rows, fractions are scaled to a common denominator), so every search is exact and
   ``prefer_small``'s lexicographic cost (fewest weighted errors, then fewest tests) is one
   exact cost.
2. The first tree: scikit-learn's greedy tree within the same bounds on the ranks, reported
   to ``progress`` and kept if nothing better is found in time. It is made at once, except on
   the 0/1 route with ``prefer_small`` when nobody listens to ``progress`` (no callback):
   there it is made only if the search does not end within its first slice of work (about a
   quarter of a second) or stops early (a deadline within that first slice then also waits
   for it, as a deadline shorter than the greedy tree itself always did).
   A search that ends is optimal, and an optimal tree of the fewest errors, then tests, is
   never worse than the greedy one (over the same tests, within the same depth), so the
   greedy tree could not be kept; as the search's upper bound it saved nothing on the
   bundled matrices (the same trees, search CPU 156.8 ms without it vs 156.9 ms with it),
   while making it cost 10.9 ms of their 21 fits' ~200 ms
   (``benchmarks/results/dtmax_binary_ab_dtbin12.md``).
3. The search, by what the question and the data are:

   * ``max_leaves`` binding (fewer than ``2 ** max_depth`` leaves, or no depth bound): the
     certified size-error frontier of ``trees.size_error.frontier`` over every threshold as a 0/1
     column (``data.threshold_matrix``), its last point;
   * ``method="maxsat"``: the MaxSAT encoding of Hu et al. over the same 0/1 columns
     (``trees.dtmax.maxsat.solve``);
   * every column two-valued: MurTree's compiled search on 0/1 columns (``binary.solve``);
   * otherwise the ordered search over every threshold (``ordered.solve``): interval search
     with neighbourhood and sub-interval pruning, anytime lower bound.

   Each is exact over the same tests, so they differ only in speed (tests compare them).
   The compiled searches need their kernels: loaded from numba's disk cache (about a
   second) or, on first use, compiled, in a background thread while the fit waits for them
   until its deadline; if the deadline comes first the greedy tree is the answer
   ("feasible"), so a cold cache never costs a time limit. The thread goes on compiling
   while the process lives (a later fit waits for it the same way) and leaves the kernels in
   the disk cache.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData, threshold_matrix
from occamlearn.trees.dtmax.result import DtmaxResult, nested_errors, nested_tests
from occamlearn.trees.weights import integer_weights

__all__ = ["METHODS", "SizeErrorCurve", "find_most_accurate_tree", "find_size_error_curve"]

METHODS = ("auto", "maxsat")
# the families' names in ``trees.compiling.kernel_cache``
ORDERED_KERNELS, BINARY_KERNELS = "dtmax-ordered", "dtmax-dp"
# Most bytes of the every-threshold 0/1 matrix the frontier and MaxSAT read (uint8).
THRESHOLD_MATRIX_BYTES = 512 << 20
# The size-error frontier's 0/1 matrix keeps every threshold up to this many cells (rows x
# thresholds), else as many per feature as fit, at weighted quantiles: its error-budget
# search holds per-column structures (bitsets, nesting) of every column (the bundled tables
# fit, up to wine's 113 x 765: ``benchmarks/results/size_error_path_every_threshold.md``).
FRONTIER_CELLS = 4 << 20
_LOADED: set = set()
_COMPILING: dict = {}      # family -> the thread compiling it in this process


class _CallerUnits:
    """Forwards a search's reports in the caller's units: errors / ``scale``."""

    def __init__(self, sink: ProgressSink, scale: int):
        self.sink, self.scale = sink, scale

    def report(self, upper=None, lower=None, seconds: float = 0.0, model=None) -> None:
        self.sink.report(None if upper is None else upper / self.scale,
                         None if lower is None else lower / self.scale, seconds, model)


def _check(max_depth, max_leaves, method) -> None:
    for name, value in (("max_depth", max_depth), ("max_leaves", max_leaves)):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, (int, np.integer)) or value < (0 if name == "max_depth" else 1)):
            raise ValueError(f"{name} must be an int >= {0 if name == 'max_depth' else 1} "
                             f"or None; got {value!r}.")
    if max_depth is None and max_leaves is None:
        raise ValueError("max_depth=None needs max_leaves: without either bound the most "
                         "accurate tree is simply the largest. Pass max_depth or max_leaves.")
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}. Valid methods: {', '.join(METHODS)}.")
    if method != "auto" and leaves_bind(max_depth, max_leaves):
        raise ValueError(f"max_leaves and size_error_path use their own exact search; method "
                         f"must be 'auto' there. Got method={method!r}.")


def leaves_bind(max_depth, max_leaves) -> bool:
    """Whether a leaf bound cuts trees the depth bound allows (2**depth leaves or more: only
    the depth binds)."""
    return max_leaves is not None and (max_depth is None or max_leaves < 2 ** max_depth)


def greedy_tree(data: OrderedData, max_depth, max_leaves=None) -> tuple:
    """scikit-learn's greedy tree within the bounds, on the ranks, as a nested tree (a rank
    split ``<= t + 0.5`` is the test ``rank >= t + 1``)."""
    if max_depth == 0 or max_leaves == 1 or data.n_features == 0:
        totals = np.bincount(data.y, weights=data.weight, minlength=data.n_classes)
        return ("leaf", int(np.argmax(totals)))
    # ranks are exact in float32 (fewer than 2**24 rows); the data is checked already
    X = np.asarray(data.rank.T, dtype=np.float32)
    built = _built_tree(X, data.y, data.weight, max_depth) if max_leaves is None else None
    if built is None:
        model = DecisionTreeClassifier(max_depth=max_depth, max_leaf_nodes=max_leaves,
                                       random_state=0)
        model.fit(X, data.y, sample_weight=data.weight, check_input=False)
        built = model.tree_, model.classes_
    t, classes = built

    def node(i: int) -> tuple:
        if t.children_left[i] < 0:
            return ("leaf", int(classes[np.argmax(t.value[i][0])]))
        return ("test", int(t.feature[i]), int(np.floor(t.threshold[i])) + 1,
                node(t.children_left[i]), node(t.children_right[i]))

    return node(0)


def _built_tree(X: np.ndarray, y: np.ndarray, weight: np.ndarray, max_depth) -> tuple | None:
    """(tree, classes) of ``DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    .fit(X, y, sample_weight=weight, check_input=False)``, built by scikit-learn's own tree
    builder without the estimator around it: ``fit`` validates its parameters, the labels and
    the weights each time (as long as the build on a small table), all known good here. The
    builder is called with what ``fit`` passes it at those settings (``_classes._fit``:
    Gini, the best splitter over every feature, at least 2 rows to split and 1 in a leaf,
    no weight or impurity floor, the random state seeded 0; tests compare the two). None
    when this scikit-learn's builder takes other arguments: ``fit`` then builds it."""
    try:
        from sklearn.tree._criterion import Gini
        from sklearn.tree._splitter import BestSplitter
        from sklearn.tree._tree import DepthFirstTreeBuilder, Tree

        classes, encoded = np.unique(y, return_inverse=True)
        n_classes = np.array([len(classes)], dtype=np.intp)
        splitter = BestSplitter(Gini(1, n_classes), X.shape[1], 1, 0.0,
                                np.random.RandomState(0), None)
        tree = Tree(X.shape[1], n_classes, 1)
        depth = np.iinfo(np.int32).max if max_depth is None else int(max_depth)
        DepthFirstTreeBuilder(splitter, 2, 1, 0.0, depth, 0.0).build(
            tree, X, np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64),
            np.ascontiguousarray(weight, dtype=np.float64), None)
    except (ImportError, TypeError, ValueError, AttributeError):
        return None
    return tree, classes


def _compile(family: str) -> None:
    from occamlearn.trees.compiling import kernel_cache

    try:
        kernel_cache.load(family)
    except kernel_cache.KernelsUnavailable:
        return
    _LOADED.add(family)


def kernels_ready(family: str, deadline: Deadline) -> bool:
    """Whether the family's kernels are loaded: from numba's disk cache or compiled, by a
    thread (module doc) that this call waits for until ``deadline``. False when the
    deadline comes first or the kernels cannot be built."""
    if family in _LOADED:
        return True
    thread = _COMPILING.get(family)
    if thread is None:          # (loading from the disk cache takes about a second)
        thread = threading.Thread(target=_compile, args=(family,), daemon=True,
                                  name=f"occamlearn-compile-{family}")
        _COMPILING[family] = thread
        thread.start()
    left = deadline.remaining()
    thread.join(None if not np.isfinite(left) else left)
    return family in _LOADED


def find_most_accurate_tree(data: OrderedData, *, max_depth: int | None,
                            max_leaves: int | None = None, prefer_small: bool = True,
                            method: str = "auto", solver: str = "auto",
                            sat_solver: str = "cadical195", deadline: Deadline | None = None,
                            progress: ProgressSink | None = None) -> DtmaxResult:
    """The tree of depth <= ``max_depth`` (None: any) with at most ``max_leaves`` leaves
    (None: any) that makes the fewest weighted training errors on ``data``, then (with
    ``prefer_small``) has the fewest tests; see the module doc for how. ``progress`` hears
    ``(errors, lower bound, seconds, nested tree)`` in the caller's units."""
    _check(max_depth, max_leaves, method)
    if data.n_rows == 0:
        raise ValueError("every row has weight 0: nothing to learn from.")
    deadline = Deadline.coerce(deadline)
    sink = ProgressSink.coerce(progress)
    started = CLOCK()
    units, scale = integer_weights(data.weight, data.n_rows)
    data = replace(data, weight=units.astype(np.float64))
    first = _FirstTree(data, max_depth, max_leaves, sink, deadline, scale)
    caller = _CallerUnits(sink, scale)
    binary = (not leaves_bind(max_depth, max_leaves) and method != "maxsat"
              and data.is_binary and _binary_fits(data))
    if not (binary and prefer_small) or sink.callback is not None:
        first()                           # at once (module doc, 2.)
    if leaves_bind(max_depth, max_leaves):
        curve = find_size_error_curve(data, max_leaves=max_leaves, max_depth=max_depth,
                                      deadline=deadline)
        result = curve.point(len(curve.errors) - 1)
    elif method == "maxsat":
        result = _maxsat(data, max_depth, first()[0], scale, prefer_small, solver, sat_solver,
                         deadline, caller)
    elif binary and kernels_ready(BINARY_KERNELS, deadline):
        from occamlearn.trees.dtmax.binary.solve import binary_search

        result = binary_search(data, max_depth, prefer_small=prefer_small, incumbent=first,
                               deadline=deadline)
    elif kernels_ready(ORDERED_KERNELS, deadline):
        from occamlearn.trees.dtmax.ordered.solve import ordered_search

        result = ordered_search(data, max_depth, incumbent=first()[0], deadline=deadline,
                                progress=caller, prefer_small=prefer_small)
    else:
        greedy, greedy_errors = first()
        result = DtmaxResult(greedy, greedy_errors, 0.0, "feasible", "errors", "greedy",
                             {"note": "the search's kernels were still compiling"})
    if first.made or result.status != "optimal":
        greedy, greedy_errors = first()
        if (result.errors, nested_tests(result.tree)) > (greedy_errors, nested_tests(greedy)):
            result = _keep_greedy(result, greedy, greedy_errors)   # a search stopped early
    stats = dict(result.stats, search=result.search, total_seconds=CLOCK() - started)
    if scale != 1:
        stats["weight_scale"] = scale
    result = replace(result, errors=result.errors / scale,
                     errors_lower_bound=result.errors_lower_bound / scale, stats=stats)
    sink.report(result.errors, result.errors_lower_bound, deadline.elapsed(), result.tree)
    return result


class _FirstTree:
    """The greedy tree (``greedy_tree``) and its weighted errors, made when first asked for
    and then reported to ``sink`` (in the caller's units: errors / ``scale``)."""

    def __init__(self, data: OrderedData, max_depth, max_leaves, sink: ProgressSink,
                 deadline: Deadline, scale: int):
        self.data, self.max_depth, self.max_leaves = data, max_depth, max_leaves
        self.sink, self.deadline, self.scale = sink, deadline, scale
        self.made: tuple | None = None

    def __call__(self) -> tuple:
        """(nested tree, weighted errors)."""
        if self.made is None:
            data = self.data
            tree = greedy_tree(data, self.max_depth, self.max_leaves)
            self.made = (tree, nested_errors(tree, data.rank, data.y, data.weight))
            self.sink.report(self.made[1] / self.scale, None, self.deadline.elapsed(), tree)
        return self.made


def _keep_greedy(result: DtmaxResult, greedy: tuple, errors: float) -> DtmaxResult:
    """The greedy tree in place of a worse one a stopped search returned."""
    lower = min(result.errors_lower_bound, errors)
    unproven = None if result.status == "optimal" else ("errors" if lower < errors
                                                        else "size")
    return replace(result, tree=greedy, errors=errors, errors_lower_bound=lower,
                   unproven=unproven)


def _binary_fits(data: OrderedData) -> bool:
    from occamlearn.trees.dtmax.binary.solve import fits_in_memory

    return fits_in_memory(data)


def _maxsat(data, max_depth, greedy, scale, prefer_small, solver, sat_solver, deadline,
            progress) -> DtmaxResult:
    from occamlearn.model.tree import Tree
    from occamlearn.trees.dtmax.maxsat.solve import maxsat_search

    tests = threshold_matrix(data, THRESHOLD_MATRIX_BYTES)
    columns = {(int(f), int(t)): j for j, (f, t) in enumerate(zip(tests.feature,
                                                                   tests.threshold))}

    def over_columns(node):
        if node[0] == "leaf":
            return node
        return ("test", columns[(node[1], node[2])], over_columns(node[3]),
                over_columns(node[4]))

    incumbent = Tree.from_nested(over_columns(greedy), tests.X.shape[1], data.n_classes)
    tree, errors, lower, errors_proven, size_proven, stats = maxsat_search(
        tests, data, max_depth, incumbent=incumbent, scale=scale, prefer_small=prefer_small,
        solver=solver, sat_solver=sat_solver, deadline=deadline, progress=progress)
    proven = errors_proven and size_proven
    unproven = None if proven else ("errors" if not errors_proven else "size")
    return DtmaxResult(tests.nested(tree), float(errors), float(lower),
                       "optimal" if proven else "feasible", unproven, "maxsat", stats)


@dataclass(frozen=True)
class SizeErrorCurve:
    """For L = 1 .. len(errors) leaves: ``errors[L - 1]`` the fewest weighted errors found
    with at most L leaves, ``lower[L - 1]`` a proven bound (equal where proven), ``trees``
    the nested tree of each point; ``status`` "optimal" when every point is proven."""

    errors: np.ndarray
    lower: np.ndarray
    trees: tuple
    status: str
    stats: dict = field(default_factory=dict)
    optimal_over: str | None = None

    @property
    def proven(self) -> np.ndarray:
        return self.lower >= self.errors

    def point(self, index: int) -> DtmaxResult:
        """The point's tree as a result: "optimal" when its fewest errors are proven and so
        is that fewer leaves than its tree has make more errors (the tree is then the
        smallest of the most accurate)."""
        tree = self.trees[index]
        leaves = nested_tests(tree) + 1
        smallest = leaves == 1 or self.lower[leaves - 2] > self.errors[index]
        errors, lower = float(self.errors[index]), float(self.lower[index])
        proven = bool(self.proven[index])
        unproven = None if proven and smallest else ("errors" if not proven else "size")
        return DtmaxResult(tree, errors, lower, "feasible" if unproven else "optimal",
                           unproven, "frontier", dict(self.stats), self.optimal_over)


def find_size_error_curve(data: OrderedData, *, max_leaves: int | None, max_depth: int | None,
                          deadline: Deadline | None = None) -> SizeErrorCurve:
    """The size-error curve of ``data`` over every threshold (``trees.size_error.frontier``, each
    point certified or bounded), up to ``max_leaves`` or, without it, to the smallest tree with the
    fewest errors; trees of depth <= ``max_depth`` unless it is None. A table too large for every
    threshold (``FRONTIER_CELLS``) gets the curve over fewer, named in ``optimal_over``."""
    from occamlearn.trees.size_error.frontier import find_size_error_frontier

    units, scale = integer_weights(data.weight, data.n_rows)
    tests = threshold_matrix(data, THRESHOLD_MATRIX_BYTES, FRONTIER_CELLS)
    weighted = not np.all(units == 1)
    frontier = find_size_error_frontier(tests.X, data.y, data.n_classes, max_leaves=max_leaves,
                                        max_depth=max_depth,
                                        sample_weight=units if weighted else None,
                                        deadline=deadline)
    made = {}
    trees = tuple(made.setdefault(id(tree), tests.nested(tree)) for tree in frontier.trees)
    stats = dict(frontier.stats, n_thresholds=tests.X.shape[1])
    over = None if tests.cuts_per_feature is None else (
        f"{tests.cuts_per_feature} cuts per column at weighted quantiles")
    return SizeErrorCurve(np.asarray(frontier.errors, dtype=np.float64) / scale,
                          np.asarray(frontier.lower, dtype=np.float64) / scale, trees,
                          frontier.status, stats, over)
