"""Depth >= 3 (and the top level): the interval search over root thresholds, with bounds.

``OrderedSearch.solve(order, depth, upper)`` answers "the best tree of depth <= ``depth`` on
these rows, if one costs less than ``upper``" -- the contract of MurTree's and ConTree's
recursion. It returns ``(cost, tree)``; when ``tree`` is None no tree costs less than
``upper`` and ``cost`` is a proven lower bound (>= ``upper``). Depths 1 and 2 are the compiled
solvers of ``kernels`` and ``depth2``; deeper nodes run here:

* for each feature, its thresholds are an interval of candidates; an interval is taken from a
  heap (lowest bound first), its middle threshold evaluated -- both children solved, as
  ConTree does: the larger one first with the best cost so far (less the other's known
  bound) as its upper bound, then the smaller one, always, with what is left plus the weight
  between the threshold and the far end of its interval (the slack: that child then either
  proves a cost that prunes the whole interval or returns its exact cost; without slack
  make_classification 5,000 x 20 took 4x the CPU at depth 3, with slack on both children
  1.2x, breast_cancer 1.5x) -- and the two halves pushed back. A half's bound is
  ``bounds.range_bound`` from the evaluated thresholds a and b around it: at least
  ``left(a) + right(b)`` (the left child only gains rows as the threshold rises, the right
  one only loses them: sub-interval pruning), and more where a or b is close in weight
  (moving a threshold across weight W changes a side's optimum by at most W); thresholds
  within weight ``gap`` of an evaluated one whose cost exceeds the best by ``gap`` are
  dropped (neighbourhood pruning); at a depth-3 node of many rows a range's bound also
  counts the errors of the blocks of rows lying wholly between a and b (``blocks``: the
  fewest errors of a set of rows is at least the sum over disjoint parts of it), which the
  search computes for a range, at a grain of about an eighth of its weight, before it
  evaluates a threshold in it -- depth-2 solves on the range's rows alone -- and puts the
  range back if they lift its bound -- a feature's whole range too, before its first
  threshold: the blocks alone rule out a feature that splits no better than a random cut
  (on make_classification 5,000 and 20,000 x 20 at depth 3, 12 % and 6 % fewer threshold
  evaluations, ``benchmarks/results/dtmax_depth3_ab.md``); the blocks are not added to the
  children's bounds at an evaluated threshold: the first child's tighter upper bound then
  refutes more and leaves weaker side bounds, and make_classification 5,000 x 20 at depth 3
  took 2x the threshold evaluations to its proof;
* a depth-2 child starts from the depth-2 trees of the same side at the evaluated
  thresholds around its root threshold, relabelled on its rows (``OrderedSearch._depth2``):
  the best of them bounds its optimum from the start, so its sweeps prune more
  (make_classification 20,000 x 20 at depth 3: 75,390 -> 62,280 depth-2 root tests, the
  second from ``benchmarks/results/dtmax_depth3_ab.md``, the first from the same search
  without hints);
* solved row sets are memoised by depth (the same rows are reached by testing f then g or g
  then f), with lower bounds kept for sets that were only refuted;
* at the top the smallest bound in the heap is a proven lower bound on the optimum, reported
  while the search runs; on a deadline the best tree so far is returned with that bound.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.ordered import blocks as block_bounds
from occamlearn.trees.dtmax.ordered.bounds import range_bound
from occamlearn.trees.dtmax.ordered.depth2 import (
    ABORTED,
    SWEEP_FRACTION,
    SWEEP_MIN,
    best_depth2,
    relabelled,
)
from occamlearn.trees.dtmax.ordered.depth2_pairs import local_values, pair_counts_work
from occamlearn.trees.dtmax.ordered.kernels import (
    candidates,
    class_totals,
    promising_thresholds,
    side_subtrees,
    split_orders,
)
from occamlearn.trees.exact.stop import Stop

__all__ = ["MEMO_BYTES", "OrderedSearch", "nested_from_depth2"]

# Most bytes of row-set keys the memo keeps; past it, new sets are solved but not stored.
MEMO_BYTES = 256 << 20
# (fraction, least number) of a node's root thresholds the sweeps of ``depth2`` are predicted
# to try, against which its pair counts are weighed
SWEEPS = (SWEEP_FRACTION, SWEEP_MIN)

# Cells (rows x features) a depth-2 sweep passes over per second before any was timed in a
# search: a low guess, so that a first solve under a deadline is capped early rather than late
# (about 5e8 measured on 6,000 x 3,000 uniform floats); later solves use the search's measure.
FIRST_CELL_RATE = 1e8
# The same for the pair counts' work (``depth2_pairs.pair_counts_work``'s units): about 6e8
# a second measured on 6,000 x 3,000 floats of 9 values each (2.8e10 in 47 s, loaded).
FIRST_PAIR_RATE = 1e8


def _leaf(totals) -> tuple[float, tuple]:
    label = int(np.argmax(totals))
    return float(totals.sum() - totals[label]), ("leaf", label)


def _one_level(feature, threshold, low_label, high_label) -> tuple:
    if feature < 0:
        return ("leaf", int(low_label))
    return ("test", int(feature), int(threshold), ("leaf", int(low_label)),
            ("leaf", int(high_label)))


def nested_from_depth2(tree: np.ndarray) -> tuple:
    """``best_depth2``'s tree array as a nested tuple."""
    if tree[0] < 0:
        return ("leaf", int(tree[10]))
    return ("test", int(tree[0]), int(tree[1]), _one_level(*tree[2:6]), _one_level(*tree[6:10]))


