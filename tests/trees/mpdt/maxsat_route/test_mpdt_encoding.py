"""The MPDT encoding against an independent brute force (tests/bruteforce.py)."""

import numpy as np
import pytest
from bruteforce import count_minimum_trees, minimum_tree_size
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.examples.rc2 import RC2
from pysat.solvers import Solver

from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt


def consistent_data(draw, max_rows=9, max_features=4, n_classes=2):
    rows = draw(st.integers(2, max_rows))
    features = draw(st.integers(1, max_features))
    bits = draw(st.lists(st.integers(0, 1), min_size=rows * features,
                         max_size=rows * features))
    X = np.array(bits).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    y = y[first][inverse.ravel()]  # identical rows share a label
    return X, y


@st.composite
def datasets(draw):
    n_classes = draw(st.sampled_from([2, 3]))
    X, y = consistent_data(draw, n_classes=n_classes)
    return X, y, n_classes


def optimum(encoding):
    with RC2(encoding.wcnf, solver="cadical195") as rc2:
        model = rc2.compute()
        return rc2.cost, model


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets())
def test_optimal_cost_is_half_the_brute_force_minimum(data):
    X, y, n_classes = data
    if len(np.unique(y)) < 2:
        return
    size = minimum_tree_size(X, y)
    encoding = encode_mpdt(X, y, n_classes, upper_bound=size + 4)
    cost, model = optimum(encoding)
    tree = encoding.decode(model)
    assert cost == (size + 1) // 2  # Proposition 1
    assert tree.n_nodes == size
    assert tree.is_pure_on(X, y)


def count_models_over_targets(encoding):
    targets = encoding.target_variables()
    trees = set()
    with Solver(name="cadical195", bootstrap_with=encoding.wcnf.hard) as solver:
        while solver.solve():
            model = solver.get_model()
            trees.add(encoding.decode(model).structure_key())
            solver.add_clause([-lit for lit in model if abs(lit) in set(targets)])
    return len(trees)


@settings(max_examples=25, deadline=None)
@given(datasets())
def test_exact_size_encoding_has_one_model_per_minimum_tree(data):
    X, y, n_classes = data
    if len(np.unique(y)) < 2:
        return
    size = int(minimum_tree_size(X, y))
    encoding = encode_mpdt(X, y, n_classes, upper_bound=size, lower_bound=size)
    assert count_models_over_targets(encoding) == count_minimum_trees(X, y)


def test_gap_is_closed_on_mux6():
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("mux6")
    encoding = encode_mpdt(X.to_numpy(), y.to_numpy(), 2, upper_bound=21)
    cost, model = optimum(encoding)
    assert (cost, encoding.decode(model).n_nodes) == (8, 15)


def test_duplicate_rows_are_encoded_once():
    X = np.array([[0, 1], [1, 0], [0, 1], [1, 1]])
    y = np.array([0, 1, 0, 1])
    once = encode_mpdt(X[[0, 1, 3]], y[[0, 1, 3]], 2, upper_bound=5)
    twice = encode_mpdt(X, y, 2, upper_bound=5)
    assert once.n_clauses == twice.n_clauses
    tree = twice.decode(optimum(twice)[1])
    assert tree.counts[0].tolist() == [2, 2]  # counts use every given row


def test_constant_columns_are_never_tested():
    X = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1]])
    y = np.array([0, 1, 1, 0])  # xor of columns 1 and 2
    encoding = encode_mpdt(X, y, 2, upper_bound=9)
    tree = encoding.decode(optimum(encoding)[1])
    assert tree.n_nodes == 7 and tree.is_pure_on(X, y)
    assert 0 not in tree.feature.tolist()
    assert encoding.variables.n_features == 2


def test_conflicting_rows_are_named():
    X = np.array([[0, 1], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"rows \[0, 2\] have labels \[0, 1\]"):
        encode_mpdt(X, np.array([0, 1, 1]), 2, upper_bound=5)


@pytest.mark.parametrize("kwargs, message", [
    ({"upper_bound": 4}, "upper_bound must be an odd int"),
    ({"upper_bound": 5, "lower_bound": 7}, "exceeds upper_bound"),
    ({"upper_bound": 5, "lower_bound": 1}, "lower_bound must be an odd int >= 3"),
])
def test_bad_bounds_are_rejected(kwargs, message):
    X, y = np.array([[0], [1]]), np.array([0, 1])
    with pytest.raises(ValueError, match=message):
        encode_mpdt(X, y, 2, **kwargs)


def test_non_binary_input_is_rejected():
    with pytest.raises(ValueError, match="only 0/1"):
        encode_mpdt(np.array([[0, 2], [1, 0]]), np.array([0, 1]), 2, upper_bound=3)
    with pytest.raises(ValueError, match="class indices in 0..1"):
        encode_mpdt(np.array([[0], [1]]), np.array([0, 2]), 2, upper_bound=3)


def test_target_variables_are_the_feature_assignments():
    X, y = np.array([[0, 0], [1, 1]]), np.array([0, 1])
    encoding = encode_mpdt(X, y, 2, upper_bound=5)
    names = {encoding.pool.obj(v)[0] for v in encoding.target_variables()}
    assert names == {"a"}
    assert len(encoding.target_variables()) == 2 * 5


def test_tree_literals_describe_the_tree_they_come_from():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    encoding = encode_mpdt(X, y, 2, upper_bound=9)
    tree = encoding.decode(optimum(encoding)[1])
    with Solver(name="cadical195", bootstrap_with=encoding.wcnf.hard) as solver:
        assert solver.solve(assumptions=encoding.tree_literals(tree))
        assert encoding.decode(solver.get_model()) == tree
