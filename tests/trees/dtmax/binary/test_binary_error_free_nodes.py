"""Depth-3 nodes that must be error-free (``prefer_small``, budget <= ``scale``) inside
depth-4 searches: a node of <= 64 rows searched on one word (``kernels.search``), one of more
rows from its key's words (``error_free_sides``), and the depth-2 passes on one word with
tests filtered by a few rows (``witnesses._error_free_root``), against every tree."""

from __future__ import annotations

import numpy as np
from bruteforce import best_bounded_tree

from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch
from occamlearn.trees.dtmax.binary.solve import binary_search
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.result import nested_errors, nested_tests


def _nearly_a_tree(rng, n_rows, n_features, n_classes, depth, flips, lowest_test=0):
    """A 0/1 matrix labelled by a random tree of ``depth`` on tests ``lowest_test`` and
    above, a share ``flips`` of labels drawn again: error-free trees exist (or nearly), with
    several tests."""
    X = rng.integers(0, 2, (n_rows, n_features))
    n_inner = 2 ** depth - 1
    tests = rng.integers(lowest_test, n_features, n_inner)
    leaves = rng.integers(0, n_classes, n_inner + 1)
    node = np.zeros(n_rows, dtype=np.int64)
    for _ in range(depth):
        node = 2 * node + 1 + X[np.arange(n_rows), tests[node]]
    y = leaves[node - n_inner]
    flip = rng.random(n_rows) < flips
    y[flip] = rng.integers(0, n_classes, int(flip.sum()))
    return X, y


def test_depth4_searches_with_error_free_depth3_nodes_agree_with_brute_force():
    """40-200 rows (depth-3 nodes on both sides of 64), 4-7 features, depth 4: the fewest
    errors, then the fewest tests, of every tree."""
    rng = np.random.default_rng(30)
    for case in range(50):
        n_rows, n_features = int(rng.integers(40, 201)), int(rng.integers(4, 8))
        n_classes = int(rng.integers(2, 4))
        X, y = _nearly_a_tree(rng, n_rows, n_features, n_classes, int(rng.integers(2, 5)),
                              float(rng.choice([0.0, 0.0, 0.02])))
        d = OrderedData.from_matrix(X.astype(float), y, n_classes)
        result = binary_search(d, 4)
        correct, splits = best_bounded_tree(X, y, n_classes, 4)
        assert result.status == "optimal"
        assert result.errors == nested_errors(result.tree, d.rank, d.y, d.weight)
        assert (result.errors, nested_tests(result.tree)) == (n_rows - correct, splits), case


def test_fewest_error_free_tests_with_more_than_64_features_agrees_with_brute_force():
    """Up to 64 rows, 65-70 features (the tests scanned, not filtered by rows' words), the
    labels often from the last tests."""
    from occamlearn.trees.dtmax.binary.witnesses import fewest_error_free_tests

    rng = np.random.default_rng(31)
    answers = set()
    for _ in range(60):
        n_rows, n_features = int(rng.integers(2, 65)), int(rng.integers(65, 71))
        n_classes = int(rng.integers(2, 4))
        X, y = _nearly_a_tree(rng, n_rows, n_features, n_classes, 2, 0.0,
                              int(rng.choice([0, n_features - 2])))
        if rng.random() < 0.3:
            y = rng.integers(0, n_classes, n_rows)
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 8, 1, None, 2)
        items = np.arange(len(search.label), dtype=np.int64)
        W_X, W_y = search.X[items], search.label[items]
        found = fewest_error_free_tests(items, len(items), search.data, search.ws[-2])
        correct, tests = best_bounded_tree(W_X, W_y, n_classes, 2)
        assert found == (tests if correct == len(items) else -1)
        answers.add(int(found))
    assert {-1, 2, 3} <= answers


def test_an_error_free_side_from_key_words_agrees_with_brute_force():
    """``error_free_sides.error_free_side`` on the sides of random row sets (both sides of
    64 rows) under budgets 1-8 (``scale`` 8): the side's fewest error-free tests if below the
    budget, else a bound at or above it."""
    from occamlearn.trees.dtmax.binary import memo
    from occamlearn.trees.dtmax.binary.error_free_sides import error_free_side

    rng = np.random.default_rng(32)
    answers = set()
    for _ in range(80):
        n_rows, n_features = int(rng.integers(30, 260)), int(rng.integers(2, 7))
        n_classes = int(rng.integers(2, 4))
        X, y = _nearly_a_tree(rng, n_rows, n_features, n_classes, int(rng.integers(1, 4)),
                              float(rng.choice([0.0, 0.0, 0.01])))
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 8, 1, None, 4)
        search.counters[memo.WORK_LIMIT] = 1 << 60
        n_items = len(search.label)
        node = np.sort(rng.choice(n_items, int(rng.integers(1, n_items + 1)), replace=False))
        node_key = np.zeros((n_items + 63) // 64, dtype=np.uint64)
        memo._key_of(node.astype(np.int64), len(node), node_key)
        f, one, ub = int(rng.integers(0, search.X.shape[1])), int(rng.integers(0, 2)), int(
            rng.integers(1, 9))
        side = node[search.X[node, f] == one]
        key, items = np.zeros_like(node_key), np.zeros(n_items, dtype=np.int64)
        value = error_free_side(node_key, f, one, key, items, ub, search.data, search.ws[-2],
                                search.ws[-1], 8, 1, search.slots, search.counters)
        correct, tests = best_bounded_tree(search.X[side], search.label[side], n_classes, 2)
        best = tests if correct == len(side) else 8
        if best < ub:
            assert value == best, (best, value, ub)
        else:
            assert value >= ub, (best, value, ub)
        answers.add((len(side) > 64, best < ub))
    assert answers == {(False, False), (False, True), (True, False), (True, True)}
