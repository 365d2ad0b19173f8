"""Rates shrunk by a factor chosen on held-out folds (``lists.shrinkage``) and their use by
``DecisionListClassifier``."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

from occamlearn import DecisionListClassifier
from occamlearn.lists import learn_decision_list
from occamlearn.lists.folds import FoldSearch
from occamlearn.lists.shrinkage import SHRINKAGE_GRID, shrinkage_factor, shrunk
from occamlearn.model.decision_list import DecisionList


def _searcher(X, y, **options):
    return FoldSearch.on(X, y, rule_search="beam", max_conjunction=2, **options)


def _brute_force_factor(X, y, searches, max_rules, folds, seed):
    """The grid factor with the largest held-out log-likelihood, row by row: each held-out
    row walks the fold list's conditions itself, each region's rate is counted from the
    fold's training rows, and ties go to the larger factor."""
    totals = [0.0] * len(SHRINKAGE_GRID)
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    for fit_rows, check_rows in splitter.split(np.zeros((len(y), 1)), y):
        rules = [r.features for r in searches.fit_list(fit_rows, max_rules).rules]

        def region(row):
            for k, features in enumerate(rules):
                if all(X[row, f] == 1 for f in features):
                    return k
            return len(rules)

        counts = {}
        for row in fit_rows:
            n, pos = counts.get(region(row), (0, 0))
            counts[region(row)] = (n + 1, pos + int(y[row]))
        base = sum(int(y[row]) for row in fit_rows) / len(fit_rows)
        for i, factor in enumerate(SHRINKAGE_GRID):
            for row in check_rows:
                n, pos = counts.get(region(row), (0, 0))
                q = base + factor * ((pos + 1) / (n + 2) - base)
                totals[i] += math.log(q if y[row] == 1 else 1 - q)
    best = max(range(len(totals)), key=lambda i: (round(totals[i], 9), i))
    return SHRINKAGE_GRID[best]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(20, 60), folds=st.integers(2, 4),
       direction=st.sampled_from(["positive", "negative", None]))
def test_the_factor_is_the_brute_force_best_on_the_grid(seed, n, folds, direction):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 5)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (rng.random(n) < 0.3)).astype(np.uint8)
    y[:folds], y[folds:2 * folds] = 0, 1  # every fold sees both classes
    searches = _searcher(X, y, direction=direction)
    factor, scores = shrinkage_factor(searches, 4, folds, seed)
    assert factor == pytest.approx(_brute_force_factor(X, y, searches, 4, folds, seed))
    assert len(scores) == len(SHRINKAGE_GRID)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(15, 80),
       direction=st.sampled_from(["positive", "negative"]), weighted=st.booleans(),
       monotone=st.booleans())
