"""Greedy learning of (directional) decision lists over binary features (Goessling and Kang,
*Directional decision lists*, arXiv 1508.07643).

    from occamlearn.lists import learn_decision_list
    result = learn_decision_list(X, y, direction="positive", search="beam", beam_width=10,
                                 max_rules=10, max_conjunction=2)
    result.decision_list      # the DecisionList model
    result.log_likelihoods    # after 0, 1, ..., K rules (Fig. 1)
    result.stop_reason        # "max_rules", "pure", "min_support", "min_gain", "monotone",
                              # "penalty" or "time_limit"

Two choices shape the search. How each rule's condition is found (``rule_search``):
``"enumerate"`` (the default here, the paper's setting) scores every conjunction of
``min_conjunction``..``max_conjunction`` features; ``"beam"`` grows conditions literal by
literal and ``"exact"`` finds the best one by branch and bound, neither materialising
conjunctions (``rules``, ``grow``). And when the list stops (``penalty``): None (the default
here) runs until ``max_rules``, purity or ``min_gain``; a number charges each rule its
description length (``cost``), so that the data choose the length. ``DecisionListClassifier``
grows rules by a beam under ``penalty=1`` by default.

To run several searches on the same data, pack it once with ``prepare`` and call
``hill_climb(problem, ...)`` / ``beam_search(problem, ...)`` / ``search_problem`` directly.
"""

from __future__ import annotations

from occamlearn.lists.beam import beam_search
from occamlearn.lists.candidates import Candidates, build_candidates
from occamlearn.lists.cost import RuleCost, rule_cost
from occamlearn.lists.hill import hill_climb
from occamlearn.lists.problem import SearchProblem, prepare
from occamlearn.lists.result import STOP_REASONS, SearchResult
from occamlearn.lists.rules import RULE_SEARCHES, RuleSearch

__all__ = [
    "DIRECTION_CHOICES",
    "RULE_SEARCHES",
    "SEARCHES",
    "STOP_REASONS",
    "Candidates",
    "RuleCost",
    "RuleSearch",
    "SearchProblem",
    "SearchResult",
    "beam_search",
    "build_candidates",
    "hill_climb",
    "learn_decision_list",
    "prepare",
    "search_problem",
]

SEARCHES = {"hill": hill_climb, "beam": beam_search}
DIRECTION_CHOICES = ("positive", "negative", "both", None)
MODES = ("probabilistic", "classification")


def _check_options(direction, search, max_rules, monotone, mode, min_gain) -> None:
    if direction not in DIRECTION_CHOICES:
        raise ValueError(f"direction must be one of {DIRECTION_CHOICES}; got {direction!r}")
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {tuple(SEARCHES)}; got {search!r}")
    if isinstance(max_rules, bool) or not isinstance(max_rules, int) or max_rules < 0:
        raise ValueError(f"max_rules must be an int >= 0; got {max_rules!r}")
    if monotone and direction is None:
        raise ValueError("monotone=True needs a direction ('positive', 'negative' or 'both'): "
                         "monotone probabilities are a subfamily of directional lists")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    if mode == "classification" and direction is None:
        raise ValueError("mode='classification' predicts the class the rules characterise, "
                         "so it needs direction 'positive', 'negative' or 'both'; got None")
    if not isinstance(min_gain, (int, float)) or min_gain < 0:
        raise ValueError(f"min_gain must be a number >= 0; got {min_gain!r}")


def search_problem(problem: SearchProblem, direction="positive", search: str = "hill",
                   beam_width: int = 10, max_rules: int = 10, min_support: int = 1,
                   min_gain: float = 1e-8, monotone: bool = False,
                   mode: str = "probabilistic", rule_search: str = "enumerate",
                   rule_beam_width: int = 5, penalty=None, deadline=None) -> SearchResult:
    """Run hill climbing or beam search on a prepared problem.

    ``direction="both"`` searches the positive and the negative direction and returns the list
    with the higher penalised training log-likelihood (the log-likelihood itself without a
    penalty; positive on ties); its ``direction`` says which. Under a time limit the positive
    search gets half the time left and the negative one the rest. Hill climbing stops the
    negative list as soon as it provably cannot win (``hill.hill_climb``'s ``to_beat``).
    """
    _check_options(direction, search, max_rules, monotone, mode, min_gain)
    rules = RuleSearch(rule_search, rule_beam_width, cost=rule_cost(problem.n_features, penalty))
    options = {"max_rules": max_rules, "min_support": min_support, "min_gain": min_gain,
               "monotone": monotone, "mode": mode, "rule_search": rules}
    if search == "beam":
        options["beam_width"] = beam_width
    if direction != "both":
        return SEARCHES[search](problem, direction=direction, deadline=deadline, **options)
    half = None if deadline is None else deadline.within(deadline.remaining() / 2)
    positive = SEARCHES[search](problem, direction="positive", deadline=half, **options)
    if search == "hill":  # a negative list that cannot win is abandoned early
        options["to_beat"] = positive.penalised_log_likelihood
    negative = SEARCHES[search](problem, direction="negative", deadline=deadline, **options)
    return max((positive, negative), key=lambda r: r.penalised_log_likelihood)


def learn_decision_list(X, y, direction="positive", search: str = "hill", beam_width: int = 10,
                        max_rules: int = 10, min_conjunction: int = 1, max_conjunction: int = 1,
                        conditions=None, min_support: int = 1, min_gain: float = 1e-8,
                        monotone: bool = False, mode: str = "probabilistic",
                        feature_names=None, sample_weight=None, rule_search: str = "enumerate",
                        rule_beam_width: int = 5, penalty=None, deadline=None) -> SearchResult:
    """Learn a decision list on binary ``X`` (n, d) and 0/1 ``y`` by maximising the training
    log-likelihood greedily (see ``search_problem`` for the options). ``sample_weight``
    weighs the rows of the likelihood (and of ``min_support``); see ``problem.prepare``."""
    _check_options(direction, search, max_rules, monotone, mode, min_gain)
    if conditions is not None and rule_search != "enumerate":
        raise ValueError(f"conditions= lists the candidate conditions, which only "
                         f"rule_search='enumerate' reads; got rule_search={rule_search!r}")
    problem = prepare(X, y, min_conjunction, max_conjunction, min_support, conditions,
                      feature_names, sample_weight)
    return search_problem(problem, direction, search, beam_width, max_rules, min_support,
                          min_gain, monotone, mode, rule_search, rule_beam_width, penalty,
                          deadline)
