"""Rules grown literal by literal: exact search against brute force, the bound, the penalty,
the directional constraint on every list, time limits and memory."""

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import DecisionListClassifier, load_dataset
from occamlearn.lists import learn_decision_list
from occamlearn.lists.likelihood import gains, refinement_bound

DIRECTIONS = ("positive", "negative", None)


# -- an independent brute force: dense arrays, no code shared with the searches ---------------
def bernoulli_ll(n, pos):
    """Sum of log-likelihoods of ``pos`` ones among ``n`` at the rate pos / n."""
    out = 0.0
    for k in (pos, n - pos):
        if k:
            out += k * math.log(k / n)
    return out


def brute_best(X, y, direction, max_literals, penalty, min_support=1):
    """Best (score, gain) over every conjunction of 1..max_literals columns appended as the
    first rule of an empty list, with score = gain - penalty * log(C(d, 1) + ... + C(d, k))."""
    n, d = X.shape
    P = int(y.sum())
    base = bernoulli_ll(n, P)
    best = (-math.inf, None)
    for k in range(1, max_literals + 1):
        cost = penalty * math.log(sum(math.comb(d, j) for j in range(1, k + 1)))
        for literals in itertools.combinations(range(d), k):
            covered = X[:, literals].all(axis=1)
            c, p = int(covered.sum()), int(y[covered].sum())
            if c < min_support or c == n:
                continue
            rate, rest = p / c, (P - p) / (n - c)
            if direction == "positive" and rate < rest or direction == "negative" and rate > rest:
                continue
            gain = bernoulli_ll(c, p) + bernoulli_ll(n - c, P - p) - base
            best = max(best, (gain - cost, gain))
    return best


@st.composite
def tiny_problem(draw):
    n = draw(st.integers(6, 40))
    d = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    y[:2] = (0, 1)  # two classes
    return X, y


@settings(max_examples=80, deadline=None)
@given(data=tiny_problem(), direction=st.sampled_from(DIRECTIONS),
       max_literals=st.integers(1, 4), penalty=st.sampled_from([None, 0.5, 1.0]))
