"""All minimum pure trees from the branch and bound (``trees.mpdt.all_minimum.tree_space``).

The count, the set of trees and every drawn tree are checked against an exhaustive
enumeration written here without bounds or memo: every pure tree with exactly k leaves, for
k = 1, 2, ... until one exists (a split with an empty side is never in a minimum tree).
"""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.all_minimum.enumerate import mean_pairwise_hamming, tree_targets
from occamlearn.trees.mpdt.all_minimum.tree_space import MinimumTreeSpace, SpaceCut


def all_minimum_trees(X, y):
    """Every pure tree with the fewest leaves, as nested tuples (exhaustive)."""
    X, y = np.asarray(X), np.asarray(y)

    @functools.cache
    def trees(rows: tuple, leaves: int) -> tuple:
        if leaves == 1:
            return (("leaf", int(y[rows[0]])),) if len({int(y[r]) for r in rows}) == 1 else ()
        found = []
        for feature in range(X.shape[1]):
            zero = tuple(r for r in rows if X[r, feature] == 0)
            one = tuple(r for r in rows if X[r, feature] != 0)
            if not zero or not one:
                continue
            for left_leaves in range(1, leaves):
                for a in trees(zero, left_leaves):
                    for b in trees(one, leaves - left_leaves):
                        found.append((feature, a, b))
        return tuple(found)

    everything = tuple(range(len(y)))
    for leaves in range(1, len(y) + 1):
        found = trees(everything, leaves)
        if found:
            return leaves, set(found)
    raise AssertionError("no pure tree")


def _conflict_free(X, y):
    """Keep the first row of each distinct feature vector (a pure tree then exists)."""
    keep = np.sort(np.unique(X, axis=0, return_index=True)[1])
    return X[keep], y[keep]


tiny_data = st.integers(0, 10**6).flatmap(lambda seed: st.tuples(
    st.just(seed), st.integers(2, 9), st.integers(1, 4), st.integers(2, 3)))


@settings(max_examples=120, deadline=None)
@given(tiny_data)
def test_count_and_set_equal_exhaustive_enumeration(case):
    seed, n_rows, n_features, n_classes = case
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    if n_features > 1 and rng.random() < 0.3:  # identical and complementary columns
        X[:, -1] = X[:, 0] if rng.random() < 0.5 else 1 - X[:, 0]
    X, y = _conflict_free(X, rng.integers(0, n_classes, size=n_rows))
    leaves, expected = all_minimum_trees(X, y)
    space = MinimumTreeSpace(X, y, n_classes)
    assert space.leaves == leaves
    assert space.count == len(expected)
    assert {space.nested(i) for i in range(space.count)} == expected


@settings(max_examples=60, deadline=None)
@given(tiny_data, st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_sampled_and_diverse_trees_are_pure_minimum_and_distinct(case, k, draw_seed):
    seed, n_rows, n_features, n_classes = case
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    X, y = _conflict_free(X, rng.integers(0, n_classes, size=n_rows))
    leaves, _ = all_minimum_trees(X, y)
    space = MinimumTreeSpace(X, y, n_classes)
    for drawn in (space.sample(k, random_state=draw_seed), space.diverse(k, pool=5,
                                                                         random_state=draw_seed)):
        assert len(drawn) == min(k, space.count)
        assert len({tree.structure_key() for tree in drawn}) == len(drawn)
        for tree in drawn:
            assert tree.n_nodes == 2 * leaves - 1
            np.testing.assert_array_equal(tree.predict(X), y)


def test_the_rank_order_enumerates_lazily_and_rejects_out_of_range_indices():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])  # xor: 2 features at the root, 2 trees each way
    space = MinimumTreeSpace(X, y, 2)
    assert (space.n_nodes, space.count, len(space)) == (7, 2, 2)
    assert [t.n_nodes for t in space] == [7, 7]
    assert space.nested(0) == (0, (1, ("leaf", 0), ("leaf", 1)), (1, ("leaf", 1), ("leaf", 0)))
    with pytest.raises(IndexError, match=r"outside \[0, 2\)"):
        space.nested(2)


