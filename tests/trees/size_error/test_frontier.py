"""The size-error frontier (``trees.size_error.frontier``) against every tree enumerated on tiny
weighted data, with and without a depth bound, and under a time limit."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from bruteforce import weighted_data as shared_weighted_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline
from occamlearn.trees.size_error.frontier import find_size_error_frontier

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_trees(n_features: int):
    """``trees(n)``: every tree shape with exactly n leaves over the features, as nested
    ``("leaf",)`` / ``(feature, zero_side, one_side)`` (useless splits included)."""

    @cache
    def trees(n: int) -> tuple:
        if n == 1:
            return (("leaf",),)
        return tuple((j, a, b) for left in range(1, n) for a in trees(left)
                     for b in trees(n - left) for j in range(n_features))

    return trees


def _leaf_of(tree, row, path=()):
    if tree[0] == "leaf":
        return path
    return _leaf_of(tree[2] if row[tree[0]] else tree[1], row, (*path, bool(row[tree[0]])))


def _depth(tree) -> int:
    return 0 if tree[0] == "leaf" else 1 + max(_depth(tree[1]), _depth(tree[2]))


def enumerated_curve(X, y, weight, n_classes, max_leaves, max_depth=None) -> list:
    """E(L) for L = 1..max_leaves by trying every tree with at most L leaves (each leaf
    predicts its heaviest class, the best label a leaf can have)."""
    trees = all_trees(X.shape[1])
    best = []
    for n in range(1, max_leaves + 1):
        fewest = np.inf
        for tree in trees(n):
            if max_depth is not None and _depth(tree) > max_depth:
                continue
            leaves: dict = {}
            for row, label, w in zip(X, y, weight, strict=True):
                leaves.setdefault(_leaf_of(tree, row), np.zeros(n_classes))[label] += w
            fewest = min(fewest, sum(c.sum() - c.max() for c in leaves.values()))
        best.append(min(fewest, best[-1]) if best else fewest)
    return best


def weighted_data(max_rows=6, weights=(0, 0.5, 1, 1.5, 2, 3)):
    """1-``max_rows`` rows (one row is a frontier too)."""
    return shared_weighted_data(min_rows=1, max_rows=max_rows, weights=weights)


def _check_points(frontier, X, y, weight, max_depth=None):
    """Each point's tree has at most that many leaves and makes the errors it claims."""
    for i, tree in enumerate(frontier.trees):
        assert tree.n_leaves <= i + 1
        if max_depth is not None:
            assert tree.depth <= max_depth
        wrong = tree.predict(X) != y
        assert weight[wrong].sum() == pytest.approx(frontier.errors[i])


@SETTINGS
@given(weighted_data())
def test_path_is_every_trees_minimum(data):
    """Without a bound the path runs to the fewest errors, every point certified and equal to
    the minimum over all enumerated trees; it stops at the first leaf count reaching it."""
    X, y, k, weight = data
    frontier = find_size_error_frontier(X, y, k, sample_weight=weight)
    assert frontier.status == "optimal" and frontier.proven.all()
    expected = enumerated_curve(X, y, weight, k, len(frontier.errors) + 1)
    assert frontier.errors.tolist() == pytest.approx(expected[:-1])
    assert expected[-1] == pytest.approx(expected[-2])  # nothing better with one more leaf
    if len(expected) > 2:
        assert expected[-3] > expected[-2]  # ... and the last point is where it is reached
    _check_points(frontier, X, y, weight)


@SETTINGS
@given(weighted_data(), st.integers(1, 5))
def test_max_leaves_caps_the_path(data, max_leaves):
    X, y, k, weight = data
    frontier = find_size_error_frontier(X, y, k, sample_weight=weight, max_leaves=max_leaves)
    assert len(frontier.errors) == max_leaves and frontier.proven.all()
    expected = enumerated_curve(X, y, weight, k, max_leaves)
    assert frontier.errors.tolist() == pytest.approx(expected)
    _check_points(frontier, X, y, weight)


@SETTINGS
@given(weighted_data(max_rows=5), st.integers(1, 4), st.integers(1, 2))
def test_depth_bound_binds_too(data, max_leaves, max_depth):
    """With a depth bound (the exact core's route) the curve is the minimum over trees of
    depth <= d with at most L leaves."""
    X, y, k, weight = data
    frontier = find_size_error_frontier(X, y, k, sample_weight=weight, max_leaves=max_leaves,
                                        max_depth=max_depth)
    assert frontier.proven.all()
    expected = enumerated_curve(X, y, weight, k, max_leaves, max_depth)
    assert frontier.errors.tolist() == pytest.approx(expected)
    _check_points(frontier, X, y, weight, max_depth)