def test_every_fitted_list_keeps_its_direction_after_shrinking(seed, n, direction, weighted,
                                                               monotone):
    """p_k against the rate the list states for the training rows after rule k, which is
    what eq. (1) compares once the stated rates are shrunk (the same affine map of both)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 6)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 2]) ^ (rng.random(n) < 0.25)).astype(int)
    y[:3], y[3:6] = 0, 1
    weight = rng.integers(1, 4, n).astype(float) if weighted else None
    model = DecisionListClassifier(binarizer=None, direction=direction, monotone=monotone,
                                   penalty=None, max_rules=6, shrinkage_folds=3,
                                   random_state=seed).fit(X, y, sample_weight=weight)
    stated = model.list_.probabilities
    fired = model.apply(X)
    p = model.predict_proba(X)[:, 1]
    w = np.ones(n) if weight is None else weight
    sign = 1 if direction == "positive" else -1
    for k in range(len(model.rules_)):
        later = (fired == -1) | (fired > k)
        rate = np.sum(w[later] * p[later]) / np.sum(w[later])
        assert sign * (stated[k] - rate) >= -1e-9
        if monotone and k:
            assert sign * (stated[k - 1] - stated[k]) >= -1e-9
    assert 0.0 <= model.shrinkage_ <= 1.0


def test_rules_grown_on_noise_are_shrunk_and_a_concept_is_not():
    rng = np.random.default_rng(0)
    X = (rng.random((150, 8)) < 0.5).astype(np.uint8)
    noise = (rng.random(150) < 0.4).astype(int)  # independent of X
    noisy = DecisionListClassifier(binarizer=None, penalty=None, max_rules=5).fit(X, noise)
    assert len(noisy.rules_) >= 3 and noisy.shrinkage_ <= 0.5
    # the fitted rates move toward the training rate, the observed ones stay
    base = noise.mean()
    observed = noisy.list_.observed_probabilities
    assert np.all(np.abs(noisy.list_.probabilities - base) <= np.abs(observed - base) + 1e-12)
    assert "shrunk" in noisy.export_text()
    concept = (X[:, 1] & X[:, 3]).astype(int)
    clean = DecisionListClassifier(binarizer=None).fit(X, concept)
    assert clean.shrinkage_ == 1.0 and clean.score(X, concept) == 1.0
    assert "shrunk" not in clean.export_text()


def test_the_factor_is_the_same_for_the_same_seed_and_none_skips_it():
    rng = np.random.default_rng(1)
    X = (rng.random((120, 6)) < 0.5).astype(np.uint8)
    y = (rng.random(120) < 0.35).astype(int)
    fits = [DecisionListClassifier(binarizer=None, penalty=None, max_rules=4,
                                   random_state=3).fit(X, y) for _ in range(2)]
    assert fits[0].shrinkage_ == fits[1].shrinkage_
    assert fits[0].list_ == fits[1].list_
    raw = DecisionListClassifier(binarizer=None, penalty=None, max_rules=4,
                                 shrinkage_folds=None).fit(X, y)
    assert raw.shrinkage_ == 1.0
    assert raw.list_.probabilities.tolist() == raw.list_.observed_probabilities.tolist()


def test_a_shrunk_list_round_trips_and_a_bad_factor_is_refused():
    rng = np.random.default_rng(2)
    X = (rng.random((100, 5)) < 0.5).astype(np.uint8)
    y = (rng.random(100) < 0.4).astype(int)
    fitted = learn_decision_list(X, y, max_rules=3, max_conjunction=2,
                                 rule_search="beam").decision_list
    small = shrunk(fitted, 0.25, y)
    assert small.shrinkage == 0.25
    assert small.default_probability == pytest.approx(
        y.mean() + 0.25 * (fitted.default_probability - y.mean()))
    assert DecisionList.from_dict(small.to_dict()) == small
    assert "shrinkage" not in fitted.to_dict() and shrunk(fitted, 1.0, y) is fitted
    with pytest.raises(ValueError, match="shrinkage"):
        DecisionList.from_dict({**small.to_dict(), "shrinkage": 1.5})


def test_a_deadline_that_passes_leaves_the_rates_as_they_are():
    class Passed:
        def expired(self):
            return True

    rng = np.random.default_rng(4)
    X = (rng.random((80, 5)) < 0.5).astype(np.uint8)
    y = (rng.random(80) < 0.5).astype(np.uint8)
    assert shrinkage_factor(_searcher(X, y), 3, 3, 0, Passed()) == (None, None)
    assert shrinkage_factor(_searcher(X, y), 0, 3, 0) == (None, None)


def _per_fold_scores(rates, y, weight, fold_of):
    """The held-out scores fold by fold: each fold's base rate from its fit rows by
    ``_base_rate`` and its regions scored as an array of their own."""
    from occamlearn.lists.shrinkage import _base_rate

    grid, scores = SHRINKAGE_GRID[:, None], np.zeros(len(SHRINKAGE_GRID))
    for i, (n, p, rows, positives) in enumerate(rates):
        t = (p * n + 1.0) / (n + 2.0)
        fit_rows = fold_of != i
        b = _base_rate(y[fit_rows], None if weight is None else weight[fit_rows])
        q = b + grid * (t[None] - b)
        scores += (positives * np.log(q) + (rows - positives) * np.log1p(-q)).sum(axis=1)
    return scores


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 400), folds=st.integers(2, 6),
       weighted=st.booleans(), regions=st.lists(st.integers(1, 12), min_size=6, max_size=6))
def test_the_scores_of_all_folds_at_once_are_the_per_fold_floats(seed, n, folds, weighted,
                                                                  regions):
    """``fold_base_rates`` and ``held_out_scores`` against the fold-by-fold loop, bit for
    bit, on drawn labels, folds, weights and region counts (lists of 0-11 rules)."""
    from occamlearn.lists.shrinkage import fold_base_rates, held_out_scores

    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.random()).astype(np.uint8)
    fold_of = rng.integers(0, folds, n)
    weight = rng.integers(0, 5, n) * rng.random(n) if weighted else None
    rates = []
    for i in range(folds):
        k = regions[i]
        rows_in = rng.integers(0, 30, k).astype(np.float64)
        positive_share = np.where(rows_in > 0, rng.integers(0, 31, k) % (rows_in + 1), 0)
        rates.append((rows_in, positive_share / np.maximum(rows_in, 1),
                      rng.integers(0, 9, k).astype(np.float64),
                      rng.integers(0, 9, k).astype(np.float64) // 2))
    expected = _per_fold_scores(rates, y, weight, fold_of)
    got = held_out_scores(rates, fold_base_rates(y, weight, fold_of, folds))
    assert got.tobytes() == expected.tobytes()
