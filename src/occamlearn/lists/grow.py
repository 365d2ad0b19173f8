"""Growing a rule literal by literal: a beam of conjunctions, or branch and bound over all of them.

A conjunction is never materialised unless it is evaluated. Adding a literal to each of b
conjunctions is one pass of packed ANDs and popcounts over the d literal columns (a level of
``levels``: numpy's ``bits.count_covered`` with b row sets, or one compiled call that reads
each column once for all b), which gives, for every conjunction-plus-literal, the rows and
positives it covers of the remainder, hence its gain, its score (gain - ``cost.RuleCost``)
and ``likelihood.refinement_bound``, the most any conjunction containing it can gain.

* **Beam** (``rule_search="beam"``, width B; B = 1 is greedy): level k keeps the B best
  conjunctions of k literals by score (distinct in the rows they cover), level k + 1 extends each by
  every literal. The best conjunction seen at any level is the rule, so the number of literals is
  chosen by the score. A conjunction is not extended when its bound, less the least cost of a longer
  condition, cannot beat the best found: no extension of it could be the answer, and its place in
  the beam goes to one whose extensions might. A beam may miss the best conjunction (the first
  literal of the best pair may score poorly on its own): it is greedy, not exact. It is the default
  because it is fast and held-out accuracy was no worse than the exact search's
  (``benchmarks/results/dlist_accuracy_exact.md``).
* **Exact** (``rule_search="exact"``): depth-first branch and bound over conjunctions in
  increasing literal order (each set of literals is visited once), started with the beam's
  best as incumbent. A node is cut when its bound minus the least cost of a longer condition
  does not beat the incumbent: by the bound's proof no conjunction containing it scores
  more. So the result is the best score over every conjunction of up to ``max_conjunction``
  literals -- the enumerated optimum -- unless the deadline stops the search first.

With the compiled levels and one rule kept (hill climbing, the default), a rule's whole beam
runs in one compiled call (``level_kernels.grow_best``: the same levels, picks, members and
literal narrowing as ``_beam`` with a pool of one, so the same rule), because on small tables
the Python around each level cost more than the level itself. The deadline is then checked
between rules, not between levels, so only problems of at most ``COMPILED_MAX_WORDS`` packed
words take that path.

A literal that removes no row of a conjunction is skipped: the result covers the same rows at
a higher cost, and everything inside it is also inside the conjunction without it. For the
same reason a found rule loses every literal whose removal leaves its rows of the remainder
unchanged (``t1 == x`` makes a later ``t1 != o`` redundant): same gain, lower cost.
"""

from __future__ import annotations

import numpy as np

from occamlearn.lists.cost import rule_cost
from occamlearn.lists.levels import SIGN, CompiledLevels, levels_of
from occamlearn.lists.rules import NO_STATS, Choice, Found, Scores, merge_stats, why_none

__all__ = ["COMPILED_MAX_WORDS", "grow_rules"]

# Up to this many packed words of literals (2 MB) a rule is grown in one compiled call: a
# level there takes well under a millisecond, so the deadline is checked between rules only.
COMPILED_MAX_WORDS = 1 << 18


class _Pool:
    """The ``keep`` best rules found so far, distinct in the rows they cover; ties go to
    fewer literals, then to lower literal indices."""

    def __init__(self, keep: int, floor: float):
        self.keep, self.floor = keep, floor
        self.items: list = []
        self._rows: dict = {}

    def threshold(self) -> float:
        """What a new rule must beat to enter (the floor: 0 with a penalty, else min_gain)."""
        if len(self.items) < self.keep:
            return self.floor
        return max(self.floor, self.items[-1].score)

    def rejects(self, score: float) -> bool:
        """Whether a rule scoring ``score`` cannot enter: the pool is full and its last
        scores more (strictly; a tie may still win on fewer or lower literals). Such a rule
        would be ordered after every kept one, including any covering the same rows."""
        return len(self.items) == self.keep and score < self.items[-1].score

    def offer(self, found: Found) -> None:
        key = found.rows.tobytes()
        old = self._rows.get(key)
        if old is not None:
            if _order(found) >= _order(old):
                return
            self.items.remove(old)
        self._rows[key] = found
        self.items.append(found)
        self.items.sort(key=_order)
        for dropped in self.items[self.keep:]:
            del self._rows[dropped.rows.tobytes()]
        del self.items[self.keep:]


def _order(found: Found):
    return (-found.score, len(found.literals), found.literals)


