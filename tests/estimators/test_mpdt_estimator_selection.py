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


def noisy_data(seed=1, n=80):
    """Like ``data`` with 10 % of labels flipped: the minimum trees of the training part
    then differ in selection accuracy (0.708, 0.75 x 8 and 0.792 x 3 with the fit below)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 8))
    y = ((X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])).astype(np.int64)
    return X, np.where(rng.random(n) < 0.1, 1 - y, y)


def _spread_out_alg3_fit(X, y, **params):
    """The first random_state whose 12 candidates have at least 3 distinct selection
    accuracies (which trees are drawn depends on the solver's path, so no single seed is
    pinned): something for delta to separate."""
    for seed in range(20):
        model = MinimumPureTreeClassifier(binarizer=None, on_conflict="majority",
                                          method="maxsat", n_solutions=12, selection_size=0.3,
                                          random_state=seed, **params).fit(X, y)
        accuracies = np.array([acc for _, acc in model.candidate_trees_])
        if len(model.candidate_trees_) == 12 and len(set(accuracies.round(6))) >= 3:
            return seed
    pytest.fail("no random_state in 0..19 gives 3 distinct selection accuracies")


def test_delta_widens_the_kept_set():
    """The kept set is exactly the candidates within ``delta`` of the best accuracy, so it
    grows strictly with delta here (it would stay the same if delta were ignored)."""
    X, y = noisy_data()
    seed = _spread_out_alg3_fit(X, y)
    kept_counts = []
    accuracies = None
    for delta in (0.0, 0.5):
        model = MinimumPureTreeClassifier(binarizer=None, on_conflict="majority",
                                          method="maxsat", n_solutions=12, selection_size=0.3,
                                          random_state=seed, delta=delta).fit(X, y)
        accuracies = np.array([acc for _, acc in model.candidate_trees_])
        kept = {i for i, (tree, _) in enumerate(model.candidate_trees_)
                if any(tree is best for best in model.best_trees_)}
        assert kept == set(np.flatnonzero(accuracies >= accuracies.max() - delta - 1e-9))
        assert any(model.tree_ is best for best in model.best_trees_)
        kept_counts.append(len(kept))
    # a delta between the best and the second-best accuracy keeps strictly more than 0 does
    levels = np.unique(accuracies.round(6))[::-1]
    middle = float(levels[0] - levels[1]) + 1e-6
    model = MinimumPureTreeClassifier(binarizer=None, on_conflict="majority", method="maxsat",
                                      n_solutions=12, selection_size=0.3, random_state=seed,
                                      delta=middle).fit(X, y)
    kept_counts.insert(1, len(model.best_trees_))
    assert kept_counts[0] < kept_counts[1] < kept_counts[2] == 12


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


@pytest.mark.parametrize("method", ["auto", "bnb"])
def test_algorithm_3_draws_from_the_size_another_engine_proved(method):
    """With the portfolio (or the branch and bound) finding the minimum, the candidates are
    drawn from the encoding with n = that size: the same minimum as the MaxSAT route's."""
    from occamlearn import MinimumPureTreeClassifier, load_dataset

    X, y = load_dataset("mux6")
    options = {"n_solutions": 5, "selection_size": 0.2, "random_state": 0}
    ours = MinimumPureTreeClassifier(method=method, **options).fit(X, y)
    maxsat = MinimumPureTreeClassifier(method="maxsat", **options).fit(X, y)
    assert ours.status_ == maxsat.status_ == "optimal"
    assert ours.n_nodes_ == maxsat.n_nodes_
    assert {t.n_nodes for t, _ in ours.candidate_trees_} == {ours.n_nodes_}
    # the same set of minimum trees (2 on this training part), whichever engine found the size
    from occamlearn.trees.mpdt.all_minimum.enumerate import (
        canonical_key,  # independent of node numbering
    )

    keys = [{canonical_key(t) for t, _ in m.candidate_trees_} for m in (ours, maxsat)]
    assert len(keys[0]) == len(ours.candidate_trees_) == 2 and keys[0] == keys[1]
