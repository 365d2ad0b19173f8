"""Witnesses of the compiled DT(max) search (``kernels``): a few rows that no tree of depth
<= 2 classifies without an error, a lower bound for every row set that holds them.

**The bound.** The best cost is monotone in the row set: if W is a subset of T (both sets of
the search's *items*, which never split), then best(W, d) <= best(T, d). Proof: the best tree
of T, applied to W, errs on a subset of the rows it errs on in T, and has no more tests (a
test that no longer separates W's rows can be replaced by its non-empty side, one test
fewer; costs are errors * scale + tests * decision). So a witness W with best(W, 2) >= c
proves best(T, 2) >= c for every T containing W, checked in |W| bit reads of T's bitset key
(the memo's, ``memo._key_of``), instead of counting T's pairs.

**Where they come from.** Under ``prefer_small`` the costly part of the search is proving
that no smaller tree is as accurate; when the best trees make no error, most depth-2
subproblems of a depth-3 node end by showing that the side cannot be split without an error
at depth 2 (best >= ``scale``), each after a count of its rows. The rows that make it so
tend to recur in the sides of other tests (every side of a test g at a node is the node's
rows with one value of g: a few rows share the values of many features). So after such a
failure the search learns a witness (``learn``), by refinement from counterexamples: W
starts with the rows of the last witness that T holds (hard rows recur), else one row of
T; while some depth-2 tree errs on no row of W (found with word
operations, W's rows being bits), that tree is applied to T from after the row last taken,
and the first row of T in one of its leaves with another class than W has there joins W
(one exists: the tree errs on T, since no depth-2 tree is error-free on T; if it errs only
in leaves empty in W, a row of such a leaf joins). Each round adds a row of T, so this ends
with no depth-2 tree error-free on W: best(W, 2) >= scale. At most ``witness_rows`` rows are
taken; past that nothing is stored. The last ``n_witnesses`` witnesses are kept (a ring).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.memo import WITNESSED, WORK

__all__ = ["new_witnesses"]

N_WITNESSES = 256
WITNESS_ROWS = 32


def new_witnesses(n_features: int, n_classes: int, n_witnesses: int = N_WITNESSES,
                  witness_rows: int = WITNESS_ROWS) -> tuple:
    """An empty store: (items (witnesses x rows), lengths, costs, [witnesses ever stored]),
    then the word operations' scratch: (features,) and (classes,) words, 3 tests, and per
    row (64,) a word of its tests with x_f = 1 (used only with at most 64 features)."""
    return (np.zeros((n_witnesses, min(witness_rows, 64)), dtype=np.int64),
            np.zeros(n_witnesses, dtype=np.int64), np.zeros(n_witnesses, dtype=np.int64),
            np.zeros(1, dtype=np.int64), np.zeros(n_features, dtype=np.uint64),
            np.zeros(n_classes, dtype=np.uint64), np.zeros(3, dtype=np.int64),
            np.zeros(64, dtype=np.uint64))


@njit(cache=True)
def bound(key, ub, witnesses, counters):
    """The cost of a stored witness that the row set with bitset ``key`` holds and that is
    at least ``ub`` (a lower bound on that set's best depth-2 tree: module doc), else 0."""
    items, lengths, costs, stored = witnesses[:4]
    for w in range(min(stored[0], items.shape[0])):
        if costs[w] < ub:
            continue
        inside = True
        for i in range(lengths[w]):
            item = items[w, i]
            if not (key[item >> 6] >> np.uint64(item & 63)) & np.uint64(1):
                inside = False
                break
        if inside:
            counters[WITNESSED] += 1
            return costs[w]
    counters[WORK] += min(stored[0], items.shape[0])
    return 0


@njit(cache=True, inline="always")
def _leaf_of(X, item, root, zero_test, one_test):
    """The leaf (0-3) of a depth-2 tree (-1: no test) that ``item`` reaches."""
    if root < 0:
        return 0
    side = np.int64(X[item, root])
    test = one_test if side else zero_test
    if test < 0:
        return 2 * side
    return 2 * side + np.int64(X[item, test])


# the index of a word's lowest bit: DE_BRUIJN[((w & -w) * DE_BRUIJN_WORD) >> 58]
DE_BRUIJN_WORD = np.uint64(0x022FDD63CC95386D)
DE_BRUIJN = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    DE_BRUIJN[((0x022FDD63CC95386D << _bit) & (2 ** 64 - 1)) >> 58] = _bit
FILTER_ROWS = 3


@njit(cache=True, inline="always")
def _lowest(word):
    """The index of the lowest set bit of ``word`` (not 0)."""
    return DE_BRUIJN[((word & (~word + np.uint64(1))) * DE_BRUIJN_WORD) >> np.uint64(58)]


@njit(cache=True)
def _error_free_root(full, ones, classes, row_tests, out, tests):
    """The first root h (-1: none) of a tree of depth 2 that errs on none of the rows
    ``full`` (bits of W; ``ones[f]``: those with x_f = 1) whose sides are: one pure and the
    other split by one test into pure sides (``tests`` 2), or each pure or so split (3);
    the tree in ``out`` (root, zero side's test, one side's test; -1: none).

    A side of three classes or more has no such test. A side of two classes a and b has one
    iff the test's ones among its rows are exactly a's rows or exactly b's (each side then
    holds one class, and neither is empty): one comparison per test. With at most 64 tests
    only some are compared: such a test takes one value on a's rows and the other on b's,
    so it is among the tests where a's first row and b's first row differ and where each of
    the next ``FILTER_ROWS`` rows of a class agrees with its class's first row
    (``row_tests[i]``: the tests with x_f = 1 of row i); they go in increasing order.
    (One loop, no call per side: each call with an array is a reference count.)"""
    n_features, n_classes = ones.shape[0], classes.shape[0]
    for h in range(n_features):
        one = full & ones[h]
        if one == 0 or one == full:
            continue
        if tests == 2:                     # exactly one side pure
            pure = 0
            for k in range(n_classes):
                if one & ~classes[k] == 0:
                    pure += 1
                if (full & ~one) & ~classes[k] == 0:
                    pure += 1
            if pure != 1:
                continue
        found = 0                          # sides pure or split by a test
        pure = 0                           # of them pure
        for side in range(2):
            rows = one if side else full & ~one
            out[1 + side] = -1
            a, b, many = -1, -1, False
            for k in range(n_classes):
                if rows & classes[k]:
                    if a < 0:
                        a = k
                    elif b < 0:
                        b = k
                    else:
                        many = True
                        break
            if many:
                break
            if b < 0:
                found += 1
                pure += 1
                continue
            of_a, of_b = rows & classes[a], rows & classes[b]
            if n_features > 64:
                candidates = np.uint64(0)
                for f in range(n_features):
                    split = rows & ones[f]
                    if split == of_a or split == of_b:
                        out[1 + side] = f
                        break
            else:
                first_a, first_b = row_tests[_lowest(of_a)], row_tests[_lowest(of_b)]
                candidates = first_a ^ first_b
                rest_a, rest_b = of_a & (of_a - np.uint64(1)), of_b & (of_b - np.uint64(1))
                for _ in range(FILTER_ROWS):
                    if rest_a:
                        candidates &= ~(first_a ^ row_tests[_lowest(rest_a)])
                        rest_a &= rest_a - np.uint64(1)
                    if rest_b:
                        candidates &= ~(first_b ^ row_tests[_lowest(rest_b)])
                        rest_b &= rest_b - np.uint64(1)
                while candidates:
                    f = _lowest(candidates)
                    candidates &= candidates - np.uint64(1)
                    split = rows & ones[f]
                    if split == of_a or split == of_b:
                        out[1 + side] = f
                        break
            if out[1 + side] < 0:
                break
            found += 1
        if found == 2 and (tests == 3 or pure == 1):
            out[0] = h
            return h
    out[0], out[1], out[2] = -1, -1, -1
    return -1


@njit(cache=True)
def _fewest_error_free_tests(full, ones, classes, out, row_tests):
    """The fewest tests of a tree of depth <= 2 that errs on none of the rows ``full`` (bits
    of W; ``ones[f]``: those with x_f = 1), -1 if none does; such a tree in ``out`` (root,
    zero side's test, one side's test; -1: none).

    A tree of depth <= 2 with t tests is, by t: a leaf (t = 0: W pure); a root h with two
    pure sides (1); a root h with one side pure, the other split by one test into pure sides
    (2); a root h whose sides are both split so (3). A side with no row is pure and a test
    that leaves a side empty can be dropped for one test fewer, so only tests that split
    are tried; the passes go by t, each ending at its first tree."""
    out[0], out[1], out[2] = -1, -1, -1
    n_classes = classes.shape[0]
    for k in range(n_classes):
        if full & ~classes[k] == 0:
            return 0
    for h in range(ones.shape[0]):
        one = full & ones[h]
        if one == 0 or one == full:
            continue
        zero = full & ~one
        pure = 0
        for k in range(n_classes):
            if one & ~classes[k] == 0:
                pure += 1
            if zero & ~classes[k] == 0:
                pure += 1
        if pure == 2:
            out[0] = h
            return 1
    for tests in range(2, 4):
        if _error_free_root(full, ones, classes, row_tests, out, tests) >= 0:
            return tests
    return -1


@njit(cache=True)
def _error_free_depth2(full, ones, classes, out, row_tests):
    """Whether some tree of depth <= 2 errs on none of the rows ``full`` (bits of W); if
    so one such tree in ``out`` (``_error_free_root``)."""
    out[0], out[1], out[2] = -1, -1, -1
    for k in range(classes.shape[0]):
        if full & ~classes[k] == 0:
            return True
    return _error_free_root(full, ones, classes, row_tests, out, 3) >= 0


@njit(cache=True, inline="always")
def _take(item, size, row_tests, ones, classes, label, indptr, indices):
    """Row ``item`` joins the rows as their bit ``size``: in ``ones`` of its tests with x_f
    = 1, its class's word and (with at most 64 tests) its word of tests ``row_tests``."""
    bit = np.uint64(1) << np.uint64(size)
    tests = np.uint64(0)
    for a in range(indptr[item], indptr[item + 1]):
        ones[indices[a]] |= bit
        tests |= np.uint64(1) << np.uint64(indices[a] & 63)
    classes[label[item]] |= bit
    row_tests[size] = tests


@njit(cache=True)
def rows_as_bits(items, n, data, witnesses):
    """``items[:n]`` (n <= 64) as the bits of one word, item ``items[i]`` bit i, into the
    store's scratch: ``witnesses[4][f]`` those with x_f = 1, ``witnesses[5][k]`` those of
    class k; the word of all n bits."""
    X, label, weight, forced, indptr, indices = data
    ones, classes, row_tests = witnesses[4], witnesses[5], witnesses[7]
    ones[:] = 0
    classes[:] = 0
    for i in range(n):
        _take(items[i], i, row_tests, ones, classes, label, indptr, indices)
    return (np.uint64(1) << np.uint64(n)) - np.uint64(1) if n < 64 else ~np.uint64(0)


@njit(cache=True)
def fewest_error_free_tests(items, n, data, witnesses):
    """The fewest tests of a tree of depth <= 2 that errs on none of ``items[:n]`` (n <=
    64), -1 if none does, by word operations on their rows as bits
    (``_fewest_error_free_tests``; the store's scratch, its ``out`` gets the tree)."""
    full = rows_as_bits(items, n, data, witnesses)
    return _fewest_error_free_tests(full, witnesses[4], witnesses[5], witnesses[6],
                                     witnesses[7])


@njit(cache=True)
def error_free_side_cost(rows, ones, classes, out, row_tests, scale, decision):
    """The best cost of a tree of depth <= 2 on the rows ``rows`` (bits of the word of
    ``rows_as_bits``; its scratch ``witnesses[4:8]`` the other arguments) if it errs on none
    of them (its fewest tests * ``decision``), else ``scale``: a lower bound (every tree
    that errs costs ``scale`` or more)."""
    tests = _fewest_error_free_tests(rows, ones, classes, out, row_tests)
    return tests * decision if tests >= 0 else scale




@njit(cache=True)
def learn(items, n, key, target, data, witnesses, counters):
    """Store a witness of ``items[:n]`` (bitset ``key``; no tree of depth <= 2 is
    error-free on them, each costs >= ``target`` = ``scale``), found by refinement (module
    doc) from the rows of the last witness that it holds, if one of at most the store's row
    width (<= 64) exists. W's rows are bits of one word: the store's scratch (ones
    (features,), classes (classes,), out (3,)) holds which of them have x_f = 1 and which
    class, so that whether some depth-2 tree is error-free on W takes word operations
    (``_error_free_depth2``), no count."""
    X, label, weight, forced, indptr, indices = data
    rows_of, lengths, costs, stored, ones, classes, out, row_tests = witnesses
    slot = stored[0] % rows_of.shape[0]
    rows = rows_of[slot]
    ones[:] = 0
    classes[:] = 0
    size = 0
    if stored[0] > 0:                   # the last witness's rows here: hard rows, often
        last = (stored[0] - 1) % rows_of.shape[0]
        for i in range(lengths[last]):
            item = rows_of[last, i]
            if (key[item >> 6] >> np.uint64(item & 63)) & np.uint64(1):
                _take(item, size, row_tests, ones, classes, label, indptr, indices)
                rows[size] = item
                size += 1
    if size == 0:
        _take(items[0], size, row_tests, ones, classes, label, indptr, indices)
        rows[size] = items[0]
        size = 1
    leaf_class = np.empty(4, dtype=np.int64)
    at = 0
    while True:
        full = (np.uint64(1) << np.uint64(size)) - np.uint64(1) if size < 64 else ~np.uint64(0)
        counters[WORK] += size + ones.shape[0]
        if not _error_free_depth2(full, ones, classes, out, row_tests):
            lengths[slot], costs[slot] = size, target
            stored[0] += 1
            return
        if size == rows.shape[0]:
            return                              # too wide: nothing stored
        root, zero_test, one_test = out[0], out[1], out[2]
        leaf_class[:] = -1                      # the tree errs on none of W: a class a leaf
        for i in range(size):
            leaf_class[_leaf_of(X, rows[i], root, zero_test, one_test)] = label[rows[i]]
        next_item, fallback = -1, -1    # a row of T the tree errs on, after the last one
        for step in range(n):
            at = at + 1 if at + 1 < n else 0
            item = items[at]
            leaf = _leaf_of(X, item, root, zero_test, one_test)
            if leaf_class[leaf] < 0:
                fallback = item if fallback < 0 else fallback
            elif leaf_class[leaf] != label[item]:
                next_item = item
                break
        counters[WORK] += step + 1
        if next_item < 0:           # the tree errs in a leaf empty in W: a row of it
            next_item = fallback
        if next_item < 0:
            return                  # (cannot happen: no depth-2 tree is error-free on T)
        _take(next_item, size, row_tests, ones, classes, label, indptr, indices)
        rows[size] = next_item
        size += 1


key_cache_to_sources(__name__)  # its kernels read memo's counter indices