class _Literals:
    """The literals still worth adding on this remainder. Every conjunction containing
    literal j lies inside {j}, so {j}'s ``refinement_bound`` (computed at level 1, on the same
    remainder) bounds them all: once it, less the least cost of a condition of ``level``
    literals, cannot beat the rules found, j is left out of the counts at that level."""

    def __init__(self, problem):
        self.all = problem.literals
        self.index = np.arange(len(self.all))
        self.select = None  # the literals counted: None (all) or ``index``
        self.bound = None
        self._levels: dict = {}  # level -> (threshold, index, select)

    def narrow(self, bound, cost, level: int, threshold: float) -> None:
        """Keep the literals whose level-1 ``bound`` may still pay for ``level`` literals."""
        if self.bound is None:
            self.bound = bound
        known = self._levels.get(level)
        if known is None or known[0] < threshold:
            keep = np.flatnonzero(self.bound - cost.at_least(level) > threshold)
            select = None if len(keep) == len(self.all) else keep
            known = self._levels[level] = (threshold, keep, select)
        _, self.index, self.select = known


def _beam(problem, remainder, search, cost, pool, max_literals, min_literals, deadline):
    """Grow conjunctions level by level, ``search.width`` kept per level; returns (stats,
    whether the deadline stopped it)."""
    literals, levels = _Literals(problem), levels_of(problem, deadline)
    chosen = [()]  # the literals of each member of the beam, and their rows:
    rows, positives = remainder.rows[None], remainder.positives[None]
    parents = np.array([remainder.n], dtype=np.float64)
    seen = np.empty((1 + search.width * max_literals, len(remainder.rows)), dtype=np.uint64)
    seen[0], n_seen = remainder.rows, 1
    stats = NO_STATS
    for level in range(1, max_literals + 1):
        if deadline is not None and deadline.expired():
            return stats, True
        covered, positive, scores, shrinks = levels.level(
            problem, remainder, search, cost, level, min_literals, rows, positives, parents,
            literals)
        gain, score = scores.gain, scores.score
        stats = merge_stats(stats, scores.stats)
        d = len(literals.index)
        for flat in levels.pick_top(score, scores.eligible, pool.keep):
            b, i = divmod(int(flat), d)
            if pool.rejects(float(score[b, i])):
                break  # best first: the rest score no more
            j = int(literals.index[i])
            pool.offer(Found(tuple(sorted(chosen[b] + (j,))), rows[b] & literals.all[j],
                             covered[b, i].item(), positive[b, i].item(),
                             float(gain[b, i]), cost(level)))
        if level == max_literals:
            break
        bound = levels.bound(problem, covered, positive, scores, remainder, search, cost, level)
        rows, positives, parents, extends, added, n_seen = levels.next_members(
            literals, rows, positives, covered, score, shrinks, bound, search,
            pool.threshold(), seen, n_seen)
        if not len(rows):
            break
        chosen = [chosen[b] + (j,) for b, j in zip(extends.tolist(), added.tolist())]
        literals.narrow(bound[0] + cost.at_least(level + 1) if level == 1 else None, cost,
                        level + 1, pool.threshold())
    return stats, False


def _exact(problem, remainder, search, cost, pool, max_literals, min_literals, deadline):
    """Depth-first branch and bound in increasing literal order; returns (stats, whether the
    deadline stopped it before the search space was exhausted)."""
    literals, levels = _Literals(problem), levels_of(problem, deadline)
    # (literals so far, the bound of everything inside them, the rows they cover)
    stack = [((), np.inf, remainder.n)]
    stats = NO_STATS
    while stack:
        chosen, bound, parent = stack.pop()
        if bound <= pool.threshold():
            continue
        if deadline is not None and deadline.expired():
            return stats, True
        rows, positives = remainder.rows, remainder.positives
        for j in chosen:
            rows = rows & literals.all[j]
            positives = positives & literals.all[j]
        level = len(chosen) + 1
        if chosen:
            literals.narrow(None, cost, level, pool.threshold())
        covered, positive, scores, shrinks = levels.level(
            problem, remainder, search, cost, level, min_literals, rows[None], positives[None],
            np.array([parent], dtype=np.float64), literals)
        scores = Scores(*(a[0] for a in scores[:4]), scores.stats)
        covered, positive, gain, score = covered[0], positive[0], scores.gain, scores.score
        later = literals.index > (chosen[-1] if chosen else -1)
        eligible, shrinks = scores.eligible & later, shrinks[0] & later
        stats = merge_stats(stats, scores.stats)
        for i in np.flatnonzero(eligible & (score > pool.threshold())):
            j = int(literals.index[i])
            pool.offer(Found(chosen + (j,), rows & literals.all[j], covered[i].item(),
                             positive[i].item(), float(gain[i]), cost(level)))
        if level == max_literals:
            continue
        child_bound = levels.bound(problem, covered, positive, scores, remainder, search, cost,
                                   level)
        expandable = levels.expandable(covered, shrinks, child_bound, search, pool.threshold())
        index = literals.index
        if not chosen:
            literals.narrow(child_bound + cost.at_least(level + 1), cost, level + 1,
                            pool.threshold())
        children = np.flatnonzero(expandable)
        for i in children[np.argsort(child_bound[children], kind="stable")]:
            stack.append((chosen + (int(index[i]),), float(child_bound[i]), covered[i].item()))
    return stats, False


