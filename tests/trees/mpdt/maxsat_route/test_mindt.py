"""MinDT baseline: same optimum as the MaxSAT back-ends, monotone trace, exactly-n queries."""

from itertools import pairwise

import numpy as np
import pytest
from bruteforce import minimum_tree_size, tiny_data
from hypothesis import given, settings

from occamlearn.datasets import load_dataset
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.maxsat_route.mindt import exact_size_query, find_minimum_tree_mindt
from occamlearn.trees.mpdt.minimum import find_minimum_tree


def check_trace(trace):
    times = [t for t, _ in trace]
    sizes = [s for _, s in trace]
    assert times == sorted(times)
    assert all(a > b for a, b in pairwise(sizes))


@settings(max_examples=25, deadline=None)
@given(tiny_data())
def test_mindt_matches_brute_force_and_lsu(data):
    X, y, n_classes = data
    result = find_minimum_tree_mindt(X, y, n_classes)
    assert result.status == "optimal"
    assert result.tree.is_pure_on(X, y)
    assert result.tree.n_nodes == minimum_tree_size(X, y)
    assert result.lower_bound == result.upper_bound == result.tree.n_nodes
    assert find_minimum_tree(X, y, n_classes, solver="lsu").tree.n_nodes == result.tree.n_nodes
    check_trace(result.trace)


def test_mux6_steps_down_by_two_to_the_known_minimum():
    X, y = load_dataset("mux6")
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    seen = []
    result = find_minimum_tree_mindt(X.to_numpy(), y, 2,
                                     progress=ProgressSink(
                                         lambda size, lower, s, tree: seen.append(tree.n_nodes)))
    assert (result.status, result.tree.n_nodes) == ("optimal", 15)
    sizes = [s for _, s in result.trace]
    assert seen == sizes
    assert all(a - b == 2 for a, b in pairwise(sizes[1:]))  # every size after the greedy
    check_trace(result.trace)
    answers = [answer for _, answer, _, _ in result.stats["queries"]]
    assert answers[-1] is False and all(answers[:-1])  # the UNSAT at 13 proves 15


def test_exact_size_query_forces_every_node():
    from pysat.solvers import Solver

    X, y = load_dataset("mux6")
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    for n_nodes, satisfiable in ((13, False), (15, True), (17, True)):
        hard, encoding = exact_size_query(X.to_numpy(), y, 2, n_nodes)
        with Solver(name="cadical195", bootstrap_with=hard) as solver:
            assert solver.solve() is satisfiable
            if satisfiable:
                assert encoding.decode(solver.get_model()).n_nodes == n_nodes


def test_time_limit_returns_best_so_far_as_feasible():
    # monks-1 (bit-encoded): the greedy tree has 147 nodes, the minimum 29; MinDT needs far
    # more than 0.3 s to walk down from one to the other, on any machine
    from occamlearn.binarize import FeatureBinarizer

    X, y = load_dataset("monks-1")
    X = FeatureBinarizer(encoding="binary").fit_transform(X).astype(np.uint8)
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    result = find_minimum_tree_mindt(X, y, 2, deadline=Deadline.after(0.3))
    assert result.status == "feasible"
    assert result.tree.is_pure_on(X, y)
    assert result.lower_bound < result.upper_bound == result.tree.n_nodes
    check_trace(result.trace)


def test_upper_bound_below_the_minimum_keeps_the_greedy_tree_and_proves_a_bound():
    X, y = load_dataset("corral")
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    result = find_minimum_tree_mindt(X.to_numpy(), y, 2, upper_bound=11)
    assert result.status == "feasible"  # no tree of <= 11 nodes, the greedy one is larger
    assert result.lower_bound == 13 and result.tree.n_nodes > 13


@pytest.mark.parametrize("kwargs, match", [
    ({"sat_solver": "nope"}, "sat_solver"),
    ({"deadline": 3.0}, "deadline"),
    ({"upper_bound": 4}, "upper_bound"),
])
def test_bad_arguments_raise_value_error(kwargs, match):
    X = np.array([[0, 1], [1, 0]])
    with pytest.raises((ValueError, TypeError), match=match):
        find_minimum_tree_mindt(X, np.array([0, 1]), 2, **kwargs)


def test_mindt_through_find_minimum_tree_and_the_estimator():
    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    X, y = load_dataset("corral")
    codes = np.unique(y.to_numpy(), return_inverse=True)[1]
    result = find_minimum_tree(X.to_numpy(), codes, 2, method="mindt")
    assert (result.status, result.tree.n_nodes, result.stats["algorithm"]) == (
        "optimal", 13, "mindt")
    model = MinimumPureTreeClassifier(method="mindt", binarizer=None).fit(X, y)
    assert (model.status_, model.n_nodes_) == ("optimal", 13)
    assert [s for _, s in model.solve_stats_["trace"]][-1] == 13


def test_a_first_query_below_the_lower_bound_proves_nothing():
    """upper_bound below lower_bound: no query runs, so the greedy tree is not "optimal"."""
    X, y = load_dataset("corral")
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    result = find_minimum_tree_mindt(X.to_numpy(), y, 2, upper_bound=9, lower_bound=11)
    if result.tree.n_nodes > 11:  # the greedy tree is larger than the bound the caller gave
        assert result.status == "feasible" and result.lower_bound == 11
    else:
        assert result.status == "optimal"
