"""What a rule costs: the description length that stops a list growing on noise.

A list is kept short by a penalised likelihood in the spirit of minimum description length
(MDL, Rissanen): a rule joins the list only when it raises the training log-likelihood by more
than it costs to write down. Writing a condition of k literals means naming it among the
M_k = C(d, 1) + ... + C(d, k) conjunctions of at most k of the d binary features, log M_k
nats. So with ``penalty=1`` a rule is appended when

    gain(rule) > log M_k                        (natural logs; gain as in ``likelihood``)

and, by the same measure, a longer condition is preferred to a shorter one only when its
extra literals pay for themselves: the search ranks conditions by gain - log M_k. (M_k, not
C(d, k): the cost must grow with k, or a condition of all d features would cost nothing and
dropping a redundant literal could cost more.) This
chooses both the number of rules and the size of each condition on the data; ``max_rules``
and ``max_conjunction`` stay as ceilings.

Why this cost: it is the log of the number of conditions the rule was chosen from, a
Bonferroni correction. Were the labels independent of the features, twice the gain of one
fixed condition would be (asymptotically, Wilks) chi-squared with one degree of freedom, so
P(gain > t) = erfc(sqrt t) <= exp(-t) / sqrt(pi t); over all M = M_k conditions the best noise
condition passes the threshold log M with probability at most M exp(-log M) / sqrt(pi log M)
= 1 / sqrt(pi log M). The probability of a rule is not charged
(every list has one per rule), nor the direction (both are compared at the same price).

The bound above is for conditions fixed in advance; the search picks the best one greedily,
so the charge is checked against what that search finds on noise. On the 16 tables of
``benchmarks/dlist_accuracy.py``, the best first rule found on permuted labels gains less
than the charge of a 4-literal rule on every table (mean of 3 permutations; the max of 3
exceeds it on mux6 only, 7.5 against 6.7 nats). So the charge already stops noise rules, and
raising it to what noise gains changed no held-out accuracy. Where a list scores below the
majority class (hepa, spect), its rules are not noise; the rates of their regions are off by a
few rows. Shrinking those rates (m-estimates toward the parent region's or the training rate,
m = 1..8) moved hepa and spect by at most 0.7 points, and lost mux6 at m = 8. Both remedies
were measured and neither was adopted (``benchmarks/results/dlist_selection_bias.md``).
Choosing the length on held-out folds instead (``crossfit``) is an option, not the default:
it trades append for hepa (the reasons are in ``crossfit``). What the default does is shrink
the rates by a factor that held-out folds choose (``shrinkage``): the amount comes from the
data, 1 or near it on the concept tables and about 0.5 on hepa and spect.

The weight ``penalty`` scales the cost (0 or None: no penalty, the paper's plain greedy
search, which stops only on ``min_gain``, purity or ``max_rules``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["RuleCost", "rule_cost"]


class RuleCost:
    """Nats charged for a condition of k literals over ``n_features`` binary features:
    ``penalty * log(C(d, 1) + ... + C(d, k))`` (0 for every k when ``penalty`` is 0);
    non-decreasing in k."""

    __slots__ = ("_table", "n_features", "penalty")

    def __init__(self, n_features: int, penalty: float = 1.0):
        self.n_features = int(n_features)
        self.penalty = float(penalty or 0.0)
        d = max(self.n_features, 1)
        k = np.arange(d + 1)
        log_choose = (math.lgamma(d + 1) - np.vectorize(math.lgamma)(k + 1)
                      - np.vectorize(math.lgamma)(d - k + 1))
        log_choose[0] = -np.inf  # the empty condition is not a rule
        log_at_most = np.logaddexp.accumulate(log_choose)
        log_at_most[0] = 0.0
        self._table = self.penalty * log_at_most

    def __call__(self, k: int) -> float:
        """The cost of a condition of ``k`` literals (k beyond ``n_features``: the cost of
        ``n_features``, the largest condition there is)."""
        return float(self._table[min(int(k), len(self._table) - 1)])

    @property
    def costs(self) -> np.ndarray:
        """The cost of 0, 1, ..., ``n_features`` literals (read-only when shared)."""
        return self._table

    def table(self, sizes) -> np.ndarray:
        """The cost of each condition in ``sizes`` (an array of literal counts)."""
        return self._table[np.minimum(np.asarray(sizes, dtype=np.int64), len(self._table) - 1)]

    def at_least(self, k: int) -> float:
        """The least any condition of ``k`` or more literals costs (the cost of k)."""
        return self(k)

    def __bool__(self) -> bool:
        return self.penalty > 0


def rule_cost(n_features: int, penalty) -> RuleCost:
    """``RuleCost`` for ``penalty``: a number >= 0, or None (no penalty); one object per
    (``n_features``, penalty), shared (its table is read-only), since every search of a fit
    and of its held-out folds asks for the same one."""
    if penalty is None:
        return _shared_cost(int(n_features), 0.0)
    if isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or penalty < 0 \
            or not math.isfinite(penalty):
        raise ValueError(f"penalty must be a number >= 0 or None; got {penalty!r}")
    return _shared_cost(int(n_features), float(penalty))


@lru_cache(maxsize=64)
def _shared_cost(n_features: int, penalty: float) -> RuleCost:
    cost = RuleCost(n_features, penalty)
    cost._table.flags.writeable = False
    return cost
