"""Class counts of a row set and the best tree of depth <= 2 from them (compiled).

MurTree's depth-2 solver (Demirović et al., JMLR 2022), used by the compiled DT(max) search
(``kernels``): one pass over the rows of a node adds each row's weight to
``pairs[class, f, g]`` for every pair f <= g of its present features; inclusion-exclusion then
gives the class counts of the four quadrants of every pair of tests, and so the best tree of
depth <= 2 under every root test, in O(classes x features^2) without a search. Costs are
``errors * scale + decisions * decision``; a test is only taken where it costs strictly less
than a leaf. A row set's counts can also be the difference of its parent's and its
sibling's (``_subtract``): the search counts only the smaller child. The counting pass is
per row (p^2 / 2 cells for a row with p features) or, when that costs more, by bitsets:
each feature's rows as bits and a popcount per pair of features (``_count_pairs``). A node's
single counts (per class, the weight with x_f = 1) also order its tests, fewest depth-1
errors first (``_promising_first``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__: list[str] = []


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
def _count_pairs_rows(items, n, label, weight, indptr, indices, pairs, present, n_present):
    """``_count_pairs`` by one pass over the rows: a row with p features adds to p (p + 1) / 2
    cells."""
    for i in range(n):
        item = items[i]
        k, w = label[item], weight[item]
        for a in range(indptr[item], indptr[item + 1]):
            f = indices[a]
            pairs[k, f, f] += w
            for b in range(a + 1, indptr[item + 1]):
                pairs[k, f, indices[b]] += w


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
        one_total, one_largest, zero_total, zero_largest = 0, 0, 0, 0
        for k in range(n_classes):    # (written out, not ``_errors``: a reference count)
            one, zero = pairs[k, f, f], totals[k] - pairs[k, f, f]
            one_total, one_largest = one_total + one, max(one_largest, one)
            zero_total, zero_largest = zero_total + zero, max(zero_largest, zero)
        side[0, u], side[1, u] = (one_total - one_largest) * scale, -1
        side[2, u], side[3, u] = (zero_total - zero_largest) * scale, -1
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
                # (written out: an inlined helper taking ``side`` costs a reference count
                # per call, atomic, in this innermost loop)
                cost = (e11 + e10) * scale + decision                   # root f, one side
                if cost < side[0, u]:
                    side[0, u], side[1, u] = cost, g
                cost = (e01 + e00) * scale + decision                   # root f, zero side
                if cost < side[2, u]:
                    side[2, u], side[3, u] = cost, g
                cost = (e11 + e01) * scale + decision                   # root g, one side
                if cost < side[0, v]:
                    side[0, v], side[1, v] = cost, f
                cost = (e10 + e00) * scale + decision                   # root g, zero side
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


# trees.mpdt.bnb.node_bounds.popcount, kept as a copy: importing it would key the dtmax
# kernels' disk cache to the bnb sources it imports (trees.exact.packed), so that an edit
# there would recompile these (tests/trees/compiling/test_kernel_sources.py).
@njit(cache=True, inline="always")
def _popcount(word):
    """Set bits of a uint64 word (LLVM turns this loop into one ``popcnt``)."""
    count = 0
    while word:
        word &= word - np.uint64(1)
        count += 1
    return count


@njit(cache=True)
def _count_pairs_bits(items, n, label, weight, indptr, indices, pairs, present, n_bits, bits,
                      starts):
    """``_count_pairs`` by bitsets.

    The rows are laid out as bit positions grouped by (class k, weight bit b) -- a row of
    weight w sits in the group of every bit b set in w, each group starting on a word --
    and each feature gets the bitset of its rows (``bits[f]``); then ``pairs[k, f, g] =
    sum_b 2**b popcount(bits[f] & bits[g])`` over the words of group (k, b), for the
    features with a row: present^2 / 2 pairs x the words, without a pass per row.
    ``starts`` (2 x groups + 1): scratch; ``bits``: features x (sum of the rows' weight
    bits / 64 + groups) words."""
    n_classes = pairs.shape[0]
    n_groups = n_classes * n_bits
    starts[:] = 0                                   # starts[0]: bit where each group starts
    for i in range(n):
        w = weight[items[i]]
        for b in range(n_bits):
            if (w >> b) & 1:
                starts[0, label[items[i]] * n_bits + b + 1] += 1
    for g in range(n_groups):
        starts[0, g + 1] = starts[0, g] + (starts[0, g + 1] + 63) // 64 * 64
        starts[1, g] = starts[0, g]                 # starts[1]: where the next row goes
    n_words = starts[0, n_groups] // 64
    bits[:, :n_words] = 0
    for i in range(n):
        item = items[i]
        w = weight[item]
        for b in range(n_bits):
            if (w >> b) & 1:
                g = label[item] * n_bits + b
                at = starts[1, g]
                starts[1, g] = at + 1
                word, mask = at >> 6, np.uint64(1) << np.uint64(at & 63)
                for a in range(indptr[item], indptr[item + 1]):
                    bits[indices[a], word] |= mask
    n_present = 0
    for f in range(bits.shape[0]):
        for word in range(n_words):
            if bits[f, word]:
                present[n_present] = f
                n_present += 1
                break
    _clear(pairs, present, n_present)
    for u in range(n_present):
        f = present[u]
        for v in range(u, n_present):
            g = present[v]                          # f <= g: ``present`` ascends
            for group in range(n_groups):
                begin, end = starts[0, group] >> 6, starts[0, group + 1] >> 6
                total = 0
                for word in range(begin, end):
                    total += _popcount(bits[f, word] & bits[g, word])
                if total:
                    pairs[group // n_bits, f, g] += total << (group % n_bits)
    return n_present


@njit(cache=True)
def _count_pairs(items, n, label, weight, indptr, indices, pairs, seen, present, bit_space):
    """``pairs[k, f, g]`` (f <= g) = weight of the rows of class k with x_f = x_g = 1 among
    ``items[:n]``, for the features present there (listed in ``present``; their count
    returned). Only that block is cleared and filled; ``seen`` is a zeroed scratch (left
    zeroed). By a pass over the rows or by bitsets, whichever costs less (the bitsets only
    where they fit their scratch); ``bit_space``: (word_cost, n_bits, bits, starts, cells,
    positions): what a bitset word operation costs in row-pass cell additions, the bitsets'
    scratch (``_count_pairs_bits``) and, per item, the cells its row pass adds to and its bit
    positions."""
    word_cost, n_bits, bits, starts, cells, positions = bit_space
    row_cells, n_positions = 0, 0
    for i in range(n):
        row_cells += cells[items[i]]
        n_positions += positions[items[i]]
    n_features = seen.shape[0]
    words = n_positions // 64 + pairs.shape[0] * n_bits
    if words >= bits.shape[1] or row_cells <= word_cost * (
            n_features * n_features // 2) * words:
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
        _clear(pairs, present, n_present)
        _count_pairs_rows(items, n, label, weight, indptr, indices, pairs, present, n_present)
        return n_present
    return _count_pairs_bits(items, n, label, weight, indptr, indices, pairs, present, n_bits,
                             bits, starts)


@njit(cache=True)
def _clear(pairs, present, n_present):
    for k in range(pairs.shape[0]):
        for u in range(n_present):
            f = present[u]
            for v in range(n_present):
                pairs[k, f, present[v]] = 0


@njit(cache=True)
def _promising_first(items, n, label, weight, forced, indptr, indices, totals, singles, order,
                     errors):
    """Features splitting ``items[:n]`` into ``order``, fewest depth-1 errors first (a good
    tree early prunes more); returns how many. ``singles[k, f]``: the weight of class k with
    x_f = 1; ``singles[classes, f]``: the forced errors there (``_child_floors``)."""
    singles[:] = 0
    n_classes = totals.shape[0]
    for i in range(n):
        item = items[i]
        k, w, stuck = label[item], weight[item], forced[item]
        for a in range(indptr[item], indptr[item + 1]):
            singles[k, indices[a]] += w
            singles[n_classes, indices[a]] += stuck
    total = 0
    for k in range(totals.shape[0]):
        total += totals[k]
    count = 0
    for f in range(singles.shape[1]):
        ones, one_largest, zero_largest = 0, 0, 0
        for k in range(n_classes):
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
def _copy_counts(source, present, n_present, target, target_present):
    """``target`` = ``source`` on the block of the ``present`` features (listed in
    ``target_present`` too): a row set's counts moved, in classes x present^2 cells."""
    for k in range(source.shape[0]):
        for u in range(n_present):
            f = present[u]
            for v in range(n_present):
                target[k, f, present[v]] = source[k, f, present[v]]
    for u in range(n_present):
        target_present[u] = present[u]
