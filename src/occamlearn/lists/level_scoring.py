"""Compiled levels of the rule growing (``grow``): counting, scoring and bounding every
(conjunction + literal) of one level in one call, and picking the best of them.

The numpy engine (``levels.NumpyLevels``) runs about 80 small array operations per level
(``bits.count_covered``, ``rules.scored``, ``likelihood.refinement_bound``, ``rules.pick_top``),
which dominates the search on tables of a few hundred rows. These kernels do the same
arithmetic, element by element, in the same order of operations and in float64 without
fast-math, so every gain, score and bound is the same number to the last bit, and the picks
break ties the same way (best score first, then lower flat index): the searches find the same
lists with either engine (``tests/lists/test_level_kernels.py`` compares them).

``level_kernels`` runs whole beams and climbs over these in one call and is the module the
compiled engine loads (``levels.load_kernels``). numba caches these kernels on disk
(``cache=True``); they call no other module's kernels, so numba's own key (this file) is the
whole of their source.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["bits_set", "next_members", "pick_expandable", "pick_top", "score_level"]

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def bits_set(word):
    """Set bits of a uint64 word (the SWAR sum of bit fields)."""
    word = word - ((word >> np.uint64(1)) & _M1)
    word = (word & _M2) + ((word >> np.uint64(2)) & _M2)
    word = (word + (word >> np.uint64(4))) & _M4
    return np.int64((word * _H01) >> np.uint64(56))


@njit(cache=True)
def score_level(literals, index, rows, positives, parents, n, pos, table, sign, min_support,
                min_gain, cost_level, penalised, open_level, monotone, prev_n, prev_pos,
                cost_next):
    """Every (row set r, literal ``index[i]``) of a level: as ``grow._level`` and
    ``grow._expandable`` compute them with numpy.

    literals : (m, w) packed literal columns; index : (d,) the literals counted
    rows, positives : (b, w) packed row sets of the b conjunctions and their positives
    parents : (b,) rows each conjunction covers; n, pos : the remainder's rows and positives
    table : x log x of 0..n_rows; sign : +1 positive, -1 negative, 0 undirected
    cost_level, cost_next : the cost of this level's conditions, the least of a longer one
    penalised : eligible rules must also score > 0; open_level : level >= min_conjunction
    monotone, prev_n, prev_pos : the monotone constraint and the last rule's counts

    Returns covered, positive (b, d) int64; gain, score, free_gain (b, d) float64;
    eligible, shrinks (b, d) bool; bound (b, d) float64 (the refinement bound less
    ``cost_next``); stats (3,) float64: any supported (1.0 / 0.0), best free gain, best gain.
    """
    b, w, d = rows.shape[0], rows.shape[1], index.shape[0]
    covered = np.empty((b, d), np.int64)
    positive = np.empty((b, d), np.int64)
    gain = np.empty((b, d), np.float64)
    score = np.empty((b, d), np.float64)
    free_gain = np.empty((b, d), np.float64)
    bound = np.empty((b, d), np.float64)
    eligible = np.empty((b, d), np.bool_)
    shrinks = np.empty((b, d), np.bool_)
    neg_rest = n - pos
    base = table[pos] + table[neg_rest] - table[n]
    live = np.empty(w, np.int64)  # the words with a row of some conjunction in them
    n_live = 0
    for k in range(w):
        for r in range(b):
            if rows[r, k]:
                live[n_live] = k
                n_live += 1
                break
    supported, free_top, top = False, -np.inf, -np.inf
    for i in range(d):
        column = literals[index[i]]
        for r in range(b):  # the column stays in cache for every conjunction
            c = 0
            p = 0
            for at in range(n_live):
                k = live[at]
                word = column[k] & rows[r, k]
                c += bits_set(word)
                p += bits_set(word & positives[r, k])
            covered[r, i], positive[r, i] = c, p
            q = c - p
            in_support = c >= min_support and c < n
            supported = supported or in_support
            ok = in_support
            if sign != 0:
                ok = ok and sign * (p * (n - c) - (pos - p) * c) >= 0
            g_free = -np.inf
            if ok:
                g_free = (table[p] + table[q] - table[c] + table[pos - p]
                          + table[n - pos - q] - table[n - c] - base)
            g = g_free
            if monotone and sign * (prev_pos * c - p * prev_n) < 0:
                g = -np.inf
            s = g - cost_level
            free_gain[r, i], gain[r, i], score[r, i] = g_free, g, s
            free_top = max(free_top, g_free)
            top = max(top, g)
            shrink = c < parents[r]
            shrinks[r, i] = shrink
            eligible[r, i] = (open_level and shrink and g > min_gain
                              and (s > 0.0 or not penalised))
            most = max(g_free, 0.0)
            if sign >= 0:  # keep the positives, drop the negatives
                most = max(most, table[pos - p] + table[neg_rest] - table[n - p] - base)
            if sign <= 0:
                most = max(most, table[pos] + table[neg_rest - q] - table[n - q] - base)
            bound[r, i] = most - cost_next
    stats = np.array([1.0 if supported else 0.0, free_top, top])
    return covered, positive, gain, score, free_gain, eligible, shrinks, bound, stats


@njit(cache=True)
def _insert(best, best_score, count, keep, flat, value):
    """Put ``flat`` into the ``count`` best so far (sorted by score, then index); new count."""
    if count == keep and value <= best_score[count - 1]:
        return count  # ties go to the earlier (lower) index, already in
    slot = min(count, keep - 1)
    while slot > 0 and best_score[slot - 1] < value:
        best[slot], best_score[slot] = best[slot - 1], best_score[slot - 1]
        slot -= 1
    best[slot], best_score[slot] = flat, value
    return min(count + 1, keep)


@njit(cache=True)
def pick_top(score, eligible, keep):
    """``rules.pick_top``: flat indices of the ``keep`` best eligible scores, best first,
    ties to lower indices."""
    flat_score, flat_ok = score.ravel(), eligible.ravel()
    best = np.empty(max(keep, 1), np.int64)
    best_score = np.empty(max(keep, 1), np.float64)
    count = 0
    if keep > 0:
        for flat in range(flat_score.shape[0]):
            if flat_ok[flat]:
                count = _insert(best, best_score, count, keep, flat, flat_score[flat])
    return best[:count]


@njit(cache=True)
def pick_expandable(score, shrinks, covered, bound, min_support, threshold, keep):
    """``pick_top`` over the conjunctions ``grow._expandable`` lets grow: shrinking, covering
    more than ``min_support`` and bounded above ``threshold``."""
    flat_score = score.ravel()
    flat_shrinks, flat_covered, flat_bound = shrinks.ravel(), covered.ravel(), bound.ravel()
    best = np.empty(max(keep, 1), np.int64)
    best_score = np.empty(max(keep, 1), np.float64)
    count = 0
    if keep > 0:
        for flat in range(flat_score.shape[0]):
            if flat_shrinks[flat] and flat_covered[flat] > min_support \
                    and flat_bound[flat] > threshold:
                count = _insert(best, best_score, count, keep, flat, flat_score[flat])
    return best[:count]


@njit(cache=True)
def next_members(literals, index, rows, positives, covered, score, shrinks, bound,
                 min_support, threshold, width, seen, n_seen):
    """The next level's beam, as ``grow._beam`` builds it: the best (by score) conjunctions
    that may be extended, skipping any that covers the same rows as one already grown, up to
    ``width`` of them.

    seen : (s, w) the row sets grown so far in its first ``n_seen`` rows (appended to here)
    Returns the members' rows, positives (k, w), covered rows (k,) float64, the row of
    ``rows`` each extends and the literal it adds (k,) int64, and the new ``n_seen``.
    """
    d, w = index.shape[0], rows.shape[1]
    picks = pick_expandable(score, shrinks, covered, bound, min_support, threshold,
                            2 * width)
    child_rows = np.empty((width, w), np.uint64)
    child_positives = np.empty((width, w), np.uint64)
    parents = np.empty(width, np.float64)
    extends = np.empty(width, np.int64)
    added = np.empty(width, np.int64)
    k = 0
    for flat in picks:
        b, i = flat // d, flat % d
        column = literals[index[i]]
        for word in range(w):
            child_rows[k, word] = rows[b, word] & column[word]
        known = False
        for other in range(n_seen):
            same = True
            for word in range(w):
                if seen[other, word] != child_rows[k, word]:
                    same = False
                    break
            if same:
                known = True
                break
        if known:
            continue
        seen[n_seen] = child_rows[k]
        n_seen += 1
        for word in range(w):
            child_positives[k, word] = positives[b, word] & column[word]
        parents[k], extends[k], added[k] = covered[b, i], b, index[i]
        k += 1
        if k == width:
            break
    return (child_rows[:k], child_positives[:k], parents[:k], extends[:k], added[:k],
            n_seen)
