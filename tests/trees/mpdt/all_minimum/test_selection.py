"""Alg. 3 selection helpers: splits (with the unstratified fallback), delta filter, random pick."""

from __future__ import annotations

import numpy as np
import pytest

from occamlearn.trees.mpdt.all_minimum.selection import (
    find_minimum_trees_with_selection,
    pick_one,
    select_tree,
    selection_accuracies,
    split_indices,
    within_delta,
)


class Constant:
    def __init__(self, label):
        self.label = label

    def predict(self, X):
        return np.full(len(X), self.label)


def test_split_is_stratified_and_reproducible():
    y = np.array([0] * 30 + [1] * 20)
    a = split_indices(y, 0.2, random_state=3)
    b = split_indices(y, 0.2, random_state=3)
    assert a.stratified
    assert np.array_equal(a.first, b.first) and np.array_equal(a.second, b.second)
    assert len(a.second) == 10 and sorted(np.r_[a.first, a.second]) == list(range(50))
    assert np.bincount(y[a.second]).tolist() == [6, 4]
    assert not np.array_equal(a.second, split_indices(y, 0.2, random_state=4).second)


def test_split_falls_back_to_unstratified_when_a_class_is_too_small():
    y = np.array([0] * 20 + [1] * 10 + [2])  # one row of class 2, as in zoo
    split = split_indices(y, 0.25, random_state=0)
    assert not split.stratified
    assert len(split.second) == 8 and len(np.intersect1d(split.first, split.second)) == 0


def test_split_of_size_zero_keeps_every_row():
    split = split_indices(np.array([0, 1, 1]), 0.0)
    assert split.first.tolist() == [0, 1, 2] and split.second.size == 0 and split.stratified


@pytest.mark.parametrize("bad, error", [(1.0, ValueError), (-0.1, ValueError),
                                        ("0.2", TypeError), (True, TypeError)])
def test_split_rejects_bad_sizes(bad, error):
    with pytest.raises(error, match="second_size"):
        split_indices(np.array([0, 1, 0, 1]), bad)


def test_within_delta_keeps_the_best_and_the_close_ones():
    accuracies = [0.9, 0.8, 0.88, 0.9, 0.5]
    assert within_delta(accuracies, 0.0).tolist() == [0, 3]
    assert within_delta(accuracies, 0.02).tolist() == [0, 2, 3]
    assert within_delta([1 / 3, 1 - 2 / 3], 0.0).tolist() == [0, 1]  # float ties kept
    with pytest.raises(ValueError, match="delta"):
        within_delta(accuracies, 1.5)
    with pytest.raises(ValueError, match="empty"):
        within_delta([], 0.1)


def test_pick_one_is_reproducible_and_uniform():
    picks = [pick_one([4, 7, 9], random_state=s) for s in range(300)]
    assert picks == [pick_one([4, 7, 9], random_state=s) for s in range(300)]
    assert set(picks) == {4, 7, 9}
    assert min(np.unique(picks, return_counts=True)[1]) > 60
    with pytest.raises(ValueError, match="empty"):
        pick_one([], random_state=0)


def test_select_tree_evaluates_filters_and_picks():
    X, y = np.zeros((4, 1)), np.array([1, 1, 1, 0])
    choice = select_tree([Constant(0), Constant(1), Constant(1)], X, y, random_state=0)
    assert choice.accuracies.tolist() == [0.25, 0.75, 0.75]
    assert choice.best.tolist() == [1, 2] and choice.chosen in (1, 2)
    assert selection_accuracies([Constant(0)], X[:0], y[:0]).tolist() == [1.0]


def xor_data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 5))
    return X, ((X[:, 0] ^ X[:, 1]) | X[:, 2]).astype(np.int64)


def test_alg3_is_reproducible_with_random_state():
    X, y = xor_data()
    runs = [find_minimum_trees_with_selection(X, y, 2, n_solutions=6, selection_size=0.25,
                                              random_state=7) for _ in range(2)]
    a, b = runs
    assert a.chosen == b.chosen and np.array_equal(a.accuracies, b.accuracies)
    assert a.n_selection == 10 and a.n_train == 30
    assert a.result.tree is a.candidates[a.chosen]
    assert a.chosen in a.best.tolist()
    assert a.accuracies[a.chosen] == a.accuracies.max()


def test_alg3_with_one_solution_and_no_selection_is_the_plain_minimum_tree():
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    X, y = xor_data(1)
    selected = find_minimum_trees_with_selection(X, y, 2, n_solutions=1, selection_size=0.0)
    assert len(selected.candidates) == 1 and selected.n_selection == 0
    assert selected.result.tree.n_nodes == find_minimum_tree(X, y, 2).tree.n_nodes
