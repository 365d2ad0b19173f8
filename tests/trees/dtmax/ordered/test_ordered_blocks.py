"""The block bound of the ordered engine (trees.dtmax.ordered.blocks) never exceeds the cost of
a threshold it bounds, and the search that uses it stays exact with an anytime bound at most
the optimum, against the brute force over every threshold."""

from __future__ import annotations

from unittest import mock

import numpy as np
from bruteforce import numeric_weighted_data, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ordered_bounds import StopAfter

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.ordered import blocks
from occamlearn.trees.dtmax.ordered.kernels import candidates
from occamlearn.trees.dtmax.ordered.solve import ordered_search


def everywhere():
    """Blocks at every depth-3 node, down to blocks of one row."""
    return mock.patch.multiple(blocks, BLOCK_ROWS=0, BLOCK_MIN_ROWS=1)


def noisy_table(seed, rows=14, features=2, values=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(rows, features)).astype(float)
    y = rng.integers(0, 2, size=rows)
    w = rng.integers(1, 4, size=rows).astype(float)
    return X, y, w


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.data())
def test_block_bound_never_exceeds_a_threshold_cost(seed, draw):
    """Between candidate thresholds a and b (their children's exact optima at depth 2), the
    block bound of every level of a drawn range lo..hi is at most the cost of each threshold
    in it."""
    X, y, w = noisy_table(seed)
    data = OrderedData.from_matrix(X, y, 2, w)
    f = draw.draw(st.integers(0, X.shape[1] - 1))
    thresholds, before, _ = candidates(data.order, data.rank, data.y, data.weight, f)
    n = len(thresholds)
    if n == 0:
        return
    sides = []
    for rank in thresholds:
        high = X[:, f] >= data.values[f][rank]
        sides.append((threshold_tree_optimum(X[~high], y[~high], w[~high], 2, 2)[0],
                      threshold_tree_optimum(X[high], y[high], w[high], 2, 2)[0]))
    with everywhere():
        found = blocks.FeatureBlocks(data.order, data, data.weight, f, thresholds, before,
                                     1e-9)
        for a in range(-1, n):               # every level at least somewhere
            found.refine(a, -1, Deadline.after(None))
        lo = draw.draw(st.integers(0, n - 1))
        hi = draw.draw(st.integers(lo, n - 1))
        a = draw.draw(st.integers(-1, lo - 1))
        b = draw.draw(st.sampled_from([-1, *range(hi + 1, n)]))
        found.refine(a, b, Deadline.after(None))
        low_a = sides[a][0] if a >= 0 else 0.0
        high_b = sides[b][1] if b >= 0 else 0.0
        bound = low_a + high_b + found.bound(a, b, lo, hi)
        for i in range(lo, hi + 1):
            assert bound <= sum(sides[i]) + 1e-9


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(0, 60), st.booleans())
def test_search_with_blocks_is_exact_and_its_bound_at_a_stop_is_below_the_optimum(
        seed, polls, prefer_small):
    """Depth 3 with blocks at every node: stopped after any number of polls, every bound
    reported is at most the brute-force optimum, and without a stop the optimum is found."""
    X, y, w = noisy_table(seed)
    if not prefer_small:
        w = w / 3.0                                # float weights
    optimum = threshold_tree_optimum(X, y, w, 2, 3)[0]
    data = OrderedData.from_matrix(X, y, 2, w)
    with everywhere():
        sink = ProgressSink()
        stopped = ordered_search(data, 3, deadline=StopAfter(polls), progress=sink,
                                 prefer_small=prefer_small)
        exact = ordered_search(data, 3, prefer_small=prefer_small)
    assert stopped.errors_lower_bound <= optimum + 1e-9 <= stopped.errors + 2e-9
    assert all(lower <= optimum + 1e-9 for _, _, lower in sink.trace if lower is not None)
    assert exact.status == "optimal" and abs(exact.errors - optimum) <= 1e-9


def test_blocks_are_used_and_change_no_optimum():
    """On noisy 80-row tables the search computes blocks and finds the optimum of the search
    without them (exact, as the tests above show), for both objectives."""
    for seed in range(3):
        X, y, w = noisy_table(seed, rows=80, features=3, values=12)
        data = OrderedData.from_matrix(X, y, 2, w)
        for prefer_small in (False, True):
            plain = ordered_search(data, 3, prefer_small=prefer_small)
            with everywhere():
                found = ordered_search(data, 3, prefer_small=prefer_small)
            assert found.stats["block_refinements"] > 0
            assert (found.errors, found.stats["tests"]) == (plain.errors,
                                                            plain.stats["tests"])


@settings(max_examples=40, deadline=None)
@given(numeric_weighted_data(max_rows=9), st.integers(0, 30))
def test_blocks_keep_the_bound_on_tiny_weighted_tables(data, polls):
    """The tiny weighted tables with ties and zero weights of the other bound tests, with
    blocks everywhere."""
    X, y, w, n_classes, depth = data
    optimum = threshold_tree_optimum(X, y, w, n_classes, depth)[0]
    with everywhere():
        result = ordered_search(OrderedData.from_matrix(X, y, n_classes, w), depth,
                                deadline=StopAfter(polls))
    assert result.errors_lower_bound <= optimum + 1e-9 <= result.errors + 2e-9
