"""What a rule costs: the description length that stops a list growing on noise.

A list is kept short by a penalised likelihood in the spirit of minimum description length
(MDL, Rissanen): a rule joins the list only when it raises the training log-likelihood by more
than it costs to write down. Writing a condition of k literals means naming which k of the d
binary features it conjoins, log C(d, k) nats. So with ``penalty=1`` a rule is appended when

    gain(rule) > log C(d, k)                    (natural logs; gain as in ``likelihood``)

and, by the same measure, a longer condition is preferred to a shorter one only when its
extra literals pay for themselves: the search ranks conditions by gain - log C(d, k). This
chooses both the number of rules and the size of each condition on the data; ``max_rules``
and ``max_conjunction`` stay as ceilings.

Why this cost: it is the log of the number of conditions of size k the rule was chosen from,
a Bonferroni correction. Were the labels independent of the features, twice the gain of one
fixed condition would be (asymptotically, Wilks) chi-squared with one degree of freedom, so
P(gain > t) = erfc(sqrt t) <= exp(-t) / sqrt(pi t); over all M = C(d, k) conditions of size k
the best noise condition passes the threshold log M with probability at most
M exp(-log M) / sqrt(pi log M) = 1 / sqrt(pi log M). The probability of a rule is not charged
(every list has one per rule), nor the direction (both are compared at the same price).

The weight ``penalty`` scales the cost (0 or None: no penalty, the paper's plain greedy
search, which stops only on ``min_gain``, purity or ``max_rules``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["RuleCost", "rule_cost"]


class RuleCost:
    """Nats charged for a condition of k literals over ``n_features`` binary features:
    ``penalty * log C(n_features, k)`` (0 for every k when ``penalty`` is 0)."""

    __slots__ = ("_table", "n_features", "penalty")

    def __init__(self, n_features: int, penalty: float = 1.0):
        self.n_features = int(n_features)
        self.penalty = float(penalty or 0.0)
        d = max(self.n_features, 1)
        k = np.arange(d + 1)
        log_choose = (math.lgamma(d + 1) - np.vectorize(math.lgamma)(k + 1)
                      - np.vectorize(math.lgamma)(d - k + 1))
        self._table = self.penalty * log_choose

    def __call__(self, k: int) -> float:
        """The cost of a condition of ``k`` literals (k beyond ``n_features``: the cost of
        ``n_features``, the largest condition there is)."""
        return float(self._table[min(int(k), len(self._table) - 1)])

    def table(self, sizes) -> np.ndarray:
        """The cost of each condition in ``sizes`` (an array of literal counts)."""
        return self._table[np.minimum(np.asarray(sizes, dtype=np.int64), len(self._table) - 1)]

    def at_least(self, k: int) -> float:
        """The least any condition of ``k`` or more literals costs: C(d, k) grows up to
        k = d / 2 and shrinks after, so beyond that a refinement may cost less."""
        return float(self._table[min(int(k), len(self._table) - 1):].min())

    def __bool__(self) -> bool:
        return self.penalty > 0


def rule_cost(n_features: int, penalty) -> RuleCost:
    """``RuleCost`` for ``penalty``: a number >= 0, or None (no penalty)."""
    if penalty is None:
        return RuleCost(n_features, 0.0)
    if isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or penalty < 0 \
            or not math.isfinite(penalty):
        raise ValueError(f"penalty must be a number >= 0 or None; got {penalty!r}")
    return RuleCost(n_features, float(penalty))