def test_uniform_sampling_hits_every_tree_about_equally():
    X = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]])
    y = np.array([0, 1, 1, 0])
    space = MinimumTreeSpace(X, y, 2)
    rng = np.random.default_rng(0)
    draws = [space.sample(1, random_state=rng)[0].structure_key() for _ in range(3000)]
    counts = np.array(list(Counter(draws).values()))
    assert len(counts) == space.count
    expected = 3000 / space.count
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 3 * space.count + 30  # far above the chi-square tail for a uniform draw


def test_diverse_draw_is_mdsol_greedy_and_more_diverse_than_rank_order(bundled_binary):
    """With every tree in the pool, each step takes a tree whose (BFS position, feature)
    pairs were reused least by the trees already taken (MDSOL's step, Alg. 2), computed here
    on the ``Tree`` objects with the MaxSAT enumeration's own ``tree_targets``."""
    X, y, n_classes = bundled_binary("iris", unique=True)
    space = MinimumTreeSpace(X, y, n_classes)
    everything = [tree_targets(space.tree(i)) for i in range(space.count)]
    chosen = [tree_targets(t) for t in space.diverse(12, pool=space.count, random_state=0)]
    for step in range(1, len(chosen)):
        seen = Counter(pair for targets in chosen[:step] for pair in targets)
        best = min(sum(seen[p] for p in targets) for targets in everything
                   if targets not in chosen[:step])
        assert sum(seen[p] for p in chosen[step]) == best
    first = [space.tree(i) for i in range(12)]
    assert mean_pairwise_hamming(space.diverse(12, random_state=0)) > mean_pairwise_hamming(first)


