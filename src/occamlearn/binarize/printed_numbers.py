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


# 10**j for the exponents the steps reach: the top step is at most 10**17 (magnitudes below
# 1e15) and the last at least 10**-43 (magnitudes from 1e-6, 40 steps down). Looked up
# rather than raised per cell: ``np.power`` cost most of ``shortest_between_many``'s time.
_POWERS_OF_TEN = np.power(10.0, np.arange(64, dtype=np.int64))


def _scaled(k: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The doubles nearest to ``k * 10**e`` (exact for the ranges above)."""
    up = _POWERS_OF_TEN[np.maximum(e, 0)]
    down = _POWERS_OF_TEN[np.maximum(-e, 0)]
    return k * up / down


# cells of the first pass's (gaps x steps) block: its temporaries stay a few hundred KiB
_BLOCK_CELLS = 1 << 14


def _settle_at(lo, hi, middle, e):
    """One decimal step ``10**e`` per gap (arrays of one shape): ``found`` where a multiple of
    the step lies in ``(lo, hi]``, and ``value``, the multiple nearest ``middle``, where
    ``settled`` (found, no near tie between two multiples, and inside the gap in floats)."""
    step_k = _scaled(np.ones(e.shape), e)
    first = np.floor(lo / step_k) + 1
    first = np.where(_scaled(first - 1, e) > lo, first - 1, first)
    first = np.where(_scaled(first, e) <= lo, first + 1, first)
    last = np.floor(hi / step_k)
    last = np.where(_scaled(last + 1, e) <= hi, last + 1, last)
    last = np.where(_scaled(last, e) > hi, last - 1, last)
    found = first <= last
    ratio = middle / step_k
    below = np.floor(ratio)
    near_tie = (np.abs(ratio - below - 0.5) < 1e-9 * np.maximum(1, np.abs(ratio))) & (
        below >= first) & (below + 1 <= last)  # two candidates equally near the middle
    if near_tie.any():
        near_tie &= ~_exact_tie(lo, hi, e, step_k)
    k = np.clip(np.rint(ratio), first, last)
    value = _scaled(k, e)
    settled = found & ~near_tie & (lo < value) & (value <= hi)
    return found, settled, value


def _exact_tie(lo, hi, e, step_k):
    """Where the middle of a gap with whole-number ends lies exactly halfway between two
    multiples of a step ``10**e >= 1``; there ``np.rint(middle / step)`` is the definition's
    multiple, so the tie needs no decimal arithmetic.

    Proof. The ends are whole and below 1e15 in magnitude, so ``lo + hi`` is exact (below
    2**53), and ``10**e`` (e <= 17 < 23) and its double are exact; ``np.fmod`` is exact. The
    middle ``(lo + hi) / 2`` is ``(j + 1/2) * 10**e`` for a whole ``j`` exactly when
    ``lo + hi`` is an odd multiple of ``10**e``: ``|fmod(lo + hi, 2 * 10**e)| == 10**e``.
    Then ``middle / 10**e = j + 1/2`` is a double (below 2**52), so the float middle
    (``lo / 2 + hi / 2``, exact for whole ends) divided by the step gives it exactly, and
    ``np.rint`` rounds it half to even, as ``shortest_between`` rounds the exact quotient
    (``ROUND_HALF_EVEN``) before trying its candidates nearest first: a near tie has both
    ``j`` and ``j + 1`` inside the gap, so the rounded one is returned."""
    whole = (lo == np.floor(lo)) & (hi == np.floor(hi)) & (e >= 0)
    return whole & (np.abs(np.fmod(lo + hi, 2 * step_k)) == step_k)


def _first_steps(low, high, middle, top, todo, out):
    """The first ``steps`` decimal steps of every gap in ``todo`` in one block of shape
    (gaps, steps) rather than one pass per step: each cell is computed exactly as the
    step-by-step loop computes it (``_settle_at`` elementwise), and a gap takes the cell of
    its first step that finds a multiple, so ``out`` gets the loop's values. ``steps``
    reaches down to the step below the gap's width (where the loop must stop: a multiple
    of a step no wider than the gap lies in it), capped by ``_BLOCK_CELLS``; returns the
    gaps no step of the block found, for the loop."""
    width = high[todo] - low[todo]
    need = int(np.max(top[todo] - np.floor(np.log10(width)))) + 2
    steps = max(1, min(need, _EXPONENTS, _BLOCK_CELLS // todo.size))
    e = top[todo][:, None] - np.arange(steps)[None, :]
    found, settled, value = _settle_at(low[todo][:, None], high[todo][:, None],
                                       middle[todo][:, None], e)
    first = np.argmax(found, axis=1)  # a gap's first finding step (0 where none)
    rows = np.arange(todo.size)
    any_found = found[rows, first]
    take = any_found & settled[rows, first]
    out[todo[take]] = value[rows, first][take]
    return todo[~any_found], steps


def shortest_between_many(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``shortest_between(low[i], high[i])`` (``closed="right"``) for arrays of gaps, in
    numpy: per gap, from the coarsest decimal step down, the multiples of the step inside
    ``(low, high]``, and among them the one nearest the middle. The first steps of all
    gaps are taken in one block (``_first_steps``), the gaps left over step by step."""
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
    start = 0
    if todo.size:
        todo, start = _first_steps(low, high, middle, top, todo, out)
    for drop in range(start, _EXPONENTS):
        if todo.size == 0:
            break
        found, settled, value = _settle_at(low[todo], high[todo], middle[todo],
                                           top[todo] - drop)
        out[todo[settled]] = value[settled]
        todo = todo[~found]  # near ties and surprises go to the exact path below
    rest = np.flatnonzero(np.isnan(out))
    for i in rest:
        out[i] = shortest_between(float(low[i]), float(high[i]))
    return out
