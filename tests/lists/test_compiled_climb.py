"""A hill climb in one compiled call (``hill._compiled_climb``) is the Python loop over
compiled rules: the same rules, log-likelihoods, costs and stop reason, to the last bit,
including where ``to_beat`` abandons it and where the monotone constraint binds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.lists import hill, levels
from occamlearn.lists.cost import rule_cost
from occamlearn.lists.likelihood import region_log_likelihood
from occamlearn.lists.problem import prepare
from occamlearn.lists.rules import RuleSearch


@pytest.fixture(scope="module", autouse=True)
def kernels():
    return levels.load_kernels()


def _summary(result):
    return (result.decision_list.rules, result.decision_list.default_probability,
            result.decision_list.n_default, result.log_likelihoods, result.costs,
            result.stop_reason, result.direction)


@settings(max_examples=120, deadline=None)
@given(n=st.integers(4, 90), d=st.integers(1, 9), seed=st.integers(0, 10_000),
       direction=st.sampled_from(("positive", "negative", None)), monotone=st.booleans(),
       penalty=st.sampled_from((None, 0.5, 1.0)), width=st.integers(1, 4),
       max_conjunction=st.integers(1, 4), max_rules=st.integers(0, 6),
       min_support=st.integers(1, 4), beat=st.sampled_from((None, -0.5, 0.0, 0.5)),
       at=st.integers(0, 6))
def test_the_compiled_climb_is_the_loop(n, d, seed, direction, monotone, penalty,
                                        width, max_conjunction, max_rules, min_support, beat, at):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    y = ((X[:, 0] ^ (rng.random(n) < 0.3)) & (rng.random(n) < 0.9)).astype(np.uint8)
    problem = prepare(X, y, 1, min(max_conjunction, d))
    search = RuleSearch("beam", width, cost=rule_cost(d, penalty))
    options = dict(direction=direction, max_rules=max_rules, min_support=min_support,
                   monotone=monotone and direction is not None, rule_search=search)
    looped = hill.hill_climb(problem, **options)
    # to_beat at (or near) what the climb's rules so far were worth after rule ``at``: the
    # value the loop compares with it
    worth = np.cumsum([0.0] + [region_log_likelihood(r.n_covered, r.n_positive, problem.xlogx)
                               - cost for r, cost in zip(looped.rules, looped.costs)])
    to_beat = -np.inf if beat is None else worth[min(at, len(worth) - 1)] + beat
    assert hill._compiled_climb(problem, hill.constrained(
        search, direction, min_support, 1e-8, options["monotone"]), max_rules,
        "probabilistic", None, to_beat) is not None
    compiled = hill.hill_climb(problem, to_beat=to_beat, **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hill, "_compiled_climb", lambda *args: None)
        expected = hill.hill_climb(problem, to_beat=to_beat, **options)
    assert _summary(compiled) == _summary(expected)
