"""The 0/1 search's witnesses (``trees.dtmax.binary.witnesses``): every stored witness is a
row set that no tree of depth <= 2 classifies without an error (independent brute force),
and searches that prune with them still give the brute force's optimum."""

from __future__ import annotations

import numpy as np
from bruteforce import best_bounded_tree

from occamlearn.binarize import FeatureBinarizer
from occamlearn.datasets import load_dataset
from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch
from occamlearn.trees.dtmax.binary.solve import binary_search
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.ordered.solve import ordered_search
from occamlearn.trees.dtmax.result import nested_errors, nested_tests


def _labelled_by_a_tree(rng, n_rows: int, n_features: int, n_classes: int, flips=0.03):
    """A 0/1 matrix labelled by a random depth-3 tree, a share ``flips`` of labels drawn
    again: error-free (or nearly) at depth 3-4, but only with several tests."""
    X = rng.integers(0, 2, (n_rows, n_features))
    tests = rng.integers(0, n_features, 7)
    leaves = rng.integers(0, n_classes, 8)
    node = np.zeros(n_rows, dtype=np.int64)
    for _ in range(3):
        node = 2 * node + 1 + X[np.arange(n_rows), tests[node]]
    y = leaves[node - 7]
    flip = rng.random(n_rows) < flips
    y[flip] = rng.integers(0, n_classes, int(flip.sum()))
    return X, y


def test_witnesses_have_no_error_free_depth2_tree():
    rng = np.random.default_rng(11)
    stored = 0
    for _ in range(40):
        n_rows, n_features = int(rng.integers(100, 200)), int(rng.integers(7, 10))
        n_classes, depth = int(rng.integers(2, 4)), 3
        X, y = _labelled_by_a_tree(rng, n_rows, n_features, n_classes)
        d = OrderedData.from_matrix(X.astype(float), y, n_classes)
        result = binary_search(d, depth)
        correct, splits = best_bounded_tree(X, y, n_classes, depth)
        assert result.status == "optimal"
        assert result.errors == nested_errors(result.tree, d.rank, d.y, d.weight)
        assert result.errors == len(y) - correct and nested_tests(result.tree) == splits

        # the search's own store, read back: each witness's rows (patterns with labels)
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 2 ** depth, 1, None, depth)
        search.solve_top(depth)
        rows_of, lengths, _, count = search.ws[-2][:4]
        for w in range(min(int(count[0]), len(lengths))):
            items = rows_of[w, :lengths[w]]
            W_X, W_y = search.X[items], search.label[items]
            assert len(set(items.tolist())) == len(items)
            assert best_bounded_tree(W_X, W_y, n_classes, 2)[0] < len(items)
            stored += 1
    assert stored > 0                        # the tests above did read witnesses


def test_fewest_error_free_tests_agrees_with_brute_force():
    """The word-operation count of the fewest tests of a depth-2 tree that errs on none of up
    to 64 rows (-1: no such tree), against every tree."""
    from occamlearn.trees.dtmax.binary.witnesses import fewest_error_free_tests

    rng = np.random.default_rng(3)
    answers = set()
    for _ in range(300):
        n_rows, n_features = int(rng.integers(1, 65)), int(rng.integers(1, 7))
        n_classes = int(rng.integers(2, 4))
        if rng.random() < 0.5:
            X, y = _labelled_by_a_tree(rng, n_rows, n_features, n_classes)
        else:
            X, y = rng.integers(0, 2, (n_rows, n_features)), rng.integers(0, n_classes, n_rows)
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 8, 1, None, 2)
        items = np.arange(len(search.label), dtype=np.int64)
        found = fewest_error_free_tests(items, len(items), search.data, search.ws[-2])
        correct, tests = best_bounded_tree(X, y, n_classes, 2)
        assert found == (tests if correct == n_rows else -1), (X.tolist(), y.tolist())
        answers.add(int(found))
    assert answers == {-1, 0, 1, 2, 3}


def test_a_search_that_prunes_with_witnesses_agrees_with_the_ordered_search():
    """160 mushroom rows at depth 4: error-free trees, so the fewest tests is the proof,
    where witnesses prune; the ordered search (no witnesses) finds the same optimum."""
    X, y = load_dataset("mushr")
    X = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X), dtype=float)
    y = np.unique(y, return_inverse=True)[1]
    rows = np.random.default_rng(0).choice(len(y), 160, replace=False)
    d = OrderedData.from_matrix(X[rows], y[rows], 2)
    result, ordered = binary_search(d, 4), ordered_search(d, 4, prefer_small=True)
    assert result.stats["witnessed"] > 0
    assert result.status == ordered.status == "optimal"
    assert result.errors == ordered.errors == nested_errors(result.tree, d.rank, d.y, d.weight)
    assert nested_tests(result.tree) == nested_tests(ordered.tree)
