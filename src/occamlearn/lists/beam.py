"""Beam search for (directional) decision lists (Goessling and Kang, Sec. II).

Each step extends every list in the beam by each of its ``beam_width`` best allowed rules
(the same rules, scores and constraints as ``hill.hill_climb``) and keeps the ``beam_width``
best children by training log-likelihood less description cost. Of children leaving exactly
the same rows uncovered (and, with ``monotone``, ending in a rule of the same probability) only
the best is kept: all their continuations are the same, so the others can never win. A list
that cannot be extended is set aside as finished; the answer is the best list seen. With
``beam_width=1`` this is exactly hill climbing (the paper, Sec. II; the tests check it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn.lists.find import next_rules
from occamlearn.lists.hill import constrained, start
from occamlearn.lists.likelihood import region_log_likelihood
from occamlearn.lists.result import SearchResult, make_list
from occamlearn.lists.rules import Remainder, RuleSearch

__all__ = ["beam_search"]


@dataclass(frozen=True, eq=False)
class _Partial:
    chosen: tuple        # Found rules
    remainder: Remainder
    rules_ll: float      # log-likelihood of the rule regions
    history: tuple       # log-likelihood after 0..k rules
    cost: float          # description cost of the rules

    @property
    def score(self) -> float:
        return self.history[-1] - self.cost

    def extend(self, found) -> _Partial:
        remainder = self.remainder.without(found)
        rules_ll = self.rules_ll + float(region_log_likelihood(found.covered, found.positive))
        total = rules_ll + float(region_log_likelihood(remainder.n, remainder.pos))
        return _Partial(self.chosen + (found,), remainder, rules_ll, self.history + (total,),
                        self.cost + found.cost)


def beam_search(problem, beam_width: int = 10, direction="positive", max_rules: int = 10,
                min_support: int = 1, min_gain: float = 1e-8, monotone: bool = False,
                mode: str = "probabilistic", rule_search: RuleSearch | None = None,
                deadline=None) -> SearchResult:
    """Best list found by a beam of ``beam_width`` partial lists (``rule_search`` and
    ``deadline`` as in ``hill.hill_climb``)."""
    if isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer)) \
            or beam_width < 1:
        raise ValueError(f"beam_width must be an int >= 1; got {beam_width!r}")
    search = constrained(rule_search, direction, min_support, min_gain, monotone)
    root = start(problem)
    beams = [_Partial((), root, 0.0, (float(region_log_likelihood(root.n, root.pos)),), 0.0)]
    finished = []
    while beams:
        children = []
        for rank, beam in enumerate(beams):
            if len(beam.chosen) >= max_rules:
                finished.append((beam, "max_rules"))
                continue
            if deadline is not None and deadline.expired():
                finished.append((beam, "time_limit"))
                continue
            choice = next_rules(problem, beam.remainder, search, beam_width, deadline)
            if not choice.found:
                finished.append((beam, choice.reason))
                continue
            for order, found in enumerate(choice.found):
                child = beam.extend(found)
                children.append((-child.score, rank, order, child))
        children.sort(key=lambda item: item[:3])
        beams, seen = [], set()
        for *_, child in children:
            last = child.chosen[-1]
            key = (child.remainder.rows.tobytes(),
                   last.positive / last.covered if monotone else None)
            if key not in seen:
                seen.add(key)
                beams.append(child)
            if len(beams) == beam_width:
                break
    best, reason = max(finished, key=lambda item: (item[0].score, -len(item[0].chosen)))
    decision_list = make_list(problem, best.chosen, best.remainder.n, best.remainder.pos, mode,
                              direction)
    return SearchResult(decision_list, best.history, direction, reason, f"beam{beam_width}",
                        tuple(f.cost for f in best.chosen))
