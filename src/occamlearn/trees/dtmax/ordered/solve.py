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

Memory is planned before it is allocated (``memory_plan`` plus the memo's cap,
``search.MEMO_BYTES``): 20,000 x 20 at depth 4 holds about 14 MB of sorted rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.ordered.data import OrderedData, memory_plan
from occamlearn.trees.dtmax.ordered.kernels import class_totals, tree_errors
from occamlearn.trees.dtmax.ordered.search import MEMO_BYTES, OrderedSearch

__all__ = ["OrderedTreeResult", "best_ordered_tree", "best_tree_on", "nested_errors",
           "warm_kernels"]


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
                      memo_bytes: int = MEMO_BYTES) -> OrderedTreeResult:
    """Most accurate tree of depth <= ``max_depth`` over the ordered columns of ``X``.

    X : numeric matrix (rows x features); y : class indices in ``range(n_classes)``;
    sample_weight : non-negative row weights (None: ones; a weight w counts a row w times);
    deadline : ``occamlearn.stopping.Deadline`` (None: none); progress : receives
    ``report(upper=errors, lower=bound, seconds, model=nested tree)``.
    """
    if (not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool)
            or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative int; got {max_depth!r}.")
    data = OrderedData.from_matrix(X, y, n_classes, sample_weight)
    return best_tree_on(data, max_depth, deadline=deadline, progress=progress,
                        memo_bytes=memo_bytes)


def best_tree_on(data: OrderedData, max_depth: int, *, deadline: Deadline | None = None,
                 progress: ProgressSink | None = None,
                 memo_bytes: int = MEMO_BYTES) -> OrderedTreeResult:
    """``best_ordered_tree`` on data already laid out as ``OrderedData``."""
    deadline = Deadline.coerce(deadline)
    started = CLOCK()
    stats = {"n_rows": data.n_rows, "n_features": data.n_features,
             "planned_bytes": memory_plan(data.n_rows, data.n_features, int(max_depth))
             + memo_bytes}
    if data.n_rows == 0:
        raise ValueError("every row has weight 0: nothing to learn from.")
    search = OrderedSearch(data, deadline, progress, memo_bytes)
    order = data.order
    totals = class_totals(order[0], data.y, data.weight, data.n_classes)
    label = int(np.argmax(totals))
    leaf = ("leaf", label)
    leaf_cost = float(totals.sum() - totals[label])
    if max_depth == 0 or data.n_features == 0 or leaf_cost <= search.tol:
        cost, tree = leaf_cost, leaf
    elif max_depth == 1:
        cost, tree = search.solve(order, 1, np.inf)
    else:
        greedy = _greedy(data, int(max_depth))
        incumbent = (nested_errors(greedy, data), greedy)
        cost, tree = search.search(order, int(max_depth), np.inf, leaf_cost, leaf,
                                   incumbent=incumbent, top=True)
    lower = cost if not search.stopped else min(cost, search.lower_bound)
    lower = min(cost, _round_bound(lower, data.weight, search.tol))
    status = "feasible" if search.stopped and lower < cost - search.tol else "optimal"
    if status == "optimal":
        lower = cost
    stats.update(search.stats, seconds=CLOCK() - started, memo_entries=len(search.memo))
    if progress is not None:
        progress.report(upper=cost, lower=lower, seconds=deadline.elapsed(), model=tree)
    return OrderedTreeResult(tree, float(cost), float(lower), status, data, stats)


def warm_kernels() -> None:
    """Load (or compile) every kernel once: searches of depth 1 to 3 on noisy data reach them
    all (benchmarks call it before timing; a fit calls them on first use anyway)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(np.int64)
    for depth in (1, 2, 3):
        best_ordered_tree(X, y, 2, depth)
