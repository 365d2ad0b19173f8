"""The fewest tests of a depth-2 tree that errs on no row of a large set, by word operations.

Under ``prefer_small`` a depth-2 side whose budget is at most ``scale``
(``depth_two.solve_depth3_child``) must be classified without an error, and its best tree is
then the error-free one with the fewest tests, if any: every tree with an error costs ``scale``
or more. Whether such a tree exists with t tests needs no class counts, only which rows a test
sends to each side. A side of at most 64 rows is answered on its own rows as the bits of one
word (``witnesses.fewest_error_free_tests``); a larger one here, from bitsets made once per
search: ``columns[f]`` (the items with x_f = 1) and ``classes[k]`` (the items of class k), over
the search's items. The row set is the memo's bitset key (``memo._key_of``), so a side of test
h is ``key & columns[h]`` or ``key & ~columns[h]``: nothing is set up per call (a pair count of
the side would pass over every row and its features), and the loops read only the key's
non-zero words, a test's comparison ending at the first word that differs.

**Which trees.** A tree of depth <= 2 with t tests that errs on none of the rows S is, by t
(a side with no row is pure, and a test that leaves a side empty can be dropped for one test
fewer, so only tests that split are tried):

* t = 0: S is pure (one class at most);
* t = 1: a root h with two pure sides;
* t = 2: a root h with one side pure and the other split by one test into pure sides;
* t = 3: a root h whose two sides are each pure or so split.

A side of two classes a and b is split into pure sides by test f iff its rows with x_f = 1
are exactly its rows of a or exactly its rows of b (each side of f then holds one class,
and neither is empty); a side of three classes or more has no such test. The passes go by
t, each ending at its first tree; ``most`` stops them early: a caller that may only use
``most`` tests learns "more than ``most``" without the later passes.

Memory: ``columns`` is one bit per (item, feature), an eighth of the search's own 0/1
matrix of items (one byte per cell), which is made before it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["NO_TREE", "fewest_error_free_tests", "new_error_free_bits"]

NO_TREE = -1          # no tree of depth <= 2 errs on none of the rows


def new_error_free_bits(X: np.ndarray, label: np.ndarray, n_classes: int) -> tuple:
    """(columns (features, words), classes (classes, words), two sides' scratch (2, words),
    non-zero words' scratch (words,), out (1,): the root found) over the items' 0/1 rows
    ``X`` (items x features) and labels: item i is bit i % 64 of word i // 64."""
    n_items = X.shape[0]
    words = max(1, (n_items + 63) // 64)

    def as_words(bits: np.ndarray) -> np.ndarray:          # (sets, items) bool -> words
        packed = np.zeros((bits.shape[0], words * 8), dtype=np.uint8)
        packed[:, :(n_items + 7) // 8] = np.packbits(bits, axis=1, bitorder="little")
        return np.ascontiguousarray(packed.view("<u8").astype(np.uint64))

    columns = as_words(np.ascontiguousarray(np.asarray(X).T) != 0)
    classes = as_words(np.arange(n_classes)[:, None] == np.asarray(label)[None, :])
    return (columns, classes, np.zeros((2, words), dtype=np.uint64),
            np.zeros(words, dtype=np.int64), np.full(1, -1, dtype=np.int64))


@njit(cache=True)
def _error_free_root(key, nz, n_nz, columns, classes, sides, tests):
    """The first root h (-1: none) of a tree of depth <= 2 with ``tests`` tests (1-3) that
    errs on none of the rows of ``key`` (non-zero only in the words ``nz[:n_nz]``; module
    doc: 1, both sides pure; 2, one side pure and the other split by one test into pure
    sides; 3, each side pure or so split); the sides of h in ``sides``. One loop, no call
    per side or test: each call with an array is a reference count."""
    n_features, n_classes = columns.shape[0], classes.shape[0]
    first = np.empty(2, dtype=np.int64)      # each side's first two classes (-2: a third)
    second = np.empty(2, dtype=np.int64)
    for h in range(n_features):
        zero_rows, one_rows = False, False
        for i in range(n_nz):
            w = nz[i]
            one = key[w] & columns[h, w]
            sides[1, w] = one
            sides[0, w] = key[w] & ~one
            zero_rows = zero_rows or sides[0, w] != 0
            one_rows = one_rows or one != 0
        if not (zero_rows and one_rows):
            continue                     # h does not split the rows
        first[:] = -1
        second[:] = -1
        for side in range(2):
            for k in range(n_classes):
                for i in range(n_nz):
                    w = nz[i]
                    if sides[side, w] & classes[k, w]:
                        if first[side] < 0:
                            first[side] = k
                        elif second[side] < 0:
                            second[side] = k
                        else:
                            second[side] = -2
                        break
                if second[side] == -2:
                    break
        pure = (second[0] == -1) + (second[1] == -1)
        if tests == 1 and pure < 2 or tests == 2 and pure != 1 or tests == 3 and (
                second[0] == -2 or second[1] == -2):
            continue
        if tests == 1:
            return h
        split_both = True
        for side in range(2):
            a, b = first[side], second[side]
            if b == -1:
                continue
            if b == -2:
                split_both = False
                break
            found = False
            for f in range(n_features):
                as_a, as_b = True, True
                for i in range(n_nz):
                    w = nz[i]
                    split = sides[side, w] & columns[f, w]
                    if as_a and split != sides[side, w] & classes[a, w]:
                        as_a = False
                    if as_b and split != sides[side, w] & classes[b, w]:
                        as_b = False
                    if not (as_a or as_b):
                        break
                if as_a or as_b:
                    found = True
                    break
            if not found:
                split_both = False
                break
        if split_both:
            return h
    return -1


@njit(cache=True)
def fewest_error_free_tests(key, most, bits):
    """The fewest tests t of a tree of depth <= 2 that errs on none of the rows of ``key``
    (the memo's bitset of items): t if t <= ``most``; else ``most + 1`` if ``most`` < 3
    (no such tree has at most ``most`` tests), ``NO_TREE`` if ``most`` >= 3 (none at all);
    the root of such a tree in ``bits[4][0]`` (-1: a leaf). ``bits``:
    ``new_error_free_bits`` of the search's items."""
    columns, classes, sides, nz, out = bits
    out[0] = -1
    n_nz = 0
    for w in range(key.shape[0]):
        if key[w]:
            nz[n_nz] = w
            n_nz += 1
    seen = 0
    for k in range(classes.shape[0]):
        for i in range(n_nz):
            if key[nz[i]] & classes[k, nz[i]]:
                seen += 1
                break
    if seen <= 1:
        return 0
    for tests in range(1, 4):
        if most < tests:
            return most + 1
        root = _error_free_root(key, nz, n_nz, columns, classes, sides, tests)
        if root >= 0:
            out[0] = root
            return tests
    return NO_TREE