@SETTINGS
@given(weighted_data(weights=(0, 1, 2, 3)))
def test_integer_weights_are_repeated_rows(data):
    X, y, k, weight = data
    repeats = weight.astype(int)
    weighted = find_size_error_frontier(X, y, k, sample_weight=weight)
    repeated = find_size_error_frontier(np.repeat(X, repeats, axis=0), np.repeat(y, repeats), k)
    assert weighted.errors.tolist() == repeated.errors.tolist()


def test_expired_deadline_keeps_honest_bounds():
    """Stopped at once, the path still covers L = 1 .. (a tree with the fewest errors), the
    one-leaf point is proven, and every point's bounds sandwich the true minimum."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 8))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(60) < 0.2)).astype(int)
    full = find_size_error_frontier(X, y, 2)
    stopped = find_size_error_frontier(X, y, 2, deadline=Deadline.after(0.0))
    assert stopped.stats["stopped"] and stopped.status == "feasible"
    assert stopped.proven[0] and not stopped.proven.all()
    n = min(len(full.errors), len(stopped.errors))
    assert (stopped.lower[:n] <= full.errors[:n]).all()
    assert (stopped.errors[:n] >= full.errors[:n]).all()
    assert len(stopped.errors) >= len(full.errors)
    _check_points(stopped, X, y, np.ones(len(y)))


def test_bad_max_leaves():
    with pytest.raises(ValueError, match="max_leaves must be an int >= 1"):
        find_size_error_frontier(np.zeros((2, 1), dtype=int), np.array([0, 1]), 2, max_leaves=0)


@SETTINGS
@given(weighted_data(max_rows=7), st.sampled_from([None, 2, 3, 5]), st.integers(1, 3))
def test_depth_engine_matches_the_exact_core(data, max_leaves, max_depth):
    """The closed-form depth-two engine against the exact core's generic search with the
    ``size_error_front`` objective (exhaustive, no shortcut)."""
    from reference_search import SizeErrorFront, solve

    X, y, k, weight = data
    front, _ = solve(X, y, k, SizeErrorFront(max_leaves), max_depth=max_depth,
                            sample_weight=weight)
    frontier = find_size_error_frontier(X, y, k, sample_weight=weight, max_leaves=max_leaves,
                                        max_depth=max_depth)
    best = [min(e for leaves, (e, _) in front.items() if leaves <= count)
            for count in range(1, len(frontier.errors) + 1)]
    assert frontier.errors.tolist() == pytest.approx(best)
    if max_leaves is None:
        assert len(frontier.errors) == max(front)


@pytest.mark.parametrize("seed", range(8))
def test_depth_engine_matches_the_exact_core_on_larger_data(seed):
    """Tiny data rarely need a four-leaf depth-two tree; 40 weighted rows over 5 features
    exercise every case of the closed form."""
    from reference_search import SizeErrorFront, solve

    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    X = rng.integers(0, 2, size=(40, 5))
    y = rng.integers(0, k, size=40)
    weight = rng.integers(0, 4, size=40).astype(float)
    for depth in (2, 3):
        front, _ = solve(X, y, k, SizeErrorFront(), max_depth=depth,
                                sample_weight=weight)
        frontier = find_size_error_frontier(X, y, k, sample_weight=weight, max_depth=depth)
        assert frontier.errors.tolist() == [
            min(e for leaves, (e, _) in front.items() if leaves <= count)
            for count in range(1, max(front) + 1)]
        _check_points(frontier, X, y, weight, depth)


class CtrlCAfter:
    """A deadline whose n-th look raises KeyboardInterrupt, as Ctrl-C inside the search."""

    limited = False  # no time limit: kernel calls and set-up steps take what they need

    def __init__(self, looks: int):
        self.looks = looks

    def expired(self) -> bool:
        self.looks -= 1
        if self.looks <= 0:
            raise KeyboardInterrupt
        return False

    def step_seconds(self) -> float:
        return float("inf")

    def remaining(self) -> float:
        return float("inf")


@pytest.mark.parametrize("max_depth", [None, 3])
def test_ctrl_c_returns_the_curve_so_far(max_depth):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(80, 10))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(80) < 0.2)).astype(int)
    stopped = find_size_error_frontier(X, y, 2, max_depth=max_depth, deadline=CtrlCAfter(3))
    assert stopped.stats["interrupted"] and stopped.status == "feasible"
    assert stopped.proven[0] and (stopped.lower <= stopped.errors).all()
    _check_points(stopped, X, y, np.ones(len(y)), max_depth)
