"""DecisionListClassifier: scikit-learn conformance, the paper's examples, errors."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from occamlearn import DecisionListClassifier, load_dataset
from occamlearn.binarize import QuantileBinarizer

# check_class_weight_classifiers fits noisy blobs with class_weight={0: 1000, 1: 1e-4} and
# wants 87 % of test predictions to be class 0. It assumes a regularised learner (sklearn's
# trees pass it with min_weight_fraction_leaf=0.01): an exact learner keeps a leaf or rule
# holding only class-1 training rows, whatever class 1 weighs, since predicting class 1 there
# is the weighted optimum. test_weights.py checks class_weight against explicit weights.
CLASS_WEIGHT_CHECK = {"check_class_weight_classifiers": "exact fit: no minimum leaf weight"}


@parametrize_with_checks([DecisionListClassifier(),
                          DecisionListClassifier(direction=None, search="beam", beam_width=3)],
                         expected_failed_checks=lambda estimator: CLASS_WEIGHT_CHECK)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def tic_tac_toe(**params):
    X, y = load_dataset("tic-tac-toe")
    model = DecisionListClassifier(binarizer="onehot", rule_search="enumerate", penalty=None,
                                   min_conjunction=2, max_conjunction=3, max_rules=8, **params)
    return model.fit(X, y), X, y


def test_tic_tac_toe_positive_direction_is_perfect_and_undirected_is_stuck():
    positive, X, y = tic_tac_toe(direction="positive")
    assert positive.score(X, y) == 1.0 and len(positive.rules_) == 8
    assert all(name.endswith("== x") for rule in positive.rules_
               for name in (positive.feature_names_[f] for f in rule.features))
    undirected, _, _ = tic_tac_toe(direction=None)
    assert len(undirected.rules_) == 8 and undirected.score(X, y) < 1.0
    both, _, _ = tic_tac_toe(direction="both")
    assert both.direction_ == "positive" and both.list_ == positive.list_
    assert positive.log_likelihood_ == pytest.approx(0.0)
    assert positive.log_likelihoods_[0] == pytest.approx(
        626 * np.log(626 / 958) + 332 * np.log(332 / 958))


def test_classification_mode_and_reasons():
    model, X, y = tic_tac_toe(direction="positive", mode="classification")
    assert model.score(X, y) == 1.0
    reasons = model.reasons(X.iloc[:2])
    assert reasons == ["t1 == x & t4 == x & t7 == x", "t4 == x & t5 == x & t6 == x"]
    assert model.apply(X.iloc[:2]).tolist() == [5, 3]


def test_positive_class_and_label_order():
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0]])
    y = np.array(["yes", "yes", "no", "no", "no"])
    model = DecisionListClassifier(binarizer=None, direction="positive",
                                   positive_class="no").fit(X, y)
    assert model.positive_class_ == "no" and model.classes_.tolist() == ["no", "yes"]
    # rule 1 (x1 -> "no" for sure) leaves 2 "yes" + 1 "no"; x0 (all "yes") would point the
    # other way, so the positive direction stops and the last row falls to the default
    assert [(r.features, r.probability) for r in model.rules_] == [((1,), 1.0)]
    assert model.default_probability_ == pytest.approx(1 / 3)
    assert model.stop_reason_ == "min_gain"
    assert model.predict(X).tolist() == ["yes", "yes", "no", "no", "yes"]
    proba = model.predict_proba(X)
    assert proba[:, 0].tolist() == [float(p) for p in model.list_.predict_positive_probability(X)]


def test_fit_is_reproducible_and_pickles():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    y = (X["a"] + 0.5 * X["b"] > 0.3).astype(int)
    params = {"binarizer": QuantileBinarizer(), "search": "beam", "beam_width": 4,
              "max_conjunction": 2}
    first = DecisionListClassifier(**params).fit(X, y)
    second = DecisionListClassifier(**params).fit(X, y)
    assert first.list_ == second.list_
    loaded = pickle.loads(pickle.dumps(first))
    assert loaded.predict_proba(X).tolist() == first.predict_proba(X).tolist()
    assert np.all(np.diff(first.log_likelihoods_) > 0)


def test_monotone_stop_reason_is_reported():
    X = np.array([[1, 0]] * 10 + [[0, 1]] * 2 + [[0, 0]] * 10)
    y = np.array([1] * 8 + [0] * 2 + [1, 1] + [1] + [0] * 9)
    model = DecisionListClassifier(binarizer=None, direction="positive", monotone=True)
    assert model.fit(X, y).stop_reason_ == "monotone" and len(model.rules_) == 1


def test_more_than_two_classes_is_a_value_error_naming_them():
    X = np.eye(3, dtype=int)
    with pytest.raises(ValueError, match=r"two classes.*\['a', 'b', 'c'\]"):
        DecisionListClassifier(binarizer=None).fit(X, ["a", "b", "c"])


@pytest.mark.parametrize("params, match", [
    ({"positive_class": "maybe"}, "positive_class='maybe'"),
    ({"direction": None, "monotone": True}, "monotone"),
    ({"direction": "up"}, "direction"),
    ({"binarizer": None}, "binarizer=None expects 0/1"),
])
def test_bad_parameters_raise(params, match):
    X = np.array([[0.5, 1], [1, 0], [0, 1], [1, 1]])
    with pytest.raises(ValueError, match=match):
        DecisionListClassifier(**params).fit(X, ["yes", "no", "yes", "no"])
