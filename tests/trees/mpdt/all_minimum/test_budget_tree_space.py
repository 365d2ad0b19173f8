"""Many smallest trees within an error budget (Alg. 3 with ``max_errors``): the enumeration
is checked against the exhaustive ``minimum_trees_with_errors`` of ``tests/bruteforce.py``."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import minimum_trees_with_errors, nested_tree
from pysat.solvers import Solver

from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.all_minimum.enumerate import (
    canonical_key,
    collect_trees,
    enumerate_plain,
    seen_counts,
    tree_targets,
)
from occamlearn.trees.mpdt.all_minimum.minimum_trees import (
    find_minimum_trees,
    trees_from_error_search,
)
from occamlearn.trees.mpdt.error_budget.encoding import relax_errors_needed
from occamlearn.trees.mpdt.error_budget.maxsat_search import ErrorBudgetSearch

# XOR of a and b plus two more copies of (1, 1), one of each label: one error is forced
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0, 0, 1])


def tiny(seed: int):
    """Random data with conflicts likely, 2 or 3 classes, and a budget of 0-2 spare errors."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.choice([2, 3]))
    n_rows, n_features = int(rng.integers(4, 11)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, (n_rows, n_features))
    y = rng.integers(0, n_classes, n_rows)
    return X, y, n_classes, relax_errors_needed(X, y) + int(rng.integers(0, 3))


def drawn(X, y, n_classes, budget, **variant):
    search = ErrorBudgetSearch(X, y, n_classes, budget)
    try:
        search.run()
        return trees_from_error_search(search, 10_000, **variant)
    finally:
        search.close()


@pytest.mark.parametrize("seed", range(24))
def test_plain_enumeration_is_the_brute_force_set(seed):
    X, y, n_classes, budget = tiny(seed)
    size, expected = minimum_trees_with_errors(X, y, n_classes, budget)
    found = drawn(X, y, n_classes, budget)
    got = [nested_tree(tree) for tree in found.trees]
    assert found.result.status == "optimal" and found.complete
    assert len(got) == len(set(got))                       # no tree twice
    assert set(got) == expected
    assert nested_tree(found.trees[0]) == nested_tree(found.result.tree)  # the search's leads
    for tree in found.trees:
        assert tree.n_nodes == size
        assert int((tree.predict(X) != y).sum()) <= budget


@pytest.mark.parametrize("variant", [{"diverse": True}, {"live": False},
                                     {"layouts": True, "layout_depth": 2},
                                     {"layouts": True, "layout_depth": 2, "diverse": True}])
def test_every_variant_finds_the_same_set(variant):
    for seed in (2, 12, 15, 25):
        X, y, n_classes, budget = tiny(seed)
        found = drawn(X, y, n_classes, budget, **variant)
        got = [nested_tree(tree) for tree in found.trees]
        assert len(got) == len(set(got)) and found.complete
        assert set(got) == minimum_trees_with_errors(X, y, n_classes, budget)[1]


def test_trees_differing_only_in_a_leaf_label_are_both_drawn():
    # budget 2: x0 then x1 on the x0=0 side; the x0=1 leaf errs twice whichever class it
    # predicts, so the a_{r,j} alone do not determine the tree
    size, expected = minimum_trees_with_errors(XOR_X, XOR_Y, 2, 2)
    found = {nested_tree(t) for t in drawn(XOR_X, XOR_Y, 2, 2).trees}
    assert size == 5 and found == expected
    pair = {(0, (1, ("leaf", 0), ("leaf", 1)), ("leaf", k)) for k in (0, 1)}
    assert pair <= found


def test_one_clause_blocks_every_model_of_a_tree_and_no_other_tree():
    X = np.array([[0, 1, 1], [1, 1, 1], [1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]])
    y = np.array([0, 0, 1, 1, 0, 0, 1])
    search = ErrorBudgetSearch(X, y, 2, 2)  # three trees of 3 nodes, two of them err once
    search.run()
    formula = search.formula(live=False)
    search.close()
    trees = [tree for tree, _ in enumerate_plain(formula, None)]
    formula.close()
    identities = [[-lit for lit in formula.tree_blocking_clause(t)] for t in trees]
    with_slack = 0
    for tree, identity in zip(trees, identities, strict=True):
        with Solver(name="cadical195", bootstrap_with=formula.hard_clauses()) as solver:
            models = 0
            while solver.solve(assumptions=identity):  # the tree's models: its relax choices
                model = solver.get_model()
                assert sorted(formula.model_blocking_clause(model, formula.tree_literals(tree))) \
                    == sorted(-lit for lit in identity)
                solver.add_clause([-lit for lit in model if abs(lit) in formula.encoding.relax])
                models += 1
            with_slack += models > 1
        with Solver(name="cadical195", bootstrap_with=formula.hard_clauses()) as solver:
            solver.add_clause([-lit for lit in identity])
            assert [solver.solve(assumptions=other) for other in identities] \
                == [other is not identity for other in identities]
    assert len(trees) == 3 and with_slack > 0  # trees with several models, one clause each


def test_every_mdsol_step_minimises_reuse_over_the_remaining_trees():
    X, y, n_classes, budget = tiny(15)
    search = ErrorBudgetSearch(X, y, n_classes, budget)
    search.run()
    everything = collect_trees(search.formula(live=False), None).trees
    remaining = {canonical_key(t): tree_targets(t) for t in everything}
    picked = collect_trees(search.formula(live=False), None, diverse=True).trees
    search.close()
    assert len(picked) == len(everything) > 3
    for step, tree in enumerate(picked):
        counts = seen_counts(picked[:step])
        penalty = sum(counts[x] for x in tree_targets(tree))
        if step > 0:  # the first tree is the search's own
            assert penalty == min(sum(counts[x] for x in t) for t in remaining.values())
        del remaining[canonical_key(tree)]


def test_single_leaf_answers_give_every_leaf_within_the_budget():
    X = np.array([[0], [1], [0], [1]])
    y = np.array([0, 0, 1, 1])
    both = find_minimum_trees(X, y, 2, 5, max_errors=2)
    assert [nested_tree(t) for t in both.trees] == [("leaf", 0), ("leaf", 1)]
    assert both.complete and both.result.status == "optimal"
    one = find_minimum_trees(X, y, 2, 1, max_errors=2)
    assert len(one.trees) == 1 and not one.complete


def test_relax_conflicts_sets_the_budget_to_the_forced_errors():
    found = find_minimum_trees(XOR_X, XOR_Y, 2, 100, relax_conflicts=True)
    size, expected = minimum_trees_with_errors(XOR_X, XOR_Y, 2, 1)
    assert found.result.stats["max_errors"] == 1
    assert {nested_tree(t) for t in found.trees} == expected and size == 7


def test_a_search_stopped_by_its_time_limit_still_draws_trees_of_its_size():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, (80, 8))
    y = rng.integers(0, 2, 80)
    found = find_minimum_trees(X, y, 2, 6, max_errors=12, deadline=Deadline.after(0.3))
    assert 1 <= len(found.trees) <= 6
    assert len({canonical_key(t) for t in found.trees}) == len(found.trees)
    for tree in found.trees:
        assert tree.n_nodes == found.result.tree.n_nodes
        assert int((tree.predict(X) != y).sum()) <= 12
    if found.result.status == "feasible":
        assert not found.complete
