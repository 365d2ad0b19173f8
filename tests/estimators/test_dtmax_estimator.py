"""MaxAccuracyTreeClassifier: scikit-learn contract, optimality on tiny data, noise, limits."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from bruteforce import best_bounded_tree, random_matrix
from sklearn.utils.estimator_checks import parametrize_with_checks

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.export import export_graphviz

# check_class_weight_classifiers fits noisy blobs with class_weight={0: 1000, 1: 1e-4} and
# wants 87 % of test predictions to be class 0. It assumes a regularised learner (sklearn's
# trees pass it with min_weight_fraction_leaf=0.01): an exact learner keeps a leaf or rule
# holding only class-1 training rows, whatever class 1 weighs, since predicting class 1 there
# is the weighted optimum. test_weights.py checks class_weight against explicit weights.
CLASS_WEIGHT_CHECK = {"check_class_weight_classifiers": "exact fit: no minimum leaf weight"}


@parametrize_with_checks([MaxAccuracyTreeClassifier(),  # default parameters, as users build it
                          MaxAccuracyTreeClassifier(max_depth=2, binarizer="threshold")],
                         expected_failed_checks=lambda estimator: CLASS_WEIGHT_CHECK)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.parametrize("solver", ["rc2", "lsu"])
def test_both_backends_reach_the_exhaustive_optimum(solver):
    rng = np.random.default_rng(11)
    for _ in range(12):
        X, y, n_classes = random_matrix(rng, max_rows=10)
        if len(np.unique(y)) < 2:
            continue
        depth = int(rng.integers(1, 4))
        model = MaxAccuracyTreeClassifier(max_depth=depth, binarizer=None, method="maxsat",
                                          solver=solver).fit(X, y)
        correct, splits = best_bounded_tree(X, np.unique(y, return_inverse=True)[1],
                                            n_classes, depth)
        assert model.status_ == "optimal" and model.solve_stats_["search"] == "maxsat"
        assert model.training_errors_ == model.errors_lower_bound_ == len(y) - correct
        assert int((model.predict(X) != y).sum()) == model.training_errors_
        assert model.tree_.n_leaves - 1 == splits and model.depth_ <= depth


def test_deep_enough_on_pure_data_is_perfect():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (40, 6))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3])
    model = MaxAccuracyTreeClassifier(max_depth=6, binarizer=None).fit(X, y)
    assert model.status_ == "optimal" and model.training_errors_ == 0
    assert model.score(X, y) == 1.0


def test_conflicting_rows_are_kept_and_counted():
    X = np.array([[0, 0]] * 3 + [[1, 0]] * 2 + [[1, 1]] * 2)
    y = np.array([0, 0, 1, 1, 1, 0, 1])
    model = MaxAccuracyTreeClassifier(max_depth=2, binarizer=None).fit(X, y)
    # the (0,0) group forces 1 error and the (1,1) group another: 2 at best
    assert model.training_errors_ == 2 == model.errors_lower_bound_
    assert model.status_ == "optimal"
    assert model.tree_.counts[0].tolist() == [3, 4]


def test_depth_bound_costs_accuracy_on_xor():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
    y = X[:, 0] ^ X[:, 1] ^ X[:, 2]
    errors = [MaxAccuracyTreeClassifier(max_depth=d, binarizer=None).fit(X, y).training_errors_
              for d in (1, 2, 3)]
    assert errors == [4, 4, 0]          # depth 2 leaves pairs that disagree on parity


def test_dataframe_text_labels_export_and_pickle():
    X = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "green", "red", "blue", "green"]),
                      "size": [1.0, 2.5, 3.0, 4.5, 5.0, 0.5]})
    y = np.array(["yes", "no", "no", "yes", "no", "yes"])
    model = MaxAccuracyTreeClassifier(max_depth=2, prefer_small=True).fit(X, y)
    assert set(model.predict(X)) <= {"yes", "no"}
    assert model.predict_proba(X).shape == (6, 2)
    text = model.export_text()
    assert text.startswith(f"{model.n_nodes_} nodes") and "status optimal" in text
    dot = export_graphviz(model)
    assert dot.startswith("digraph") and "status optimal" in dot
    clone = pickle.loads(pickle.dumps(model))
    assert clone.tree_ == model.tree_
    np.testing.assert_array_equal(clone.predict(X), model.predict(X))


def test_time_limit_keeps_a_valid_tree():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (300, 12))
    y = rng.integers(0, 3, 300)
    model = MaxAccuracyTreeClassifier(max_depth=4, binarizer=None, time_limit=0.5).fit(X, y)
    assert model.status_ in ("optimal", "feasible")
    assert model.depth_ <= 4
    assert model.training_errors_ == int((model.predict(X) != y).sum())
    assert model.errors_lower_bound_ <= model.training_errors_
    assert model.solve_stats_["total_seconds"] < 5


def test_callback_sees_improving_trees():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (25, 4))
    y = rng.integers(0, 2, 25)
    seen = []
    model = MaxAccuracyTreeClassifier(max_depth=2, binarizer=None, method="maxsat", solver="lsu",
                                      callback=lambda tree, s: seen.append(tree)).fit(X, y)
    errors = [int((t.predict(X) != y).sum()) for t in seen]
    assert errors == sorted(errors, reverse=True) and errors[-1] == model.training_errors_


@pytest.mark.parametrize("params, match", [
    ({"max_depth": 0}, "max_depth"),
    ({"solver": "nope"}, "solver"),
    ({"time_limit": -1}, "time_limit"),
])
def test_bad_parameters_name_themselves(params, match):
    X, y = np.array([[0], [1]]), np.array([0, 1])
    with pytest.raises(ValueError, match=match):
        MaxAccuracyTreeClassifier(binarizer=None, **params).fit(X, y)


def test_non_binary_data_without_binarizer_is_rejected():
    with pytest.raises(ValueError, match="0/1"):
        MaxAccuracyTreeClassifier(binarizer=None).fit(np.array([[0.5], [1]]), [0, 1])
