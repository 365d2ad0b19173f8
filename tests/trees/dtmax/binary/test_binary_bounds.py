"""The depth-3 floor of the 0/1 search (``floors._floor_from_counts``) never exceeds the cost
of the best tree of depth <= 3, by brute force over every tree, on small random matrices
with repeated and conflicting rows, two or three classes, with and without the decision
cost."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import best_bounded_tree

from occamlearn.trees.dtmax.binary import floors
from occamlearn.trees.dtmax.binary.pair_counts import _count_pairs
from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch


def distinct_rows(X, y, n_classes):
    """The distinct rows of ``X`` with the count of each class on them."""
    patterns, inverse = np.unique(X, axis=0, return_inverse=True)
    C = np.zeros((len(patterns), n_classes), dtype=np.int64)
    np.add.at(C, (inverse.ravel(), y), 1)
    return patterns.astype(np.uint8), C


@pytest.mark.parametrize("decision", [0, 1])
def test_the_depth_3_floor_is_at_most_the_best_depth_3_tree(decision):
    rng = np.random.default_rng(7)
    scale = 8                                     # > 7 tests: cost order = (errors, tests)
    tight = 0
    for _ in range(150):
        n_rows, n_features = int(rng.integers(2, 13)), int(rng.integers(1, 6))
        n_classes = int(rng.integers(2, 4))
        X = rng.integers(0, 2, (n_rows, n_features))
        X[rng.random(n_rows) < 0.2] = X[0]                    # repeated rows, often of
        y = rng.integers(0, n_classes, n_rows)                # another class
        correct, tests = best_bounded_tree(X, y, n_classes, 3)
        best = (n_rows - correct) * scale + tests * decision
        if decision == 0:                         # fewest errors alone: any tree with them
            best = (n_rows - correct) * scale
        patterns, C = distinct_rows(X, y, n_classes)
        search = CompiledDepthSearch(patterns, C, scale, decision, None, 3)
        items = np.arange(len(search.label), dtype=np.int64)
        _, label, weight, _, indptr, indices = search.data
        pairs, present, seen, bit_space = search.ws[6][1], search.ws[7][1], search.ws[11], \
            search.ws[17]
        n_present = _count_pairs(items, len(items), label, weight, indptr, indices, pairs,
                                 seen, present, bit_space)
        floor = floors._floor_from_counts(items, len(items), pairs, present, n_present,
                                          search.data, search.ws, search.ws[4][1], scale,
                                          decision, search.counters)
        assert floor <= best, (X.tolist(), y.tolist(), floor, best)
        tight += floor == best
    assert tight > 30                             # and it is often exact


def test_the_similarity_bound_from_counts_equals_the_one_from_rows():
    """``_similarity_of_counts`` (a depth-3 node's pair counts) gives the weight of the rows
    the same side of the previous test had and this one lacks, as the pass over both row
    lists (``_similarity_bound``) does, on weighted rows of two or three classes."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        n_rows, n_features = int(rng.integers(2, 15)), int(rng.integers(2, 6))
        n_classes = int(rng.integers(2, 4))
        X = rng.integers(0, 2, (n_rows, n_features)).astype(np.uint8)
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), rng.integers(0, n_classes, n_rows)] = rng.integers(1, 4, n_rows)
        search = CompiledDepthSearch(X, C, 8, 1, None, 3)
        items = np.arange(len(search.label), dtype=np.int64)
        _, label, weight, _, indptr, indices = search.data
        pairs, present, seen, bit_space = search.ws[6][0], search.ws[7][0], search.ws[11], \
            search.ws[17]
        _count_pairs(items, len(items), label, weight, indptr, indices, pairs, seen, present,
                     bit_space)
        before, f = rng.choice(n_features, 2, replace=False)
        cost_before = int(rng.integers(0, 100))
        for side in (0, 1):
            rows_before = items[search.X[:, before] == side]
            rows_now = items[search.X[:, f] == side]
            from_rows = floors._similarity_bound(rows_before, len(rows_before), cost_before,
                                                 rows_now, len(rows_now), weight, 8)
            from_counts = floors._similarity_of_counts(pairs, before, cost_before, f, side, 8)
            assert from_counts == from_rows, (X.tolist(), C.tolist(), before, f, side)
        assert floors._similarity_of_counts(pairs, -1, cost_before, f, 0, 8) == 0
