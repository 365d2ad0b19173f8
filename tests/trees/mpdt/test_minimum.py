"""find_minimum_tree: brute-force sizes, known minima, time limits, enumeration handle."""

import numpy as np
import pytest
from bruteforce import count_minimum_trees, minimum_tree_size, tiny_data
from hypothesis import given, settings

from occamlearn.datasets import load_dataset
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch
from occamlearn.trees.mpdt.minimum import find_minimum_tree


def binary_dataset(name):
    X, y = load_dataset(name)
    classes, y = np.unique(y.to_numpy(), return_inverse=True)
    return X.to_numpy(), y, len(classes)


def binarised(name, rows):
    """The paper's binarisation, majority filter, a stratified sample of ``rows`` rows."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer, resolve_conflicts

    X, y = load_dataset(name)
    B = FeatureBinarizer(encoding="binary").fit_transform(X, y)
    B, y = resolve_conflicts(B, np.unique(y.to_numpy(), return_inverse=True)[1])
    B, _, y, _ = train_test_split(B, y, train_size=rows, stratify=y, random_state=0)
    return B, np.unique(y, return_inverse=True)[1], len(np.unique(y))


@settings(max_examples=30, deadline=None)
@given(tiny_data())
def test_size_matches_brute_force_for_both_backends(data):
    X, y, n_classes = data
    expected = minimum_tree_size(X, y)
    sizes = set()
    for solver in ("lsu", "rc2"):
        result = find_minimum_tree(X, y, n_classes, method="maxsat", solver=solver)
        assert result.status == "optimal"
        assert result.tree.is_pure_on(X, y)
        assert result.lower_bound == result.upper_bound == result.tree.n_nodes
        sizes.add(result.tree.n_nodes)
    assert sizes == {expected}


@pytest.mark.parametrize("name, size", [("mux6", 15), ("corral", 13)])
def test_known_minima_on_full_data(name, size):
    X, y, k = binary_dataset(name)
    seen = []
    result = find_minimum_tree(X, y, k, method="maxsat", progress=ProgressSink(
        lambda size, lower, s, tree: seen.append(tree.n_nodes)))
    assert (result.status, result.tree.n_nodes) == ("optimal", size)
    assert seen == [s for _, s in result.trace] and seen == sorted(seen, reverse=True)
    assert seen[0] == result.stats["greedy_size"] and seen[-1] == size
    assert result.tree.counts[0].sum() == len(y)


def test_iris_three_classes_lsu_and_rc2_agree():
    X, y, k = binarised("iris", 45)
    sizes = {find_minimum_tree(X, y, k, method="maxsat", solver=s).tree.n_nodes
             for s in ("lsu", "rc2")}
    assert len(sizes) == 1
    result = find_minimum_tree(X, y, k, method="maxsat")
    assert result.status == "optimal" and result.tree.is_pure_on(X, y)
    assert set(result.tree.label[result.tree.is_leaf].tolist()) == {0, 1, 2}


def test_time_limit_returns_a_pure_feasible_tree():
    X, y, k = binarised("monks-1", 300)
    result = find_minimum_tree(X, y, k, method="maxsat", deadline=Deadline.after(0.5))
    assert result.status in {"feasible", "optimal"}
    assert result.tree.is_pure_on(X, y)
    assert result.stats["solve_seconds"] < 2.5  # the encoding itself is not interruptible
    if result.status == "feasible":
        assert result.lower_bound <= result.upper_bound


def test_single_class_is_a_single_leaf():
    X, y = np.array([[0, 1], [1, 1]]), np.array([1, 1])
    result = find_minimum_tree(X, y, 2)
    assert (result.status, result.tree.n_nodes, result.tree.label.tolist()) == (
        "optimal", 1, [1])


def test_conflicting_rows_raise():
    with pytest.raises(ValueError, match="no pure tree exists"):
        find_minimum_tree(np.array([[0], [0]]), np.array([0, 1]), 2)


def test_bad_arguments_are_rejected():
    X, y = np.array([[0], [1]]), np.array([0, 1])
    with pytest.raises(ValueError, match="Valid names: .*lsu.*rc2"):
        find_minimum_tree(X, y, 2, solver="maxhs")
    with pytest.raises(ValueError, match="kissat is not incremental"):
        find_minimum_tree(X, y, 2, sat_solver="kissat404")
    with pytest.raises(ValueError, match="upper_bound must be an odd positive int"):
        find_minimum_tree(X, y, 2, upper_bound=4)


@settings(max_examples=15, deadline=None)
@given(tiny_data())
def test_optimal_solver_holds_every_minimum_tree(data):
    X, y, n_classes = data
    if len(np.unique(y)) < 2:
        return
    for solver in ("lsu", "rc2"):
        search = MinimumTreeSearch(X, y, n_classes, solver=solver)
        try:
            result = search.run()
            handle = search.optimal_solver()
            targets = set(handle.encoding.target_variables())
            trees = set()
            while handle.solver.solve(assumptions=handle.assumptions):
                model = handle.solver.get_model()
                tree = handle.encoding.decode(model)
                assert tree.n_nodes == result.tree.n_nodes
                trees.add(tree.structure_key())
                handle.solver.add_clause([-lit for lit in model if abs(lit) in targets])
        finally:
            search.close()
        assert len(trees) == count_minimum_trees(X, y)


@pytest.mark.parametrize("seed", [28, 33, 37])
def test_enumeration_starts_from_a_size_another_engine_proved(seed):
    """A search that adopts the branch and bound's proven result encodes n = the minimum at
    once, and its formula still holds exactly the brute-force minimum trees."""
    from bruteforce import count_minimum_trees

    from occamlearn.trees.mpdt.all_minimum.enumerate import collect_trees
    from occamlearn.trees.mpdt.all_minimum.minimum_trees import optimal_formula

    rng = np.random.default_rng(seed)
    X = np.unique(rng.integers(0, 2, (12, 6)), axis=0)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3])).astype(np.int64)
    proven = find_minimum_tree(X, y, 2, method="bnb")
    assert proven.status == "optimal"
    search = MinimumTreeSearch(X, y, 2)
    search.adopt(proven)
    found = collect_trees(optimal_formula(search, live=False), None)
    assert found.complete and len(found.trees) == count_minimum_trees(X, y)
    assert {t.n_nodes for t in found.trees} == {proven.tree.n_nodes}
    from occamlearn.model.tree import Tree

    leaf = Tree([-1], [-1], [-1], [0], np.zeros((1, 2), dtype=np.int64), X.shape[1])
    with pytest.raises(ValueError, match="pure"):
        search.adopt(type(proven)(leaf, "optimal", 1, 1))  # not a tree of this data
    search.close()
