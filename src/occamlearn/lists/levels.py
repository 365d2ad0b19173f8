"""One level of the rule growing, by two engines that give the same numbers.

A level of ``grow`` takes b conjunctions (packed row sets) and the literals still worth adding,
and needs, for every (conjunction + literal): the rows and positives it covers of the
remainder, its gain and score (``rules.scored``), whether it may be the rule, whether it
shrinks its conjunction, and ``likelihood.refinement_bound`` less the least cost of a longer
condition; then the best of them by score.

* ``NumpyLevels`` computes these with whole-array numpy operations (``bits.count_covered``,
  ``rules.scored``, ``likelihood.refinement_bound``, ``rules.pick_top``). It handles weights.
* ``CompiledLevels`` calls ``level_kernels``: one compiled call per level and one per pick,
  with the same arithmetic in the same order, so it returns the same floats and picks.

``levels_for`` picks the compiled engine for unweighted problems once ``load_kernels`` has
run in this process. Loading them (numba's import, then its disk cache) takes about a second;
compiling them into an empty cache about 7 CPU seconds, once per install and numba (a compile
cannot look at the deadline). So a search loads them only with ``LOAD_MIN_SECONDS`` left,
and otherwise runs on numpy (``dlist_fixed_cost.md`` says what was measured).
"""

from __future__ import annotations

import numpy as np

from occamlearn.lists.likelihood import refinement_bound
from occamlearn.lists.rules import Scores, pick_top, scored

__all__ = ["SIGN", "CompiledLevels", "NumpyLevels", "levels_for", "levels_of", "load_kernels"]

LOAD_MIN_SECONDS = 10.0
_loaded: dict = {}  # "kernels": the loaded module, once load_kernels succeeded
SIGN = {"positive": 1, "negative": -1, None: 0}


class NumpyLevels:
    """A level by numpy array operations (any problem, weighted or not)."""

    @staticmethod
    def level(problem, remainder, search, cost, level, min_literals, rows, positives,
              parents, literals):
        """(covered, positive, ``Scores``, shrinks) of every (conjunction + literal still in
        ``literals``) of one level; a conjunction may be the rule only if it shrinks its
        parent and has at least ``min_literals`` literals."""
        covered, positive = problem.count(literals.all, rows, positives, literals.select)
        shrinks = covered < parents[:, None] - problem.tolerance
        scores = scored(covered, positive, remainder, search, cost(level), problem.xlogx)
        eligible = scores.eligible & shrinks
        if level < min_literals:
            eligible[...] = False
        return covered, positive, scores._replace(eligible=eligible), shrinks

    @staticmethod
    def bound(problem, covered, positive, scores, remainder, search, cost, level):
        """What any conjunction inside each may gain, less the least cost of a longer
        condition."""
        return (refinement_bound(covered, positive, remainder.n, remainder.pos,
                                 search.direction, problem.xlogx, scores.free_gain)
                - cost.at_least(level + 1))

    @staticmethod
    def expandable(covered, shrinks, bound, search, threshold):
        """Which (conjunction + literal) may be extended."""
        return shrinks & (covered > search.min_support) & (bound > threshold)

    pick_top = staticmethod(pick_top)

    def pick_expandable(self, score, covered, shrinks, bound, search, threshold, keep):
        """The ``keep`` best by score among those that may be extended (``pick_top``)."""
        return pick_top(score, self.expandable(covered, shrinks, bound, search, threshold),
                        keep)


    def next_members(self, literals, rows, positives, covered, score, shrinks, bound, search,
                     threshold, seen, n_seen):
        """The next level's beam: the best (by score) conjunctions that may be extended and
        cover rows no conjunction grown before covers (``seen[:n_seen]``, appended to), up to
        ``search.width``: (rows, positives, covered, the member each extends, the literal
        it adds, n_seen)."""
        d = len(literals.index)
        known = {seen[k].tobytes() for k in range(n_seen)}
        grown = []
        for flat in self.pick_expandable(score, covered, shrinks, bound, search, threshold,
                                         2 * search.width):
            b, i = divmod(int(flat), d)
            j = int(literals.index[i])
            child = rows[b] & literals.all[j]
            key = child.tobytes()
            if key in known:
                continue
            known.add(key)
            seen[n_seen], n_seen = child, n_seen + 1
            grown.append((child, positives[b] & literals.all[j], covered[b, i].item(), b, j))
            if len(grown) == search.width:
                break
        if not grown:
            empty = rows[:0]
            return empty, empty, np.zeros(0), np.zeros(0, dtype=np.int64), \
                np.zeros(0, dtype=np.int64), n_seen
        child_rows, child_positives, parents, extends, added = zip(*grown)
        return (np.stack(child_rows), np.stack(child_positives),
                np.array(parents, dtype=np.float64), np.array(extends), np.array(added),
                n_seen)


