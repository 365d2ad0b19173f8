"""The compiled one-deletion search (``mpdt.error_budget.one_error``) against brute force on
tiny data: one(S) = min(pure(S), min over deletable r of pure(S - r)), its tree, its bound, and the
size-error path's phase that uses it (``size_error.frontier``, through ``settle_one_deletion``)."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import brute_curve, minimum_tree_size, tiny_data, weighted_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.compiling import kernel_cache
from occamlearn.trees.exact.data import reduce_columns


@pytest.fixture(scope="module", autouse=True)
def kernels():
    kernel_cache.load("bnb", search=True)
    kernel_cache.load("one-error")


def brute_one(X, y, deletable) -> int:
    """Fewest leaves of a tree classifying (X, y) correctly but for at most one deletable
    row, by the brute-force pure minimum of every deletion."""
    leaves = [(minimum_tree_size(X, y) + 1) // 2]
    for r in np.flatnonzero(deletable):
        keep = np.arange(len(y)) != r
        leaves.append((minimum_tree_size(X[keep], y[keep]) + 1) // 2 if keep.any() else 1)
    return int(min(leaves))


def one_search(X, y, n_classes, deletable):
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch
    from occamlearn.trees.mpdt.error_budget.one_error import OneErrorSearch

    rows = X.astype(np.int64)
    pure = CompiledRowSetSearch(rows, y.astype(np.int64), n_classes,
                                reduce_columns(rows).column.tolist())
    return OneErrorSearch(pure, deletable)


@st.composite
def distinct_data(draw):
    X, y, n_classes = draw(tiny_data())
    _, first = np.unique(X, axis=0, return_index=True)
    first = np.sort(first)
    X, y = X[first], y[first]
    deletable = np.array(draw(st.lists(st.booleans(), min_size=len(y), max_size=len(y))))
    return X, y, n_classes, deletable


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_data())
def test_one_deletion_minimum_and_tree_match_brute_force(data):
    X, y, n_classes, deletable = data
    expected = brute_one(X, y, deletable)
    search = one_search(X, y, n_classes, deletable)
    full = (1 << len(y)) - 1
    for budget in range(1, expected):  # below the minimum: a proven bound above the budget
        assert search.solve(full, budget) > budget
    assert search.solve(full, expected) == expected
    tree = Tree.from_nested(search.nested(full), X.shape[1], n_classes)
    assert tree.n_leaves == expected
    wrong = np.flatnonzero(tree.predict(X) != y)
    assert len(wrong) <= 1 and deletable[wrong].all()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_data(), st.integers(0, 2**10 - 1))
def test_one_error_incompatibility_bound_is_a_lower_bound(data, subset):
    from occamlearn.trees.exact.packed import pack_rows
    from occamlearn.trees.mpdt.error_budget.one_error_bounds import one_error_incompatibility

    X, y, n_classes, deletable = data
    rows = np.array([q for q in range(len(y)) if subset >> q & 1] or [0], dtype=np.int64)
    bound = one_error_incompatibility(pack_rows(X.astype(np.int64)), y.astype(np.int64), rows,
                                      deletable, n_classes, 10**9)
    assert 1 <= bound <= brute_one(X[rows], y[rows], deletable[rows])


def test_the_bound_sees_a_pair_witnessed_by_the_deletable_row_only():
    """Two rows of class 0 whose subcube holds one row of class 1: incompatible for a pure
    tree (2 leaves for them, 3 in all), compatible once that row may go (one leaf)."""
    from occamlearn.trees.exact.packed import pack_rows
    from occamlearn.trees.mpdt.error_budget.one_error_bounds import one_error_incompatibility

    X = np.array([[0, 0], [1, 1], [0, 1]])
    y = np.array([0, 0, 1])
    packed, rows = pack_rows(X), np.arange(3)
    assert one_error_incompatibility(packed, y, rows, np.array([False] * 3), 2, 10**9) == 3
    assert one_error_incompatibility(packed, y, rows, np.array([False, False, True]), 2,
                                     10**9) == 1
    assert brute_one(X, y, np.array([False, False, True])) == 1


def pattern_rows(search):
    """The search's patterns expanded to one row per (pattern, class) of positive weight,
    with that weight in the search's units: brute_curve's input."""
    view = search.view
    X, y, w = [], [], []
    for p, row in enumerate(view.groups.patterns):
        for k in range(search.n_classes):
            if view.weights[p, k] > 0:
                X.append(row)
                y.append(k)
                w.append(int(view.weights[p, k]))
    return np.array(X), np.array(y), np.array(w)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_data(max_rows=7))
def test_phase_settles_the_first_budget_above_the_forced_errors(data):
    """After ``settle_one_deletion`` the root's bounds at forced + m hold best(forced + m)
    (brute force), and meet there with two classes."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.bnb_engine import FORCED, BudgetRowSetSearch
    from occamlearn.trees.mpdt.error_budget.one_error import settle_one_deletion
    from occamlearn.trees.mpdt.error_budget.pure_oracle import decided_patterns, pure_oracle
    from occamlearn.trees.weights import integer_weights

    X, y, n_classes, weight = data
    units, _ = integer_weights(weight, len(y))
    search = BudgetRowSetSearch(group_examples(X, y, units), n_classes)
    search.pure = pure_oracle(search, None)
    search.seed_fronts(search.greedy(search.view.root))
    _, labels, margins = decided_patterns(search.view.weights)
    stats = {}
    settle_one_deletion(search, Deadline.after(60), stats)
    if len(set(labels.tolist())) < 2:
        assert "one_error_budget" not in stats
        return
    entry = search.entry(search.view.root)
    budget = entry[FORCED] + int(margins.min())
    px, py, pw = pattern_rows(search)
    curve = brute_curve(px, py, n_classes, pw, 2 * len(py) + 1)
    best = next(leaves for leaves, errors in enumerate(curve, 1) if errors <= budget)
    assert search.lower(entry, budget) <= best <= search.upper(entry, budget)
    if n_classes == 2:
        assert search.lower(entry, budget) == search.upper(entry, budget) == best


