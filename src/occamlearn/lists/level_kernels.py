"""Compiled rule growing (``grow``, ``hill``, ``folds``): whole beams and whole hill climbs in
one call, over the compiled levels of ``level_scoring``.

``grow_best`` runs every level of one rule's beam (hill climbing's pool of one rule) in a
single call, the Python loop of ``grow._beam`` translated step for step; ``climb`` runs a
whole hill climb of such rules (``hill.hill_climb``'s loop) and counts the rows of another row
set that reach each rule (what a held-out fold needs: ``folds.FoldSearch``), and
``climb_folds`` runs it on every fold in one call. Each level is ``level_scoring``'s
(``score_level``, ``pick_top``, ``next_members``), so a rule found here is the one the numpy
engine finds (``tests/lists/test_level_kernels.py`` compares them). This module is the
compiled engine ``levels`` loads: it holds the level kernels by name too, which
``levels.CompiledLevels`` calls one level at a time.

They cover unweighted problems (integer counts, ``likelihood.CountXLogX`` table); weighted
ones keep the numpy engine. numba caches them on disk (``cache=True``); a cached kernel holds
the machine code of the level kernels it calls, so the cache is keyed to ``level_scoring``'s
source too (``kernel_sources.key_cache_to_sources``). ``levels`` decides when to load them.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.lists.level_scoring import (
    bits_set,
    next_members,
    pick_expandable,
    pick_top,
    score_level,
)

__all__ = ["climb", "climb_folds", "grow_best", "next_members", "pick_expandable",
           "pick_top", "score_level", "warm_up"]


@njit(cache=True)
def _better(score, literals, best_score, best_literals, n_best):
    """Whether a rule (score, sorted literals) orders before the best so far (``grow``'s
    pool order: higher score, then fewer literals, then lower literals)."""
    if n_best == 0 or score > best_score:
        return True
    if score < best_score:
        return False
    if len(literals) != n_best:
        return len(literals) < n_best
    for k in range(n_best):
        if literals[k] != best_literals[k]:
            return literals[k] < best_literals[k]
    return False


@njit(cache=True)
def grow_best(literals, rows0, positives0, n, pos, table, sign, min_support, min_gain,
              costs, penalised, min_literals, max_literals, monotone, prev_n, prev_pos,
              width):
    """``grow._beam`` for a pool of one rule (hill climbing), every level in one call: the
    same ``score_level``, picks, members and literal narrowing, in the same order.

    rows0, positives0 : (w,) the remainder's packed rows and positives; n, pos their counts
    costs : ``RuleCost``'s table (cost of k literals at index min(k, len - 1))
    Returns (found, the rule's sorted literals less the redundant ones, its packed rows,
    covered, positive, gain, cost, stats): stats as ``score_level``'s, merged over the
    levels.
    """
    m, w = literals.shape[0], rows0.shape[0]
    top_cost = len(costs) - 1
    floor = 0.0 if penalised else min_gain
    index = np.arange(m)
    rows = rows0.reshape(1, w).copy()
    positives = positives0.reshape(1, w).copy()
    parents = np.array([float(n)])
    members = np.zeros((1, max_literals), np.int64)  # literals of each member, in order added
    seen = np.empty((1 + width * max_literals, w), np.uint64)
    seen[0] = rows0
    n_seen = 1
    supported, free_top, top = False, -np.inf, -np.inf
    best_literals = np.zeros(max_literals, np.int64)
    best_rows = np.zeros(w, np.uint64)
    n_best, best_score, best_covered, best_positive, best_gain, best_cost = \
        0, -np.inf, 0, 0, 0.0, 0.0
    first_bound = np.zeros(m)
    for level in range(1, max_literals + 1):
        cost_level = costs[min(level, top_cost)]
        cost_next = costs[min(level + 1, top_cost)]
        (covered, positive, gain, score, free_gain, eligible, shrinks, bound,
         stats) = score_level(literals, index, rows, positives, parents, n, pos, table, sign,
                              min_support, min_gain, cost_level, penalised,
                              level >= min_literals, monotone, prev_n, prev_pos, cost_next)
        supported = supported or stats[0] != 0.0
        free_top = max(free_top, stats[1])
        top = max(top, stats[2])
        d = index.shape[0]
        for flat in pick_top(score, eligible, 1):
            b, i = flat // d, flat % d
            candidate = np.sort(np.append(members[b, :level - 1], index[i]))
            value = gain[b, i] - cost_level
            if _better(value, candidate, best_score, best_literals, n_best):
                n_best = level
                best_literals[:level] = candidate
                best_score, best_gain, best_cost = value, gain[b, i], cost_level
                best_covered, best_positive = covered[b, i], positive[b, i]
                best_rows = rows[b] & literals[index[i]]
        if level == max_literals:
            break
        threshold = floor if n_best == 0 else max(floor, best_score)
        rows, positives, parents, extends, added, n_seen = next_members(
            literals, index, rows, positives, covered, score, shrinks, bound, min_support,
            threshold, width, seen, n_seen)
        if rows.shape[0] == 0:
            break
        grown = np.zeros((rows.shape[0], max_literals), np.int64)
        for k in range(rows.shape[0]):
            grown[k, :level] = members[extends[k], :level]
            grown[k, level - 1] = added[k]
        members = grown
        if level == 1:
            first_bound = bound[0] + cost_next
        threshold = floor if n_best == 0 else max(floor, best_score)
        keep = np.flatnonzero(first_bound - costs[min(level + 1, top_cost)] > threshold)
        index = keep if len(keep) < m else np.arange(m)
    stats = np.array([1.0 if supported else 0.0, free_top, top])
    kept = best_literals[:n_best].copy()
    n_kept = _without_redundant(literals, rows0, kept, n_best, best_rows, min_literals)
    if n_kept < n_best:
        best_cost = costs[min(n_kept, top_cost)]
    return (n_best > 0, kept[:n_kept].copy(), best_rows, best_covered, best_positive,
            best_gain, best_cost, stats)


@njit(cache=True)
def _without_redundant(literals, rows0, kept, n_kept, rows, min_literals):
    """``grow._without_redundant`` on the first ``n_kept`` entries of ``kept`` (edited in
    place): drop, first in order, a literal whose removal leaves the rule's ``rows`` of the
    remainder ``rows0`` unchanged, until none can go; returns how many are left."""
    w = rows0.shape[0]
    dropped = True
    while dropped and n_kept > max(1, min_literals):
        dropped = False
        for a in range(n_kept):
            same = True
            for word in range(w):
                value = rows0[word]
                for o in range(n_kept):
                    if o != a:
                        value &= literals[kept[o], word]
                if value != rows[word]:
                    same = False
                    break
            if same:
                for o in range(a, n_kept - 1):
                    kept[o] = kept[o + 1]
                n_kept -= 1
                dropped = True
                break
    return n_kept


@njit(cache=True)
def _count_and(a, b):
    """Set bits of ``a & b`` (two packed row sets)."""
    total = 0
    for word in range(a.shape[0]):
        total += bits_set(a[word] & b[word])
    return total


@njit(cache=True)
def climb(literals, rows0, positives0, n, pos, table, sign, min_support, min_gain, costs,
          penalised, min_literals, max_literals, monotone, width, max_rules, to_beat, check,
          labels):
    """``hill.hill_climb`` with ``grow_best`` for every rule, on the remainder ``rows0`` /
    ``positives0`` (n rows, pos positives), without a deadline: the same loop, with the same
    stops (``max_rules`` rules, a pure remainder, no rule found, or ``to_beat`` out of reach:
    the rules' log-likelihood less their costs, summed in the same order, <= ``to_beat``),
    and the rows of ``check`` (packed; positives ``check & labels``) each rule takes.

    Returns (k rules; their literals (max_rules, max_literals) and how many (max_rules,);
    covered, positive, gain, cost (max_rules,); the remainder's n and pos after them; held
    and held_positive (max_rules + 1,): the rows of ``check`` each rule takes, in order, then
    the rest; why it stopped: 0 max_rules, 1 pure, 2 no rule (``stats``: the last
    ``grow_best``'s), 3 outscored; stats (3,)). Entries past k (k + 1 for held) are 0.
    """
    w = rows0.shape[0]
    rows, positives = rows0.copy(), positives0.copy()
    left = check.copy()
    rule_literals = np.zeros((max_rules, max(max_literals, 1)), np.int64)
    n_literals = np.zeros(max_rules, np.int64)
    covered = np.zeros(max_rules, np.int64)
    positive = np.zeros(max_rules, np.int64)
    gains = np.zeros(max_rules)
    paid = np.zeros(max_rules)
    held = np.zeros(max_rules + 1, np.int64)
    held_positive = np.zeros(max_rules + 1, np.int64)
    stats = np.zeros(3)
    k, prev_n, prev_pos, reason = 0, 0, 0, 0
    rules_ll = 0.0
    while k < max_rules:
        cost_sum = 0.0
        for r in range(k):
            cost_sum += paid[r]
        if rules_ll - cost_sum <= to_beat:
            reason = 3
            break
        if pos == 0 or pos == n:
            reason = 1
            break
        found, kept, rule_rows, c, p, gain, cost, stats = grow_best(
            literals, rows, positives, n, pos, table, sign, min_support, min_gain, costs,
            penalised, min_literals, max_literals, monotone and k > 0, prev_n, prev_pos,
            width)
        if not found:
            reason = 2
            break
        taken = left.copy()
        for literal in kept:
            for word in range(w):
                taken[word] &= literals[literal, word]
        held[k] = _count_and(taken, taken)
        held_positive[k] = _count_and(taken, labels)
        for word in range(w):
            left[word] &= ~taken[word]
            rows[word] &= ~rule_rows[word]
            positives[word] &= ~rule_rows[word]
        rule_literals[k, :len(kept)] = kept
        n_literals[k] = len(kept)
        covered[k], positive[k], gains[k], paid[k] = c, p, gain, cost
        rules_ll += table[p] + table[c - p] - table[c]
        n, pos, prev_n, prev_pos = n - c, pos - p, c, p
        k += 1
    held[k] = _count_and(left, left)
    held_positive[k] = _count_and(left, labels)
    return (k, rule_literals, n_literals, covered, positive, gains, paid, n, pos, held,
            held_positive, reason, stats)


@njit(cache=True)
def climb_folds(literals, fit, check, labels, n_rows, n_positive, tables, sign, min_support,
                min_gain, costs, penalised, min_literals, max_literals, monotone, width,
                max_rules):
    """``climb`` on each fold f: its climb on the rows ``fit[f]`` (``n_rows[f]`` rows,
    ``n_positive[f]`` positives, x log x table ``tables[f]``), counted on ``check[f]``.

    Returns (k (F,), covered (F, max_rules), positive (F, max_rules), rest (F, 2): the
    remainder's (n, pos), held (F, max_rules + 1), held_positive (F, max_rules + 1)); fold
    f's first k[f] entries (k[f] + 1 for the held counts) are its climb's, the rest 0.
    """
    folds, w = fit.shape[0], fit.shape[1]
    k = np.zeros(folds, np.int64)
    covered = np.zeros((folds, max_rules), np.int64)
    positive = np.zeros((folds, max_rules), np.int64)
    rest = np.zeros((folds, 2), np.int64)
    held = np.zeros((folds, max_rules + 1), np.int64)
    held_positive = np.zeros((folds, max_rules + 1), np.int64)
    for f in range(folds):
        positives = np.empty(w, np.uint64)
        for word in range(w):
            positives[word] = fit[f, word] & labels[word]
        out = climb(literals, fit[f], positives, n_rows[f], n_positive[f],
                    tables[f, :n_rows[f] + 1], sign, min_support, min_gain, costs, penalised,
                    min_literals, max_literals, monotone, width, max_rules, -np.inf,
                    check[f], labels)
        k[f] = out[0]
        covered[f], positive[f] = out[3], out[4]
        rest[f, 0], rest[f, 1] = out[7], out[8]
        held[f], held_positive[f] = out[9], out[10]
    return k, covered, positive, rest, held, held_positive


_warm = {"done": False}


def warm_up() -> float:
    """Compile (or load from the disk cache) the kernels on a tiny input; seconds taken."""
    start = time.perf_counter()
    if _warm["done"]:
        return 0.0
    literals = np.array([[5], [6]], dtype=np.uint64)
    rows = np.array([[7]], dtype=np.uint64)
    positives = np.array([[1]], dtype=np.uint64)
    table = np.array([0.0, 0.0, 2 * np.log(2), 3 * np.log(3)])
    out = score_level(literals, np.arange(2, dtype=np.int64), rows, positives,
                      np.array([3], dtype=np.int64), 3, 1, table, 1, 1.0, 1e-8, 0.5, True,
                      True, False, 0, 0, 0.5)
    pick_top(out[3], out[5], 2)
    pick_expandable(out[3], out[6], out[0], out[7], 1.0, 0.0, 2)
    next_members(literals, np.arange(2, dtype=np.int64), rows, positives, out[0], out[3],
                 out[6], out[7], 1.0, 0.0, 2, np.zeros((5, 1), dtype=np.uint64), 1)
    costs = np.array([0.0, 0.5, 1.0])
    costs.flags.writeable = False  # as ``cost.rule_cost`` shares them: numba types it apart
    grow_best(literals, rows[0], positives[0], 3, 1, table, 1, 1.0, 1e-8, costs, True, 1, 2,
              False, 0, 0, 2)
    climb_folds(literals, rows, rows, positives[0], np.array([3]), np.array([1]), table[None],
                1, 1.0, 1e-8, costs, True, 1, 2, False, 2, 3)
    _warm["done"] = True
    return time.perf_counter() - start


# numba keys its cache to this file alone: also to level_scoring, whose kernels these call
key_cache_to_sources(__name__)
