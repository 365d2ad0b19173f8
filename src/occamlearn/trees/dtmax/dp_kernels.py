"""Compiled kernels of the DT(max) dynamic programme: MurTree's search on binary columns.

The search is MurTree's (Demirović et al., JMLR 2022; the same core as STreeD, van der Linden,
de Weerdt and Demirović, NeurIPS 2023), for the cost ``errors * scale + decisions * decision``
(``dynamic_programme``): ``best(S, d, ub)`` is the cost of the best tree of depth <= d on the
row set S if it is below ``ub``, else a proven lower bound >= ``ub``.

* **Depth-2 solver.** At depth <= 2 one pass over the node's rows counts, per class, the
  weight of the rows having both features f and g (``_count_pairs``; each row adds its weight
  for every pair of its present features). Inclusion-exclusion gives the four quadrants of
  every pair, so the best depth-2 tree under every root test follows in O(classes x f^2)
  (``_depth2``), without a search.
* **Difference counting.** A depth-3 node counts its own rows once; for each root test it
  counts only the smaller child, and the other child's counts are the difference.
* **Memo.** An open-addressing hash table keyed by (row set as a bitset over the rows,
  depth): an exact cost and its root test, or a lower bound left by a failed search (its
  ``ub``: nothing below it exists), so a later call with a larger budget starts from there.
* **Bounds.** A child's budget is the best cost so far minus the other child's lower bound
  and the decision (branch and bound). Lower bounds: the errors forced by identical rows with
  different labels (no tree separates them), plus one decision unless a leaf already makes
  only those; and the memo's. A node whose leaf makes only the forced errors is a leaf, and a
  loop over tests stops once the best tree reaches the node's lower bound.
* **Similarity bound** (MurTree, section 4.5). Removing rows of weight W from a row set
  lowers the optimum by at most W errors: the optimal tree of the smaller set misclassifies
  at most W more on the larger. So for the children of test f, the cost of the same child of
  the previous test f' minus ``scale`` x the weight of the rows it had and this one lacks is
  a lower bound (``_similarity_bound``).
* **Stopping.** numba cannot read a clock, so a call returns ``ABORTED`` after
  ``counters[WORK_LIMIT]`` units of work (rows touched, count cells evaluated), or when the
  memo is 70 % full (``counters[FULL]``: the caller grows it). The caller polls its deadline
  and calls again; what the memo holds stays valid, so the search resumes where it stopped
  (walking down again to it through memo hits: ``counters[FIRST_STORE]`` tells the caller
  how much work that walk took, so that the next slice is larger than it).
  The best test of the top node so far is kept in ``counters[TOP_COST]``,
  ``counters[TOP_FEATURE]``, so a stopped search still returns its best tree.

Rows are *items*: distinct (row, label) groups with an integer weight; ``X`` (items x
features, 0/1) routes them and ``indptr``/``indices`` list each item's present features.
Rows of one pattern always travel together; its forced errors sit on its first item.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["grow_memo", "new_memo", "search", "solve_shallow", "warm_up"]

ABORTED = -1
# counters
WORK, WORK_LIMIT, ENTRIES, FULL, ABORT, TOP_COST, TOP_FEATURE, ROOT, LEFT, RIGHT = range(10)
SUBPROBLEMS, HITS, PRUNED, GROWABLE, SLICE_START, FIRST_STORE = 10, 11, 12, 13, 14, 15
N_COUNTERS = 16
USED = np.uint64(1 << 63)
DEPTH_MASK = np.uint64(0xFF)
# typed constants, not literals: each literal type at a call site compiles one more signature
EXACT, BOUND, NO_TEST = np.int64(1), np.int64(0), np.int64(-1)


# -- the memo --------------------------------------------------------------------------------
def new_memo(n_items: int, capacity: int = 1 << 12) -> np.ndarray:
    """An empty memo: (capacity, words + 3) uint64 -- the key bitset, then ``USED | depth``,
    the value, ``exact << 32 | (test + 1)``. ``capacity`` a power of two."""
    return np.zeros((capacity, (n_items + 63) // 64 + 3), dtype=np.uint64)


@njit(cache=True)
def _find(slots, key, depth):
    """Slot holding (key, depth), or the empty slot where it would go."""
    words = key.shape[0]
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(depth)
    for w in range(words):
        h ^= key[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    mask = slots.shape[0] - 1
    at = np.int64(h & np.uint64(mask))
    tag = USED | np.uint64(depth)
    while slots[at, words] & USED:
        if slots[at, words] == tag:
            same = True
            for w in range(words):
                if slots[at, w] != key[w]:
                    same = False
                    break
            if same:
                return at
        at = (at + 1) & mask
    return at


@njit(cache=True)
def _store(slots, counters, key, depth, value, exact, test):
    """Record an exact cost (with its root ``test``, -1: a leaf) or a lower bound; the
    first record of a slice marks where its new work began (``counters[FIRST_STORE]``; a
    full memo records nothing, so a later slice redoes the work and must be larger)."""
    words = key.shape[0]
    at = _find(slots, key, depth)
    if not slots[at, words] & USED:
        if counters[ENTRIES] * 10 >= 7 * slots.shape[0]:
            if counters[GROWABLE]:
                counters[FULL] = 1
            return
        for w in range(words):
            slots[at, w] = key[w]
        slots[at, words] = USED | np.uint64(depth)
        counters[ENTRIES] += 1
    elif slots[at, words + 2] >> np.uint64(32) or (
            exact == 0 and np.int64(slots[at, words + 1]) >= value):
        return                                    # exact already, or a better bound
    if counters[FIRST_STORE] < 0:                 # a lasting step: a new or better record
        counters[FIRST_STORE] = counters[WORK]
    slots[at, words + 1] = np.uint64(value)
    slots[at, words + 2] = (np.uint64(exact) << np.uint64(32)) | np.uint64(test + 1)


@njit(cache=True)
def grow_memo(slots, bigger):
    """Copy every entry of ``slots`` into the empty, larger table ``bigger``."""
    words = slots.shape[1] - 3
    key = np.empty(words, dtype=np.uint64)
    for at in range(slots.shape[0]):
        if slots[at, words] & USED:
            for w in range(words):
                key[w] = slots[at, w]
            to = _find(bigger, key, np.int64(slots[at, words] & DEPTH_MASK))
            for w in range(words + 3):
                bigger[to, w] = slots[at, w]


@njit(cache=True)
def _key_of(items, n, key):
    key[:] = 0
    for i in range(n):
        item = items[i]
        key[item >> 6] |= np.uint64(1) << np.uint64(item & 63)


# -- counts ------------------------------------------------------------------------------------
@njit(cache=True)
def _errors(counts):
    """Errors of a leaf over class ``counts`` (all but the largest)."""
    total, largest = 0, 0
    for value in counts:
        total += value
        largest = max(largest, value)
    return total - largest


@njit(cache=True)
def _leaf(items, n, label, weight, forced, totals):
    """(errors of the leaf, its class, forced errors) of ``items[:n]``; ``totals`` filled."""
    totals[:] = 0
    stuck = 0
    for i in range(n):
        item = items[i]
        totals[label[item]] += weight[item]
        stuck += forced[item]
    best = 0
    for k in range(totals.shape[0]):
        if totals[k] > totals[best]:
            best = k
    return _errors(totals), best, stuck


@njit(cache=True)
def _count_pairs(items, n, label, weight, indptr, indices, pairs, seen, present):
    """``pairs[k, f, g]`` (f <= g) = weight of the rows of class k with x_f = x_g = 1, for
    the features present in ``items[:n]`` (listed in ``present``; their count returned). Only
    that block is cleared and filled; ``seen`` is a zeroed scratch (left zeroed)."""
    n_present = 0
    for i in range(n):
        item = items[i]
        for a in range(indptr[item], indptr[item + 1]):
            f = indices[a]
            if not seen[f]:
                seen[f] = 1
                present[n_present] = f
                n_present += 1
    for u in range(n_present):
        seen[present[u]] = 0
    for k in range(pairs.shape[0]):
        for u in range(n_present):
            f = present[u]
            for v in range(n_present):
                pairs[k, f, present[v]] = 0
    for i in range(n):
        item = items[i]
        k, w = label[item], weight[item]
        for a in range(indptr[item], indptr[item + 1]):
            f = indices[a]
            pairs[k, f, f] += w
            for b in range(a + 1, indptr[item + 1]):
                pairs[k, f, indices[b]] += w
    return n_present


@njit(cache=True)
def _depth2(pairs, totals, useful, n_useful, depth, scale, decision, out, quad):
    """Best tree of depth <= ``depth`` (1 or 2) from the pair counts; cost returned, its root
    test, and the tests of its zero and one children (-1: a leaf) in ``out[0:3]``. A test is
    only taken where it costs strictly less than a leaf.

    Each pair {f, g} is visited once: its four quadrants (x_f, x_g = 11, 10, 01, 00) give
    the children of root f testing g (11 + 10 on the one side, 01 + 00 on the zero side)
    and those of root g testing f (11 + 01, 10 + 00)."""
    n_classes = totals.shape[0]
    best = _errors(totals) * scale
    out[0], out[1], out[2] = -1, -1, -1
    # per useful feature as the root: best one side, its test, best zero side, its test
    side = np.empty((4, n_useful), dtype=np.int64)
    for u in range(n_useful):
        f = useful[u]
        for k in range(n_classes):
            quad[0, k] = pairs[k, f, f]
            quad[1, k] = totals[k] - pairs[k, f, f]
        side[0, u], side[1, u] = _errors(quad[0]) * scale, -1
        side[2, u], side[3, u] = _errors(quad[1]) * scale, -1
    if depth >= 2:
        for u in range(n_useful):
            f = useful[u]
            for v in range(u + 1, n_useful):
                g = useful[v]
                low, high = min(f, g), max(f, g)
                if n_classes == 2:
                    both0, both1 = pairs[0, low, high], pairs[1, low, high]
                    f0, f1, g0, g1 = pairs[0, f, f], pairs[1, f, f], pairs[0, g, g], pairs[1, g, g]
                    e11 = min(both0, both1)
                    e10 = min(f0 - both0, f1 - both1)
                    e01 = min(g0 - both0, g1 - both1)
                    e00 = min(totals[0] - f0 - g0 + both0, totals[1] - f1 - g1 + both1)
                else:                   # errors = total - largest class, per quadrant
                    e11, e10, e01, e00 = 0, 0, 0, 0
                    m11, m10, m01, m00 = 0, 0, 0, 0
                    for k in range(n_classes):
                        both = pairs[k, low, high]
                        q10 = pairs[k, f, f] - both
                        q01 = pairs[k, g, g] - both
                        q00 = totals[k] - pairs[k, f, f] - pairs[k, g, g] + both
                        e11 += both
                        e10 += q10
                        e01 += q01
                        e00 += q00
                        m11, m10 = max(m11, both), max(m10, q10)
                        m01, m00 = max(m01, q01), max(m00, q00)
                    e11, e10, e01, e00 = e11 - m11, e10 - m10, e01 - m01, e00 - m00
                cost = (e11 + e10) * scale + decision           # root f, one side tests g
                if cost < side[0, u]:
                    side[0, u], side[1, u] = cost, g
                cost = (e01 + e00) * scale + decision           # root f, zero side tests g
                if cost < side[2, u]:
                    side[2, u], side[3, u] = cost, g
                cost = (e11 + e01) * scale + decision           # root g, one side tests f
                if cost < side[0, v]:
                    side[0, v], side[1, v] = cost, f
                cost = (e10 + e00) * scale + decision           # root g, zero side tests f
                if cost < side[2, v]:
                    side[2, v], side[3, v] = cost, f
    for u in range(n_useful):
        cost = side[0, u] + side[2, u] + decision
        if cost < best:
            best = cost
            out[0], out[1], out[2] = useful[u], side[3, u], side[1, u]
    return best


@njit(cache=True)
def _subtract(whole, present, n_present, part, part_present, n_part, out, seen):
    """``out = whole - part`` on the pair counts among the ``present`` features of
    ``whole``; ``part`` counts a subset of its rows, filled on ``part_present`` only (zero
    elsewhere). ``seen``: a zeroed scratch (left zeroed)."""
    for u in range(n_part):
        seen[part_present[u]] = 1
    for k in range(whole.shape[0]):
        for u in range(n_present):
            f = present[u]
            for v in range(n_present):
                g = present[v]
                if f <= g:
                    if seen[f] and seen[g]:
                        out[k, f, g] = whole[k, f, g] - part[k, f, g]
                    else:
                        out[k, f, g] = whole[k, f, g]
    for u in range(n_part):
        seen[part_present[u]] = 0


@njit(cache=True)
def _useful_of_counts(pairs, totals, present, n_present, useful):
    """Features splitting a row set, among ``present``, from its counts (weights are
    positive: a feature splits the rows iff its ones weigh more than 0 and less than all)."""
    total = 0
    for k in range(totals.shape[0]):
        total += totals[k]
    count = 0
    for u in range(n_present):
        f = present[u]
        ones = 0
        for k in range(pairs.shape[0]):
            ones += pairs[k, f, f]
        if 0 < ones < total:
            useful[count] = f
            count += 1
    return count


@njit(cache=True)
def _promising_first(items, n, label, weight, indptr, indices, totals, singles, order,
                     errors):
    """Features splitting ``items[:n]`` into ``order``, fewest depth-1 errors first (a good
    tree early prunes more); returns how many."""
    singles[:] = 0
    for i in range(n):
        item = items[i]
        k, w = label[item], weight[item]
        for a in range(indptr[item], indptr[item + 1]):
            singles[k, indices[a]] += w
    total = 0
    for k in range(totals.shape[0]):
        total += totals[k]
    count = 0
    for f in range(singles.shape[1]):
        ones, one_largest, zero_largest = 0, 0, 0
        for k in range(singles.shape[0]):
            ones += singles[k, f]
            one_largest = max(one_largest, singles[k, f])
            zero_largest = max(zero_largest, totals[k] - singles[k, f])
        if 0 < ones < total:
            order[count] = f
            errors[count] = total - one_largest - zero_largest
            count += 1
    ranked = np.argsort(errors[:count], kind="mergesort")
    features = order[:count].copy()
    for u in range(count):
        order[u] = features[ranked[u]]
    return count


@njit(cache=True)
def _split(items, n, X, f, zeros, ones):
    """``items[:n]`` with x_f = 0 into ``zeros``, with x_f = 1 into ``ones``; their sizes."""
    n_zero, n_one = 0, 0
    for i in range(n):
        item = items[i]
        if X[item, f]:
            ones[n_one] = item
            n_one += 1
        else:
            zeros[n_zero] = item
            n_zero += 1
    return n_zero, n_one


@njit(cache=True)
def _similarity_bound(before, n_before, cost_before, items, n, weight, scale):
    """Lower bound on the cost of ``items[:n]`` from a sibling row set's cost (lower bound)
    ``cost_before`` (both sorted): minus ``scale`` x the weight of the rows it lacks."""
    if n_before < 0:
        return 0
    lost, j = 0, 0
    for i in range(n_before):
        item = before[i]
        while j < n and items[j] < item:
            j += 1
        if j >= n or items[j] != item:
            lost += weight[item]
    return cost_before - lost * scale


@njit(cache=True)
def _floor(items, n, label, weight, forced, totals, scale, decision):
    """Lower bound on the cost of any tree on ``items[:n]`` (see the module doc)."""
    errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    return min(errors * scale, stuck * scale + decision)


@njit(cache=True)
def _lookup(slots, key, depth, counters):
    """(slot, value, exact, test) of (key, depth); value -1 if absent."""
    at = _find(slots, key, depth)
    words = key.shape[0]
    if not slots[at, words] & USED:
        return at, -1, False, -1
    meta = slots[at, words + 2]
    counters[HITS] += 1
    return (at, np.int64(slots[at, words + 1]), (meta >> np.uint64(32)) > 0,
            np.int64(meta & np.uint64(0xFFFFFFFF)) - 1)


@njit(cache=True)
def _out_of_work(counters):
    if counters[WORK] > counters[WORK_LIMIT] or counters[FULL]:
        counters[ABORT] = 1
        return True
    return False


@njit(cache=True)
def _solve2(node, node_side, n, n_other, side, ub, data, ws, scale, decision, slots, counters):
    """Child ``side`` (``n`` rows; its sibling has ``n_other``) of the depth-3 node at level
    ``node``: the best depth-2 tree, from counts of the smaller child or the difference of
    the node's counts and the smaller child's (``ws`` state: ``[side counted, node counted]``).
    """
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state) = ws
    level = node + 1
    items = lists[level, side]
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    if leaf_errors == stuck:
        return leaf_errors * scale
    floor = min(leaf_errors * scale, stuck * scale + decision)
    if floor >= ub:
        return floor
    key = keys[level]
    _key_of(items, n, key)
    two = np.int64(2)
    _, value, exact, _ = _lookup(slots, key, two, counters)
    if value >= 0 and (exact or value >= ub):
        return value
    counters[WORK] += n
    if _out_of_work(counters):
        return ABORTED
    counters[SUBPROBLEMS] += 1
    if n <= n_other if side == 0 else n < n_other:           # the smaller child: count it
        if state[0] != side:
            n_presents[1] = _count_pairs(items, n, label, weight, indptr, indices, pairs[1],
                                         seen, presents[1])
            counters[WORK] += n
            state[0] = side
        which = 1
    else:                                        # the larger: node minus the smaller child
        if state[1] == 0:
            n_presents[0] = _count_pairs(lists[node, node_side], n + n_other, label, weight,
                                         indptr, indices, pairs[0], seen, presents[0])
            counters[WORK] += n + n_other
            state[1] = 1
        other = 1 - side
        if state[0] != other:
            n_presents[1] = _count_pairs(lists[level, other], n_other, label, weight, indptr,
                                         indices, pairs[1], seen, presents[1])
            counters[WORK] += n_other
            state[0] = other
        _subtract(pairs[0], presents[0], n_presents[0], pairs[1], presents[1], n_presents[1],
                  pairs[2], seen)
        which = 2
    source = 1 if which == 1 else 0
    n_useful = _useful_of_counts(pairs[which], totals, presents[source], n_presents[source],
                                 useful)
    counters[WORK] += n_useful * n_useful
    cost = _depth2(pairs[which], totals, useful, n_useful, two, scale, decision, out, quad)
    _store(slots, counters, key, two, cost, EXACT, out[0])
    return cost


@njit(cache=True)
def _remember(prev_lists, prev_n, prev_cost, level, side, items, n, cost):
    for i in range(n):
        prev_lists[level, side, i] = items[i]
    prev_n[level, side] = n
    prev_cost[level, side] = cost


@njit(cache=True)
def search(level, side, n, depth, ub, data, ws, scale, decision, slots, counters):
    """``best(rows, depth, ub)`` (depth >= 3) of the rows ``lists[level, side, :n]``: the
    cost if below ``ub`` (then the memo holds it with its root test), else a lower bound
    >= ``ub``; ``ABORTED`` when out of work (nothing partial is stored)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state) = ws
    items = lists[level, side]
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    leaf_cost = leaf_errors * scale
    if level == 0:
        counters[ROOT] = -1
    if leaf_errors == stuck:
        return leaf_cost
    floor = min(leaf_cost, stuck * scale + decision)
    if floor >= ub:
        return floor
    key = keys[level]
    _key_of(items, n, key)
    _, value, exact, test = _lookup(slots, key, depth, counters)
    if value >= 0:
        if exact:
            if level == 0:
                counters[ROOT] = test
            return value
        if value >= ub:
            return value
        floor = max(floor, value)
    counters[WORK] += n
    if _out_of_work(counters):
        return ABORTED
    counters[SUBPROBLEMS] += 1
    n_order = _promising_first(items, n, label, weight, indptr, indices, totals, singles,
                               order[level], errors)
    best, best_test = leaf_cost, -1
    upper = min(ub, leaf_cost)
    if depth == 3:
        state[1] = 0
    below = level + 1
    # not literals: a recursive call typed differently from the outer one segfaults when
    # loaded from numba's disk cache (numba issue 6713)
    zero_side, one_side = np.int64(0), np.int64(1)
    prev_n[below, 0] = -1
    prev_n[below, 1] = -1
    zeros, ones = lists[below, 0], lists[below, 1]
    for u in range(n_order):
        if best <= floor:
            break
        f = order[level, u]
        n_zero, n_one = _split(items, n, X, f, zeros, ones)
        counters[WORK] += n
        low_zero = max(_floor(zeros, n_zero, label, weight, forced, totals, scale, decision),
                       _similarity_bound(prev_lists[below, 0], prev_n[below, 0],
                                         prev_cost[below, 0], zeros, n_zero, weight, scale))
        low_one = max(_floor(ones, n_one, label, weight, forced, totals, scale, decision),
                      _similarity_bound(prev_lists[below, 1], prev_n[below, 1],
                                        prev_cost[below, 1], ones, n_one, weight, scale))
        if low_zero + low_one + decision >= upper:
            counters[PRUNED] += 1
            continue
        if depth == 3:
            state[0] = -1
            zero_cost = _solve2(level, side, n_zero, n_one, zero_side, upper - low_one - decision,
                                data, ws, scale, decision, slots, counters)
        else:
            zero_cost = search(below, zero_side, n_zero, depth - 1, upper - low_one - decision,
                               data, ws, scale, decision, slots, counters)
        if zero_cost == ABORTED:
            return ABORTED
        _remember(prev_lists, prev_n, prev_cost, below, zero_side, zeros, n_zero,
                  max(zero_cost, low_zero))
        if zero_cost + low_one + decision >= upper:
            counters[PRUNED] += 1
            continue
        if depth == 3:
            one_cost = _solve2(level, side, n_one, n_zero, one_side, upper - zero_cost - decision,
                               data, ws, scale, decision, slots, counters)
        else:
            one_cost = search(below, one_side, n_one, depth - 1, upper - zero_cost - decision,
                              data, ws, scale, decision, slots, counters)
        if one_cost == ABORTED:
            return ABORTED
        _remember(prev_lists, prev_n, prev_cost, below, one_side, ones, n_one,
                  max(one_cost, low_one))
        if zero_cost + one_cost + decision < upper:
            best = upper = zero_cost + one_cost + decision
            best_test = f
            if level == 0 and best < counters[TOP_COST]:   # the best of every slice
                counters[TOP_COST] = best
                counters[TOP_FEATURE] = f
    if best_test >= 0 or leaf_cost < ub:
        _store(slots, counters, key, depth, best, EXACT, best_test)
        if level == 0:
            counters[ROOT] = best_test
        return best
    _store(slots, counters, key, depth, ub, BOUND, NO_TEST)
    return ub