_GROWERS = {"beam": (_beam,), "exact": (_beam, _exact)}


def _compiled_best(problem, remainder, search, cost, max_literals, deadline):
    """``_beam`` for one rule in one compiled call (``level_kernels.grow_best``), as
    (pool, stats), the rule without its redundant literals (``_without_redundant``); None
    where the Python loop runs instead: the numpy engine, more than one rule kept, or a
    problem so large that a level takes long enough for the deadline, which the loop checks
    before each level, to matter."""
    levels = levels_of(problem, deadline)
    if not isinstance(levels, CompiledLevels) or problem.literals.size > COMPILED_MAX_WORDS \
            or (deadline is not None and deadline.expired()):
        return None
    previous = remainder.previous
    monotone = bool(search.monotone and previous is not None and search.direction is not None)
    prev_n, prev_pos = previous if monotone else (0, 0)
    found, literals, rows, covered, positive, gain, cost_level, stats = \
        levels.kernels.grow_best(
            problem.literals, remainder.rows, remainder.positives, int(remainder.n),
            int(remainder.pos), problem.xlogx.table, SIGN[search.direction],
            float(search.min_support), float(search.min_gain), cost.costs, bool(search.cost),
            problem.min_conjunction, max_literals, monotone, int(prev_n), int(prev_pos),
            search.width)
    pool = _Pool(1, 0.0)
    if found:
        pool.items.append(Found(tuple(literals.tolist()), rows, int(covered), int(positive),
                                float(gain), float(cost_level)))
    return pool, (bool(stats[0]), float(stats[1]), float(stats[2]))


def grow_rules(problem, remainder, search, keep: int = 1, deadline=None) -> Choice:
    """The ``keep`` best rules grown on ``remainder`` (``search.kind`` "beam" or "exact"),
    best first, or none and the reason.

    A deadline that stops the growth between levels loses nothing finished: the rules
    returned are the pool's, the best of the levels completed, and each entered the pool
    only as an eligible conjunction (support, direction, shrinking its parent) scoring above
    its floor, the penalised gain > 0 that accepts a rule (``min_gain`` without a penalty).
    The beam's levels up to level k do not depend on how many follow (a level's members and
    narrowed literals use only the costs of conditions of k + 1 literals), so the rule kept
    is the one the same beam finds with ``max_conjunction`` = k, and the same stopping rule
    accepts it; the list's next check of the deadline then ends it with "time_limit". With
    no rule in the pool the reason is "time_limit". The compiled rule (``_compiled_best``)
    is never stopped within: the deadline is read before it."""
    cost = search.cost or rule_cost(problem.n_features, None)
    max_literals = min(problem.max_conjunction, problem.n_features)
    compiled = None if search.kind != "beam" or keep != 1 else \
        _compiled_best(problem, remainder, search, cost, max_literals, deadline)
    if compiled is not None:
        pool, stats = compiled  # its rule has lost its redundant literals already
        if not pool.items:
            return Choice((), why_none(remainder, stats, search))
        return Choice((pool.items[0],))
    pool = _Pool(keep, 0.0 if search.cost else search.min_gain)
    stats, timed_out = NO_STATS, False
    for grow in _GROWERS[search.kind]:
        grown, timed_out = grow(problem, remainder, search, cost, pool, max_literals,
                                problem.min_conjunction, deadline)
        stats = merge_stats(stats, grown)
        if timed_out:
            break
    if not pool.items:
        return Choice((), why_none(remainder, stats, search, timed_out))
    found = [_without_redundant(problem, remainder, f, cost, problem.min_conjunction)
             for f in pool.items]
    return Choice(tuple(sorted(found, key=_order)))


def _without_redundant(problem, remainder, found: Found, cost, min_literals: int) -> Found:
    """``found`` without the literals whose removal keeps its rows of the remainder."""
    kept = list(found.literals)
    dropped = True
    while dropped and len(kept) > max(1, min_literals):
        dropped = False
        for literal in kept:
            rows = remainder.rows
            for other in kept:
                if other != literal:
                    rows = rows & problem.literals[other]
            if (rows == found.rows).all():
                kept.remove(literal)
                dropped = True
                break
    if len(kept) == len(found.literals):
        return found
    return Found(tuple(kept), found.rows, found.covered, found.positive, found.gain,
                 cost(len(kept)))
