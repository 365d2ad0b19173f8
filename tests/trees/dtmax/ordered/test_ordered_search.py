"""The ordered-column search's pieces (trees.dtmax.ordered): its one depth-2 solver keeps its
contract in both counting modes, against brute force over every threshold."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import numeric_weighted_data, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.ordered import search
from occamlearn.trees.dtmax.ordered.depth2 import _key_layout, best_depth2, relabelled
from occamlearn.trees.dtmax.ordered.search import nested_from_depth2
from occamlearn.trees.dtmax.ordered.solve import ordered_search
from occamlearn.trees.dtmax.result import nested_errors


def brute_force(X, y, w, n_classes, depth):
    """Fewest weighted errors of any tree of depth <= ``depth`` over every threshold."""
    return threshold_tree_optimum(X, y, w, n_classes, depth)[0]


def tree_depth(nested) -> int:
    return 0 if nested[0] == "leaf" else 1 + max(tree_depth(nested[3]), tree_depth(nested[4]))


# (sweep fraction, least sweeps, block rows, blocks, fine blocks): the defaults; sweeps
# always, with blocks on every node (down to one value a block, and a finer second pass)
DEPTH2_MODES = [(0.15, 16, 256, 8, 0), (0.0, 0, 0, 2, 0), (0.0, 0, 0, 1, 2)]


@pytest.mark.parametrize("mode", DEPTH2_MODES)
@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data(max_depth=0), st.floats(0.0, 1.5), st.floats(0.0, 1.0))
def test_depth2_solver_keeps_its_contract_against_brute_force(mode, data, upper_scale,
                                                              lower_scale):
    """``best_depth2`` with an upper bound (a tree below it is exact, else a bound >= upper
    that no tree beats) and a known lower bound, on float and whole (int64) weights, in
    both counting modes (pair counts are exact whatever the bound) and with the sweeps'
    block bounds forced on every node."""
    X, y, w, n_classes, _ = data
    d = OrderedData.from_matrix(X, y, n_classes, w)
    optimum = brute_force(X, y, w, n_classes, 2)
    upper = upper_scale * (optimum + 1.0)
    lower = lower_scale * optimum
    whole = np.all(d.weight == np.round(d.weight))
    weight = d.weight.astype(np.int64) if whole else d.weight
    cost, exact, tree, _, by_pairs = best_depth2(d.order, d.rank, d.y, weight, n_classes,
                                                 upper, lower, 1e-9, 0.0, *mode)
    if exact:
        assert cost == pytest.approx(optimum, abs=1e-9)
        nested = nested_from_depth2(tree)
        assert nested_errors(nested, d.rank, d.y, d.weight) == pytest.approx(optimum,
                                                                            abs=1e-9)
        assert tree_depth(nested) <= 2
    else:
        assert not by_pairs and optimum >= upper - 1e-9
        assert upper - 1e-9 <= cost <= optimum + 1e-9
    if optimum < upper - 1e-9:
        assert exact


@pytest.mark.parametrize("sweeps", [0.0, np.inf])
@settings(max_examples=60, deadline=None)
@given(numeric_weighted_data(max_depth=0, whole=True), st.booleans())
def test_both_counting_modes_give_the_lexicographic_optimum(sweeps, data, prefer_small):
    """Forcing sweeps (none predicted: pair counts never cheaper) or pair counts (infinite
    sweeps) at every depth-2 node of the search: the fewest errors, then tests, of depth 3
    either way."""
    X, y, w, n_classes, _ = data
    d = OrderedData.from_matrix(X, y, n_classes, w)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "SWEEPS", (sweeps, sweeps))
        result = ordered_search(d, 3, prefer_small=prefer_small)
    errors, tests = threshold_tree_optimum(X, y, w, n_classes, 3)
    assert result.errors == pytest.approx(errors)
    if prefer_small:
        assert result.stats["tests"] == tests
    assert result.stats["depth2_pair_counts"] == (0 if sweeps == 0 else
                                                  result.stats["depth2_calls"])


def test_depth_two_matches_brute_force_on_continuous_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] < -0.2) ^ (rng.random(40) < 0.15)).astype(int)
    w = rng.random(40) + 0.1
    result = ordered_search(OrderedData.from_matrix(X, y, 2, w), 2)
    assert result.errors == pytest.approx(brute_force(X, y, w, 2, 2))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**16), st.integers(2, 3), st.booleans(), st.sampled_from(
    [(0.0, 0, 0, 8, 0), (0.0, 0, 0, 4, 0), (0.0, 0, 0, 3, 7), (0.0, 0, 0, 8, 16)]))
def test_depth2_block_bounds_change_no_answer(seed, n_classes, whole, mode):
    """On tables of many values (blocks of many thresholds; the tiny tables of the brute-force
    test have few), the sweeps with blocks forced on every node give what they give without
    blocks (itself checked against brute force above): the optimum under any upper bound,
    or the same refutation, with and without a penalty per test."""
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(20, 90))
    X = rng.integers(0, int(rng.integers(8, 60)), size=(rows, 3)).astype(float)
    y = (rng.random(rows) * n_classes).astype(int)
    y[(X[:, 0] > X[:, 1]) & (rng.random(rows) < 0.6)] = 0
    w = rng.integers(1, 4, rows).astype(np.int64) if whole else rng.random(rows) + 0.05
    d = OrderedData.from_matrix(X, y, n_classes, np.asarray(w, dtype=float))
    for penalty in (0.0, 1.0):
        plain = best_depth2(d.order, d.rank, d.y, w, n_classes, np.inf, 0.0, 1e-9, penalty,
                            0.0, 0, 0, 0, 0)
        for upper in (np.inf, plain[0] + 0.5, plain[0], 0.8 * plain[0]):
            without = best_depth2(d.order, d.rank, d.y, w, n_classes, upper, 0.0, 1e-9,
                                  penalty, 0.0, 0, 0, 0, 0)
            forced = best_depth2(d.order, d.rank, d.y, w, n_classes, upper, 0.0, 1e-9,
                                 penalty, *mode)
            assert forced[1] == without[1]
            assert forced[0] == pytest.approx(without[0], abs=1e-9)
            if forced[1]:
                nested = nested_from_depth2(forced[2])
                assert nested_errors(nested, d.rank, d.y, w) <= forced[0] + 1e-9


@pytest.mark.parametrize("n_classes", [2, 5, 9])
def test_depth2_sweeps_read_packed_keys_of_many_classes(n_classes):
    """The sweeps' rows carry rank, row and label in one key: with labels of 3 and 4 bits the
    optimum is still brute force's (sweeps forced: pair counts never predicted cheaper)."""
    rng = np.random.default_rng(n_classes)
    X = rng.integers(0, 9, size=(30, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 30)).astype(int) % n_classes
    w = rng.integers(1, 4, 30).astype(float)
    d = OrderedData.from_matrix(X, y, n_classes, w)
    cost, exact, *_ = best_depth2(d.order, d.rank, d.y, d.weight.astype(np.int64), n_classes,
                                  np.inf, 0.0, 1e-9, 0.0, 0.0, 0)
    assert exact and cost == pytest.approx(brute_force(X, y, w, n_classes, 2))