def test_exact_rule_is_the_best_enumerated_conjunction(data, direction, max_literals, penalty):
    X, y = data
    max_literals = min(max_literals, X.shape[1])
    result = learn_decision_list(X, y, direction=direction, max_rules=1,
                                 max_conjunction=max_literals, rule_search="exact",
                                 penalty=penalty)
    best_score, best_gain = brute_best(X, y, direction, max_literals, penalty or 0.0)
    found = result.log_likelihoods[-1] - result.log_likelihoods[0] if result.rules else None
    if best_gain is None or best_gain <= 1e-8 or (penalty and best_score <= 0):
        assert not result.rules
        return
    assert result.rules
    assert found - sum(result.costs) == pytest.approx(best_score, abs=1e-9)
    if not penalty:
        assert found == pytest.approx(best_gain, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(data=tiny_problem(), direction=st.sampled_from(DIRECTIONS))
def test_beam_rule_never_beats_exact_and_greedy_is_a_beam_of_one(data, direction):
    X, y = data
    options = {"direction": direction, "max_rules": 1, "max_conjunction": min(3, X.shape[1]),
               "penalty": 1.0}
    exact = learn_decision_list(X, y, rule_search="exact", **options)
    for width in (1, 5):
        beam = learn_decision_list(X, y, rule_search="beam", rule_beam_width=width, **options)
        assert beam.penalised_log_likelihood <= exact.penalised_log_likelihood + 1e-9


@settings(max_examples=200, deadline=None)
@given(P=st.integers(1, 12), N=st.integers(1, 12), data=st.data(),
       direction=st.sampled_from(DIRECTIONS))
def test_refinement_bound_bounds_every_refinement(P, N, data, direction):
    a = data.draw(st.integers(0, P))
    b = data.draw(st.integers(0, N))
    bound = refinement_bound(np.array([a + b]), np.array([a]), P + N, P, direction)[0]
    for a2, b2 in itertools.product(range(a + 1), range(b + 1)):
        if a2 + b2 in (0, P + N):
            continue
        rate, rest = a2 / (a2 + b2), (P - a2) / (P + N - a2 - b2)
        if direction == "positive" and rate < rest or direction == "negative" and rate > rest:
            continue
        assert gains(np.array([a2 + b2]), np.array([a2]), P + N, P)[0] <= bound + 1e-9


def remainder_rates(decision_list):
    rules = decision_list.rules
    for k, rule in enumerate(rules):
        after_n = sum(r.n_covered for r in rules[k + 1:]) + decision_list.n_default
        after_pos = sum(r.n_positive for r in rules[k + 1:]) + decision_list.n_default_positive
        yield rule, after_n, after_pos


@settings(max_examples=40, deadline=None)
@given(data=tiny_problem(), direction=st.sampled_from(["positive", "negative", "both"]),
       rule_search=st.sampled_from(["beam", "exact"]), penalty=st.sampled_from([None, 1.0]),
       monotone=st.booleans())
def test_every_grown_list_is_directional(data, direction, rule_search, penalty, monotone):
    X, y = data
    model = DecisionListClassifier(binarizer=None, direction=direction, rule_search=rule_search,
                                   penalty=penalty, monotone=monotone,
                                   max_conjunction=min(3, X.shape[1])).fit(X, y)
    sign = 1 if model.direction_ == "positive" else -1
    decision_list = model.list_
    for k, (rule, after_n, after_pos) in enumerate(remainder_rates(decision_list)):
        if after_n:  # eq. (1): p_k >= p_{>k} (positive), <= (negative)
            assert sign * (rule.n_positive * after_n - after_pos * rule.n_covered) >= 0
        if monotone and k:
            assert sign * (decision_list.rules[k - 1].probability - rule.probability) >= -1e-12
    assert decision_list.n_default + sum(r.n_covered for r in decision_list.rules) == len(y)


def test_the_penalty_chooses_the_length_and_says_so():
    rng = np.random.default_rng(3)
    X = (rng.random((300, 8)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3] & X[:, 4])).astype(np.uint8)
    model = DecisionListClassifier(binarizer=None, direction="positive").fit(X, y)
    assert sorted(r.features for r in model.rules_) == [(0, 1), (2, 3, 4)]
    assert model.stop_reason_ == "pure" and model.score(X, y) == 1.0
    noise = (rng.random(300) < 0.3).astype(np.uint8)
    quiet = DecisionListClassifier(binarizer=None).fit(X, noise)
    assert len(quiet.rules_) == 0 and quiet.stop_reason_ == "penalty"
    loud = DecisionListClassifier(binarizer=None, penalty=None).fit(X, noise)
    assert len(loud.rules_) == 10 and loud.stop_reason_ == "max_rules"
    assert model.rule_costs_ == pytest.approx(
        [math.log(sum(math.comb(8, j) for j in range(1, len(r.features) + 1)))
         for r in model.rules_])


def test_redundant_literals_are_dropped():
    X, y = load_dataset("tic-tac-toe")
    model = DecisionListClassifier(direction="positive").fit(X, y)
    for rule in model.rules_:
        cells = [model.feature_names_[f].split()[0] for f in rule.features]
        assert len(cells) == len(set(cells)), model.list_.condition_text(rule)


@pytest.mark.parametrize(("params", "columns"), [
    ({"rule_search": "exact"}, 300),  # one rule's branch and bound outlasts the limit
    # lists kept per step, each rule grown by the default beam, up to 40 rules: the search
    # alone takes about 10 s CPU without a limit on 6,000 rows x 3,000 columns (it stops pure
    # at 31 rules); the default 10 rules took 2-4 s, close enough to the limit that a fast
    # run once ended by max_rules inside it
    ({"search": "beam", "max_rules": 40}, 3000),
    # materialised: 1,000 columns take about 9 s to enumerate and search without a limit
    ({"search": "beam", "rule_search": "enumerate", "max_conjunction": 2}, 1000),
], ids=["exact", "list-beam", "enumerate"])
def test_time_limit_returns_the_best_list_so_far(params, columns, within):
    rng = np.random.default_rng(0)
    rows = 6000 if params == {"search": "beam", "max_rules": 40} else 400
    X = (rng.random((rows, columns)) < 0.5).astype(np.uint8)
    y = (rng.random(rows) < 0.5).astype(np.uint8)
    started = time.perf_counter()
    model = DecisionListClassifier(binarizer=None, penalty=None, time_limit=1,
                                   **params).fit(X, y)
    assert within(1, time.perf_counter() - started)
    assert model.stop_reason_ == "time_limit" and model.predict(X).shape == (rows,)
    assert model.log_likelihood_ == pytest.approx(model.list_.log_likelihood(X, y))