def test_phase_certifies_a_path_the_walk_leaves_open(monkeypatch):
    """Noisy data, with the walk made to stop before the small budgets (as on back, where
    it cannot settle them in time): the phase runs, and the path is the one proven by the
    walk alone."""
    from occamlearn.trees.size_error import frontier

    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(60, 8))
    y = ((X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])).astype(int)
    y[rng.random(60) < 0.1] ^= 1
    whole = frontier.find_size_error_frontier(X, y, 2)
    assert whole.status == "optimal"
    walk, calls = frontier._staircase, []

    def deferring_walk(search, max_leaves, queries, until=None):
        calls.append(until)
        if len(calls) == 1:  # down to the small budgets, then "not done"
            walk(search, max_leaves, queries, until)
            return False
        if len(calls) == 2:  # the small walk runs out of its share at once
            raise frontier.Stop
        return walk(search, max_leaves, queries, until)

    monkeypatch.setattr(frontier, "_staircase", deferring_walk)
    phased = frontier.find_size_error_frontier(X, y, 2, deadline=Deadline.after(120))
    assert phased.stats["one_error_budget"] >= 1 and phased.stats["one_error_calls"] > 0
    assert "core_budgets" not in phased.stats  # the phase settled its budget: no core proofs
    assert phased.status == "optimal"
    assert phased.errors.tolist() == whole.errors.tolist()
    assert phased.lower.tolist() == whole.lower.tolist()


def test_without_cached_kernels_the_fit_keeps_its_walk(monkeypatch):
    """A fresh install (kernels not in the disk cache yet): the one-deletion step does
    nothing and the max_errors fit still proves the same tree with the Python walk."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(40, 8))
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]).astype(int)
    y[rng.random(40) < 0.15] ^= 1
    budget = group_examples(X, y).forced_errors() + 1
    with_search = find_minimum_tree_with_errors_bnb(X, y, 2, budget)
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: name != "one-error")
    without = find_minimum_tree_with_errors_bnb(X, y, 2, budget)
    assert with_search.status == without.status == "optimal"
    assert with_search.tree.n_nodes == without.tree.n_nodes
    assert with_search.stats["one_error_calls"] > 0 and "one_error_calls" not in without.stats


def test_core_proofs_without_cached_kernels_report_nothing_done(monkeypatch):
    """A fresh install: the core proofs, which the walk runs when the one-deletion step
    could not, return their (zero) counts rather than nothing."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.bnb_engine import BudgetRowSetSearch
    from occamlearn.trees.size_error.core_budgets import prove_small_budgets

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 1, 1, 0, 1])
    search = BudgetRowSetSearch(group_examples(X, y), 2)
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: False)
    assert prove_small_budgets(search, Deadline.after(10)) == {"core_budgets": 0,
                                                              "core_tests": 0}
