"""The ordered-column search's driver: the most accurate tree of depth <= D, exact over every
threshold of every column, weighted, anytime.

``ordered_search(data, max_depth, incumbent=...)`` searches ``data`` (``data.OrderedData``:
any mix of continuous columns, integer columns and 0/1 flags, each as ranks) from an
incumbent tree (the greedy tree ``trees.dtmax.entry`` builds first) and returns a
``DtmaxResult``: its best tree, its weighted training errors, a proven lower bound, and
"optimal" (no tree of the depth bound makes fewer errors) or "feasible" (the deadline came
first). Every better tree and every rise of the lower bound goes to ``progress``.

``prefer_small=True`` takes, among the most accurate trees, one with the fewest tests (so the
fewest nodes): the search minimises ``errors * scale + tests`` with whole weights, where
``scale`` exceeds the tests of any optimal tree (``lexicographic_scale``), in one search. The
search's bounds hold for this cost too -- each rests on two facts about a *fixed* tree,
which hold for any cost of the form (weight of the misclassified rows) + (a term of the tree
alone): its cost on a subset of the rows is at most its cost on the set, and adding rows of
weight W raises its cost by at most W. So the optimum of a child only grows as rows join it
(sub-interval pruning), moving a threshold across rows of weight W (here scaled weight ``W *
scale``) changes the optimum by at most that (neighbourhood pruning, the depth-1 passes'
skipping) and a node's optimum is at least the forced part of its cost.

Memory is planned before it is allocated (``memory_plan`` plus the memo's cap,
``search.MEMO_BYTES``): 20,000 x 20 at depth 4 holds about 14 MB of sorted rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData, memory_plan
from occamlearn.trees.dtmax.ordered.kernels import class_totals, range_orders
from occamlearn.trees.dtmax.ordered.search import MEMO_BYTES, OrderedSearch
from occamlearn.trees.dtmax.result import DtmaxResult, nested_errors, nested_tests

__all__ = ["EXACT_FLOAT", "lexicographic_scale", "ordered_search", "warm_kernels"]

# Costs are exact in float64 below this (whole weights times the lexicographic scale).
EXACT_FLOAT = float(2**53)


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


def _round_bound(bound: float, weight: np.ndarray, tol: float) -> float:
    """With whole-number weights errors are whole: a bound rounds up."""
    if np.all(weight == np.round(weight)):
        return float(np.ceil(bound - tol))
    return bound


def ordered_search(data: OrderedData, max_depth: int, *, incumbent: tuple | None = None,
                   deadline: Deadline | None = None, progress: ProgressSink | None = None,
                   memo_bytes: int = MEMO_BYTES, prefer_small: bool = False) -> DtmaxResult:
    """The most accurate tree of depth <= ``max_depth`` over ``data`` (module doc);
    ``incumbent``: a nested tree to start from (its cost is the first upper bound);
    ``prefer_small`` needs whole weights (the entry scales fractions to whole units)."""
    deadline = Deadline.coerce(deadline)
    started = CLOCK()
    stats = {"planned_bytes": memory_plan(data.n_rows, data.n_features, int(max_depth))
             + memo_bytes}
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
    search = OrderedSearch(data, deadline, None, memo_bytes,
                           penalty=1.0 if prefer_small else 0.0)
    if prefer_small:
        search.tol = min(search.tol, 0.25)             # whole costs: a quarter separates them
        if progress is not None:
            sink = _ErrorUnits(progress, scale, search.tol)
    search.progress = sink
    rows = np.arange(data.n_rows, dtype=np.int32)
    totals = class_totals(rows, data.y, data.weight, data.n_classes)
    label = int(np.argmax(totals))
    leaf = ("leaf", label)
    leaf_cost = float(totals.sum() - totals[label])
    if max_depth == 0 or data.n_features == 0 or leaf_cost <= search.tol:
        cost, tree = leaf_cost, leaf
    elif max_depth == 1:
        cost, tree = search.solve(data.order, 1, np.inf)
    else:
        start = None
        if incumbent is not None:
            start = (nested_errors(incumbent, data.rank, data.y, data.weight)
                     + search.penalty * nested_tests(incumbent), incumbent)
        cost, tree = search.search(data.order, int(max_depth), np.inf, leaf_cost, leaf,
                                   incumbent=start, top=True)
    lower = cost if not search.stopped else min(cost, search.lower_bound)
    lower = min(cost, _round_bound(lower, data.weight, search.tol))
    proven = not (search.stopped and lower < cost - search.tol)
    errors = nested_errors(tree, original.rank, original.y, original.weight)
    if prefer_small:      # back to errors: cost = errors * scale + tests, tests < scale
        lower = float(np.ceil(lower - search.tol) // scale)
        stats["lexicographic_scale"] = scale
    lower = errors if proven else min(lower, errors)
    unproven = None if proven else ("errors" if lower < errors else "size")
    stats.update(search.stats, seconds=CLOCK() - started, memo_entries=len(search.memo),
                 tests=nested_tests(tree))
    return DtmaxResult(tree, errors, float(lower), "optimal" if proven else "feasible",
                       unproven, "ordered", stats)


def warm_kernels() -> None:
    """Load (or compile) every kernel once: searches of depth 1 to 3 on noisy data reach them
    all -- errors alone and ``prefer_small``, many values and few (both counting modes of
    ``depth2``) -- with the whole weights ``trees.dtmax.entry`` always passes (one signature
    per kernel). ``depth2.warm_up`` is it for ``trees.compiling.kernel_cache``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(np.int64)
    few = np.round(X).clip(-1, 1)
    for depth in (1, 2, 3):
        for values, small in ((X, False), (few, True)):
            ordered_search(OrderedData.from_matrix(values, y, 2), depth, prefer_small=small)
    data = OrderedData.from_matrix(X, y, 2)      # blocks run on large nodes only
    range_orders(data.order, data.rank, 0, np.zeros(1, dtype=np.int64),
                 np.ones(1, dtype=np.int64))
