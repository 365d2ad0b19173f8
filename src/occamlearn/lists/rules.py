"""What the searches for a rule share: the remainder, a found rule, the options and the scoring.

Every search (``hill``, ``beam``) keeps a ``Remainder`` -- the training rows no rule covers yet
-- and asks ``find.next_rules`` for the best allowed rules to append. A rule is allowed when it
covers at least ``min_support`` of the remainder (not all of it), keeps the direction (eq. (1))
and, with ``monotone``, the order of the probabilities (Sec. III-A). Among the allowed ones
the best is the one with the largest score = likelihood gain - description cost
(``cost.RuleCost``; no cost without a penalty); a rule is appended only when its gain exceeds
``min_gain`` and, with a penalty, its score is positive.

Where the conditions come from (``RuleSearch.kind``):

* ``"enumerate"`` (``find``) -- every conjunction of ``min_conjunction``..``max_conjunction``
  literals with enough support, materialised once (``candidates``): the paper's setting, exact over
  that set, and what an explicit ``conditions=`` list uses;
* ``"beam"`` (``grow``) -- grown literal by literal by a beam of ``width`` conjunctions (``grow``):
  no conjunction is built unless it is evaluated. Greedy (width 1) or a small beam; not guaranteed
  to find the best conjunction;
* ``"exact"`` (``grow``) -- branch and bound over all conjunctions of up to ``max_conjunction``
  literals, pruned by ``likelihood.refinement_bound``: the best score there is (unless the deadline
  stops it first).

When nothing can be appended, ``Choice.reason`` says why (``result.STOP_REASONS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from occamlearn.lists.cost import RuleCost
from occamlearn.lists.likelihood import allowed, gains, monotone_ok

__all__ = ["NO_STATS", "RULE_SEARCHES", "Choice", "Found", "Remainder", "RuleSearch", "Scores",
           "merge_stats", "pick_top", "scored", "why_none"]

RULE_SEARCHES = ("enumerate", "beam", "exact")


@dataclass(frozen=True)
class RuleSearch:
    """How each rule is found and what it must satisfy.

    kind : "enumerate", "beam" or "exact" (module docstring)
    width : conjunctions kept per literal added ("beam"; "exact" starts from such a beam)
    direction, min_support, min_gain, monotone : the constraints (``likelihood``)
    cost : ``RuleCost`` of a condition by its number of literals
    """

    kind: str = "enumerate"
    width: int = 5
    direction: object = "positive"
    min_support: float = 1
    min_gain: float = 1e-8
    monotone: bool = False
    cost: RuleCost | None = None

    def __post_init__(self):
        if self.kind not in RULE_SEARCHES:
            raise ValueError(f"rule_search must be one of {RULE_SEARCHES}; got {self.kind!r}")
        if isinstance(self.width, bool) or not isinstance(self.width, (int, np.integer)) \
                or self.width < 1:
            raise ValueError(f"rule_beam_width must be an int >= 1; got {self.width!r}")


@dataclass(frozen=True, eq=False)
class Remainder:
    """The rows no rule covers yet (packed), their total and positive count (or weight), and
    (n, pos) of the last rule, which the monotone constraint compares with."""

    rows: np.ndarray
    positives: np.ndarray
    n: float
    pos: float
    previous: tuple | None = None

    @property
    def pure(self) -> bool:
        return self.pos == 0 or self.pos == self.n

    def without(self, found: Found) -> Remainder:
        """The remainder once ``found`` is appended."""
        return Remainder(self.rows & ~found.rows, self.positives & ~found.rows,
                         self.n - found.covered, self.pos - found.positive,
                         (found.covered, found.positive))


@dataclass(frozen=True, eq=False)
class Found:
    """A condition (sorted literal indices) and what it covers of the remainder: the packed
    rows, their count (weight) and positives, its likelihood gain and description cost."""

    literals: tuple
    rows: np.ndarray
    covered: float
    positive: float
    gain: float
    cost: float

    @property
    def score(self) -> float:
        return self.gain - self.cost


@dataclass(frozen=True)
class Choice:
    """The best allowed rules (best first), or none and the reason."""

    found: tuple
    reason: str | None = None


class Scores(NamedTuple):
    """Conditions scored as the next rule: ``gain`` (-inf where not allowed), ``score`` = gain
    - cost, ``eligible`` (may be appended), ``free_gain`` (the gain where allowed before the
    monotone constraint, else -inf: what ``likelihood.refinement_bound`` may start from) and
    ``stats`` (any supported, best gain ignoring monotonicity, best allowed gain) for
    ``why_none``."""

    gain: np.ndarray
    score: np.ndarray
    eligible: np.ndarray
    free_gain: np.ndarray
    stats: tuple


def scored(covered, positive, remainder: Remainder, search: RuleSearch, cost, f) -> Scores:
    """Score conditions covering ``covered``/``positive`` of the remainder (``f``: the
    problem's ``xlogx``)."""
    n, pos = remainder.n, remainder.pos
    ok = allowed(covered, positive, n, pos, search.direction, search.min_support)
    free_gain = np.where(ok, gains(covered, positive, n, pos, f), -np.inf)
    gain = free_gain
    if search.monotone and remainder.previous is not None and search.direction is not None:
        gain = np.where(monotone_ok(covered, positive, remainder.previous, search.direction),
                        gain, -np.inf)
    supported = bool(((covered >= search.min_support) & (covered < n)).any())
    score = gain - cost
    eligible = gain > search.min_gain
    if search.cost:
        eligible &= score > 0
    top = float(gain.max()) if gain.size else -np.inf
    free_top = float(free_gain.max()) if gain.size else -np.inf
    return Scores(gain, score, eligible, free_gain, (supported, free_top, top))


def merge_stats(a, b):
    return (a[0] or b[0], max(a[1], b[1]), max(a[2], b[2]))


NO_STATS = (False, -np.inf, -np.inf)


def why_none(remainder: Remainder, stats, search: RuleSearch, timed_out: bool = False) -> str:
    """Why no rule can be appended (``result.STOP_REASONS``)."""
    supported, best_unmonotone, best_gain = stats
    if remainder.pure:
        return "pure"
    if timed_out:
        return "time_limit"
    if not supported:
        return "min_support"
    if best_unmonotone > search.min_gain >= best_gain:
        return "monotone"
    if best_gain > search.min_gain:
        return "penalty"
    return "min_gain"


def pick_top(score: np.ndarray, eligible: np.ndarray, keep: int) -> np.ndarray:
    """Flat indices of the ``keep`` best eligible entries of ``score``, best first, ties to
    lower indices (so smaller conditions and lower feature indices win ties)."""
    flat_score, flat_ok = score.ravel(), eligible.ravel()
    index = np.flatnonzero(flat_ok)
    if len(index) > keep:
        part = np.argpartition(-flat_score[index], keep - 1)[:keep]
        cut = flat_score[index[part]].min()
        index = index[flat_score[index] >= cut]
    return index[np.lexsort((index, -flat_score[index]))][:keep]
