"""Public entry of the ordered-column engine: the most accurate tree of depth <= D, exact over
every threshold of every column, weighted, anytime.

``best_ordered_tree(X, y, n_classes, max_depth)`` takes a numeric matrix (any mix of
continuous columns, integer columns and 0/1 flags) and returns an ``OrderedTreeResult``: the
tree as a nested tuple over (feature, rank threshold) -- ``("test", f, t, low, high)`` sends
rows whose value has rank >= t among the feature's distinct training values to ``high`` --
its weighted training errors, a proven lower bound, and ``status`` "optimal" (no tree of the
depth bound makes fewer errors) or "feasible" (the deadline came first). The search starts
from scikit-learn's greedy tree of the same depth (its first upper bound) and reports every
better tree and every rise of the lower bound to ``progress``.

``prefer_small=True`` takes, among the most accurate trees, one with the fewest tests (so the
fewest nodes), exactly as the binary dynamic programme's lexicographic cost does: the search
minimises ``errors * scale + tests`` with whole weights, where ``scale`` exceeds the tests
of any optimal tree (``lexicographic_scale``). The search's bounds hold for this cost too --
each rests on two facts about a *fixed* tree, which hold for any cost of the form (weight of
the misclassified rows) + (a term of the tree alone): its cost on a subset of the rows is at
most its cost on the set, and adding rows of weight W raises its cost by at most W. So the
optimum of a child only grows as rows join it (sub-interval pruning), moving a threshold
across rows of weight W (here scaled weight ``W * scale``) changes the optimum by at most that
(neighbourhood pruning, the depth-1 passes' skipping) and a node's optimum is at least the
forced part of its cost.

Memory is planned before it is allocated (``memory_plan`` plus the memo's cap,
``search.MEMO_BYTES``): 20,000 x 20 at depth 4 holds about 14 MB of sorted rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.ordered.data import OrderedData, memory_plan
from occamlearn.trees.dtmax.ordered.kernels import class_totals, tree_errors
from occamlearn.trees.dtmax.ordered.search import MEMO_BYTES, OrderedSearch

__all__ = ["OrderedTreeResult", "best_ordered_tree", "best_tree_on", "lexicographic_scale",
           "nested_errors", "nested_tests", "warm_kernels"]

# Costs are exact in float64 below this (whole weights times the lexicographic scale).
EXACT_FLOAT = float(2**53)


@dataclass(frozen=True)
class OrderedTreeResult:
    """The best tree found over the ordered columns of ``data`` and what is proven of it."""

    tree: tuple                 # ("leaf", k) | ("test", feature, rank threshold, low, high)
    errors: float               # weighted training errors of ``tree``
    lower_bound: float          # no tree of the depth bound makes fewer (weighted) errors
    status: str                 # "optimal" | "feasible"
    data: OrderedData
    stats: dict = field(default_factory=dict)


def _arrays(nested: tuple):
    features, thresholds, lows, highs, labels = [], [], [], [], []

    def add(node) -> int:
        at = len(features)
        for column in (features, thresholds, lows, highs, labels):
            column.append(-1)
        if node[0] == "leaf":
            labels[at] = node[1]
        else:
            features[at], thresholds[at] = node[1], node[2]
            lows[at] = add(node[3])
            highs[at] = add(node[4])
        return at

    add(nested)
    return tuple(np.asarray(c, dtype=np.int64) for c in
                 (features, thresholds, lows, highs, labels))


def nested_errors(nested: tuple, data: OrderedData) -> float:
    """Weighted training errors of a nested tree on ``data``."""
    return float(tree_errors(*_arrays(nested), data.rank, data.y, data.weight))


def nested_tests(nested: tuple) -> int:
    """Decision nodes of a nested tree."""
    return 0 if nested[0] == "leaf" else 1 + nested_tests(nested[3]) + nested_tests(nested[4])


def lexicographic_scale(n_rows: int, max_depth: int) -> int:
    """A factor ``s`` such that ``errors * s + tests`` orders trees by errors, then tests: an
    optimal tree has no test with an empty side (dropping it would cost less), so it has at
    most ``min(2**depth, rows) - 1`` tests, and with whole weights a tree with more errors
    costs at least ``s`` more (proof in the module doc)."""
    return int(min(2 ** min(int(max_depth), 62), max(int(n_rows), 1)))


class _ErrorUnits:
    """Forwards a search's reports in (weighted) errors: a lexicographic cost ``c`` is
    ``errors * scale + tests`` with ``tests < scale``, so its errors are ``c // scale``; a
    lower bound ``L`` on it proves at least ``ceil(L) // scale`` errors."""

    def __init__(self, sink: ProgressSink, scale: int, tol: float):
        self.sink, self.scale, self.tol = sink, scale, tol

    def report(self, upper=None, lower=None, seconds: float = 0.0, model=None) -> None:
        to_errors = lambda cost: float(np.ceil(cost - self.tol) // self.scale)  # noqa: E731
        self.sink.report(upper=None if upper is None else to_errors(upper),
                         lower=None if lower is None else to_errors(lower),
                         seconds=seconds, model=model)


def _greedy(data: OrderedData, depth: int) -> tuple:
    """scikit-learn's tree of depth ``depth`` on the ranks, as a nested tuple (a rank split
    ``<= t + 0.5`` is the test ``rank >= t + 1``)."""
    model = DecisionTreeClassifier(max_depth=depth, random_state=0)
    model.fit(data.rank.T, data.y, sample_weight=data.weight)
    t = model.tree_

    def node(i: int) -> tuple:
        if t.children_left[i] < 0:
            return ("leaf", int(model.classes_[np.argmax(t.value[i][0])]))
        return ("test", int(t.feature[i]), int(np.floor(t.threshold[i])) + 1,
                node(t.children_left[i]), node(t.children_right[i]))

    return node(0)


def _round_bound(bound: float, weight: np.ndarray, tol: float) -> float:
    """With whole-number weights errors are whole: a bound rounds up."""
    if np.all(weight == np.round(weight)):
        return float(np.ceil(bound - tol))
    return bound


def best_ordered_tree(X, y, n_classes: int, max_depth: int, *, sample_weight=None,
                      deadline: Deadline | None = None,
                      progress: ProgressSink | None = None,
                      memo_bytes: int = MEMO_BYTES,
                      prefer_small: bool = False) -> OrderedTreeResult:
    """Most accurate tree of depth <= ``max_depth`` over the ordered columns of ``X``.

    X : numeric matrix (rows x features); y : class indices in ``range(n_classes)``;
    sample_weight : non-negative row weights (None: ones; a weight w counts a row w times);
    deadline : ``occamlearn.stopping.Deadline`` (None: none); progress : receives
    ``report(upper=errors, lower=bound, seconds, model=nested tree)``; prefer_small : among
    the most accurate trees one with the fewest tests (needs whole weights: scale fractions
    with ``trees.weights.integer_weights``).
    """
    if (not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool)
            or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative int; got {max_depth!r}.")
    data = OrderedData.from_matrix(X, y, n_classes, sample_weight)
    return best_tree_on(data, max_depth, deadline=deadline, progress=progress,
                        memo_bytes=memo_bytes, prefer_small=prefer_small)


def best_tree_on(data: OrderedData, max_depth: int, *, deadline: Deadline | None = None,
                 progress: ProgressSink | None = None,
                 memo_bytes: int = MEMO_BYTES, prefer_small: bool = False) -> OrderedTreeResult:
    """``best_ordered_tree`` on data already laid out as ``OrderedData``."""
    deadline = Deadline.coerce(deadline)
    started = CLOCK()
    stats = {"n_rows": data.n_rows, "n_features": data.n_features,
             "planned_bytes": memory_plan(data.n_rows, data.n_features, int(max_depth))
             + memo_bytes}
    if data.n_rows == 0:
        raise ValueError("every row has weight 0: nothing to learn from.")
    original, scale, sink = data, 1, progress
    if prefer_small:
        if not np.all(data.weight == np.round(data.weight)):
            raise ValueError("prefer_small needs whole sample weights (an exact lexicographic "
                             "cost); scale fractions with trees.weights.integer_weights.")
        scale = lexicographic_scale(data.n_rows, max_depth)
        if float(data.weight.sum()) * scale >= EXACT_FLOAT:
            raise ValueError(f"the weights sum to {data.weight.sum():g}: times the size "
                             f"factor {scale} they exceed 2**53, where float costs stop "
                             "being exact; round the weights coarser or pass "
                             "prefer_small=False.")
        data = replace(data, weight=data.weight * scale)
    search = OrderedSearch(data, deadline, None, memo_bytes, penalty=1.0 if prefer_small else 0.0)
    if prefer_small:
        search.tol = min(search.tol, 0.25)             # whole costs: a quarter separates them
        if progress is not None:
            sink = _ErrorUnits(progress, scale, search.tol)
    search.progress = sink
    order = data.order
    rows = np.arange(data.n_rows, dtype=np.int32)        # (no feature: no order[0])
    totals = class_totals(rows, data.y, data.weight, data.n_classes)
    label = int(np.argmax(totals))
    leaf = ("leaf", label)
    leaf_cost = float(totals.sum() - totals[label])
    if max_depth == 0 or data.n_features == 0 or leaf_cost <= search.tol:
        cost, tree = leaf_cost, leaf
    elif max_depth == 1:
        cost, tree = search.solve(order, 1, np.inf)
    else:
        greedy = _greedy(data, int(max_depth))
        incumbent = (nested_errors(greedy, data) + search.penalty * nested_tests(greedy),
                     greedy)
        cost, tree = search.search(order, int(max_depth), np.inf, leaf_cost, leaf,
                                   incumbent=incumbent, top=True)
    lower = cost if not search.stopped else min(cost, search.lower_bound)
    lower = min(cost, _round_bound(lower, data.weight, search.tol))
    status = "feasible" if search.stopped and lower < cost - search.tol else "optimal"
    if status == "optimal":
        lower = cost
    if prefer_small:      # back to errors: cost = errors * scale + tests, tests < scale
        stats["tests"] = nested_tests(tree)
        cost, lower = nested_errors(tree, original), float(np.ceil(lower - search.tol) // scale)
        lower = cost if status == "optimal" else min(lower, cost)
        stats["lexicographic_scale"] = scale
    stats.update(search.stats, seconds=CLOCK() - started, memo_entries=len(search.memo))
    if progress is not None:
        progress.report(upper=cost, lower=lower, seconds=deadline.elapsed(), model=tree)
    return OrderedTreeResult(tree, float(cost), float(lower), status, original, stats)


def warm_kernels() -> None:
    """Load (or compile) every kernel once: searches of depth 1 to 3 on noisy data reach them
    all -- errors alone and ``prefer_small``, whole and fractional weights, many values (the
    sweeps of ``depth2``) and few (``depth2_counts``). Benchmarks call it before timing;
    ``depth2_counts.warm_up`` is it for ``trees.kernel_cache``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(np.int64)
    few = np.round(X).clip(-1, 1)
    halves = np.where(np.arange(60) % 2, 0.5, 1.0)
    for depth in (1, 2, 3):
        best_ordered_tree(X, y, 2, depth)
        best_ordered_tree(few, y, 2, depth, prefer_small=True)
        best_ordered_tree(few, y, 2, depth, sample_weight=halves)
        best_ordered_tree(X, y, 2, depth, sample_weight=halves)
