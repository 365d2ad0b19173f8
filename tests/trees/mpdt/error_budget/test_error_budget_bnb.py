"""Smallest tree within an error budget by branch and bound: brute force, MaxSAT, limits."""

from __future__ import annotations

import time

import numpy as np
import pytest
from bruteforce import minimum_size_with_errors, minimum_tree_size, minimum_trees_with_errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.exact.data import group_examples
from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb
from occamlearn.trees.mpdt.error_budget.maxsat_search import find_minimum_tree_with_errors


@st.composite
def conflicting_data(draw):
    """(X, y, n_classes, budget): 6-12 rows over 2-5 features drawn from a few distinct
    patterns (so identical rows with different labels are common), 2-3 classes, budget 0-4."""
    n_classes = draw(st.sampled_from([2, 3]))
    n_rows, n_features = draw(st.integers(6, 12)), draw(st.integers(2, 5))
    n_patterns = draw(st.integers(2, n_rows))
    patterns = np.array(draw(st.lists(st.integers(0, 1), min_size=n_patterns * n_features,
                                      max_size=n_patterns * n_features))
                        ).reshape(n_patterns, n_features)
    which = draw(st.lists(st.integers(0, n_patterns - 1), min_size=n_rows, max_size=n_rows))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    return patterns[which], y, n_classes, draw(st.integers(0, 4))


def _errors(tree, X, y) -> int:
    return int((tree.predict(X) != y).sum())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conflicting_data(), st.booleans())
def test_size_equals_brute_force(data, incompatibility):
    X, y, n_classes, budget = data
    forced = group_examples(X, y).forced_errors()
    if budget < forced:
        with pytest.raises(ValueError, match="below the"):
            find_minimum_tree_with_errors_bnb(X, y, n_classes, budget)
        return
    result = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget,
                                               use_incompatibility=incompatibility)
    assert result.status == "optimal"
    assert result.tree.n_nodes == result.upper_bound == result.lower_bound
    assert result.tree.n_nodes == minimum_size_with_errors(X, y, n_classes, budget)
    errors = _errors(result.tree, X, y)
    assert errors == result.stats["training_errors"] <= budget
    assert result.tree.counts[0].sum() == len(y)
    assert result.trace[-1][1] == result.tree.n_nodes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conflicting_data())
def test_size_equals_maxsat_route(data):
    X, y, n_classes, budget = data
    budget += group_examples(X, y).forced_errors()
    ours = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget)
    maxsat = find_minimum_tree_with_errors(X, y, n_classes, budget,
                                           deadline=Deadline.after(20))
    assert ours.status == "optimal"
    if maxsat.status == "optimal":
        assert ours.tree.n_nodes == maxsat.tree.n_nodes
    else:
        assert maxsat.lower_bound <= ours.tree.n_nodes


def test_size_equals_tree_enumeration():
    """The other brute force (tests/bruteforce.py grows the size until some tree fits)."""
    rng = np.random.default_rng(3)
    for _ in range(25):
        X = rng.integers(0, 2, (int(rng.integers(4, 9)), int(rng.integers(2, 4))))
        y = rng.integers(0, 2, len(X))
        budget = group_examples(X, y).forced_errors() + int(rng.integers(0, 3))
        size, _ = minimum_trees_with_errors(X, y, 2, budget)
        assert find_minimum_tree_with_errors_bnb(X, y, 2, budget).tree.n_nodes == size


def test_zero_budget_is_the_minimum_pure_tree():
    rng = np.random.default_rng(5)
    for _ in range(30):
        X = rng.integers(0, 2, (10, 4))
        _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
        y = rng.integers(0, 3, 10)[first][inverse.ravel()]
        result = find_minimum_tree_with_errors_bnb(X, y, 3, 0)
        assert result.tree.n_nodes == minimum_tree_size(X, y)
        assert _errors(result.tree, X, y) == 0


def test_budget_shrinks_the_tree_monotonically():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 2, (40, 6))
    y = X[:, 0] ^ X[:, 1] ^ (X[:, 2] & X[:, 3])
    y[:3] ^= 1  # noise
    forced = group_examples(X, y).forced_errors()
    sizes = [find_minimum_tree_with_errors_bnb(X, y, 2, e).tree.n_nodes
             for e in range(forced, 25)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1


def test_single_leaf_when_it_fits():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = np.array([0, 0, 1, 0])
    result = find_minimum_tree_with_errors_bnb(X, y, 2, 1)
    assert result.tree.n_nodes == 1 and result.status == "optimal"
    assert result.tree.label[0] == 0


def test_below_forced_errors_is_a_value_error():
    X = np.array([[0, 1], [0, 1], [0, 1], [1, 0], [1, 0]])
    y = np.array([0, 1, 1, 0, 1])
    with pytest.raises(ValueError, match="max_errors=1 is below the 2 errors that identical"):
        find_minimum_tree_with_errors_bnb(X, y, 2, 1)
    assert find_minimum_tree_with_errors_bnb(X, y, 2, 2).stats["training_errors"] == 2
    for bad in (-1, 1.5, True, None):
        with pytest.raises(ValueError, match="max_errors"):
            find_minimum_tree_with_errors_bnb(X, y, 2, bad)
    with pytest.raises(ValueError, match="sample_weight"):
        find_minimum_tree_with_errors_bnb(X, y, 2, 2, sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="sample_weight"):
        find_minimum_tree_with_errors_bnb(X, y, 2, 2, sample_weight=[1, 1, 1, -1, 1])
    with pytest.raises(ValueError, match="0/1"):
        find_minimum_tree_with_errors_bnb(X + 1, y, 2, 2)


def _hard_data():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, (400, 24))
    return X, rng.integers(0, 3, 400)  # random labels: a huge minimum tree


