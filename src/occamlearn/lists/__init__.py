"""Greedy learning of (directional) decision lists over binary features (Goessling and Kang,
*Directional decision lists*, arXiv 1508.07643).

    from occamlearn.lists import learn_decision_list
    result = learn_decision_list(X, y, direction="positive", search="beam", beam_width=10,
                                 max_rules=10, max_conjunction=2)
    result.decision_list      # the DecisionList model
    result.log_likelihoods    # after 0, 1, ..., K rules (Fig. 1)
    result.stop_reason        # "max_rules", "pure", "min_support", "min_gain" or "monotone"

To run several searches on the same data, pack it once with ``prepare`` and call
``hill_climb(problem, ...)`` / ``beam_search(problem, ...)`` / ``search_problem`` directly.
"""

from __future__ import annotations

from occamlearn.lists.beam import beam_search
from occamlearn.lists.candidates import Candidates, build_candidates
from occamlearn.lists.hill import hill_climb
from occamlearn.lists.problem import SearchProblem, prepare
from occamlearn.lists.result import STOP_REASONS, SearchResult

__all__ = [
    "DIRECTION_CHOICES",
    "SEARCHES",
    "STOP_REASONS",
    "Candidates",
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
                   mode: str = "probabilistic") -> SearchResult:
    """Run hill climbing or beam search on a prepared problem.

    ``direction="both"`` searches the positive and the negative direction and returns the list
    with the higher training log-likelihood (positive on ties); its ``direction`` says which.
    """
    _check_options(direction, search, max_rules, monotone, mode, min_gain)
    options = {"max_rules": max_rules, "min_support": min_support, "min_gain": min_gain,
               "monotone": monotone, "mode": mode}
    if search == "beam":
        options["beam_width"] = beam_width
    if direction == "both":
        results = [SEARCHES[search](problem, direction=d, **options)
                   for d in ("positive", "negative")]
        return max(results, key=lambda r: r.log_likelihood)
    return SEARCHES[search](problem, direction=direction, **options)


def learn_decision_list(X, y, direction="positive", search: str = "hill", beam_width: int = 10,
                        max_rules: int = 10, min_conjunction: int = 1, max_conjunction: int = 1,
                        conditions=None, min_support: int = 1, min_gain: float = 1e-8,
                        monotone: bool = False, mode: str = "probabilistic",
                        feature_names=None, sample_weight=None) -> SearchResult:
    """Learn a decision list on binary ``X`` (n, d) and 0/1 ``y`` by maximising the training
    log-likelihood greedily (see ``search_problem`` for the options). ``sample_weight``
    weighs the rows of the likelihood (and of ``min_support``); see ``problem.prepare``."""
    _check_options(direction, search, max_rules, monotone, mode, min_gain)
    problem = prepare(X, y, min_conjunction, max_conjunction, min_support, conditions,
                      feature_names, sample_weight)
    return search_problem(problem, direction, search, beam_width, max_rules, min_support,
                          min_gain, monotone, mode)

