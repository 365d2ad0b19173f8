"""The fewest tests of an error-free depth-2 tree on a row set of any size, by word operations
over the search's items (``trees.dtmax.binary.error_free``), against every tree."""

from __future__ import annotations

import numpy as np
from bruteforce import best_bounded_tree

from occamlearn.trees.dtmax.binary.error_free import NO_TREE, fewest_error_free_tests
from occamlearn.trees.dtmax.binary.memo import _key_of
from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch


def _matrix(rng):
    """(X, y, classes): 1-200 rows (so 1-4 words of items), 1-7 features, 2-4 classes; half
    labelled by a random depth-2 tree (error-free trees exist), half at random."""
    n_rows, n_features = int(rng.integers(1, 201)), int(rng.integers(1, 8))
    n_classes = int(rng.integers(2, 5))
    X = rng.integers(0, 2, (n_rows, n_features))
    y = rng.integers(0, n_classes, n_rows)
    if rng.random() < 0.5:
        tests, leaves = rng.integers(0, n_features, 3), rng.integers(0, n_classes, 4)
        at = np.arange(n_rows)
        root = X[at, tests[0]]
        y = leaves[2 * root + X[at, tests[1 + root]]]
    return X, y, n_classes


def test_fewest_error_free_tests_over_words_agrees_with_brute_force():
    rng = np.random.default_rng(5)
    answers = set()
    for _ in range(250):
        X, y, n_classes = _matrix(rng)
        C = np.zeros((len(y), n_classes), dtype=np.int64)
        C[np.arange(len(y)), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 8, 1, None, 2)
        n_items = len(search.label)
        items = np.sort(rng.choice(n_items, int(rng.integers(1, n_items + 1)), replace=False))
        key = np.zeros((n_items + 63) // 64, dtype=np.uint64)
        _key_of(items.astype(np.int64), len(items), key)
        W_X, W_y = search.X[items], search.label[items]
        correct, tests = best_bounded_tree(W_X, W_y, n_classes, 2)
        truth = tests if correct == len(items) else NO_TREE
        answers.add(truth)
        for most in range(4):
            found = fewest_error_free_tests(key, most, search.ws[-1])
            if truth != NO_TREE and truth <= most:
                assert found == truth, (most, truth, found)
            else:
                assert found == (most + 1 if most < 3 else NO_TREE), (most, truth, found)
            root = int(search.ws[-1][4][0])
            if found in (1, 2, 3) and found <= most:   # the root of such a tree
                one = W_X[:, root] > 0
                sides = [best_bounded_tree(W_X[s], W_y[s], n_classes, 1)
                         for s in (~one, one)]
                assert all(c == s.sum() for (c, _), s in zip(sides, (~one, one)))
                assert 1 + sides[0][1] + sides[1][1] == found
    assert answers == {NO_TREE, 0, 1, 2, 3}
