"""The DT(max) dynamic programme (solve.dtmax_dp): exact against brute force and MaxSAT,
counts against their definition, deadlines and Ctrl-C keep a valid tree."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dtmax_encoding import best_bounded_tree

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.stopping import Deadline
from occamlearn.trees.data_reduction import group_examples
from occamlearn.trees.dtmax import dp_compiled, dp_numpy
from occamlearn.trees.dtmax import dynamic_programme as dtmax_dp
from occamlearn.trees.dtmax.dp_counts import depth2_costs, subset_counts, triple_counts
from occamlearn.trees.dtmax.dynamic_programme import best_tree_within_depth
from occamlearn.trees.dtmax.search import find_max_accuracy_tree
from occamlearn.trees.exact.stop import Stop


@st.composite
def noisy_data(draw):
    """(X, y, n_classes, depth): up to 14 rows over 1-5 binary features, 2-4 classes,
    duplicated and conflicting rows allowed, depth 0-5."""
    n_classes = draw(st.integers(2, 4))
    rows, features = draw(st.integers(1, 14)), draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=rows * features,
                               max_size=rows * features))).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    return X, y, n_classes, draw(st.integers(0, 5))


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@settings(max_examples=150, deadline=None)
@given(noisy_data())
def test_fewest_errors_then_fewest_decisions_match_brute_force(engine, data):
    X, y, n_classes, depth = data
    result = best_tree_within_depth(group_examples(X, y), n_classes, depth, engine=engine)
    correct, splits = best_bounded_tree(X, y, n_classes, depth)
    tree = result.tree
    assert result.status == "optimal"
    assert result.errors == len(y) - correct == int((tree.predict(X) != y).sum())
    assert result.decisions == splits == tree.n_nodes - tree.n_leaves
    assert tree.depth <= depth


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@settings(max_examples=100, deadline=None)
@given(noisy_data())
def test_errors_only_objective_matches_brute_force_and_keeps_no_useless_test(engine, data):
    X, y, n_classes, depth = data
    result = best_tree_within_depth(group_examples(X, y), n_classes, depth, prefer_small=False,
                                    engine=engine)
    tree = result.tree
    assert result.errors == len(y) - best_bounded_tree(X, y, n_classes, depth)[0]
    assert result.errors == int((tree.predict(X) != y).sum()) and tree.depth <= depth

    def errors_below(node):          # errors of the subtree at node on the training rows
        if tree.is_leaf[node]:
            return int(tree.counts[node].sum() - tree.counts[node, tree.label[node]])
        return errors_below(tree.left[node]) + errors_below(tree.right[node])

    for node in np.flatnonzero(~tree.is_leaf):
        as_leaf = int(tree.counts[node].sum() - tree.counts[node].max())
        assert errors_below(node) < as_leaf


def test_counts_match_their_definition():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (40, 7)).astype(np.float32)
    C = rng.integers(0, 3, (40, 3)).astype(np.float32)
    counts, triple = subset_counts(X, C), triple_counts(X, C)
    np.testing.assert_array_equal(counts.total, C.sum(axis=0))
    np.testing.assert_array_equal(counts.single, np.einsum("rk,rf->kf", C, X))
    np.testing.assert_array_equal(counts.pair, np.einsum("rk,rf,rg->kfg", C, X, X))
    np.testing.assert_array_equal(triple, np.einsum("rk,rf,rg,rh->kfgh", C, X, X, X))


def test_depth2_closed_form_agrees_with_the_brute_force_per_row_set():
    rng = np.random.default_rng(8)
    for _ in range(20):
        X = rng.integers(0, 2, (12, 4))
        y = rng.integers(0, 3, 12)
        C = np.eye(3, dtype=np.float32)[y]
        counts = subset_counts(X.astype(np.float32), C)
        best = depth2_costs(counts.pair[:, None], counts.single[:, None],
                            counts.total[:, None], scale=4).best[0]
        correct, splits = best_bounded_tree(X, y, 3, 2)
        assert best == (12 - correct) * 4 + splits


def test_agrees_with_maxsat_on_larger_random_data():
    rng = np.random.default_rng(21)
    for depth in (2, 3):
        X = rng.integers(0, 2, (60, 6))
        y = (X[:, 0] & X[:, 1]) ^ X[:, 2] ^ (rng.random(60) < 0.15)
        dp = find_max_accuracy_tree(X, y, 2, depth, method="dp", prefer_small=True)
        for solver in ("rc2", "lsu"):
            # (regression: an errors-only MaxSAT answer used to replace a smaller incumbent
            # of equal accuracy, and the size call's answer was then not taken)
            maxsat = find_max_accuracy_tree(X, y, 2, depth, method="maxsat", solver=solver,
                                            prefer_small=True)
            assert dp.status == maxsat.status == "optimal"
            assert dp.training_errors == maxsat.training_errors
            assert dp.tree.n_nodes == maxsat.tree.n_nodes


def slow_instance():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (400, 40))
    return X, rng.integers(0, 3, 400)


def test_deadline_returns_the_best_tree_so_far():
    X, y = slow_instance()
    began = time.perf_counter()
    result = best_tree_within_depth(group_examples(X, y), 3, 6, deadline=Deadline.after(0.5))
    assert time.perf_counter() - began < 5
    assert result.status == "feasible"
    tree = result.tree
    assert int((tree.predict(X) != y).sum()) == result.errors
    assert tree.depth <= 6


def test_estimator_time_limit_keeps_a_valid_tree():
    X, y = slow_instance()
    model = MaxAccuracyTreeClassifier(max_depth=6, binarizer=None, time_limit=0.5).fit(X, y)
    assert model.status_ == "feasible"
    assert model.training_errors_ == int((model.predict(X) != y).sum())
    assert model.errors_lower_bound_ <= model.training_errors_
    assert model.solve_stats_["total_seconds"] < 5


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_ctrl_c_keeps_the_best_tree_so_far(monkeypatch, engine):
    X, y = slow_instance()
    calls = []

    def interrupted(self):                   # Ctrl-C at the 4th poll, else the deadline
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return self.deadline is not None and self.deadline.expired()

    def check_deadline(self):
        if interrupted(self):
            raise Stop

    monkeypatch.setattr(dtmax_dp, "_compiled_ready", lambda *args: engine == "compiled")
    if engine == "numpy":
        monkeypatch.setattr(dp_numpy.NumpyDepthSearch, "check_deadline", check_deadline)
    else:
        monkeypatch.setattr(dp_compiled, "POLL_WORK", 1000)
        monkeypatch.setattr(dp_compiled.CompiledDepthSearch, "expired", interrupted)
    result = find_max_accuracy_tree(X, y, 3, 4, method="dp")
    assert len(calls) >= 4
    assert result.status == "feasible"
    assert int((result.tree.predict(X) != y).sum()) == result.training_errors
    greedy = find_max_accuracy_tree(X, y, 3, 4, method="dp", deadline=Deadline.after(1e-9))
    assert result.training_errors <= greedy.training_errors


@pytest.mark.parametrize("method", ["auto", "dp"])
def test_estimator_reports_the_dynamic_programme(method):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (80, 8))
    y = X[:, 0] ^ (X[:, 3] & X[:, 5])
    model = MaxAccuracyTreeClassifier(max_depth=3, binarizer=None, method=method,
                                      prefer_small=True).fit(X, y)
    assert model.status_ == "optimal"
    assert model.training_errors_ == model.errors_lower_bound_ == 0
    assert model.solve_stats_["backends"] == ["dp"]
    assert model.tree_.is_pure_on(X, y)
    assert model.n_nodes_ - model.tree_.n_leaves == best_bounded_tree(X, y, 2, 3)[1] == 5


def test_a_tree_with_only_forced_errors_ends_the_search():
    X = np.array(list(np.ndindex(2, 2, 2, 2)) + [(0, 0, 0, 0)])     # 16 patterns, one twice
    y = np.r_[X[:16, 0], 1]                     # y = x0, and the repeated row conflicts
    result = find_max_accuracy_tree(X, y, 2, 4)
    assert result.status == "optimal" and result.training_errors == 1
    assert result.stats["dp_subproblems"] <= 1  # the first test makes only that error
    assert find_max_accuracy_tree(X, y, 2, 4, prefer_small=True).stats["backends"] == ["dp"]


def test_large_depth_bounds_do_not_lay_out_complete_trees():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (200, 40))
    y = rng.integers(0, 2, 200)
    model = MaxAccuracyTreeClassifier(max_depth=35, binarizer=None, time_limit=0.5).fit(X, y)
    assert model.status_ in ("optimal", "feasible")          # 2**35 nodes would not fit
    assert model.training_errors_ == int((model.predict(X) != y).sum())
