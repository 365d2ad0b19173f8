"""Sample weights as exact integers: what the counting searches and MaxSAT encodings need.

The exact tree searches count training errors in integers (class counts in the dynamic
programme, literals in a totalizer, soft-clause weights in MaxSAT). A weighted error count
stays exact when every weight is a whole multiple of one unit ``1 / scale``: the weights times
``scale`` are then integers, the searches minimise their sum, and dividing by ``scale`` gives
the weighted errors back. Integer weights have ``scale = 1`` (a weight w is w repeated rows);
``class_weight="balanced"`` gives ratios n / (k n_c) of small integers, whose common
denominator is found from each weight's nearest fraction (``fractions.Fraction
.limit_denominator``) and checked to reproduce the weight to within float rounding.

Weights that are no such multiple (e.g. random floats) are refused with a ValueError: an
approximate scale would make "optimal" untrue.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["MAX_DENOMINATOR", "MAX_TOTAL", "integer_weights"]

# The largest denominator looked for, per distinct weight (a balanced class weight n / (k n_c)
# needs at most k n_c). Fractions with such denominators lie at least 1e-12 apart, far more
# than float rounding, so the fraction found is the one meant.
MAX_DENOMINATOR = 10**6
# Scaled weights must sum to at most this, so that counts times the searches' size factors
# stay inside int64.
MAX_TOTAL = 1 << 48


def integer_weights(sample_weight, n_rows: int) -> tuple[np.ndarray, int]:
    """``(weights * scale as int64, scale)``: the smallest integer ``scale`` making every
    weight whole (the lcm of the weights' denominators). ``sample_weight=None`` is all ones with
    scale 1.

    ValueError if the weights are negative, not finite, of the wrong length, or not
    multiples of one fraction 1/q with q <= ``MAX_DENOMINATOR``.
    """
    if sample_weight is None:
        return np.ones(n_rows, dtype=np.int64), 1
    weight = np.asarray(sample_weight, dtype=np.float64).ravel()
    if weight.shape != (n_rows,):
        raise ValueError(f"sample_weight has {weight.size} entries; X has {n_rows} rows.")
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    whole = weight.astype(np.int64)
    # Whole numbers whose float sum is within MAX_TOTAL (exact: below 2**53) are their own
    # units at scale 1, what the fractions below come to; others take the general path.
    if np.array_equal(whole, weight) and weight.sum() <= MAX_TOTAL:
        return whole, 1
    values = np.unique(weight)
    fractions = [Fraction(float(v)).limit_denominator(MAX_DENOMINATOR) for v in values]
    off = [float(v) for v, f in zip(values, fractions, strict=True)
           if not math.isclose(float(f), float(v), rel_tol=1e-12, abs_tol=0.0)]
    if off:
        raise ValueError(
            f"sample_weight must be ratios of integers with denominators <= {MAX_DENOMINATOR} "
            "(as integer weights and class_weight='balanced' are) for an exact search; got "
            f"{off[0]!r}. Round the weights (e.g. np.round(w, 3)).")
    scale = math.lcm(*(f.denominator for f in fractions)) if fractions else 1
    numerators = {v: f.numerator * (scale // f.denominator)
                  for v, f in zip(values.tolist(), fractions, strict=True)}
    total = sum(numerators[v] * c for v, c in zip(*np.unique(weight, return_counts=True),
                                                   strict=True))
    if total > MAX_TOTAL:
        raise ValueError(f"sample_weight sums to {total} units of 1/{scale}; at most "
                         f"{MAX_TOTAL} fit an exact search. Round the weights coarser.")
    result = np.array([numerators[v] for v in weight.tolist()], dtype=np.int64)
    return result, int(scale)


def whole_weights(sample_weight, who: str, why: str) -> np.ndarray | None:
    """``sample_weight`` as int64, or None; a ValueError naming ``who`` (the caller) and
    ``why`` (what needs whole numbers) when a weight is not a whole number."""
    if sample_weight is None:
        return None
    weight = np.asarray(sample_weight)
    if weight.dtype.kind not in "iu" and not np.array_equal(weight, np.round(weight)):
        raise ValueError(f"{who} needs integer sample_weight ({why}); scale fractions with "
                         "trees.weights.integer_weights.")
    return weight.astype(np.int64)
