"""The 0/1 search's witnesses (``trees.dtmax.binary.witnesses``): every stored witness is a
row set that no tree of depth <= 2 classifies without an error (independent brute force),
and searches that prune with them still give the brute force's optimum."""

from __future__ import annotations

import numpy as np
from bruteforce import best_bounded_tree

from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch
from occamlearn.trees.dtmax.binary.solve import binary_search
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.result import nested_errors, nested_tests


def _labelled_by_a_tree(rng, n_rows: int, n_features: int, n_classes: int):
    """A 0/1 matrix labelled by a random depth-3 tree, a few labels flipped: error-free
    (or nearly) at depth 3-4, but only with several tests."""
    X = rng.integers(0, 2, (n_rows, n_features))
    tests = rng.integers(0, n_features, 7)
    leaves = rng.integers(0, n_classes, 8)
    node = np.zeros(n_rows, dtype=np.int64)
    for _ in range(3):
        node = 2 * node + 1 + X[np.arange(n_rows), tests[node]]
    y = leaves[node - 7]
    flip = rng.random(n_rows) < 0.03
    y[flip] = rng.integers(0, n_classes, int(flip.sum()))
    return X, y


def test_witnesses_have_no_error_free_depth2_tree_and_the_search_stays_exact():
    rng = np.random.default_rng(11)
    stored = witnessed = 0
    for _ in range(60):
        n_rows, n_features = int(rng.integers(30, 64)), int(rng.integers(6, 10))
        n_classes, depth = int(rng.integers(2, 4)), int(rng.integers(3, 5))
        X, y = _labelled_by_a_tree(rng, n_rows, n_features, n_classes)
        d = OrderedData.from_matrix(X.astype(float), y, n_classes)
        result = binary_search(d, depth)
        correct, splits = best_bounded_tree(X, y, n_classes, depth)
        assert result.status == "optimal"
        assert result.errors == nested_errors(result.tree, d.rank, d.y, d.weight)
        assert result.errors == len(y) - correct and nested_tests(result.tree) == splits
        witnessed += result.stats["witnessed"]

        # the search's own store, read back: each witness's rows (patterns with labels)
        C = np.zeros((n_rows, n_classes), dtype=np.int64)
        C[np.arange(n_rows), y] = 1
        search = CompiledDepthSearch(X.astype(np.uint8), C, 2 ** depth, 1, None, depth)
        search.solve_top(depth)
        rows_of, lengths, _, count = search.ws[-1][:4]
        for w in range(min(int(count[0]), len(lengths))):
            items = rows_of[w, :lengths[w]]
            W_X, W_y = search.X[items], search.label[items]
            assert len(set(items.tolist())) == len(items)
            assert best_bounded_tree(W_X, W_y, n_classes, 2)[0] < len(items)
            stored += 1
    assert stored > 0 and witnessed > 0      # the tests above did read witnesses