def test_time_limit_returns_the_best_tree_with_a_proven_bound():
    X, y = _hard_data()
    find_minimum_tree_with_errors_bnb(X[:5], y[:5], 3, 5)  # the kernel compile, once
    seen = []
    start = time.perf_counter()
    progress = ProgressSink(lambda upper, lower, s, t: t is not None and seen.append(t.n_nodes))
    result = find_minimum_tree_with_errors_bnb(X, y, 3, 3, deadline=Deadline.after(1.0),
                                               progress=progress)
    elapsed = time.perf_counter() - start
    assert elapsed <= 1.0 * 1.1 + 1.0
    assert result.status == "feasible" and result.stats["stopped"]
    assert 1 <= result.lower_bound < result.tree.n_nodes == result.upper_bound
    assert result.stats["training_errors"] == _errors(result.tree, X, y) <= 3
    assert seen and seen[-1] == result.tree.n_nodes and seen == sorted(seen, reverse=True)


def test_should_stop_and_ctrl_c():
    X, y = _hard_data()
    polls = []

    class StopAtThirdPoll(Deadline):
        def expired(self):
            polls.append(1)
            return len(polls) >= 3

    result = find_minimum_tree_with_errors_bnb(X, y, 3, 2, deadline=StopAtThirdPoll())
    assert result.status == "feasible" and result.stats["stopped"] and len(polls) == 3
    assert result.lower_bound < result.tree.n_nodes
    assert _errors(result.tree, X, y) <= 2

    class Interrupt(Deadline):
        def expired(self):
            raise KeyboardInterrupt

    result = find_minimum_tree_with_errors_bnb(X, y, 3, 2, deadline=Interrupt())
    assert result.status == "feasible" and result.stats["interrupted"]
    assert _errors(result.tree, X, y) <= 2


def test_auto_hands_wide_data_to_the_branch_and_bound_when_no_encoding_fits(monkeypatch):
    """"auto" sends wide data to the MaxSAT route; when none of its encodings fits the memory
    budget it used to return the greedy tree (breast_cancer with every threshold: 43 nodes
    after 5 s of a 60 s limit). Now the branch and bound takes the time left, and the result
    is its proven minimum, with both routes' bounds merged. Wide is simulated by lowering
    the cell threshold and the encoding budget."""
    from occamlearn.trees.mpdt import minimum
    from occamlearn.trees.mpdt.error_budget import maxsat_search

    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(40, 8))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(40) < 0.15)).astype(int)
    budget = 3
    expected = minimum_size_with_errors(X, y, 2, budget)
    monkeypatch.setattr(minimum, "BUDGET_BNB_CELLS", 10)
    # its first tree predicted at 10 s (320 cells): over a quarter of the 30 s, under half
    monkeypatch.setattr(minimum, "BUDGET_BNB_SECONDS_PER_CELL", 10 / 320)
    monkeypatch.setattr(maxsat_search, "memory_room", lambda: 1)  # no encoding fits
    alone = find_minimum_tree_with_errors(X, y, 2, budget, deadline=Deadline.after(30))
    assert alone.status == "feasible" and "encoding_skipped" in alone.stats
    assert alone.upper_bound > expected                  # the greedy tree alone is larger
    result = minimum.find_minimum_tree_within_budget(X, y, 2, budget,
                                                     deadline=Deadline.after(30))
    assert result.status == "optimal" and result.upper_bound == expected
    assert result.lower_bound == expected
    assert _errors(result.tree, X, y) <= budget
    assert result.stats["route"] == "bnb"
    assert "encoding_skipped" in result.stats["other_route"]
    monkeypatch.setattr(minimum, "BUDGET_BNB_SECONDS_PER_CELL", 1.0)  # would not fit in time
    kept = minimum.find_minimum_tree_within_budget(X, y, 2, budget,
                                                   deadline=Deadline.after(30))
    assert kept.upper_bound == alone.upper_bound and "route" not in kept.stats


def test_error_budget_over_every_threshold_equals_brute_force():
    """``ThresholdBinarizer(max_thresholds=None)`` keeps every gap, so the error-budget tree is
    the smallest over every threshold: equal to a brute force over all cuts, and never
    larger than the tree over a capped binariser's cuts (a subset of them)."""
    from occamlearn import MinimumPureTreeClassifier
    from occamlearn.binarize import ThresholdBinarizer

    rng = np.random.default_rng(11)
    for _ in range(4):
        X = rng.normal(size=(12, 2)).round(2)
        y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(12) < 0.2)).astype(int)
        every = ThresholdBinarizer(max_thresholds=None, drop_identifiers=False)
        bits = every.fit_transform(X)
        assert bits.shape[1] == sum(len(np.unique(c)) - 1 for c in X.T)
        for budget in (0, 1, 2):
            fitted = MinimumPureTreeClassifier(max_errors=budget, binarizer=every,
                                               time_limit=None).fit(X, y)
            assert fitted.status_ == "optimal"
            assert fitted.n_nodes_ == minimum_size_with_errors(bits, y, 2, budget)
            capped = MinimumPureTreeClassifier(
                max_errors=budget, time_limit=None,
                binarizer=ThresholdBinarizer(max_thresholds=2, drop_identifiers=False))
            try:
                capped.fit(X, y)
            except ValueError as error:     # two cuts can merge rows of different labels
                assert "identical rows with different labels force" in str(error)
                continue
            assert fitted.n_nodes_ <= capped.n_nodes_
