"""Smallest tree within an error budget: exhaustive search on tiny data, conflicts, errors."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.tree  # noqa: F401  (imported here so the timed search does not pay for it)
from bruteforce import minimum_size_with_errors, minimum_tree_size

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.error_budget.encoding import encode_error_budget, relax_errors_needed
from occamlearn.trees.mpdt.error_budget.maxsat_search import find_minimum_tree_with_errors


def tiny(rng):
    n = int(rng.integers(2, 11))
    n_features = int(rng.integers(1, 5))
    n_classes = int(rng.integers(2, 4))
    return rng.integers(0, 2, (n, n_features)), rng.integers(0, n_classes, n), n_classes


@pytest.mark.parametrize("solver", ["lsu", "rc2"])
def test_matches_exhaustive_search(solver):
    rng = np.random.default_rng(0 if solver == "lsu" else 1)
    for _ in range(40):
        X, y, n_classes = tiny(rng)
        budget = relax_errors_needed(X, y) + int(rng.integers(0, 3))
        result = find_minimum_tree_with_errors(X, y, n_classes, budget, solver=solver)
        assert result.status == "optimal"
        assert result.tree.n_nodes == minimum_size_with_errors(X, y, n_classes, budget)
        errors = int((result.tree.predict(X) != y).sum())
        assert errors == result.stats["training_errors"] <= budget
        assert result.tree.counts[0].sum() == len(y)


def test_zero_budget_is_the_minimum_pure_tree():
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 15:
        X, y, n_classes = tiny(rng)
        if relax_errors_needed(X, y):
            continue
        result = find_minimum_tree_with_errors(X, y, n_classes, 0)
        assert result.tree.n_nodes == minimum_tree_size(X, y)
        assert result.tree.is_pure_on(X, y)
        checked += 1


def test_budget_shrinks_the_tree_monotonically():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 2, (14, 4))
    y = X[:, 0] ^ X[:, 1] ^ (X[:, 2] & X[:, 3])
    sizes = [find_minimum_tree_with_errors(X, y, 2, e).tree.n_nodes for e in range(8)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
    assert sizes[0] == minimum_tree_size(X, y)


def test_conflicting_rows_use_up_the_budget():
    X = np.array([[0, 0], [0, 0], [0, 0], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 0, 1, 1, 0, 1])
    assert relax_errors_needed(X, y) == 2
    result = find_minimum_tree_with_errors(X, y, 2, 2)
    assert result.status == "optimal" and result.stats["training_errors"] == 2
    assert result.tree.n_nodes == 3          # x0 separates the rest
    with pytest.raises(ValueError, match="max_errors=1 is below the 2 errors"):
        find_minimum_tree_with_errors(X, y, 2, 1)


def test_large_groups_are_never_relaxed():
    X = np.array([[0]] * 5 + [[1]] * 2)
    y = np.array([0] * 5 + [1] * 2)
    encoding = encode_error_budget(X, y, 2, 1, upper_bound=3)
    assert encoding.groups.count.tolist() == [5, 2]
    units = [c for c in encoding.wcnf.hard if len(c) == 1]
    assert all([-int(v)] in units for v in encoding.relax)    # both groups exceed e = 1


def test_time_limit_returns_a_tree_within_budget():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, (80, 8))
    y = rng.integers(0, 2, 80)
    seen = []
    result = find_minimum_tree_with_errors(X, y, 2, 12, deadline=Deadline.after(0.5),
                                           progress=ProgressSink(
                                               lambda size, lower, s, tree: seen.append(size)))
    assert result.status in ("optimal", "feasible")
    assert result.stats["training_errors"] <= 12
    assert result.lower_bound <= result.tree.n_nodes == seen[-1]
    assert seen == sorted(seen, reverse=True)
    assert result.stats["seconds"] < 0.5 + 2 * result.stats["encode_seconds"] + 2


@pytest.mark.parametrize("budget", [-1, 1.5, True])
def test_bad_budget_is_rejected(budget):
    with pytest.raises(ValueError, match="max_errors"):
        find_minimum_tree_with_errors(np.array([[0], [1]]), np.array([0, 1]), 2, budget)
