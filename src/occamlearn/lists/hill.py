"""Hill climbing for (directional) decision lists (Goessling and Kang, Sec. II-III).

Starting from the empty list (every row gets the base rate), repeatedly append the best
allowed rule (``find.next_rules``: the largest likelihood gain less description cost, in the
direction, with enough support), until no rule may be appended or ``max_rules`` is reached.
The directed variant (eq. (1)) is the paper's fix for greedy search heading the wrong way.
"""

from __future__ import annotations

from dataclasses import replace

from occamlearn.lists.find import next_rules
from occamlearn.lists.likelihood import region_log_likelihood
from occamlearn.lists.result import SearchResult, make_list
from occamlearn.lists.rules import Remainder, RuleSearch

__all__ = ["constrained", "hill_climb", "start"]


def start(problem) -> Remainder:
    """The remainder of the empty list: every row."""
    return Remainder(problem.all_rows.copy(), problem.positives.copy(), problem.n_rows,
                     problem.n_positive)


def hill_climb(problem, direction="positive", max_rules: int = 10, min_support: int = 1,
               min_gain: float = 1e-8, monotone: bool = False, mode: str = "probabilistic",
               rule_search: RuleSearch | None = None, deadline=None,
               to_beat: float = -float("inf")) -> SearchResult:
    """Greedily append the best allowed rule until a stopping rule applies.

    ``rule_search`` says how rules are found (``rules.RuleSearch``; by default among the
    enumerated candidates, without a penalty); its direction and constraints are replaced by
    the arguments here. ``deadline`` (``stopping.Deadline``) ends the climb early with the
    list found so far (``stop_reason`` "time_limit").

    ``to_beat``: give up (``stop_reason`` "outscored") once the list can no longer reach a
    penalised log-likelihood above it: every later rule and the final remainder add a
    log-likelihood <= 0 and a cost >= 0, so the rules' regions so far, less their costs,
    bound the final value. "both" directions pass the first direction's result.
    """
    search = constrained(rule_search, direction, min_support, min_gain, monotone)
    remainder = start(problem)
    chosen = []
    f = problem.xlogx  # x log x as the gains take it: a lookup for counts (no log per call)
    history = [float(region_log_likelihood(remainder.n, remainder.pos, f))]
    rules_ll = 0.0
    reason = "max_rules"
    while len(chosen) < max_rules:
        if deadline is not None and deadline.expired():
            reason = "time_limit"
            break
        if rules_ll - sum(f.cost for f in chosen) <= to_beat:
            reason = "outscored"
            break
        choice = next_rules(problem, remainder, search, 1, deadline)
        if not choice.found:
            reason = choice.reason
            break
        found = choice.found[0]
        chosen.append(found)
        remainder = remainder.without(found)
        rules_ll += float(region_log_likelihood(found.covered, found.positive, f))
        history.append(rules_ll + float(region_log_likelihood(remainder.n, remainder.pos, f)))
    return SearchResult(make_list(problem, chosen, remainder.n, remainder.pos, mode, direction),
                        tuple(history), direction, reason, "hill",
                        tuple(f.cost for f in chosen))


def constrained(rule_search, direction, min_support, min_gain, monotone) -> RuleSearch:
    """``rule_search`` (default: enumerated, no penalty) with these constraints."""
    base = rule_search if rule_search is not None else RuleSearch()
    return replace(base, direction=direction, min_support=min_support, min_gain=min_gain,
                   monotone=monotone)
