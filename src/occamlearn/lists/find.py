"""Finding the next rule of a list: the dispatch over ``RuleSearch.kind``.

``next_rules`` returns the ``keep`` best rules that may be appended to a list (distinct in the
rows of the remainder they cover), best first, or the reason there is none. Enumerated
conditions are counted here in one pass (``bits.count_covered``); grown ones come from
``grow``.
"""

from __future__ import annotations

from occamlearn.lists.grow import grow_rules
from occamlearn.lists.rules import Choice, Found, Remainder, RuleSearch, pick_top, scored, why_none

__all__ = ["next_rules"]


def _enumerated(problem, remainder: Remainder, search: RuleSearch, keep: int,
                deadline=None) -> Choice:
    candidates = problem.candidates_within(deadline)
    covered, positive = problem.count(candidates.columns, remainder.rows, remainder.positives)
    cost = (search.cost.table(candidates.sizes) if search.cost else 0.0)
    gain, score, eligible, _, stats = scored(covered, positive, remainder, search, cost,
                                             problem.xlogx)
    top = pick_top(score, eligible, keep)
    if not len(top):
        return Choice((), why_none(remainder, stats, search))
    found = tuple(
        Found(candidates.conditions[c], candidates.columns[c] & remainder.rows,
              covered[c].item(), positive[c].item(), float(gain[c]),
              float(gain[c] - score[c])) for c in top)
    return Choice(found)


def next_rules(problem, remainder: Remainder, search: RuleSearch, keep: int = 1,
               deadline=None) -> Choice:
    """The ``keep`` best rules that may be appended to a list whose uncovered rows are
    ``remainder`` (distinct in the rows they cover), or the reason there is none."""
    if remainder.pure:
        return Choice((), "pure")
    if search.kind == "enumerate":
        return _enumerated(problem, remainder, search, keep, deadline)
    return grow_rules(problem, remainder, search, keep, deadline)