def test_packed_keys_refuse_what_does_not_fit_63_bits():
    with pytest.raises(ValueError, match="63 bits"):
        _key_layout(2**30, 2**10, 2**30)
    assert _key_layout(12_800, 2, 12_801) == (1, 14)


@settings(max_examples=60, deadline=None)
@given(numeric_weighted_data(max_depth=0, whole=True), st.integers(0, 2**16))
def test_a_relabelled_depth2_tree_costs_what_it_says_on_other_rows(data, seed):
    """``relabelled``: an optimal tree's tests on a subset of the rows, leaves relabelled,
    cost its errors there plus the penalty of each test, and no more than the old labels."""
    X, y, w, n_classes, _ = data
    d = OrderedData.from_matrix(X, y, n_classes, w)
    weight = d.weight.astype(np.int64)
    _, exact, tree, *_ = best_depth2(d.order, d.rank, d.y, weight, n_classes, np.inf, 0.0,
                                     1e-9, 1.0)
    rows = np.flatnonzero(np.random.default_rng(seed).random(d.n_rows) < 0.6)
    rows = rows.astype(np.int32)
    cost, out = relabelled(tree, rows, d.rank, d.y, weight, n_classes, 1.0)
    nested, old = nested_from_depth2(out), nested_from_depth2(tree)
    sub = d.rank[:, rows], d.y[rows], d.weight[rows]
    tests = sum(1 for field in (out[0], out[2], out[6]) if field >= 0) if out[0] >= 0 else 0
    assert cost == pytest.approx(nested_errors(nested, *sub) + tests)
    assert nested_errors(nested, *sub) <= nested_errors(old, *sub) + 1e-9
