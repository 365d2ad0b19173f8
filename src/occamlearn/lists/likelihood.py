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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DIRECTIONS", "Extensions", "region_log_likelihood", "score_extensions"]

DIRECTIONS = ("positive", "negative", None)
_SIGN = {"positive": 1, "negative": -1, None: 0}


def _xlogx(x: np.ndarray) -> np.ndarray:
    """x log x with 0 log 0 = 0 (counts are >= 0)."""
    return x * np.log(np.where(x > 0, x, 1.0))


def region_log_likelihood(n, pos):
    """L(n, pos) above, vectorised; 0 for empty regions."""
    n = np.asarray(n, dtype=np.float64)
    pos = np.asarray(pos, dtype=np.float64)
    return _xlogx(pos) + _xlogx(n - pos) - _xlogx(n)


@dataclass(frozen=True)
class Extensions:
    """Gains of appending each candidate (-inf where not allowed) and why candidates failed.

    ``gain`` masks candidates below ``min_support`` or covering the whole remainder, those
    breaking the direction, and (with monotone) those breaking monotonicity. ``best_unmonotone``
    is the best gain ignoring monotonicity, to tell "no rule is monotone" from "no rule helps".
    """

    gain: np.ndarray
    any_supported: bool
    best_unmonotone: float


def score_extensions(covered, positive, n_rest: int, pos_rest: int, direction,
                     min_support: int, previous=None, monotone: bool = False) -> Extensions:
    """Score every candidate as the next rule of a list whose remainder is (n_rest, pos_rest).

    covered, positive : int64 arrays, each candidate's rows and positives within the remainder
    previous : (n, pos) of the last rule, needed for ``monotone``
    """
    rest_n = n_rest - covered
    rest_pos = pos_rest - positive
    supported = (covered >= min_support) & (rest_n > 0)
    gain = (region_log_likelihood(covered, positive) + region_log_likelihood(rest_n, rest_pos)
            - float(region_log_likelihood(n_rest, pos_rest)))
    sign = _SIGN[direction]
    allowed = supported
    if sign:
        # p_c >= p_rest  <=>  pos_c * rest_n >= rest_pos * n_c   (sign flips for "negative")
        allowed = allowed & (sign * (positive * rest_n - rest_pos * covered) >= 0)
    gain = np.where(allowed, gain, -np.inf)
    best_unmonotone = float(gain.max()) if len(gain) else -np.inf
    if monotone and previous is not None and sign:
        n_prev, pos_prev = previous
        # p_c <= p_prev (positive) or p_c >= p_prev (negative)
        gain = np.where(sign * (pos_prev * covered - positive * n_prev) >= 0, gain, -np.inf)
    return Extensions(gain, bool(supported.any()), best_unmonotone)
