"""Algorithm 3 through ``MinimumPureTreeClassifier``: many minimum trees, selection, pick."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from occamlearn.estimators import MinimumPureTreeClassifier


def data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    y = ((X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])).astype(np.int64)
    return X, y


def fit(**params):
    X, y = data()
    return MinimumPureTreeClassifier(binarizer=None, on_conflict="majority", **params).fit(X, y)


def test_default_is_the_single_minimum_tree_of_all_rows():
    model = fit()
    assert len(model.candidate_trees_) == 1 and model.best_trees_ == [model.tree_]
    assert model.candidate_trees_[0][0] is model.tree_
    X, y = data()
    assert model.tree_.is_pure_on(X, y)


@pytest.mark.parametrize("diverse, layouts", [(True, False), (False, False), (True, True)])
def test_alg3_selects_among_minimum_trees(diverse, layouts):
    model = fit(n_solutions=8, selection_size=0.25, diverse=diverse, layouts=layouts,
                random_state=3)
    trees = [tree for tree, _ in model.candidate_trees_]
    accuracies = np.array([acc for _, acc in model.candidate_trees_])
    assert 1 <= len(trees) <= 8
    assert len({t.n_nodes for t in trees}) == 1  # all minimum on the training part
    assert model.tree_ in model.best_trees_
    assert all(any(b is t for t in trees) for b in model.best_trees_)
    best_acc = [acc for tree, acc in model.candidate_trees_ if tree in model.best_trees_]
    assert min(best_acc) == accuracies.max()  # delta = 0 keeps exactly the best
    assert model.solve_stats_["n_selection_rows"] == 15
    assert model.solve_stats_["n_train_rows"] == 45
    assert model.selection_stratified_
    assert model.tree_.feature_names == tuple(str(n) for n in model.feature_names_)


def test_alg3_is_reproducible_with_random_state():
    a = fit(n_solutions=6, selection_size=0.3, random_state=11)
    b = fit(n_solutions=6, selection_size=0.3, random_state=11)
    assert a.tree_ == b.tree_
    assert [acc for _, acc in a.candidate_trees_] == [acc for _, acc in b.candidate_trees_]


def test_delta_widens_the_kept_set():
    narrow = fit(n_solutions=10, selection_size=0.3, random_state=1, delta=0.0)
    wide = fit(n_solutions=10, selection_size=0.3, random_state=1, delta=0.5)
    assert len(wide.best_trees_) == len(wide.candidate_trees_)
    assert len(narrow.best_trees_) <= len(wide.best_trees_)


def test_fitted_alg3_model_pickles():
    model = fit(n_solutions=4, selection_size=0.2, random_state=0)
    again = pickle.loads(pickle.dumps(model))
    X, _ = data()
    assert np.array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("params, match", [({"n_solutions": 0}, "n_solutions"),
                                           ({"selection_size": 1.0}, "selection_size"),
                                           ({"delta": -0.1}, "delta"),
                                           ({"diverse": "yes"}, "diverse")])
def test_bad_alg3_parameters_are_rejected(params, match):
    with pytest.raises(ValueError, match=match):
        fit(**params)
