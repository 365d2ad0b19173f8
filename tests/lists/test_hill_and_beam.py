"""Greedy decision-list search: counting, likelihood, constraints, hill vs beam, tic-tac-toe."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import load_dataset
from occamlearn.lists import (
    beam_search,
    build_candidates,
    hill_climb,
    learn_decision_list,
    prepare,
    search_problem,
)
from occamlearn.lists.bits import (
    count_covered,
    pack_columns,
    pack_vector,
    popcount_table,
    unpack_vector,
)
from occamlearn.lists.likelihood import region_log_likelihood


def random_data(seed, n=200, d=12, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < density
    logits = X[:, 0] * 2.0 - X[:, 1] * 1.5 + X[:, 2] * X[:, 3] * 2 - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-logits))).astype(int)
    return X.astype(np.uint8), y


def brute_log_likelihood(decision_list, X, y):
    """Log-likelihood of the list with MLE probabilities, by explicit loops over regions."""
    fired = decision_list.apply(X)
    total = 0.0
    for region in np.unique(fired):
        labels = y[fired == region]
        p = labels.mean()
        for label in labels:
            q = p if label == 1 else 1 - p
            total += np.log(q) if q > 0 else 0.0
    return total


@pytest.mark.parametrize("n", [1, 7, 64, 65, 300])
def test_packed_counts_match_dense_counts(n):
    rng = np.random.default_rng(n)
    X = rng.random((n, 9)) < 0.5
    rows = rng.random(n) < 0.6
    y = rng.random(n) < 0.3
    covered, positive = count_covered(pack_columns(X), pack_vector(rows), pack_vector(rows & y))
    assert covered.tolist() == (X & rows[:, None]).sum(axis=0).tolist()
    assert positive.tolist() == (X & (rows & y)[:, None]).sum(axis=0).tolist()
    assert unpack_vector(pack_vector(rows), n).tolist() == rows.tolist()


@pytest.mark.parametrize("native", [True, False])
def test_counts_for_several_row_sets_at_once(native, monkeypatch):
    from occamlearn.lists import bits

    monkeypatch.setattr(bits, "_NATIVE", native and hasattr(np, "bitwise_count"))
    rng = np.random.default_rng(5)
    X = rng.random((200, 6)) < 0.5
    y = rng.random(200) < 0.5
    masks = [rng.random(200) < 0.5, np.zeros(200, bool), np.arange(200) < 70]
    rows = np.stack([pack_vector(m) for m in masks])
    pos = np.stack([pack_vector(m & y) for m in masks])
    covered, positive = count_covered(pack_columns(X), rows, pos)
    for i, mask in enumerate(masks):
        assert covered[i].tolist() == (X & mask[:, None]).sum(axis=0).tolist()
        assert positive[i].tolist() == (X & (mask & y)[:, None]).sum(axis=0).tolist()


@pytest.mark.parametrize("n_rows", [200, 20_000])  # all at once, and block by block
def test_counts_of_chosen_columns_equal_counts_of_the_copied_columns(n_rows, monkeypatch):
    from occamlearn.lists import bits

    if n_rows > 1000:  # several blocks
        monkeypatch.setattr(bits, "_SMALL_WORDS", 0)
        monkeypatch.setattr(bits, "_CHUNK_BYTES", 4096)
    rng = np.random.default_rng(7)
    columns = pack_columns(rng.random((n_rows, 40)) < 0.5)
    y = rng.random(n_rows) < 0.4
    masks = [rng.random(n_rows) < 0.7, np.arange(n_rows) < n_rows // 3]
    rows = np.stack([pack_vector(m) for m in masks])
    pos = np.stack([pack_vector(m & y) for m in masks])
    index = np.array([39, 3, 3, 17, 0, 25, 8])
    chosen = count_covered(columns, rows, pos, index)
    copied = count_covered(columns[index], rows, pos)
    assert [a.tolist() for a in chosen] == [a.tolist() for a in copied]


def test_lookup_table_popcount_matches_numpy():
    words = np.random.default_rng(0).integers(0, 2**63, size=(5, 7), dtype=np.uint64)
    words[0, 0] = np.uint64(2**64 - 1)
    expected = [[int(w).bit_count() for w in row] for row in words]
    assert popcount_table(words).tolist() == expected


def test_conjunction_candidates_are_ands_and_pruned_by_support():
    X = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1], [1, 0, 1]], dtype=np.uint8)
    cands = build_candidates(pack_columns(X), min_conjunction=2, max_conjunction=3,
                             min_support=1)
    assert cands.conditions == ((0, 1), (0, 2), (1, 2), (0, 1, 2))
    cands = build_candidates(pack_columns(X), 1, 3, min_support=2)
    assert cands.conditions == ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2))
    covered, _ = count_covered(cands.columns, pack_vector(np.ones(4, bool)),
                               pack_vector(np.zeros(4, bool)))
    assert covered.tolist() == [3, 3, 3, 2, 2, 2]


def test_region_log_likelihood_is_bernoulli():
    assert region_log_likelihood(10, 3) == pytest.approx(3 * np.log(0.3) + 7 * np.log(0.7))
    assert region_log_likelihood(5, 0) == 0.0 and region_log_likelihood(0, 0) == 0.0


@pytest.mark.parametrize("direction", ["positive", "negative", None])
def test_recorded_log_likelihood_is_exact_and_never_decreases(direction):
    X, y = random_data(1)
    result = learn_decision_list(X, y, direction=direction, max_rules=6, max_conjunction=2)
    assert np.all(np.diff(result.log_likelihoods) > 0)
    assert result.log_likelihood == pytest.approx(brute_log_likelihood(result.decision_list, X, y))
    assert result.log_likelihood == pytest.approx(result.decision_list.log_likelihood(X, y))
    assert len(result.log_likelihoods) == len(result.rules) + 1


def check_directional(decision_list, direction, monotone=False):
    """Eq. (1) of the paper: p_k >= p_{>k} (positive) at every k, from the stored counts."""
    sign = 1 if direction == "positive" else -1
    rules = decision_list.rules
    for k, rule in enumerate(rules):
        after_n = sum(r.n_covered for r in rules[k + 1:]) + decision_list.n_default
        after_pos = sum(r.n_positive for r in rules[k + 1:]) + decision_list.n_default_positive
        if after_n:
            assert sign * (rule.probability - after_pos / after_n) >= -1e-12
        if monotone and k:
            assert sign * (rules[k - 1].probability - rule.probability) >= -1e-12


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 120), d=st.integers(1, 8),
       direction=st.sampled_from(["positive", "negative"]), width=st.sampled_from([1, 3]),
       monotone=st.booleans(), conj=st.integers(1, 2))
def test_every_learned_list_is_directional(seed, n, d, direction, width, monotone, conj):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    result = learn_decision_list(X, y, direction=direction, search="beam", beam_width=width,
                                 max_rules=6, max_conjunction=min(conj, d), monotone=monotone)
    check_directional(result.decision_list, direction, monotone)
    assert result.decision_list.n_default + sum(r.n_covered for r in result.rules) == n


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("direction", ["positive", "negative", None])
def test_beam_width_one_is_hill_climbing(seed, direction):
    X, y = random_data(seed, n=150, d=10)
    problem = prepare(X, y, max_conjunction=2)
    hill = hill_climb(problem, direction=direction, max_rules=7)
    beam = beam_search(problem, beam_width=1, direction=direction, max_rules=7)
    assert hill.decision_list == beam.decision_list
    assert hill.log_likelihoods == beam.log_likelihoods
    assert hill.stop_reason == beam.stop_reason


def test_wider_beam_finds_at_least_as_good_first_rule_and_is_reproducible():
    X, y = random_data(3)
    problem = prepare(X, y, max_conjunction=2)
    first = beam_search(problem, beam_width=5, direction=None, max_rules=5)
    again = beam_search(prepare(X, y, max_conjunction=2), beam_width=5, direction=None,
                        max_rules=5)
    assert first.decision_list == again.decision_list
    assert first.search == "beam5"


def test_both_directions_keeps_the_better_one():
    X, y = random_data(4)
    problem = prepare(X, y)
    pos = search_problem(problem, "positive", max_rules=3)
    neg = search_problem(problem, "negative", max_rules=3)
    both = search_problem(problem, "both", max_rules=3)
    best = pos if pos.log_likelihood >= neg.log_likelihood else neg
    assert both.direction == best.direction and both.decision_list == best.decision_list


def test_stop_reasons():
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=np.uint8)
    assert learn_decision_list(X, [1, 1, 0, 0], max_rules=5).stop_reason == "pure"
    assert learn_decision_list(X, [1, 1, 0, 0], max_rules=0).stop_reason == "max_rules"
    assert learn_decision_list(X, [1, 0, 1, 0], max_rules=5).stop_reason == "min_gain"
    assert learn_decision_list(X, [1, 1, 0, 1], max_rules=5,
                               min_support=3).stop_reason == "min_support"


def test_monotone_reports_when_greedy_search_cannot_extend():
    # x0 covers 10 rows at p = 0.8 and is the best first rule; the only useful second rule,
    # x1 (p = 1.0), is directional but would break monotonically decreasing probabilities.
    X = np.array([[1, 0]] * 10 + [[0, 1]] * 2 + [[0, 0]] * 10, dtype=np.uint8)
    y = np.array([1] * 8 + [0] * 2 + [1, 1] + [1] + [0] * 9)
    free = learn_decision_list(X, y, direction="positive", max_rules=3)
    assert [r.features for r in free.rules] == [(0,), (1,)]
    monotone = learn_decision_list(X, y, direction="positive", max_rules=3, monotone=True)
    assert [r.features for r in monotone.rules] == [(0,)]
    assert monotone.stop_reason == "monotone"
    assert monotone.decision_list.default_probability == pytest.approx(3 / 12)


def ttt_problem(min_conjunction, max_conjunction):
    X, y = load_dataset("tic-tac-toe")
    onehot = pd.get_dummies(X.astype(str), prefix_sep="=").astype(np.uint8)
    problem = prepare(onehot.to_numpy(), y.to_numpy(), min_conjunction, max_conjunction,
                      feature_names=list(onehot.columns))
    return problem, onehot.to_numpy(), y.to_numpy()


def test_tic_tac_toe_positive_direction_finds_the_eight_lines():
    problem, X, y = ttt_problem(2, 3)
    positive = hill_climb(problem, "positive", max_rules=8)
    lines = {frozenset(problem.feature_names[f] for f in r.features) for r in positive.rules}
    expected = {frozenset(f"t{c}=x" for c in line) for line in
                [(1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9),
                 (3, 5, 7)]}
    assert lines == expected
    assert (positive.decision_list.predict(X) == y).mean() == 1.0
    for direction in (None, "negative"):
        stuck = hill_climb(problem, direction, max_rules=8)
        assert len(stuck.rules) == 8
        assert 0.98 < (stuck.decision_list.predict(X) == y).mean() < 1.0
    # Fig. 1: the negative direction's likelihood rises faster at first
    negative = hill_climb(problem, "negative", max_rules=8)
    assert negative.log_likelihoods[1] > positive.log_likelihoods[1]


def test_tic_tac_toe_single_cells_lure_the_positive_climb():
    problem, X, y = ttt_problem(1, 3)
    result = hill_climb(problem, "positive", max_rules=8)
    assert problem.feature_names[result.rules[0].features[0]] == "t5=x"
    assert (result.decision_list.predict(X) == y).mean() < 0.95


@pytest.mark.parametrize("kwargs, match", [
    ({"direction": "up"}, "direction"), ({"search": "dfs"}, "search"),
    ({"max_rules": -1}, "max_rules"), ({"min_support": 0}, "min_support"),
    ({"max_conjunction": 0}, "max_conjunction"),
    ({"min_conjunction": 3, "max_conjunction": 2}, "min_conjunction"),
    ({"monotone": True, "direction": None}, "monotone"),
    ({"search": "beam", "beam_width": 0}, "beam_width"),
    ({"mode": "classification", "direction": None}, "classification"),
])
def test_bad_options_raise_value_errors(kwargs, match):
    X, y = random_data(0, n=20, d=4)
    with pytest.raises(ValueError, match=match):
        learn_decision_list(X, y, **kwargs)


def test_non_binary_input_is_rejected():
    with pytest.raises(ValueError, match="binary"):
        learn_decision_list(np.array([[0, 2], [1, 0]]), [0, 1])
    with pytest.raises(ValueError, match="0/1 labels"):
        learn_decision_list(np.array([[0, 1], [1, 0]]), [0, 2])
