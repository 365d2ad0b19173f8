"""DT(max) encoding against an exhaustive search over trees of bounded depth on tiny data."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import best_bounded_tree, random_matrix
from pysat.examples.rc2 import RC2

from occamlearn.trees.dtmax.maxsat.encoding import encode_dtmax
from occamlearn.trees.exact.data import group_examples, reduce_columns


def solve(wcnf):
    with RC2(wcnf, solver="cadical195") as rc2:
        model = rc2.compute()
        return model, rc2.cost


@pytest.mark.parametrize("seed", range(4))
def test_errors_then_size_match_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        X, y, n_classes = random_matrix(rng)
        depth = int(rng.integers(0, 4))
        encoding = encode_dtmax(X, y, n_classes, depth, prefer_small=True)
        model, errors = solve(encoding.wcnf)
        tree = encoding.decode(model)
        correct, splits = best_bounded_tree(X, y, n_classes, depth)
        assert int((tree.predict(X) == y).sum()) == correct == len(y) - errors
        assert tree.depth <= depth
        model, decisions = solve(encoding.smallest_within(errors))
        small = encoding.decode(model)
        assert int((small.predict(X) != y).sum()) == errors
        assert small.n_leaves - 1 == splits == decisions and small.depth <= depth


def test_without_prefer_small_cost_counts_errors():
    rng = np.random.default_rng(7)
    for _ in range(20):
        X, y, n_classes = random_matrix(rng)
        encoding = encode_dtmax(X, y, n_classes, 2)
        model, cost = solve(encoding.wcnf)
        tree = encoding.decode(model)
        assert len(y) - cost == best_bounded_tree(X, y, n_classes, 2)[0]
        assert int((tree.predict(X) != y).sum()) == cost
    with pytest.raises(ValueError, match="prefer_small=True"):
        encoding.smallest_within(1)


def test_error_bound_counts_duplicates():
    X = np.array([[0]] * 3 + [[1]] * 3)
    y = np.array([0, 0, 1, 1, 1, 0])
    encoding = encode_dtmax(X, y, 2, 1, prefer_small=True)
    # one decision node costs 2 errors; a leaf costs 3
    assert solve(encoding.smallest_within(2))[1] == 1
    assert solve(encoding.smallest_within(3))[1] == 0
    with RC2(encoding.smallest_within(1)) as rc2:
        assert rc2.compute() is None


def test_deep_enough_on_pure_data_classifies_everything():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (30, 5))
    y = X[:, 0] ^ (X[:, 1] & X[:, 2]) | (X[:, 3] & ~X[:, 4] & 1)
    encoding = encode_dtmax(X, y, 2, 10)
    assert encoding.depth <= 5                       # capped by the number of columns
    model, cost = solve(encoding.wcnf)
    assert cost == 0
    assert encoding.decode(model).is_pure_on(X, y)


def test_duplicate_rows_become_weighted_groups():
    X = np.array([[0, 1], [0, 1], [0, 1], [1, 0], [1, 0]])
    y = np.array([1, 1, 0, 0, 0])
    encoding = encode_dtmax(X, y, 2, 1)
    assert sorted(encoding.wcnf.wght) == [1, 2, 2]
    model, cost = solve(encoding.wcnf)
    assert cost == 1 and encoding.groups.forced_errors() == 1
    tree = encoding.decode(model)
    assert tree.counts[0].tolist() == [3, 2]


def test_reduce_columns_keeps_one_of_each_equivalent_column():
    X = np.array([[0, 1, 0, 1, 1],
                  [1, 0, 1, 1, 0],
                  [1, 0, 1, 1, 1],
                  [0, 1, 0, 1, 1]])
    # column 1 is the complement of 0, column 2 equals 0, column 3 is constant
    reduced = reduce_columns(X)
    assert reduced.column.tolist() == [0, 4]
    assert reduced.matrix.sum(axis=0).tolist() == [2, 1]
    assert reduced.flipped.tolist() == [False, True]


def test_complemented_columns_decode_to_the_original_test():
    X = np.array([[0, 1], [1, 1], [0, 0]])
    y = np.array([1, 1, 0])                           # class = column 1, mostly ones
    encoding = encode_dtmax(X, y, 2, 1)
    assert encoding.columns.flipped.tolist() == [False, True]
    tree = encoding.decode(solve(encoding.wcnf)[0])
    assert tree.feature[0] == 1
    assert tree.label[tree.right[0]] == 1 and tree.label[tree.left[0]] == 0


def test_group_examples_counts_forced_errors():
    groups = group_examples(np.array([[0], [0], [0], [1]]), np.array([0, 1, 1, 2]))
    assert groups.n_patterns == 2 and groups.n_groups == 3
    assert groups.forced_errors() == 1
    X, y = groups.rows()
    assert sorted(map(tuple, np.column_stack([X, y]).tolist())) == [(0, 0), (0, 1), (0, 1), (1, 2)]


@pytest.mark.parametrize("depth", [-1, 1.5, True])
def test_bad_depth_is_rejected(depth):
    with pytest.raises(ValueError, match="depth"):
        encode_dtmax(np.zeros((2, 1)), np.array([0, 1]), 2, depth)


def test_labels_out_of_range_are_rejected():
    with pytest.raises(ValueError, match=r"class indices in \[0, 2\)"):
        encode_dtmax(np.zeros((2, 1)), np.array([0, 2]), 2, 1)
