"""``trees.exact.reductions``: every applied rule keeps the brute-force minimum, the rule we
refuted is refuted, and trees over kept columns come back in the original columns."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from bruteforce import minimum_tree_size
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.trees.exact.reductions import (
    reduce_for_pure_tree,
    twin_covered_columns,
    twin_pairs,
)
from occamlearn.trees.mpdt.minimum import find_minimum_tree


def thresholds_of(table: np.ndarray, flags: int) -> np.ndarray:
    """The first ``flags`` columns of ``table`` as they are; every other (numeric) column
    as one ``x <= v`` column per gap between adjacent distinct values."""
    columns = [table[:, j] for j in range(flags)]
    for j in range(flags, table.shape[1]):
        values = np.unique(table[:, j])
        columns += [(table[:, j] <= v).astype(np.int64) for v in values[:-1]]
    return np.column_stack(columns) if columns else np.zeros((len(table), 0), dtype=np.int64)


def without_conflicts(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y`` with each group of identical rows of ``X`` given the label of its first row."""
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    return y[first][inverse.ravel()]


@st.composite
def threshold_or_binary_data(draw):
    """(X, y): random bits, or thresholds of 1-2 small numeric columns beside 0-2 flags;
    2-12 rows, 2 or 3 classes, no conflicts, at most 12 columns."""
    n_rows = draw(st.integers(2, 12))
    n_classes = draw(st.sampled_from([2, 3]))
    if draw(st.booleans()):
        flags, numeric = draw(st.integers(0, 2)), draw(st.integers(1, 2))
        domain = draw(st.integers(2, 5))
        cells = n_rows * (flags + numeric)
        table = np.array(draw(st.lists(st.integers(0, domain - 1), min_size=cells,
                                       max_size=cells))
                         ).reshape(n_rows, flags + numeric)
        table[:, :flags] %= 2
        X = thresholds_of(table, flags)[:, :12]
    else:
        n_columns = draw(st.integers(1, 6))
        X = np.array(draw(st.lists(st.integers(0, 1), min_size=n_rows * n_columns,
                                   max_size=n_rows * n_columns))).reshape(n_rows, n_columns)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    return X, without_conflicts(X, y)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(threshold_or_binary_data())
def test_kept_columns_keep_the_brute_force_minimum(data):
    X, y = data
    reduction = reduce_for_pure_tree(X, y)
    minimum = minimum_tree_size(X, y)
    if reduction.n_kept == 0:  # only a single class loses every column
        assert minimum == 1
        return
    assert minimum_tree_size(reduction.reduce(X), y) == minimum


def test_the_twin_rule_drops_what_equivalence_keeps():
    """Rows 0 and 1 (class 0) differ only on column 0: twins across it. The other rows have
    no twin across column 0, and on them column 1 equals column 0 (it does not on row 1),
    so column 0 goes, replaced by column 1; the minimum stays."""
    X = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1]])
    y = np.array([0, 0, 1, 1])
    kept, dropped = twin_covered_columns(X, y, [0, 1, 2])
    assert kept == [1, 2] and dropped == [(0, 1)]
    assert minimum_tree_size(X[:, kept], y) == minimum_tree_size(X, y) == 5


def test_boundary_threshold_rule_is_false():
    """Fayyad and Irani's boundary points do not carry over to minimum pure trees: the cut
    x3 <= 1 lies between values 1 and 2 of column x3, whose rows are all class 1, yet
    every pure tree without it is larger (found by brute force over random tables)."""
    table = np.array([[0, 1, 3, 3], [0, 1, 2, 3], [1, 0, 0, 2], [0, 0, 2, 0],
                      [0, 1, 1, 0], [0, 0, 2, 4], [1, 1, 3, 1]])
    y = np.array([0, 1, 1, 0, 1, 1, 1])
    assert set(y[np.isin(table[:, 3], (1, 2))]) == {1}  # the rule's condition holds
    X = thresholds_of(table, flags=2)
    boundary = [k for k in range(X.shape[1]) if np.array_equal(X[:, k], table[:, 3] <= 1)]
    assert len(boundary) == 1
    without = np.delete(X, boundary[0], axis=1)
    assert minimum_tree_size(X, y) == 7
    assert minimum_tree_size(without, y) == 9
    # the applied rules keep that cut: the search still finds 7
    assert boundary[0] in reduce_for_pure_tree(X, y).column
    assert find_minimum_tree(X, y, 2, method="bnb").tree.n_nodes == 7


@pytest.mark.parametrize("seed", range(20))
def test_twin_pairs_are_every_same_class_pair_at_distance_one(seed):
    rng = np.random.default_rng(seed)
    X = np.unique(rng.integers(0, 2, size=(int(rng.integers(2, 40)), int(rng.integers(1, 7)))),
                  axis=0)
    y = rng.integers(0, 3, size=len(X))
    first, second, column = twin_pairs(X, y)
    found = {(min(a, b), max(a, b), c) for a, b, c in zip(first.tolist(), second.tolist(),
                                                          column.tolist())}
    expected = {(a, b, int(np.flatnonzero(X[a] != X[b])[0]))
                for a, b in combinations(range(len(X)), 2)
                if y[a] == y[b] and (X[a] != X[b]).sum() == 1}
    assert found == expected
    assert (X[first, column] == 0).all() and (X[second, column] == 1).all()


def test_trees_come_back_in_the_original_columns():
    """A search over the kept columns gives a tree that tests original column indices,
    is pure on the original matrix and has the brute-force size."""
    rng = np.random.default_rng(4)
    table = np.column_stack([rng.integers(0, 2, 12), rng.integers(0, 4, 12)])
    table = np.vstack([table, table + [0, 1]])  # twins across one cut of column 1
    y = without_conflicts(table, (table[:, 0] ^ (table[:, 1] > 2)).astype(np.int64))
    X = np.column_stack([np.ones(len(y), dtype=np.int64), thresholds_of(table, flags=1)])
    reduction = reduce_for_pure_tree(X, y)
    assert 0 not in reduction.column  # the constant column went
    assert any(rule == "twin_covered" for rule, _, _ in reduction.dropped)
    result = find_minimum_tree(X, y, 2)
    assert result.tree.n_features == X.shape[1]
    assert result.tree.is_pure_on(X, y)
    assert result.tree.n_nodes == minimum_tree_size(X, y)
    assert result.stats["reductions"]["columns_after"] == reduction.n_kept
    assert result.tree.counts[0].sum() == len(y)


def test_progress_reports_trees_in_the_original_columns():
    from occamlearn.stopping import ProgressSink

    X = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1]])
    y = np.array([0, 0, 1, 0])
    seen = []
    sink = ProgressSink(lambda upper, lower, seconds, tree: seen.append(tree))
    result = find_minimum_tree(X, y, 2, method="bnb", progress=sink)
    trees = [t for t in seen if t is not None]
    assert trees and all(t.n_features == 3 and t.is_pure_on(X, y) for t in trees)
    assert result.tree.n_nodes == minimum_tree_size(X, y) == 5


def test_reductions_off_searches_every_column():
    X = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1]])
    y = np.array([0, 0, 1, 0])
    result = find_minimum_tree(X, y, 2, method="bnb", reductions=False)
    assert "reductions" not in result.stats
    assert result.tree.n_nodes == 5


def test_conflicting_rows_are_refused():
    with pytest.raises(ValueError, match="no pure tree"):
        reduce_for_pure_tree(np.array([[0, 1], [0, 1], [1, 0]]), np.array([0, 1, 1]))
