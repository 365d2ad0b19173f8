"""Branch and bound for minimum pure trees: exact against brute force and MaxSAT, anytime."""

from __future__ import annotations

import time

import numpy as np
import pytest
from bruteforce import minimum_tree_size
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.minimum import find_minimum_tree


@st.composite
def small_data(draw, min_rows=6, max_rows=14):
    """(X, y, n_classes): 6-14 rows, 2-6 binary features, 2 or 3 classes, no conflicts."""
    n_classes = draw(st.sampled_from([2, 3]))
    rows, features = draw(st.integers(min_rows, max_rows)), draw(st.integers(2, 6))
    bits = draw(st.lists(st.integers(0, 1), min_size=rows * features, max_size=rows * features))
    X = np.array(bits).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    return X, y[first][inverse.ravel()], n_classes


def assert_pure(tree, X, y):
    assert np.array_equal(tree.predict(X), y)
    assert tree.counts.sum(axis=1)[0] == len(y)


@settings(max_examples=500, deadline=None)
@given(small_data())
def test_size_equals_brute_force(data):
    X, y, n_classes = data
    result = find_minimum_tree_branch_and_bound(X, y, n_classes)
    assert result.status == "optimal"
    assert result.tree.n_nodes == minimum_tree_size(X, y)
    assert result.lower_bound == result.upper_bound == result.tree.n_nodes
    assert_pure(result.tree, X, y)
    assert result.trace[-1][1:] == (result.upper_bound, result.lower_bound)


@settings(max_examples=50, deadline=None)
@given(small_data(min_rows=6, max_rows=10))
def test_size_equals_maxsat(data):
    X, y, n_classes = data
    ours = find_minimum_tree_branch_and_bound(X, y, n_classes)
    theirs = find_minimum_tree(X, y, n_classes, solver="lsu")
    assert theirs.status == "optimal"
    assert ours.tree.n_nodes == theirs.tree.n_nodes


class StopAfter(Deadline):
    """A deadline that expires at its ``polls``-th look (or raises ``error`` then)."""

    def __init__(self, polls, error=None):
        super().__init__(None)
        self.polls, self.error = polls, error

    def expired(self):
        self.polls -= 1
        if self.polls < 0 and self.error is not None:
            raise self.error
        return self.polls < 0 or super().expired()


def stopped_deadline():
    deadline = Deadline.after(None)
    deadline.request_stop()
    return deadline


def hard_instance(rows=300, features=40, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(rows, features))
    y = rng.integers(0, n_classes, size=rows)
    X, first = np.unique(X, axis=0, return_index=True)
    return X, y[first], n_classes


def check_stopped(result, X, y, n_classes):
    assert result.status in ("feasible", "optimal")
    assert_pure(result.tree, X, y)
    assert result.lower_bound <= result.upper_bound == result.tree.n_nodes
    assert result.lower_bound % 2 == 1
    assert result.lower_bound >= 2 * len(np.unique(y)) - 1


def test_time_limit_holds():
    X, y, n_classes = hard_instance()
    start = time.perf_counter()
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=Deadline.after(0.5))
    assert time.perf_counter() - start <= 0.5 * 1.1 + 1.0
    check_stopped(result, X, y, n_classes)
    assert result.status == "feasible"
    assert result.stats["stopped"]


def test_should_stop_immediately_returns_a_pure_tree():
    X, y, n_classes = hard_instance(seed=1)
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=stopped_deadline())
    check_stopped(result, X, y, n_classes)
    assert result.status == "feasible"


@settings(max_examples=40, deadline=None)
@given(small_data(min_rows=10, max_rows=14), st.integers(1, 6))
def test_lower_bound_when_stopped_is_proven(data, polls):
    X, y, n_classes = data
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=StopAfter(polls))
    minimum = minimum_tree_size(X, y)
    assert result.lower_bound <= minimum <= result.upper_bound
    assert_pure(result.tree, X, y)
    if result.status == "optimal":
        assert result.upper_bound == minimum


def test_lower_bound_of_a_stopped_hard_search_is_below_the_optimum():
    X, y, n_classes = hard_instance(rows=60, features=12, n_classes=2, seed=3)
    exact = find_minimum_tree_branch_and_bound(X, y, n_classes)
    assert exact.status == "optimal"
    for limit in (0.0, 0.01, 0.05):
        stopped = find_minimum_tree_branch_and_bound(X, y, n_classes,
                                                deadline=Deadline.after(limit))
        assert stopped.lower_bound <= exact.upper_bound <= stopped.upper_bound