class OrderedSearch:
    """Exact search for the most accurate tree of bounded depth over ordered columns."""

    def __init__(self, data: OrderedData, deadline: Deadline | None = None,
                 progress: ProgressSink | None = None, memo_bytes: int = MEMO_BYTES,
                 penalty: float = 0.0):
        self.data = data
        self.penalty = float(penalty)   # cost of a test besides its errors (lexicographic)
        self.deadline = Deadline.coerce(deadline)
        self.progress = progress
        # costs closer than this are equal (float weights round); whole weights are exact
        self.tol = 1e-11 * max(1.0, float(data.weight.sum()))
        self.memo: dict = {}
        self.memo_left = memo_bytes
        self.stats = {"evaluations": 0, "memo_hits": 0, "depth2_calls": 0,
                      "depth2_evaluations": 0, "depth2_pair_counts": 0,
                      "block_refinements": 0}
        # per depth-2 mode (sweeps, pair counts): the cells swept or the pair work
        # (``pair_counts_work``) done, and their seconds
        self.speed = [[0.0, 0.0], [0.0, 0.0]]
        self.side = np.empty(data.n_rows, dtype=np.uint8)     # scratch of side_subtrees
        # the depth-2 solver counts whole weights as integers (exact and faster)
        whole = np.all(data.weight == np.round(data.weight)) and data.weight.sum() < 2.0**53
        self.depth2_weight = data.weight.astype(np.int64) if whole else data.weight
        self.lower_bound = 0.0       # proven at the top: no tree costs less
        self.stopped = False
        self.last_depth2 = None      # the tree array of the last depth-2 solve, if exact

    # -- one node -------------------------------------------------------------------------
    def solve(self, order: np.ndarray, depth: int, upper: float, lower: float = 0.0,
              hint=None):
        """(cost, tree) of the best tree of depth <= ``depth`` on the rows of ``order`` if it
        costs less than ``upper``; else (a lower bound >= upper, None). ``lower``: a known
        lower bound (a tree reaching it is optimal: the search stops there); ``hint``:
        depth-2 tree arrays to start a depth-2 solve from (``_depth2``)."""
        d, tol = self.data, self.tol
        self.last_depth2 = None
        if upper <= tol:
            return 0.0, None
        totals = class_totals(order[0], d.y, d.weight, d.n_classes)
        leaf_cost, leaf = _leaf(totals)
        if depth == 0 or leaf_cost <= tol or order.shape[1] < 2:
            return (leaf_cost, leaf) if leaf_cost < upper - tol else (leaf_cost, None)
        key = (depth, np.sort(order[0]).tobytes())
        known = self.memo.get(key)
        if known is not None:
            cost, tree = known
            if tree is not None or cost >= upper - tol:
                self.stats["memo_hits"] += 1
                return (cost, tree) if cost < upper - tol else (cost, None)
        if depth == 1:
            sides = side_subtrees(order, d.rank, d.y, d.weight, d.n_classes, -1, 0, tol,
                                  self.side, self.penalty)
            cost, tree = sides[0], _one_level(*sides[1:5])
        elif depth == 2:
            cost, tree = self._depth2(order, upper, lower, hint)
        else:
            cost, tree = self.search(order, depth, upper, leaf_cost, leaf, lower=lower)
        self._remember(key, cost, tree)
        return (cost, tree) if cost < upper - tol else (cost, None)

    def _depth2(self, order, upper, lower, hint=()):
        """Depth 2 by ``depth2.best_depth2``: (cost, tree), or (a lower bound, None).

        ``hint``: trees of similar row sets (the same side of the nearby root thresholds;
        None: none). Relabelled on these rows the best of them is a tree of cost c, so the
        optimum is at most c: the sweeps then look only for a tree below c (a good bound
        from the start prunes more root thresholds), and when they find none that tree is
        optimal; when c reaches ``lower`` no solve is needed."""
        d, tol = self.data, self.tol
        start, start_cost = None, upper - tol
        for tree in hint or ():
            if tree is not None:
                cost, array = relabelled(tree, order[0], d.rank, d.y, self.depth2_weight,
                                         d.n_classes, self.penalty)
                if cost < start_cost:
                    start, start_cost = array, cost
        if start is not None and start_cost <= lower + tol:
            self.last_depth2 = start
            return start_cost, nested_from_depth2(start)
        self.stats["depth2_calls"] += 1
        cost, exact, array, evaluations, by_pairs = self.bounded_depth2(
            order, upper if start is None else start_cost, lower, self.penalty)
        self.stats["depth2_evaluations"] += evaluations
        self.stats["depth2_pair_counts"] += int(by_pairs)
        if not exact and start is not None:        # nothing below the hint: it is optimal
            cost, array, exact = start_cost, start, True
        self.last_depth2 = array if exact else None
        return cost, (nested_from_depth2(array) if exact else None)

    def bounded_depth2(self, order, upper: float, lower: float, penalty: float):
        """``best_depth2`` of the node under the deadline: the sweeps' passes and the pair
        counts' work capped at what the seconds left allow at each mode's measured speed
        (``speed``: cells swept, pair work; seconds), and ``Stop`` if it gives up
        (``ABORTED``), as at an expired deadline -- a compiled solve reads no clock, and on
        a wide table one solve can take seconds (pair counts: tens of seconds)."""
        d = self.data
        cells = max(order.shape[0] * order.shape[1], 1)
        while True:
            remaining = self.deadline.remaining()
            if remaining == np.inf:
                return best_depth2(order, d.rank, d.y, self.depth2_weight, d.n_classes,
                                   upper, lower, self.tol, penalty, *SWEEPS)
            firsts = (FIRST_CELL_RATE, FIRST_PAIR_RATE)     # (read here: tests patch them)
            rate = [units / seconds if seconds > 0.01 else first
                    for (units, seconds), first in zip(self.speed, firsts)]
            cap = int(min(remaining * rate[0] / cells, 2**62))
            pair_cap = float(min(remaining * rate[1], 2.0**62))
            started = time.perf_counter()
            out = best_depth2(order, d.rank, d.y, self.depth2_weight, d.n_classes, upper,
                              lower, self.tol, penalty, *SWEEPS, max_evaluations=cap,
                              max_pair_work=pair_cap)
            by_pairs, aborted = bool(out[4]), out[3] == ABORTED
            if by_pairs:
                done = pair_cap if aborted else pair_counts_work(
                    order.shape[1], local_values(order, d.rank), d.n_classes)
            else:
                done = (cap if aborted else out[3]) * cells
            measured = self.speed[by_pairs][1] > 0.01
            self.speed[by_pairs][0] += done
            self.speed[by_pairs][1] += time.perf_counter() - started
            if not aborted:
                return out
            if measured or done == 0:   # the time left cannot do it (or nothing to measure)
                raise Stop
            # capped at the first guess, which the aborted solve has now measured: again

    def _remember(self, key, cost, tree) -> None:
        size = len(key[1]) + 64
        if self.memo_left < size:
            return
        known = self.memo.get(key)
        if known is not None and known[1] is None and tree is None:
            cost = max(cost, known[0])
        elif known is None:
            self.memo_left -= size
        self.memo[key] = (cost, tree)

    # -- the interval search -------------------------------------------------------------------
    def search(self, order, depth, upper, leaf_cost, leaf, *, incumbent=None, top=False,
               lower=0.0):
        """Interval search over every feature's thresholds (depth >= 2 here); ``incumbent``:
        a (cost, tree) to start from (the greedy tree at the top)."""
        d, tol, penalty = self.data, self.tol, self.penalty
        best, tree = upper, None
        if leaf_cost < best - tol:
            best, tree = leaf_cost, leaf
        if incumbent is not None and incumbent[0] < best - tol:
            best, tree = incumbent
        if top:
            self._report(best, tree)
        # each feature starts at its best single test, the most promising first
        start, errors = promising_thresholds(order, d.rank, d.y, d.weight, d.n_classes)
        heap, seq, features = [], 0, []
        for f in range(d.n_features):
            thresholds, before, first = candidates(order, d.rank, d.y, d.weight, f)
            features.append([thresholds, before, np.zeros(len(thresholds)),
                             np.zeros(len(thresholds)), None, {}, {}])
            start[f] = min(max(start[f] - first, 0), len(thresholds) - 1)
            if len(thresholds):
                heap.append((0.0, errors[f], f, 0, len(thresholds) - 1, -1, -1))
        heapq.heapify(heap)
        seq = 1.0 + errors.max() if len(errors) else 1.0
        current = 0.0
        try:
            while heap:
                bound, _, f, lo, hi, a, b = heapq.heappop(heap)
                current = bound
                if top:
                    self._raise_lower(min(best, bound))
                if bound >= best - tol or best <= lower + tol:
                    break
                thresholds, before, low, high = features[f][:4]
                if a >= 0:
                    gap = low[a] + high[a] + penalty - best
                    while lo <= hi and before[lo] - before[a] <= gap - tol:
                        lo += 1
                if b >= 0:
                    gap = low[b] + high[b] + penalty - best
                    while hi >= lo and before[b] - before[hi] <= gap - tol:
                        hi -= 1
                if lo > hi:
                    continue
                if self.deadline.expired():
                    raise Stop
                if self._refine_blocks(order, depth, f, features[f], a, b):
                    raised = self._range(features[f], a, b, lo, hi) + penalty
                    if raised > bound + tol:          # the blocks lift it: back in line
                        heapq.heappush(heap, (raised, seq, f, lo, hi, a, b))
                        seq += 1
                        continue
                mid = int(start[f]) if a < 0 and b < 0 else (lo + hi) // 2
                known = (low[a] if a >= 0 else 0.0, high[b] if b >= 0 else 0.0)
                # weight from the threshold to the far end of its interval: a child solved
                # with that much more room either proves a cost that prunes the whole
                # interval (neighbourhood) or returns its exact cost (ConTree's slack)
                slack = max(before[mid] - before[lo], before[hi] - before[mid])
                hints = ((features[f][5].get(a), features[f][5].get(b)),
                         (features[f][6].get(b), features[f][6].get(a)))
                cost, found = self._evaluate(order, depth, f, int(thresholds[mid]), best,
                                             low, high, mid, known, slack, hints)
                features[f][5][mid], features[f][6][mid] = self.children_depth2
                if found is not None and cost < best - tol:
                    best, tree = cost, found
                    if top:
                        self._report(best, tree)
                left = max(bound, self._range(features[f], a, mid, lo, mid - 1) + penalty)
                right = max(bound, self._range(features[f], mid, b, mid + 1, hi) + penalty)
                if lo < mid:
                    heapq.heappush(heap, (left, seq, f, lo, mid - 1, a, mid))
                    seq += 1
                if mid < hi:
                    heapq.heappush(heap, (right, seq, f, mid + 1, hi, mid, b))
                    seq += 1
            current = best
        except (Stop, KeyboardInterrupt):
            if not top:
                raise
            self.stopped = True
        if top:
            self._raise_lower(min(best, current))
        return best, tree

    @staticmethod
    def _range(feature, a, b, lo, hi) -> float:
        """The bound of thresholds ``lo..hi`` of a feature (its candidates' ``before``,
        ``low``, ``high`` and blocks or None) between ``a`` and ``b`` (-1: none), without
        the penalty; inf if empty: the larger of ``bounds.range_bound`` and the block bound
        (``blocks``)."""
        if lo > hi:
            return np.inf
        _, before, low, high, blocks = feature[:5]
        bound = range_bound(low[a] if a >= 0 else 0.0, high[a] if a >= 0 else -np.inf,
                            before[a] if a >= 0 else 0.0,
                            low[b] if b >= 0 else -np.inf, high[b] if b >= 0 else 0.0,
                            before[b] if b >= 0 else 0.0, before[lo], before[hi])
        if blocks is not None:
            bound = max(bound, (low[a] if a >= 0 else 0.0) + (high[b] if b >= 0 else 0.0)
                        + blocks.bound(a, b, lo, hi))
        return bound

    def _refine_blocks(self, order, depth, f, feature, a, b) -> bool:
        """Where blocks pay, computes those of the interval between a and b (``blocks``);
        whether any was computed."""
        if not block_bounds.pays(depth, order.shape[1]):
            return False
        if feature[4] is None:
            feature[4] = block_bounds.FeatureBlocks(order, self.data, self.depth2_weight, f,
                                                    feature[0], feature[1], self.tol)
        computed = feature[4].refine(a, b, self.deadline, self.bounded_depth2)
        self.stats["block_refinements"] += int(computed)
        return computed

    def _evaluate(self, order, depth, f, threshold, best, low, high, mid, known, slack,
                  hints=((), ())):
        """Cost and tree of the best tree whose root tests ``f >= threshold``, if it costs
        less than ``best`` (else a lower bound and None); records each side's bound. ``known``:
        lower bounds of the two sides from the evaluated thresholds around (the low side only gains
        rows as the threshold rises, the high side only loses them). ``hints``: depth-2 tree arrays
        of the low and the high side at the evaluated thresholds around this one, to start depth-2
        children from; the children's exact depth-2 arrays (or None) are left in
        ``children_depth2``."""
        d = self.data
        self.stats["evaluations"] += 1
        self.children_depth2 = (None, None)
        if depth == 2:
            sides = side_subtrees(order, d.rank, d.y, d.weight, d.n_classes, f, threshold,
                                  self.tol, self.side, self.penalty)
            low[mid], high[mid] = sides[0], sides[5]
            return sides[0] + sides[5] + self.penalty, (
                "test", f, threshold, _one_level(*sides[1:5]), _one_level(*sides[6:10]))
        orders = split_orders(order, d.rank, f, threshold)
        first = 0 if orders[0].shape[1] >= orders[1].shape[1] else 1
        second = 1 - first
        costs, trees = list(known), [None, None]
        room = best - self.penalty                # the children's share of a better tree
        arrays = [None, None]
        cost, trees[first] = self.solve(orders[first], depth - 1, room - known[second],
                                        known[first], hints[first])
        costs[first], arrays[first] = max(cost, known[first]), self.last_depth2
        cost, trees[second] = self.solve(orders[second], depth - 1,
                                         room - costs[first] + slack, known[second],
                                         hints[second])
        costs[second], arrays[second] = max(cost, known[second]), self.last_depth2
        if depth == 3:                            # children of depth 2: their arrays
            self.children_depth2 = tuple(arrays)
        low[mid], high[mid] = costs
        total = costs[0] + costs[1] + self.penalty
        if trees[0] is None or trees[1] is None:
            return total, None
        return total, ("test", f, threshold, trees[0], trees[1])

    # -- progress ------------------------------------------------------------------------------
    def _report(self, best, tree) -> None:
        if self.progress is not None and tree is not None:
            self.progress.report(upper=best, lower=None, seconds=self.deadline.elapsed(),
                                 model=tree)

    def _raise_lower(self, bound: float) -> None:
        if bound > self.lower_bound + self.tol:
            self.lower_bound = bound
            if self.progress is not None:
                self.progress.report(upper=None, lower=bound,
                                     seconds=self.deadline.elapsed())
