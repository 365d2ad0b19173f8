"""Enumeration of minimum trees (plain and MDSOL, Sec. 6) and layouts (Sec. 7) on tiny data,
checked against the independent brute force of ``tests/bruteforce.py``."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import count_minimum_trees, minimum_tree_size

from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.all_minimum.enumerate import (
    canonical_key,
    collect_trees,
    mean_pairwise_hamming,
    seen_counts,
    tree_targets,
)
from occamlearn.trees.mpdt.all_minimum.layouts import (
    candidate_layouts,
    enumerate_by_layout,
    feasible_layouts,
)
from occamlearn.trees.mpdt.all_minimum.minimum_trees import find_minimum_trees, optimal_formula
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch


def tiny(seed: int):
    rng = np.random.default_rng(seed)
    X = np.unique(rng.integers(0, 2, (12, 6)), axis=0)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3])).astype(np.int64)
    return X, y


@pytest.fixture(scope="module", params=[28, 33, 37])
def solved(request):
    X, y = tiny(request.param)
    search = MinimumTreeSearch(X, y, 2)
    search.run()
    yield X, y, search
    search.close()


def test_plain_enumeration_finds_exactly_the_brute_force_trees(solved):
    X, y, search = solved
    found = collect_trees(optimal_formula(search, live=True), None)
    size = minimum_tree_size(X, y)
    assert found.complete
    assert len(found.trees) == count_minimum_trees(X, y)
    assert len({canonical_key(t) for t in found.trees}) == len(found.trees)
    for tree in found.trees:
        assert tree.n_nodes == size
        assert tree.is_pure_on(X, y)


def test_diverse_enumeration_also_finds_them_all_without_duplicates(solved):
    X, y, search = solved
    found = collect_trees(optimal_formula(search, live=False), None, diverse=True)
    assert found.complete
    assert len(found.trees) == count_minimum_trees(X, y)
    assert len({canonical_key(t) for t in found.trees}) == len(found.trees)
    assert all(t.is_pure_on(X, y) and t.n_nodes == minimum_tree_size(X, y)
               for t in found.trees)


def test_every_mdsol_step_minimises_reuse_over_the_remaining_trees(solved):
    X, y, search = solved
    everything = collect_trees(optimal_formula(search, live=False), None).trees
    remaining = {canonical_key(t): tree_targets(t) for t in everything}
    drawn = collect_trees(optimal_formula(search, live=False), 12, diverse=True).trees
    for step, tree in enumerate(drawn):
        counts = seen_counts(drawn[:step])
        penalty = sum(counts[x] for x in tree_targets(tree))
        best = min(sum(counts[x] for x in targets) for targets in remaining.values())
        if step > 0:  # the first tree is the search's own
            assert penalty == best
        del remaining[canonical_key(tree)]


def test_mdsol_is_more_diverse_than_plain_enumeration():
    gains = []
    for seed in (28, 33, 37):
        X, y = tiny(seed)
        search = MinimumTreeSearch(X, y, 2)
        search.run()
        plain = collect_trees(optimal_formula(search, live=False), 6).trees
        diverse = collect_trees(optimal_formula(search, live=False), 6, diverse=True).trees
        search.close()
        gains.append(mean_pairwise_hamming(diverse) - mean_pairwise_hamming(plain))
    assert np.mean(gains) > 0.5
    assert min(gains) >= 0


def test_k_and_time_limit_stop_the_enumeration(solved):
    _, _, search = solved
    assert len(collect_trees(optimal_formula(search, live=False), 3).trees) == 3
    stopped = collect_trees(optimal_formula(search, live=False), None, deadline=Deadline.after(0.0))
    assert len(stopped.trees) == 1 and not stopped.complete  # only the search's own tree


def test_layouts_partition_the_minimum_trees(solved):
    X, y, search = solved
    formula = optimal_formula(search, live=False)
    layouts = feasible_layouts(formula, 2)
    assert 1 <= len(layouts) <= len(candidate_layouts(2, formula.size))
    report = []
    found = list(enumerate_by_layout(formula, 10_000, depth=2, report=report))
    assert len(found) == count_minimum_trees(X, y)
    assert all(entry["exhausted"] for entry in report)
    for tree, _, layout in found:  # the tree's top levels are its layout
        top = [not tree.is_leaf[n] for n in _bfs_prefix(tree, len(layout.decision))]
        assert tuple(top) == layout.decision


def _bfs_prefix(tree, n):
    from occamlearn.trees.mpdt.all_minimum.enumerate import bfs_order

    return bfs_order(tree)[:n]


def test_candidate_layouts_respect_the_size():
    assert [lay.describe() for lay in candidate_layouts(2, 7)] == ["DLL", "DLD", "DDL", "DDD"]
    assert [lay.describe() for lay in candidate_layouts(2, 3)] == ["DLL"]
    with pytest.raises(ValueError, match="depth"):
        candidate_layouts(0, 7)


@pytest.mark.parametrize("variant", [dict(), dict(diverse=True), dict(layouts=True),
                                     dict(layouts=True, diverse=True)])
def test_find_minimum_trees_variants(variant):
    X, y = tiny(33)
    found = find_minimum_trees(X, y, 2, 8, layout_depth=2, **variant)
    assert 1 <= len(found.trees) <= 8
    assert len({canonical_key(t) for t in found.trees}) == len(found.trees)
    assert all(t.is_pure_on(X, y) and t.n_nodes == found.result.tree.n_nodes
               for t in found.trees)
    if not variant.get("layouts"):
        assert canonical_key(found.trees[0]) == canonical_key(found.result.tree)


def test_find_minimum_trees_rejects_bad_k():
    X, y = tiny(33)
    with pytest.raises(ValueError, match="n_solutions"):
        find_minimum_trees(X, y, 2, 0)