def test_conflicting_rows_raise():
    X = np.array([[0, 1], [0, 1], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="2 groups"):
        find_minimum_tree_branch_and_bound(X, y, 2)


def test_upper_bound_tree_smaller_than_greedy_is_the_first_incumbent():
    X, y, n_classes = hard_instance(rows=60, features=12, n_classes=2, seed=3)
    optimum = find_minimum_tree_branch_and_bound(X, y, n_classes)
    greedy = optimum.trace[0][1]
    assert optimum.tree.n_nodes < greedy
    seen = []
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, upper_bound_tree=optimum.tree,
                                           progress=ProgressSink(lambda *args: seen.append(args)))
    assert result.trace[0][1] == optimum.tree.n_nodes
    assert seen[0][0] == optimum.tree.n_nodes and seen[0][3] is not None
    assert result.status == "optimal"


def test_progress_reports_improving_bounds_and_feature_names():
    X, y, n_classes = hard_instance(rows=60, features=12, n_classes=2, seed=3)
    seen = []
    names = tuple(f"f{j}" for j in range(X.shape[1]))
    result = find_minimum_tree_branch_and_bound(X, y, n_classes, feature_names=names,
                                           progress=ProgressSink(lambda *args: seen.append(args)))
    uppers = [s[0] for s in seen]
    lowers = [s[1] for s in seen]
    assert uppers == sorted(uppers, reverse=True) and lowers == sorted(lowers)
    assert seen[-1][:2] == (result.upper_bound, result.lower_bound)
    assert result.tree.feature_names == names


def test_single_class_and_bool_input():
    X = np.array([[True, False], [False, True]])
    result = find_minimum_tree_branch_and_bound(X, np.array([1, 1]), 2)
    assert result.tree.n_nodes == 1 and result.tree.label[0] == 1
    assert result.status == "optimal" and result.lower_bound == 1


@settings(max_examples=200, deadline=None)
@given(small_data())
def test_python_and_compiled_engines_agree_with_brute_force(data):
    X, y, n_classes = data
    minimum = minimum_tree_size(X, y)
    for engine in ("python", "compiled"):
        result = find_minimum_tree_branch_and_bound(X, y, n_classes, engine=engine, quick_calls=0)
        assert result.stats["engine"] == engine
        assert result.status == "optimal" and result.tree.n_nodes == minimum
        assert_pure(result.tree, X, y)


@pytest.mark.parametrize("memory_bytes", [2**30, 2**12])
def test_compiled_engine_grows_or_clears_its_table(monkeypatch, memory_bytes):
    from occamlearn.trees.mpdt.bnb import branch_and_bound
    from occamlearn.trees.mpdt.bnb import engines as bnb_search

    monkeypatch.setattr(bnb_search.CompiledRowSetSearch, "INITIAL_CAPACITY", 64)
    monkeypatch.setattr(bnb_search.CompiledRowSetSearch, "MEMORY_BYTES", memory_bytes)
    rows = 60 if memory_bytes > 2**20 else 24  # without a memo the search is exponential
    X, y, n_classes = hard_instance(rows=rows, features=12, n_classes=2, seed=3)
    results = [branch_and_bound.find_minimum_tree_branch_and_bound(X, y, n_classes, engine=engine,
                                                              quick_calls=0)
               for engine in ("python", "compiled")]
    assert results[0].tree.n_nodes == results[1].tree.n_nodes
    assert results[1].status == "optimal"
    assert results[1].stats["table_capacity"] > 64
    assert results[1].stats["table_saturated"] == (memory_bytes < 2**20)


def test_compiled_table_grows_up_to_its_memory_cap(monkeypatch):
    """A cap that is not a power of four times the first capacity is still reached: 64
    slots of 16 bytes under a cap of 512 grow to 256, then to 512 (not stop at 256)."""
    from occamlearn.trees.mpdt.bnb import branch_and_bound, pair_bound
    from occamlearn.trees.mpdt.bnb import engines as bnb_search

    monkeypatch.setattr(bnb_search.CompiledRowSetSearch, "INITIAL_CAPACITY", 64)
    monkeypatch.setattr(bnb_search.CompiledRowSetSearch, "MEMORY_BYTES", 512 * 16)
    monkeypatch.setattr(pair_bound, "SEED_SECONDS", 0.0)  # its bounds leave less to store
    X, y, n_classes = hard_instance(rows=24, features=12, n_classes=2, seed=3)
    result = branch_and_bound.find_minimum_tree_branch_and_bound(X, y, n_classes, engine="compiled",
                                                            quick_calls=0)
    assert result.status == "optimal" and result.tree.n_nodes == minimum_tree_size(X, y)
    assert result.stats["table_capacity"] == 512
    assert result.stats["table_saturated"]


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_ctrl_c_returns_the_incumbent_marked_interrupted(engine):
    X, y, n_classes = hard_instance(seed=2)
    result = find_minimum_tree_branch_and_bound(X, y, n_classes,
                                           deadline=StopAfter(0, KeyboardInterrupt),
                                           engine=engine, quick_calls=0)
    assert result.stats["interrupted"] and result.status == "feasible"
    check_stopped(result, X, y, n_classes)
