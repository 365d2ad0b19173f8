"""The DecisionList model: prediction, reasons, golden text, JSON and pickle round trips."""

import json
import pickle

import numpy as np
import pytest

from occamlearn.model.decision_list import DecisionList, Rule

X = np.array([[1, 0, 1], [0, 1, 1], [0, 1, 0], [0, 0, 0], [1, 1, 1]], dtype=np.uint8)


def small_list(mode="probabilistic", target_class=1):
    rules = (Rule((0,), 0.93, 120, 112), Rule((1, 2), 0.4, 30, 12))
    return DecisionList(rules, 0.04, 3, 800, 32, ("age<30", "male", "first class"), mode,
                        target_class)


def test_first_matching_rule_fires():
    dl = small_list()
    assert dl.apply(X).tolist() == [0, 1, -1, -1, 0]
    assert dl.predict_positive_probability(X).tolist() == [0.93, 0.4, 0.04, 0.04, 0.93]
    assert dl.predict_proba(X)[:, 0].tolist() == pytest.approx([0.07, 0.6, 0.96, 0.96, 0.07])
    assert dl.predict(X).tolist() == [1, 0, 0, 0, 1]
    assert dl.reasons(X) == ["age<30", "male & first class", "default", "default", "age<30"]


def test_classification_mode_is_the_disjunction_of_conditions():
    assert small_list("classification").predict(X).tolist() == [1, 1, 0, 0, 1]
    assert small_list("classification", 0).predict(X).tolist() == [0, 0, 1, 1, 0]


def test_golden_text():
    assert small_list().to_text() == (
        "IF age<30 THEN p=0.93 (n=120)\n"
        "ELSE IF male & first class THEN p=0.40 (n=30)\n"
        "ELSE p=0.04 (n=800)"
    )
    assert str(DecisionList((), 0.25, 2)) == "ELSE p=0.25 (n=0)"
    unnamed = DecisionList((Rule((1,), 1.0, 3, 3),), 0.0, 2, 5, 0)
    assert unnamed.to_text(decimals=1, counts=False) == "IF x[1] THEN p=1.0\nELSE p=0.0"


def test_json_and_pickle_round_trips():
    dl = small_list("classification", 0)
    again = DecisionList.from_dict(json.loads(json.dumps(dl.to_dict())))
    assert again == dl
    assert pickle.loads(pickle.dumps(dl)) == dl
    assert hash(again.rules[1]) == hash(dl.rules[1])


def test_log_likelihood_matches_hand_computation():
    dl = DecisionList((Rule((0,), 0.5, 2, 1),), 0.25, 3, 3, 1)
    y = np.array([1, 0, 1, 0, 0])
    expected = 2 * np.log(0.5) + np.log(0.25) + 2 * np.log(0.75)
    assert dl.log_likelihood(X, y) == pytest.approx(expected)
    sure = DecisionList((Rule((0,), 1.0, 2, 2),), 0.0, 3, 3, 0)
    assert sure.log_likelihood(X, y) == -np.inf
    assert sure.log_likelihood(X, y, epsilon=0.01) == pytest.approx(
        2 * np.log(0.99) + 2 * np.log(0.01) + np.log(0.99))


@pytest.mark.parametrize("make, match", [
    (lambda: Rule((), 0.5, 1, 1), "at least one feature"),
    (lambda: Rule((0,), 1.5, 1, 1), "probability"),
    (lambda: DecisionList((Rule((5,), 0.5, 1, 1),), 0.1, 3), "n_features"),
    (lambda: DecisionList((), 0.1, 3, feature_names=("a",)), "feature_names"),
    (lambda: DecisionList((), 0.1, 3, mode="vote"), "mode"),
])
def test_invalid_lists_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_wrong_width_input_is_rejected():
    with pytest.raises(ValueError, match="expects 3 binary features"):
        small_list().predict(np.zeros((2, 4)))


@pytest.mark.parametrize("names", [(), ("a", "b"), ["a", "b"], np.array(["a", "b"], dtype=object),
                                   (np.str_("a"), "b"), (1, "b")])
def test_feature_names_become_a_tuple_of_plain_text(names):
    decision_list = DecisionList((), 0.5, len(names), feature_names=names)
    assert type(decision_list.feature_names) is tuple
    assert all(type(n) is str for n in decision_list.feature_names)
    assert decision_list.feature_names == tuple(str(n) for n in names)
