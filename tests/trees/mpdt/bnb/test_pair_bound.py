"""The pair bound (``bnb.pair_bound``) never exceeds the brute-force minimum: on the rows, on
any subset through the restricted weights, with a sample of the pairs, and when the greedy
hitting set skips the program; its weights keep every column's load at most 1."""

from __future__ import annotations

import numpy as np
from bruteforce import minimum_tree_size
from hypothesis import given, settings
from hypothesis import strategies as st
from test_branch_and_bound import small_data

from occamlearn.trees.mpdt.bnb.pair_bound import greedy_hitting_set, pair_bound, restricted


def minimum_leaves(X, y) -> int:
    return int(minimum_tree_size(X, y) + 1) // 2


@settings(max_examples=300, deadline=None)
@given(small_data(min_rows=2, max_rows=12), st.integers(1, 40), st.data())
def test_pair_bound_is_at_most_the_minimum(data, max_pairs, draw):
    X, y, _ = data
    minimum = minimum_leaves(X, y)
    found = pair_bound(X, y, max_pairs=max_pairs)
    assert 1 <= found.leaves <= minimum
    separates = (X[found.first] != X[found.second]).astype(float)
    assert (found.weights >= 0).all()
    assert (separates.T @ found.weights <= 1 + 1e-9).all()
    assert (y[found.first] != y[found.second]).all()
    inside = np.array(draw.draw(st.lists(st.booleans(), min_size=len(y), max_size=len(y))))
    if inside.any():
        assert restricted(found, inside) <= minimum_leaves(X[inside], y[inside])


@settings(max_examples=100, deadline=None)
@given(small_data(min_rows=2, max_rows=12), st.integers(1, 8))
def test_greedy_skips_only_programs_that_fit_the_budget(data, budget):
    X, y, _ = data
    full = pair_bound(X, y)
    skipped = pair_bound(X, y, budget=budget)
    assert skipped is None and full.leaves <= budget or skipped.leaves == full.leaves


def test_greedy_hitting_set_separates_every_pair():
    separates = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    assert greedy_hitting_set(separates) == 3


def test_the_bound_counts_parallel_pairs():
    """Four rows on a square, classes crossed (xor): every pure tree has 4 leaves; the
    four pairs of different classes give 2 per column, so y = 1/2 each: 2 inner nodes."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    assert pair_bound(X, y).leaves == 3 <= minimum_leaves(X, y) == 4


@settings(max_examples=150, deadline=None)
@given(small_data(min_rows=6, max_rows=14))
def test_the_search_with_pair_bounds_on_the_root_sides_keeps_the_minimum(data):
    """The bounds stored on the root's sides at once (switched on, and not after
    ``PAIR_AFTER_CALLS``) never cut off the minimum."""
    from occamlearn.trees.mpdt.bnb import branch_and_bound, pair_bound

    X, y, n_classes = data
    saved = branch_and_bound.PAIR_AFTER_CALLS, pair_bound.SEED_SECONDS
    branch_and_bound.PAIR_AFTER_CALLS, pair_bound.SEED_SECONDS = 0, 5.0
    try:
        result = branch_and_bound.find_minimum_tree_branch_and_bound(
            X, y, n_classes, engine="compiled", quick_calls=0, improve_calls=0)
    finally:
        branch_and_bound.PAIR_AFTER_CALLS, pair_bound.SEED_SECONDS = saved
    assert result.status == "optimal" and result.tree.n_nodes == minimum_tree_size(X, y)
    assert np.array_equal(result.tree.predict(X), y)


def test_a_program_stopped_by_its_time_limit_gives_no_bound():
    """HiGHS's time limit (``seconds``) ends an unfinished solve with no bound, never with
    the weights it had when stopped (they need not be a feasible packing)."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 2, (400, 80)), rng.integers(0, 2, 400)
    full = pair_bound(X, y)
    stopped = pair_bound(X, y, seconds=1e-3)
    assert stopped is None or stopped.leaves == full.leaves
    assert pair_bound(X, y, seconds=60).leaves == full.leaves
