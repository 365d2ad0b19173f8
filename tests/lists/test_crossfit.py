"""The held-out choice of a list's length (``lists.crossfit``) and its use by the estimator."""

import numpy as np
import pytest

from occamlearn import DecisionListClassifier
from occamlearn.lists import learn_decision_list
from occamlearn.lists.crossfit import choose_length, prefix
from occamlearn.lists.folds import FoldSearch


def _noisy_table(seed, n=160, d=8):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (rng.random(n) < 0.2)).astype(np.uint8)
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("direction", ["positive", "negative"])
def test_a_prefix_refits_its_default_and_stays_directional(seed, direction):
    X, y = _noisy_table(seed)
    weight = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    for w in (None, weight):
        full = learn_decision_list(X, y, direction=direction, max_rules=6, max_conjunction=2,
                                   rule_search="beam", sample_weight=w).decision_list
        for k in range(len(full.rules) + 1):
            short = prefix(full, k, X, y, w)
            assert short.rules == full.rules[:k]
            fired = full.apply(X)
            rest = (fired == -1) | (fired >= k)
            ww = np.ones(len(y)) if w is None else w
            assert short.default_probability == pytest.approx(
                np.sum(ww[rest] * y[rest]) / np.sum(ww[rest]))
            assert short.n_default == rest.sum()
            p = short.probabilities
            for j in range(k):  # p_j against the rate of every row after rule j
                after = short.apply(X)
                later = (after == -1) | (after > j)
                rate = np.sum(ww[later] * y[later]) / np.sum(ww[later])
                assert (p[j] >= rate - 1e-12) if direction == "positive" \
                    else (p[j] <= rate + 1e-12)


def _searcher(X, y, **options):
    return FoldSearch.on(X, y, rule_search="beam", max_conjunction=2, **options)


@pytest.mark.parametrize("seed", range(3))
def test_held_out_rows_cut_a_list_grown_on_noise(seed):
    rng = np.random.default_rng(seed)
    X = (rng.random((200, 10)) < 0.5).astype(np.uint8)
    y = (rng.random(200) < 0.3).astype(np.uint8)  # independent of X
    full = learn_decision_list(X, y, max_rules=8, max_conjunction=2, rule_search="beam")
    assert len(full.rules) >= 4  # without a penalty the search fits the noise
    k, totals = choose_length(_searcher(X, y), len(full.rules), 3, seed)
    assert k <= 1 and len(totals) == len(full.rules) + 1


def test_held_out_rows_keep_a_real_rule():
    X, y = _noisy_table(0, n=300)
    full = learn_decision_list(X, y, max_rules=5, max_conjunction=2, rule_search="beam")
    k, totals = choose_length(_searcher(X, y), len(full.rules), 3, 0)
    assert k >= 1 and totals[k] > totals[0]
    assert choose_length(_searcher(X, y), len(full.rules), 3, 0)[0] == k


def test_too_few_rows_of_a_class_for_the_folds_skips_the_check():
    X, y = _noisy_table(1)
    y = np.zeros_like(y)
    y[:2] = 1
    assert choose_length(_searcher(X, y), 3, 3, 0) == (None, None)


def test_the_estimator_keeps_a_prefix_and_says_so():
    X, y = _noisy_table(2, n=120, d=12)
    rng = np.random.default_rng(5)
    y = np.where(rng.random(len(y)) < 0.3, 1 - y, y)  # more label noise
    plain = DecisionListClassifier(binarizer=None, penalty=None, validation_folds=None,
                                   max_conjunction=2).fit(X, y)
    checked = DecisionListClassifier(binarizer=None, penalty=None, validation_folds=3,
                                     max_conjunction=2).fit(X, y)
    again = DecisionListClassifier(binarizer=None, penalty=None, validation_folds=3,
                                   max_conjunction=2).fit(X, y)
    assert plain.held_out_log_likelihoods_ is None
    assert len(checked.held_out_log_likelihoods_) == len(plain.rules_) + 1
    assert len(checked.rules_) < len(plain.rules_)
    assert checked.rules_ == plain.rules_[:len(checked.rules_)]
    assert checked.stop_reason_ == "validation"
    assert checked.log_likelihoods_ == plain.log_likelihoods_[:len(checked.rules_) + 1]
    assert checked.list_ == again.list_  # the folds are fixed by random_state
    covered = checked.apply(X) != -1
    rest = ~covered
    assert checked.default_probability_ == pytest.approx(np.mean(y[rest] == 1))


def test_a_deadline_that_passes_leaves_the_length_to_the_penalty():
    from occamlearn.stopping import Deadline

    X, y = _noisy_table(3)
    calls = []

    class Counted(FoldSearch):
        def fit_list(self, rows, max_rules):
            calls.append(len(rows))
            return super().fit_list(rows, max_rules)

    searches = Counted.on(X, y, rule_search="beam")
    assert choose_length(searches, 3, 3, 0, Deadline.for_fit(1e-9)) == (None, None)
    assert calls == []
