"""Lower bounds of the ordered-column search: every threshold of a range from bounds at its
two ends (what the interval search's heap and its anytime lower bound are made of).

Notation: a node's rows S, a feature f whose candidate thresholds are t_0 < t_1 < ...; for a
threshold t, ``L(t)`` is the optimum (fewest weighted errors, plus the penalty of each test:
the search's cost) of a tree of depth ``k - 1`` on the rows below t, ``H(t)`` the same on the
rows at or above t, and ``x(t)`` the weight of the rows below t (``before`` in the search). A
tree of depth ``k`` whose root tests f at t costs at least ``L(t) + H(t) + penalty``.

Three facts about the optimum ``OPT`` of a row set (each holds for any cost of the form
weight of the misclassified rows plus a term of the tree alone, so also for the
lexicographic cost):

1. monotone: ``OPT(A) <= OPT(B)`` for ``A`` a subset of ``B`` (the best tree of B costs no
   more on A). So L only grows and H only falls as t rises.
2. similarity (MurTree, Demirovic et al.): ``OPT(A) >= OPT(B) - w(B - A)`` for ``A`` a subset
   of ``B`` (the best tree of A errs on at most the weight of the rows B adds). So, for
   thresholds a <= t <= b: ``L(t) >= L(b) - (x(b) - x(t))`` and ``H(t) >= H(a) - (x(t) -
   x(a))``.
3. superadditive: ``OPT(A) + E(B) <= OPT(A + B)`` for disjoint A, B (``E``: the fewest
   errors without the penalty; the best tree of A + B is a tree on each). Used by
   ``blocks`` where the children are depth-2 trees; on deeper children it is weak (exact
   depth-4 optima of random 100- to 400-row pieces of ``make_classification(5000, 30)``
   summed to 0: a depth-4 tree fits each piece without error).

``range_bound`` bounds every threshold of a range [lo, hi] lying between two thresholds a <= lo
and hi <= b whose L and H have lower bounds (1 and 2, as ConTree's sub-interval and
neighbourhood reasoning, Brita, van der Linden and Demirovic): for t in the range,

    cost(t) >= g(x(t)),  g(x) = max(L(a), L(b) - (x(b) - x)) + max(H(b), H(a) - (x - x(a))),

a convex function of x (a sum of maxima of lines), so its minimum over [x(lo), x(hi)] is at
an end or at one of its two kinks; it is at least ``L(a) + H(b)``, the plain sub-interval
bound. A missing a is "below every threshold" (L = 0, H unknown), a missing b "above every
threshold" (H = 0, L unknown).

Why the top-level bound still rises late at depth >= 4: a bound on every root test needs,
for every feature, bounds on both children at some threshold, and each child's bound in turn
needs every one of its features bounded (by exact depth-2 answers at the bottom). A pass of
one probe per feature and level (each feature split at its weighted median, the two sides
bounded that way down to exact depth 2, splits shared through the memo) was measured on the
readable codes of ``make_classification(5000, 30)`` at depth 4: about 30 s and 3,900
depth-2 solves for a bound of 1 error (the best tree found in 60 s makes 99; the depth-3
optimum is 107), because one probe bounds the thresholds on each side of it by the optimum
of one side alone, and the easier side of some feature is almost pure. It is not used.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["range_bound"]


@njit(cache=True)
def range_bound(low_a: float, high_a: float, x_a: float, low_b: float, high_b: float,
                x_b: float, x_lo: float, x_hi: float) -> float:
    """The least ``g(x)`` over ``x_lo <= x <= x_hi`` (module doc) without the penalty: the
    bound of every threshold in a range from bounds at ``a`` (``low_a``, ``high_a`` at weight
    ``x_a``) and ``b``. Pass ``low_a = 0, high_a = -inf`` for a missing a and ``high_b = 0,
    low_b = -inf`` for a missing b. Compiled: the depth-2 sweeps call it per range."""
    least = min(_g(x_lo, low_a, high_a, x_a, low_b, high_b, x_b),
                _g(x_hi, low_a, high_a, x_a, low_b, high_b, x_b))
    for kink in (x_b - (low_b - low_a), x_a + (high_a - high_b)):
        if math.isfinite(kink):
            least = min(least, _g(min(max(kink, x_lo), x_hi), low_a, high_a, x_a, low_b,
                                  high_b, x_b))
    return least


@njit(cache=True)
def _g(x, low_a, high_a, x_a, low_b, high_b, x_b):
    return max(low_a, low_b - (x_b - x)) + max(high_b, high_a - (x - x_a))
