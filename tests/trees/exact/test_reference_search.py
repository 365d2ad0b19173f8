"""The tests' reference search (``reference_search``) against brute force on tiny weighted data
for every objective (pure size, size within an error budget, most accurate at depth d), and
weights against repeated / dropped rows; then the engines against it."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from bruteforce import weighted_data
from dtmax_helpers import max_accuracy_on_matrix
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_search import AccuracyAtDepth, PureSize, SizeWithinBudget, solve

from occamlearn.trees.exact.data import group_examples
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb
from occamlearn.trees.weights import integer_weights

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fronts(X, y, weight, n_classes):
    """``front(rows, depth)``: {leaves: fewest weighted errors} over every tree of depth <=
    depth on the rows (a tuple of indices), by trying every leaf label and every split. Shares
    no code with the searches."""
    n_features = X.shape[1]

    @cache
    def front(rows: tuple, depth: int) -> dict:
        per_class = [sum(weight[r] for r in rows if y[r] == k) for k in range(n_classes)]
        best = {1: sum(per_class) - max(per_class)}
        if depth == 0:
            return best
        for j in range(n_features):
            ones = tuple(r for r in rows if X[r, j])
            zeros = tuple(r for r in rows if not X[r, j])
            if not ones or not zeros:
                continue
            left, right = front(zeros, depth - 1), front(ones, depth - 1)
            for a, ea in left.items():
                for b, eb in right.items():
                    if ea + eb < best.get(a + b, np.inf):
                        best[a + b] = ea + eb
        return best

    return lambda depth: front(tuple(range(len(y))), depth)


def conflict_free(X, y, weight):
    """Relabel positive-weight rows so identical rows share a class (pure trees exist)."""
    y = y.copy()
    for r in range(len(y)):
        for q in range(r):
            if weight[q] > 0 and np.array_equal(X[q], X[r]):
                y[r] = y[q]
                break
    return y


@SETTINGS
@given(weighted_data())
def test_pure_size_equals_brute_force(data):
    X, y, n_classes, weight = data
    y = conflict_free(X, y, weight)
    pure = min(v for v, e in fronts(X, y, weight, n_classes)(X.shape[1]).items() if e == 0)
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, sample_weight=weight)
    assert result.status == "optimal"
    assert result.tree.n_nodes == 2 * pure - 1
    positive = weight > 0
    assert np.array_equal(result.tree.predict(X[positive]), y[positive])


@SETTINGS
@given(weighted_data(), st.sampled_from([0, 0.5, 1, 2, 3.5]), st.booleans())
def test_size_within_a_weighted_budget_equals_brute_force(data, budget, incompatibility):
    X, y, n_classes, weight = data
    front = fronts(X, y, weight, n_classes)(X.shape[1])
    units, scale = integer_weights(weight, len(y))
    forced = group_examples(X, y, units).forced_errors() / scale
    if budget < forced:
        with pytest.raises(ValueError, match="below the"):
            find_minimum_tree_with_errors_bnb(X, y, n_classes, budget, sample_weight=weight)
        return
    result = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget, sample_weight=weight,
                                               use_incompatibility=incompatibility)
    fewest = min(v for v, e in front.items() if e <= budget)
    assert result.status == "optimal"
    assert result.tree.n_nodes == 2 * fewest - 1
    wrong = result.tree.predict(X) != y
    assert result.stats["training_errors"] == weight[wrong].sum() <= budget


@SETTINGS
@given(weighted_data(), st.integers(0, 3), st.booleans())
def test_most_accurate_at_depth_equals_brute_force(data, depth, prefer_small):
    X, y, n_classes, weight = data
    front = fronts(X, y, weight, n_classes)(depth)
    fewest_errors = min(front.values())
    result = max_accuracy_on_matrix(X, y, n_classes, depth, prefer_small=prefer_small,
                                    sample_weight=weight)
    assert result.status == "optimal"
    assert result.training_errors == fewest_errors
    wrong = result.tree.predict(X) != y
    assert weight[wrong].sum() == fewest_errors
    assert result.tree.depth <= depth
    if prefer_small:
        leaves = min(v for v, e in front.items() if e == fewest_errors)
        assert result.decisions == leaves - 1


@st.composite
def integer_weighted_data(draw):
    X, y, n_classes, _ = draw(weighted_data(max_rows=6))
    weight = np.array(draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y))))
    if not (weight > 0).any():
        weight[0] = 2
    return X, y, n_classes, weight


def repeated(X, y, weight):
    """Each row repeated ``weight`` times (weight 0: dropped)."""
    return np.repeat(X, weight, axis=0), np.repeat(y, weight)


@SETTINGS
@given(integer_weighted_data())
def test_pure_size_integer_weights_equal_repeated_rows(data):
    X, y, n_classes, weight = data
    y = conflict_free(X, y, weight)
    weighted = find_minimum_tree_branch_and_bound(X, y, n_classes, sample_weight=weight)
    plain = find_minimum_tree_branch_and_bound(*repeated(X, y, weight), n_classes)
    assert weighted.tree.n_nodes == plain.tree.n_nodes
    assert weighted.status == plain.status == "optimal"


@SETTINGS
@given(integer_weighted_data(), st.integers(0, 4))
def test_budget_integer_weights_equal_repeated_rows(data, extra):
    X, y, n_classes, weight = data
    X_rep, y_rep = repeated(X, y, weight)
    budget = group_examples(X_rep, y_rep).forced_errors() + extra
    weighted = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget, sample_weight=weight)
    plain = find_minimum_tree_with_errors_bnb(X_rep, y_rep, n_classes, budget)
    assert weighted.tree.n_nodes == plain.tree.n_nodes
    assert weighted.status == plain.status == "optimal"
    assert weighted.stats["training_errors"] <= budget


@SETTINGS
@given(integer_weighted_data(), st.integers(0, 3), st.booleans())
def test_depth_integer_weights_equal_repeated_rows(data, depth, prefer_small):
    X, y, n_classes, weight = data
    X_rep, y_rep = repeated(X, y, weight)
    weighted = max_accuracy_on_matrix(X, y, n_classes, depth, prefer_small=prefer_small,
                                      sample_weight=weight)
    plain = max_accuracy_on_matrix(X_rep, y_rep, n_classes, depth, prefer_small=prefer_small)
    assert weighted.training_errors == plain.training_errors
    assert weighted.status == plain.status == "optimal"
    if prefer_small:
        assert weighted.tree.n_nodes == plain.tree.n_nodes


def test_weights_are_checked():
    X, y = np.array([[0], [1]]), np.array([0, 1])
    with pytest.raises(ValueError, match="sample_weight must hold one finite value"):
        find_minimum_tree_branch_and_bound(X, y, 2, sample_weight=[1.0])
    with pytest.raises(ValueError, match="finite and >= 0"):
        max_accuracy_on_matrix(X, y, 2, 1, sample_weight=[1.0, np.nan])
    with pytest.raises(ValueError, match="positive weight"):
        find_minimum_tree_with_errors_bnb(X, y, 2, 0, sample_weight=[0, 0])


@SETTINGS
@given(weighted_data(weights=(0, 1, 2, 3)), st.integers(0, 3), st.integers(0, 4))
def test_generic_search_runs_every_objective_exactly(data, depth, budget):
    """The core's generic search with each objective module equals brute force (integer
    weights, so that units are the weights)."""
    X, y, n_classes, weight = data
    brute = fronts(X, y, weight, n_classes)
    at_depth = brute(depth)
    fewest = min(at_depth.values())
    (errors, decisions, _), tree = solve(X, y, n_classes, AccuracyAtDepth(),
                                                max_depth=depth, sample_weight=weight)
    assert errors == fewest == weight[tree.predict(X) != y].sum()
    assert decisions == min(v for v, e in at_depth.items() if e == fewest) - 1
    unbounded = brute(X.shape[1])
    if budget >= group_examples(X, y, weight).forced_errors():
        front, tree = solve(X, y, n_classes, SizeWithinBudget(budget),
                                   sample_weight=weight)
        assert min(front) == min(v for v, e in unbounded.items() if e <= budget)
        assert tree.n_leaves == min(front) and weight[tree.predict(X) != y].sum() <= budget
    y = conflict_free(X, y, weight)
    (leaves, _), tree = solve(X, y, n_classes, PureSize(), sample_weight=weight)
    assert leaves == min(v for v, e in fronts(X, y, weight, n_classes)(X.shape[1]).items()
                         if e == 0) == tree.n_leaves