def test_the_bundled_zoo_has_exactly_the_trees_maxsat_enumerates(bundled_binary):
    X, y, n_classes = bundled_binary("zoo", unique=True)
    space = MinimumTreeSpace(X, y, n_classes)
    trees = list(space)
    assert len(trees) == space.count
    assert len({t.structure_key() for t in trees}) == space.count
    for tree in trees[:: max(1, len(trees) // 50)]:
        np.testing.assert_array_equal(tree.predict(X), y)


def test_a_past_deadline_cuts_the_space_with_a_clear_message():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(40, 8))
    X, y = _conflict_free(X, rng.integers(0, 2, size=40))
    stopped = Deadline.after(None)
    stopped.request_stop()
    with pytest.raises(SpaceCut, match="not proven before the deadline"):
        MinimumTreeSpace(X, y, 2, deadline=stopped)
    leaves = MinimumTreeSpace(X, y, 2).leaves
    cut = MinimumTreeSpace(X, y, 2, leaves=leaves, deadline=stopped)
    assert not cut.complete and cut.count is None and cut.available == 0
    with pytest.raises(RuntimeError, match="before any minimum tree was counted"):
        cut.sample(3)


def test_a_space_cut_after_some_root_splits_draws_from_those(bundled_binary):
    """Counting stopped after the first root split: its trees are drawn, all minimum."""
    X, y, n_classes = bundled_binary("iris", unique=True)
    full = MinimumTreeSpace(X, y, n_classes)
    deadline = Deadline.after(None)
    partial = MinimumTreeSpace(X, y, n_classes, leaves=full.leaves, deadline=deadline)
    assert partial.complete
    first = full._splits[full._root][0]
    calls = {"n": 0}

    class StopAfterFirstRootSplit(Deadline):
        def expired(self):  # the root's split list, then its first split's sets, then stop
            calls["n"] += 1
            return calls["n"] > 1 + _sets_below(full, first)

    cut = MinimumTreeSpace(X, y, n_classes, leaves=full.leaves,
                           deadline=StopAfterFirstRootSplit())
    assert not cut.complete and 0 < cut.available < full.count
    for tree in cut.sample(20, random_state=0):
        assert tree.n_nodes == full.n_nodes
        np.testing.assert_array_equal(tree.predict(X), y)


def _sets_below(space, split) -> int:
    """Distinct non-leaf row sets the counting visits under one split of the root."""
    seen, stack = set(), [(split.left, split.left_leaves), (split.right, split.right_leaves)]
    while stack:
        rows, leaves = stack.pop()
        if leaves == 1 or rows in seen:
            continue
        seen.add(rows)
        stack += [(s.left, s.left_leaves) for s in space._splits[rows]]
        stack += [(s.right, s.right_leaves) for s in space._splits[rows]]
    return len(seen)


# -- the smallest trees within an error budget ----------------------------------------------
def all_smallest_trees_within(X, y, n_classes, budget):
    """Every tree with the fewest leaves among those making at most ``budget`` errors, as
    nested tuples (exhaustive; every label at every leaf)."""
    X, y = np.asarray(X), np.asarray(y)

    @functools.cache
    def trees(rows: tuple, leaves: int) -> tuple:
        if leaves == 1:
            return tuple((("leaf", k), sum(int(y[r]) != k for r in rows))
                         for k in range(n_classes))
        found = []
        for feature in range(X.shape[1]):
            zero = tuple(r for r in rows if X[r, feature] == 0)
            one = tuple(r for r in rows if X[r, feature] != 0)
            if not zero or not one:
                continue
            for left_leaves in range(1, leaves):
                for a, errors_a in trees(zero, left_leaves):
                    for b, errors_b in trees(one, leaves - left_leaves):
                        found.append(((feature, a, b), errors_a + errors_b))
        return tuple(found)

    everything = tuple(range(len(y)))
    for leaves in range(1, 2 * len(y) + 2):
        found = {tree for tree, errors in trees(everything, leaves) if errors <= budget}
        if found:
            return leaves, found
    raise AssertionError("no tree")


@settings(max_examples=150, deadline=None)
@given(tiny_data, st.integers(0, 3))
def test_budget_space_equals_exhaustive_enumeration(case, slack):
    """Conflicting rows allowed; budget = the errors they force + 0..3."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.all_minimum.budget_tree_space import BudgetTreeSpace

    seed, n_rows, n_features, n_classes = case
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    y = rng.integers(0, n_classes, size=n_rows)
    budget = group_examples(X, y).forced_errors() + slack
    leaves, expected = all_smallest_trees_within(X, y, n_classes, budget)
    space = BudgetTreeSpace(X, y, n_classes, budget)
    assert space.leaves == leaves
    assert space.count == len(expected)
    assert {space.nested(i) for i in range(space.count)} == expected
    for tree in space.sample(5, random_state=seed):
        assert (tree.predict(X) != y).sum() <= budget and tree.n_nodes == 2 * leaves - 1


def test_budget_space_below_the_forced_errors_is_refused():
    from occamlearn.trees.mpdt.all_minimum.budget_tree_space import BudgetTreeSpace

    X, y = np.array([[0], [0], [1]]), np.array([0, 1, 1])
    with pytest.raises(ValueError, match="below the errors that identical rows"):
        BudgetTreeSpace(X, y, 2, 0)


def test_alg3_with_an_error_budget_draws_from_the_budget_space(bundled_binary):
    """max_errors with Alg. 3 and method 'bnb': every candidate is a smallest tree within
    the budget on the training part, and their number is the space's exact count."""
    from occamlearn.trees.mpdt.all_minimum.minimum_trees import find_minimum_trees

    X, y, n_classes = bundled_binary("hayes-r", unique=True)
    found = find_minimum_trees(X, y, n_classes, 50, diverse=True, max_errors=3, method="bnb",
                               random_state=0)
    sizes = {tree.n_nodes for tree in found.trees}
    assert len(sizes) == 1 and found.result.status == "optimal"
    assert sizes == {found.result.tree.n_nodes}
    assert all((tree.predict(X) != y).sum() <= 3 for tree in found.trees)
    assert found.count is not None and len(found.trees) == min(50, found.count)
    assert len({tree.structure_key() for tree in found.trees}) == len(found.trees)
