"""Exact training log-likelihood of a decision list and the gain of appending one rule.

A list with rules 1..k partitions the training rows into the regions R_1, ..., R_k (rows
covered by rule j and by no earlier rule) and the remainder R_{>k}. With maximum-likelihood
probabilities p_j = pos_j / n_j in every region (the remainder gets p_{>k} = p_def), the
log-likelihood is the sum over regions of

    L(n, pos) = pos log(pos / n) + (n - pos) log(1 - pos / n)        (0 log 0 = 0).

Appending rule k+1 = condition c splits the remainder (n, pos) into c's part (n_c, pos_c) and
the new remainder, so its gain is L(n_c, pos_c) + L(n - n_c, pos - pos_c) - L(n, pos).

The constraints (Goessling and Kang, Sec. III) are checked on integer counts, so they
are exact:
* positive direction, eq. (1): p_k >= p_{>k}, i.e. pos_c (n - n_c) >= (pos - pos_c) n_c;
  negative direction: the same with <=;
* monotone probabilities (Sec. III-A, the stricter family): also p_k <= p_{k-1} for the
  positive direction (>= for the negative one).

**How good can a refinement be?** (``refinement_bound``) Write a condition's coverage of the
remainder as (a, b): a positives and b negatives; its gain is g(a, b) = L(a + b, a) +
L(n - a - b, pos - a) - L(n, pos). A condition inside c (c and more literals) covers some
(a', b') with 0 <= a' <= a, 0 <= b' <= b. g is convex: L(x + z, x) = x log x + z log z -
(x + z) log(x + z) is the perspective of the convex t log t + (1 - t) log(1 - t), the second
term is that function of an affine map, and the third is constant. The positive direction
allows exactly the (a', b') with a' (n - pos) >= b' pos (eq. (1) multiplied out: the rule's
rate is at least the remainder's), a cone through the origin, so the allowed refinements fill
a convex polygon with corners (0, 0), (a, 0), (a, b) if it is allowed, and points on the line
a' (n - pos) = b' pos, where the rule's rate equals the remainder's and the gain is 0. A
convex function peaks at a corner, so no refinement gains more than max(g(a, 0), g(a, b) if
allowed, 0). The negative direction swaps the roles of a and b; the undirected list's polygon
is the whole box, bounded by max(g(a, 0), g(0, b), g(a, b)). Weights change nothing here.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DIRECTIONS", "CountXLogX", "allowed", "gains", "monotone_ok", "refinement_bound",
           "region_log_likelihood", "xlogx"]

DIRECTIONS = ("positive", "negative", None)
_SIGN = {"positive": 1, "negative": -1, None: 0}


def xlogx(x) -> np.ndarray:
    """x log x with 0 log 0 = 0 (counts and weights are >= 0)."""
    x = np.asarray(x, dtype=np.float64)
    return x * np.log(np.where(x > 0, x, 1.0))


class CountXLogX:
    """``xlogx`` of integer counts 0..n by table lookup: the searches call it on every
    (conjunction, literal) pair, and a lookup costs less than a logarithm."""

    __slots__ = ("table",)

    def __init__(self, n: int):
        self.table = xlogx(np.arange(int(n) + 1))

    def __call__(self, x) -> np.ndarray:
        return self.table[x]


def region_log_likelihood(n, pos, f=xlogx):
    """L(n, pos) above, vectorised; 0 for empty regions (``f``: ``xlogx`` or a table)."""
    n, pos = np.asarray(n), np.asarray(pos)
    return f(pos) + f(n - pos) - f(n)


def gains(covered, positive, n_rest, pos_rest, f=xlogx):
    """Gain of appending each condition covering (covered, positive) of the remainder."""
    negative = covered - positive
    return (f(positive) + f(negative) - f(covered) + f(pos_rest - positive)
            + f(n_rest - pos_rest - negative) - f(n_rest - covered)
            - float(region_log_likelihood(n_rest, pos_rest, f)))


def allowed(covered, positive, n_rest, pos_rest, direction, min_support):
    """Conditions that may be the next rule: at least ``min_support`` covered, not the whole
    remainder, and in the direction (eq. (1), on exact integer counts when unweighted)."""
    ok = (covered >= min_support) & (covered < n_rest)
    sign = _SIGN[direction]
    if sign:
        # p_c >= p_rest  <=>  pos_c * rest_n >= rest_pos * n_c   (sign flips for "negative")
        ok &= sign * (positive * (n_rest - covered) - (pos_rest - positive) * covered) >= 0
    return ok


def refinement_bound(covered, positive, n_rest, pos_rest, direction, f=xlogx, gain=None):
    """The most any condition inside c (covering ``covered``, ``positive``) can gain as the
    next rule in ``direction`` (module docstring: a convex gain peaks at a corner); ``gain``
    may pass c's own gain, where c is allowed, if already computed."""
    neg_rest = n_rest - pos_rest
    base = float(region_log_likelihood(n_rest, pos_rest, f))
    if gain is None:
        gain = np.where(allowed(covered, positive, n_rest, pos_rest, direction, 0),
                        gains(covered, positive, n_rest, pos_rest, f), 0.0)
    sign = _SIGN[direction]
    bound = np.maximum(gain, 0.0)
    if sign >= 0:  # g(a, 0): keep the positives, drop the negatives
        bound = np.maximum(bound, f(pos_rest - positive) + float(f(neg_rest))
                           - f(n_rest - positive) - base)
    if sign <= 0:  # g(0, b)
        negative = covered - positive
        bound = np.maximum(bound, float(f(pos_rest)) + f(neg_rest - negative)
                           - f(n_rest - negative) - base)
    return bound


def monotone_ok(covered, positive, previous, direction):
    """p_c <= p_prev (positive direction) or p_c >= p_prev (negative), ``previous`` = (n, pos)
    of the last rule (Sec. III-A)."""
    n_prev, pos_prev = previous
    return _SIGN[direction] * (pos_prev * covered - positive * n_prev) >= 0
