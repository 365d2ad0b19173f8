"""The numbers a condition prints: the shortest-printing threshold in a gap between values.

A threshold anywhere in the gap ``(u, u']`` between two adjacent training values splits the
training rows alike, so the binarisers print the roundest number there (``age >= 40``,
``petal-length >= 2.5``) rather than a midpoint like ``2.4500000000000002``. Dates are cut at
the roundest instant (a midnight if there is one).

``shortest_between`` is the definition (exact decimal arithmetic, any float);
``shortest_between_many`` computes the same numbers for whole arrays of gaps with numpy, and
hands the few gaps it cannot settle exactly in floats (magnitudes beyond 1e±15, midpoints
within rounding of a tie) to ``shortest_between`` one by one; a test checks that the two
agree.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np

__all__ = ["date_between", "shortest_between", "shortest_between_many", "shortest_threshold"]

def shortest_threshold(threshold: float, sorted_values: np.ndarray, side: str) -> float:
    """The shortest-printing float that splits ``sorted_values`` exactly as ``threshold`` does.

    ``side="left"`` preserves ``v < t`` (and ``v >= t``), ``side="right"`` preserves
    ``v <= t`` (and ``v > t``). So a condition prints as ``x < 5.8`` rather than
    ``x < 5.800000000000001`` while binarising the training data identically.
    """
    threshold = float(threshold)
    target = np.searchsorted(sorted_values, threshold, side=side)
    for digits in range(3, 17):
        candidate = float(f"{threshold:.{digits}g}")
        if np.searchsorted(sorted_values, candidate, side=side) == target:
            return candidate
    return threshold


def shortest_between(low: float, high: float, *, closed: str = "right") -> float:
    """The shortest-printing float in the gap between two neighbouring training values.

    ``closed="right"`` looks in ``(low, high]`` (a cut ``v < t`` that keeps ``low`` below and
    ``high`` above), ``closed="left"`` in ``[low, high)`` (a cut ``v <= t``). Among the numbers
    with the fewest significant digits in the gap, the one nearest its middle is returned:
    between 1.9 and 3.0 that is 2, between 2.85 and 2.9 it is 2.9. Exact decimal arithmetic,
    so values near +-1e308 neither overflow nor warn.
    """
    low, high = float(low), float(high)
    if not low < high:
        raise ValueError(f"need low < high, got {low!r} and {high!r}")

    def inside(t: float) -> bool:
        return (low < t <= high) if closed == "right" else (low <= t < high)

    with localcontext() as context:
        context.prec = 60
        lo, hi = Decimal(repr(low)), Decimal(repr(high))
        middle = lo / 2 + hi / 2
        scale = max(abs(lo), abs(hi))
        # the power of ten of the leading digit, exactly (``adjusted`` reads it off the
        # decimal's digits; ``log10`` at this precision cost most of the function's time)
        exponent = scale.adjusted() + 1 if scale else 0
        for e in range(exponent, exponent - 40, -1):
            step = Decimal(1).scaleb(e)
            k_low = (lo / step).to_integral_value(rounding="ROUND_FLOOR")
            k_high = (hi / step).to_integral_value(rounding="ROUND_CEILING")
            k = (middle / step).to_integral_value(rounding="ROUND_HALF_EVEN")
            for candidate in sorted(range(int(k_low), int(k_high) + 1), key=lambda j: abs(j - k)):
                t = float(Decimal(candidate).scaleb(e))
                if math.isfinite(t) and inside(t):
                    return t
        return float(middle) if inside(float(middle)) else (high if closed == "right" else low)


def date_between(low: float, high: float) -> float:
    """The roundest instant in ``(low, high]`` (days since 1970-01-01): a midnight, else a
    whole hour, minute or second, else ``shortest_between``; so a cut between two dates
    prints as a date."""
    for per_day in (1, 24, 1440, 86400):
        candidate = (math.floor(low * per_day + 1e-6) + 1) / per_day
        if low < candidate <= high:
            return candidate
    return shortest_between(low, high)



# Gaps whose larger end lies within these magnitudes and whose width is at least 1e-12 of
# it find their number at a step 10**e with -19 <= e <= 17 and a multiple k < 10**15: then
# k and 10**|e| are exact doubles and one IEEE multiplication or division gives the decimal
# k·10^e correctly rounded, as ``float(Decimal(k).scaleb(e))`` does.
_EXACT_RANGE = (1e-6, 1e15)
_EXPONENTS = 40  # as ``shortest_between``: at most 40 decimal steps below the top one


def _scaled(k: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The doubles nearest to ``k * 10**e`` (exact for the ranges above)."""
    up = np.power(10.0, np.maximum(e, 0))
    down = np.power(10.0, np.maximum(-e, 0))
    return k * up / down


def shortest_between_many(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``shortest_between(low[i], high[i])`` (``closed="right"``) for arrays of gaps, in
    numpy: per gap, from the coarsest decimal step down, the multiples of the step inside
    ``(low, high]``, and among them the one nearest the middle."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    out = np.full(low.shape, np.nan)
    scale = np.maximum(np.abs(low), np.abs(high))
    nonzero = np.where(scale > 0, scale, 1.0)
    simple = ((low < high) & (scale >= _EXACT_RANGE[0]) & (scale < _EXACT_RANGE[1])
              & (high - low >= scale * 1e-12))
    # one step above the coarsest useful one: harmless (it finds 0 only, as the top one
    # would) and safe where log10 rounds below an exact power of ten
    top = np.floor(np.log10(nonzero)).astype(np.int64) + 2
    middle = low / 2 + high / 2
    todo = np.flatnonzero(simple)
    for drop in range(_EXPONENTS):
        if todo.size == 0:
            break
        e = top[todo] - drop
        lo, hi = low[todo], high[todo]
        step_k = _scaled(np.ones(todo.size), e)
        first = np.floor(lo / step_k) + 1
        first = np.where(_scaled(first - 1, e) > lo, first - 1, first)
        first = np.where(_scaled(first, e) <= lo, first + 1, first)
        last = np.floor(hi / step_k)
        last = np.where(_scaled(last + 1, e) <= hi, last + 1, last)
        last = np.where(_scaled(last, e) > hi, last - 1, last)
        found = first <= last
        if not found.any():
            continue
        ratio = middle[todo] / step_k
        below = np.floor(ratio)
        near_tie = (np.abs(ratio - below - 0.5) < 1e-9 * np.maximum(1, np.abs(ratio))) & (
            below >= first) & (below + 1 <= last)  # two candidates equally near the middle
        k = np.clip(np.rint(ratio), first, last)
        value = _scaled(k, e)
        settled = found & ~near_tie & (lo < value) & (value <= hi)
        out[todo[settled]] = value[settled]
        todo = todo[~found]  # near ties and surprises go to the exact path below
    rest = np.flatnonzero(np.isnan(out))
    for i in rest:
        out[i] = shortest_between(float(low[i]), float(high[i]))
    return out
