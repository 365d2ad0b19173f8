"""Hill climbing for (directional) decision lists (Goessling and Kang, Sec. II-III).

Starting from the empty list (every row gets the base rate), repeatedly append the best
allowed rule (``find.next_rules``: the largest likelihood gain less description cost, in the
direction, with enough support), until no rule may be appended or ``max_rules`` is reached.
The directed variant (eq. (1)) is the paper's fix for greedy search heading the wrong way.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occamlearn.lists.cost import rule_cost
from occamlearn.lists.find import next_rules
from occamlearn.lists.grow import COMPILED_MAX_WORDS
from occamlearn.lists.levels import SIGN, CompiledLevels, levels_of
from occamlearn.lists.likelihood import CountXLogX, region_log_likelihood
from occamlearn.lists.result import SearchResult, make_list
from occamlearn.lists.rules import Found, Remainder, RuleSearch, why_none

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
    climbed = _compiled_climb(problem, search, max_rules, mode, deadline, to_beat)
    if climbed is not None:
        return climbed
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


def _compiled_climb(problem, search, max_rules, mode, deadline, to_beat):
    """``hill_climb`` in one compiled call (``level_kernels.climb``), or None where that is
    not the same search: a rule search other than the beam, the numpy engine, a deadline
    already passed, or so many packed words that the climb, which cannot look at the
    deadline, could do more work than ``COMPILED_MAX_WORDS`` lets one compiled rule do.

    Why the same list: with the compiled engine each rule of the loop above is
    ``grow_best`` on the remainder (``grow._compiled_best``: beam rules, one kept), and the
    kernel runs the loop with the same arguments and stops in the same order (outscored,
    pure, no rule, ``max_rules``); the log-likelihoods and the list are then formed here
    from its counts exactly as the loop forms them."""
    levels = levels_of(problem, deadline)
    if search.kind != "beam" or not isinstance(levels, CompiledLevels) \
            or max(max_rules, 1) * problem.literals.size > COMPILED_MAX_WORDS \
            or (deadline is not None and deadline.expired()):
        return None
    cost = search.cost or rule_cost(problem.n_features, None)
    no_check = np.zeros_like(problem.all_rows)  # no held-out rows to count
    (k, literals, n_literals, covered, positive, gains, paid, n_rest, pos_rest, _, _, reason,
     stats) = levels.kernels.climb(
        problem.literals, problem.all_rows, problem.positives, int(problem.n_rows),
        int(problem.n_positive), problem.xlogx.table, SIGN[search.direction],
        float(search.min_support), float(search.min_gain), cost.costs, bool(search.cost),
        problem.min_conjunction, min(problem.max_conjunction, problem.n_features),
        bool(search.monotone and search.direction is not None), search.width, max_rules,
        float(to_beat), no_check, no_check)
    f, n, pos = problem.xlogx, problem.n_rows, problem.n_positive
    history = [count_log_likelihood(n, pos, f)]
    chosen, rules_ll = [], 0.0
    for r in range(k):
        c, p = int(covered[r]), int(positive[r])
        chosen.append(Found(tuple(literals[r, :n_literals[r]].tolist()), None, c, p,
                            float(gains[r]), float(paid[r])))
        n, pos = n - c, pos - p
        rules_ll += count_log_likelihood(c, p, f)
        history.append(rules_ll + count_log_likelihood(n, pos, f))
    why = ("max_rules", "pure", None, "outscored")[reason]
    if why is None:
        why = why_none(Remainder(None, None, n, pos), (bool(stats[0]), float(stats[1]),
                                                      float(stats[2])), search)
    return SearchResult(make_list(problem, chosen, n, pos, mode, search.direction),
                        tuple(history), search.direction, why, "hill",
                        tuple(f.cost for f in chosen))


def constrained(rule_search, direction, min_support, min_gain, monotone) -> RuleSearch:
    """``rule_search`` (default: enumerated, no penalty) with these constraints:
    ``dataclasses.replace(rule_search, ...)``, made as a copy of its fields with these four
    set, without the constructor. ``replace`` would call it with the same fields, and its
    only checks (``RuleSearch.__post_init__``) read ``kind`` and ``width``, which are
    ``rule_search``'s and passed them when it was made; a subclass is replaced as such."""
    base = rule_search if rule_search is not None else RuleSearch()
    if type(base) is not RuleSearch:
        return replace(base, direction=direction, min_support=min_support, min_gain=min_gain,
                       monotone=monotone)
    made = object.__new__(RuleSearch)
    made.__dict__.update(base.__dict__, direction=direction, min_support=min_support,
                         min_gain=min_gain, monotone=monotone)
    return made


def count_log_likelihood(n, pos, f) -> float:
    """``float(region_log_likelihood(n, pos, f))`` for one region of Python int counts
    read from a ``CountXLogX`` table: the same three float64 entries added and subtracted
    in the same order, without making arrays of the counts (any other ``f``: that call)."""
    if isinstance(f, CountXLogX):
        table = f.table
        return float(table[pos] + table[n - pos] - table[n])
    return float(region_log_likelihood(n, pos, f))