class CompiledLevels(NumpyLevels):
    """A level by ``level_kernels`` (unweighted problems only): one call computes what
    ``NumpyLevels.level`` and ``NumpyLevels.bound`` do; ``bound`` then returns it."""

    def __init__(self, kernels):
        self.kernels = kernels
        self._bound = None

    def level(self, problem, remainder, search, cost, level, min_literals, rows, positives,
              parents, literals):
        previous = remainder.previous
        monotone = bool(search.monotone and previous is not None
                        and search.direction is not None)
        prev_n, prev_pos = previous if monotone else (0, 0)
        (covered, positive, gain, score, free_gain, eligible, shrinks, self._bound,
         stats) = self.kernels.score_level(
            literals.all, literals.index, rows, positives, parents, int(remainder.n),
            int(remainder.pos), problem.xlogx.table, SIGN[search.direction],
            float(search.min_support), float(search.min_gain), cost(level),
            bool(search.cost), level >= min_literals, monotone, int(prev_n), int(prev_pos),
            cost.at_least(level + 1))
        scores = Scores(gain, score, eligible, free_gain,
                        (bool(stats[0]), float(stats[1]), float(stats[2])))
        return covered, positive, scores, shrinks

    def bound(self, problem, covered, positive, scores, remainder, search, cost, level):
        return self._bound if covered.ndim == 2 else self._bound[0]

    def pick_top(self, score, eligible, keep):
        return self.kernels.pick_top(score, eligible, keep)

    def pick_expandable(self, score, covered, shrinks, bound, search, threshold, keep):
        return self.kernels.pick_expandable(score, shrinks, covered, bound,
                                            float(search.min_support), float(threshold), keep)

    def next_members(self, literals, rows, positives, covered, score, shrinks, bound, search,
                     threshold, seen, n_seen):
        return self.kernels.next_members(literals.all, literals.index, rows, positives, covered,
                                         score, shrinks, bound, float(search.min_support),
                                         float(threshold), search.width, seen, n_seen)


NUMPY_LEVELS = NumpyLevels()
ENGINE = "auto"  # what ``levels_of`` asks ``levels_for`` for (tests set "numpy" or "compiled")


def levels_of(problem, deadline=None):
    """``levels_for(problem, ENGINE, deadline)``, chosen once per problem and kept on it."""
    if "levels" not in problem.__dict__:
        problem.__dict__["levels"] = levels_for(problem, ENGINE, deadline)
    return problem.__dict__["levels"]


def load_kernels():
    """The ``level_kernels`` module, loaded (compiled if numba's disk cache lacks them), or
    None if numba fails; tried once per process."""
    if "kernels" not in _loaded:
        try:
            from occamlearn.lists import level_kernels

            level_kernels.warm_up()
            _loaded["kernels"] = level_kernels
        except Exception:  # numba missing or broken: the numpy engine does the same work
            _loaded["kernels"] = None
    return _loaded["kernels"]


def levels_for(problem, engine: str = "auto", deadline=None):
    """The engine for ``problem``: ``"numpy"``, ``"compiled"`` (loads the kernels now) or
    ``"auto"`` (compiled for unweighted problems when the kernels are loaded, or ``deadline``
    leaves ``LOAD_MIN_SECONDS`` to load them; else numpy)."""
    if engine == "numpy" or problem.weight is not None:
        return NUMPY_LEVELS
    if engine == "auto" and "kernels" not in _loaded and deadline is not None \
            and deadline.remaining() < LOAD_MIN_SECONDS:
        return NUMPY_LEVELS
    kernels = load_kernels()
    return NUMPY_LEVELS if kernels is None else CompiledLevels(kernels)