@njit(cache=True)
def solve_shallow(items, depth, data, ws, scale, decision, counters):
    """``best(items, depth)`` at depth <= 2 (no memo); its root test goes to
    ``counters[ROOT]``, the tests of its children to ``counters[LEFT]``, ``counters[RIGHT]``
    (-1: a leaf)."""
    X, label, weight, forced, indptr, indices = data
    (lists, keys, order, errors, singles, totals, pairs, presents, n_presents, quad, out,
     seen, useful, prev_lists, prev_n, prev_cost, state) = ws
    n = items.shape[0]
    counters[ROOT], counters[LEFT], counters[RIGHT] = -1, -1, -1
    leaf_errors, _, stuck = _leaf(items, n, label, weight, forced, totals)
    if depth == 0 or leaf_errors == stuck:
        return leaf_errors * scale
    n_present = _count_pairs(items, n, label, weight, indptr, indices, pairs[3], seen,
                             presents[3])
    n_useful = _useful_of_counts(pairs[3], totals, presents[3], n_present, useful)
    cost = _depth2(pairs[3], totals, useful, n_useful, depth, scale, decision, out, quad)
    counters[ROOT], counters[LEFT], counters[RIGHT] = out[0], out[1], out[2]
    return cost


def warm_up() -> None:
    """Compile (or load from numba's disk cache) every kernel: a tiny search of each depth,
    with and without the decision cost."""
    from occamlearn.trees.dtmax.dp_compiled import CompiledDepthSearch

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(24, 5)).astype(np.uint8)
    C = np.zeros((24, 2), dtype=np.int64)
    C[np.arange(24), rng.integers(0, 2, size=24)] = 1
    C[0] += 1
    for depth in (1, 2, 3, 4):
        for decision in (0, 1):
            CompiledDepthSearch(X, C, 8, decision, None, depth).solve_top(depth)
    memo = new_memo(24, 4)
    grow_memo(memo, new_memo(24, 16))