def test_conjunctions_of_a_thousand_row_table_need_no_memory_refusal():
    X, y = load_dataset("tic-tac-toe")  # enumerating 3-conjunctions of 54 literals: refused
    model = DecisionListClassifier(max_conjunction=3).fit(X, y)
    assert model.score(X, y) > 0.97 and len(model.rules_) <= 10


def test_conditions_list_needs_enumeration():
    X = np.eye(4, dtype=np.uint8)
    with pytest.raises(ValueError, match="rule_search='enumerate'"):
        learn_decision_list(X, [1, 0, 1, 0], conditions=[(0,), (1,)], rule_search="beam")
    with pytest.raises(ValueError, match="penalty"):
        learn_decision_list(X, [1, 0, 1, 0], penalty=-1)


@settings(max_examples=150, deadline=None)
@given(data=tiny_problem(), direction=st.sampled_from(DIRECTIONS),
       completed=st.integers(1, 2), penalty=st.sampled_from([0.5, 1.0]))
def test_a_deadline_mid_rule_keeps_the_best_rule_of_the_completed_levels(
        data, direction, completed, penalty):
    """The deadline passes right after level ``completed`` of the first rule's beam: the list
    keeps the rule the same beam stopped at that many literals finds (its levels up to there
    are the same), if the penalised gain accepts it, and says it stopped on time. After one
    level that is the best single literal (brute force). A beam that ends before that level
    never meets the deadline and gives the same first rule."""
    from occamlearn.lists import levels
    from occamlearn.stopping import Deadline

    X, y = data
    options = {"direction": direction, "rule_search": "beam", "penalty": penalty}
    deadline = Deadline.after(None)
    real_level = levels.NumpyLevels.level
    first_levels = []

    def level_then_stop(*args):
        out = real_level(*args)
        first_levels.append(args[4])  # the level's number
        if args[4] == completed and first_levels.count(1) == 1:  # still the first rule
            deadline.request_stop()
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(levels, "ENGINE", "numpy")  # the loop that reads the deadline per level
        patch.setattr(levels.NumpyLevels, "level", staticmethod(level_then_stop))
        timed = learn_decision_list(X, y, max_conjunction=min(4, X.shape[1]), max_rules=3,
                                    deadline=deadline, **options)
        patch.setattr(levels.NumpyLevels, "level", staticmethod(real_level))
        stopped_there = learn_decision_list(X, y, max_conjunction=min(completed, X.shape[1]),
                                            max_rules=1, **options)
    assert [r.features for r in timed.rules[:1]] == [r.features for r in stopped_there.rules]
    assert timed.log_likelihoods[:2] == pytest.approx(stopped_there.log_likelihoods[:2])
    if deadline.expired():
        assert len(timed.rules) <= 1
        assert timed.stop_reason == "time_limit" if timed.rules else \
            timed.stop_reason in ("time_limit", stopped_there.stop_reason)
    else:
        assert timed.stop_reason != "time_limit"
    if completed == 1:
        best_score, best_gain = brute_best(X, y, direction, 1, penalty)
        assert bool(timed.rules) == (best_gain is not None and best_gain > 1e-8
                                     and best_score > 0)
        if timed.rules:
            gain = timed.log_likelihoods[1] - timed.log_likelihoods[0]
            assert gain - timed.costs[0] == pytest.approx(best_score, abs=1e-9)
