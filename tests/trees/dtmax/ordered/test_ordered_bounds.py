"""The lower bounds of the ordered engine (trees.dtmax.ordered.bounds and the anytime bound of
the search) never exceed the optimum: the range bound against every threshold's exact cost,
and the reported bound at a stop after any number of deadline polls."""

from __future__ import annotations

import numpy as np
from bruteforce import numeric_weighted_data, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.entry import find_most_accurate_tree
from occamlearn.trees.dtmax.ordered.bounds import range_bound
from occamlearn.trees.dtmax.ordered.solve import ordered_search


class StopAfter(Deadline):
    """A deadline that expires at its ``polls``-th look."""

    def __init__(self, polls):
        super().__init__(None)
        self.polls = polls

    def expired(self):
        self.polls -= 1
        return self.polls < 0 or super().expired()


def side_optima(X, y, w, n_classes, f, depth):
    """For each threshold t between adjacent distinct values of column f: the weight below
    t and the fewest errors of depth-``depth`` trees below t and at or above t."""
    rows = []
    for t in np.unique(X[:, f])[1:]:
        high = X[:, f] >= t
        low_cost = threshold_tree_optimum(X[~high], y[~high], w[~high], n_classes, depth)[0]
        high_cost = threshold_tree_optimum(X[high], y[high], w[high], n_classes, depth)[0]
        rows.append((w[~high].sum(), low_cost, high_cost))
    return rows


@settings(max_examples=120, deadline=None)
@given(numeric_weighted_data(max_rows=8, max_depth=1), st.data())
def test_range_bound_never_exceeds_a_threshold_cost(data, draw):
    """Bounds at a and b (exact costs, each lowered by a drawn slack: any lower bounds) bound
    the cost of every threshold between them; a missing end is 'no threshold'."""
    X, y, w, n_classes, depth = data
    f = draw.draw(st.integers(0, X.shape[1] - 1))
    sides = side_optima(X, y, w, n_classes, f, depth)
    if not sides:
        return
    n = len(sides)
    lo = draw.draw(st.integers(0, n - 1))
    hi = draw.draw(st.integers(lo, n - 1))
    a = draw.draw(st.integers(-1, lo))
    b = draw.draw(st.integers(hi, n))          # n: no b
    slack = st.floats(0.0, 2.0)
    if a >= 0:
        x_a, low_a, high_a = sides[a]
        low_a -= draw.draw(slack)
        high_a -= draw.draw(slack)
    else:
        x_a, low_a, high_a = 0.0, 0.0, -np.inf
    if b < n:
        x_b, low_b, high_b = sides[b]
        low_b -= draw.draw(slack)
        high_b -= draw.draw(slack)
    else:
        x_b, low_b, high_b = 0.0, -np.inf, 0.0
    bound = range_bound(low_a, high_a, x_a, low_b, high_b, x_b, sides[lo][0], sides[hi][0])
    least = min(low + high for _, low, high in sides[lo:hi + 1])
    assert bound <= least + 1e-9
    if a >= 0 and b < n:
        assert bound >= low_a + high_b - 1e-9     # at least the sub-interval bound


def test_range_bound_uses_the_neighbourhood():
    """Between a threshold of cost 10 + 10 and one of cost 10 + 10 with 2 units of weight
    between them, every threshold costs at least 18 (the sub-interval bound alone gives
    L(a) + H(b) = 0 + 0 when the far sides are pure)."""
    # L(t) >= max(0, 10 - (7 - x)), H(t) >= max(0, 10 - (x - 5)): at x = 6, 9 + 9
    assert range_bound(0.0, 10.0, 5.0, 10.0, 0.0, 7.0, 6.0, 6.0) == 18.0
    assert range_bound(0.0, 10.0, 5.0, 10.0, 0.0, 7.0, 5.0, 7.0) == 18.0
    # L(t) >= max(0, x - 2), H(t) >= max(0, 8 - x): 6 on the whole of [2, 8], not the 8 of
    # the range's ends (the least is at a kink)
    assert range_bound(0.0, 8.0, 0.0, 8.0, 0.0, 10.0, 0.0, 10.0) == 6.0


@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data(max_rows=8), st.integers(0, 30), st.booleans())
def test_bound_at_a_stop_never_exceeds_the_optimum(data, polls, prefer_small):
    """Stopped after any number of polls, the result's bound and every bound reported on the
    way are at most the optimum, and the tree's errors at least it."""
    X, y, w, n_classes, depth = data
    if prefer_small:
        w = np.round(w)
        if not (w > 0).any():
            w[0] = 1.0
    optimum = threshold_tree_optimum(X, y, w, n_classes, depth)[0]
    sink = ProgressSink()
    data = OrderedData.from_matrix(X, y, n_classes, w)
    if prefer_small:                               # the entry: whole weights
        result = find_most_accurate_tree(data, max_depth=depth, deadline=StopAfter(polls),
                                         progress=sink)
    else:                                          # the search itself on float weights
        result = ordered_search(data, depth, deadline=StopAfter(polls), progress=sink)
    assert result.errors_lower_bound <= optimum + 1e-9 <= result.errors + 2e-9
    assert all(lower <= optimum + 1e-9 for _, _, lower in sink.trace if lower is not None)
    if result.status == "optimal":
        assert abs(result.errors - optimum) <= 1e-9


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from([2, 3]))
def test_bound_at_every_stop_of_a_longer_search(seed, depth):
    """Noisy 60-row tables: stopped at each poll in turn, every bound reported is at most the
    optimum (the search without a stop, exact as the tests above show), and the bounds at
    later stops are never below those at earlier ones."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(60, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 5, size=60) > 8).astype(int)
    data = OrderedData.from_matrix(X, y, 2)
    exact = find_most_accurate_tree(data, max_depth=depth, prefer_small=False)
    assert exact.status == "optimal"
    bounds = []
    for polls in range(0, 400, 7):
        sink = ProgressSink()
        result = find_most_accurate_tree(data, max_depth=depth, deadline=StopAfter(polls),
                                         progress=sink, prefer_small=False)
        assert all(lower <= exact.errors for _, _, lower in sink.trace if lower is not None)
        assert result.errors_lower_bound <= exact.errors <= result.errors
        bounds.append(result.errors_lower_bound)
        if result.status == "optimal":
            break
    assert bounds == sorted(bounds)
