"""The root searched in rounds of capped calls (``bnb.root_rounds``) against brute force.

Tiny instances never reach the default share of calls, so these tests give each root split a
share of 1-3 calls: every attempt is cut off again and again and resumed from the memo, the
path where a wrong drop or a lost memo entry would show as a wrong size.
"""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import minimum_tree_size, tiny_data
from hypothesis import given, settings
from test_minimum_tree_brute_force import N_INSTANCES, binarised

from occamlearn.model.tree import Tree
from occamlearn.trees.exact import stop
from occamlearn.trees.exact.stop import OutOfCalls
from occamlearn.trees.mpdt.bnb import root_rounds
from occamlearn.trees.mpdt.bnb.branch_and_bound import _run
from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch, prepare_rows

ENGINES = {"python": RowSetSearch, "compiled": CompiledRowSetSearch}


@pytest.fixture(autouse=True)
def poll_every_call(monkeypatch):
    """The Python engine looks at its cap every 16 calls; here at every call."""
    monkeypatch.setattr(stop, "POLL_EVERY", 1)


@pytest.mark.parametrize("seed", range(0, N_INSTANCES, 2))
def test_deepening_with_rounds_finds_the_brute_force_minimum(seed):
    """The whole branch and bound, every deepening step's root in rounds of 1-3 calls."""
    _, y, n_classes, _, X, _ = binarised(seed)
    engine = ("python", "compiled")[seed // 2 % 2]
    result = _run(X, y, n_classes, engine=engine, quick_calls=0, improve_calls=0,
                  root_share=1 + seed % 3)
    assert result.status == "optimal"
    assert result.tree.n_nodes == minimum_tree_size(X, y)
    assert result.tree.is_pure_on(X, y)


@settings(max_examples=300, deadline=None)
@given(tiny_data())
def test_one_step_finds_a_tree_within_the_budget_or_proves_none(data):
    """``solve_root_in_rounds(root, b)`` for every b up to the minimum: a pure tree of at
    most b leaves when b reaches the minimum, else a bound above b and at most the minimum."""
    X, y, n_classes = data
    minimum_leaves = (minimum_tree_size(X, y) + 1) // 2
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    for name, engine in ENGINES.items():
        search = engine(rows, labels, n_classes, kept)
        root = (1 << search.n_rows) - 1
        for budget in range(1, minimum_leaves + 1):
            value, nested = root_rounds.solve_root_in_rounds(search, root, budget, 1)
            if budget < minimum_leaves:
                assert budget < value <= minimum_leaves, name
                assert nested is None
            elif minimum_leaves > 1:
                assert value == minimum_leaves, name
                tree = Tree.from_nested(nested, X.shape[1], n_classes)
                assert tree.is_pure_on(X, y) and tree.n_nodes == 2 * value - 1


def test_the_tests_cut_attempts_off():
    """The capped path runs: on some of the instances above an attempt runs out of calls."""
    cut = 0
    original = root_rounds._attempt

    def counting(*args):
        nonlocal cut
        try:
            return original(*args)
        except OutOfCalls:
            cut += 1
            raise

    root_rounds._attempt = counting
    try:
        for seed in range(0, 60, 2):
            _, y, n_classes, _, X, _ = binarised(seed)
            for engine in ENGINES:
                _run(X, y, n_classes, engine=engine, quick_calls=0, improve_calls=0,
                     root_share=1)
    finally:
        root_rounds._attempt = original
    assert cut > 10, cut


def test_a_caller_cap_is_refused():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    rows, labels, n_classes, kept = prepare_rows(X, np.array([0, 1, 0]), 2)
    search = RowSetSearch(rows, labels, n_classes, kept)
    search.poll.call_cap = 10
    with pytest.raises(ValueError, match="call cap"):
        root_rounds.solve_root_in_rounds(search, 7, 2)


@settings(max_examples=300, deadline=None)
@given(tiny_data())
def test_a_loose_budget_still_gives_the_exact_minimum(data):
    """``solve(S, b)`` with b far above the minimum: the value is the minimum, not merely a
    tree within b (a node stops early only at its proven bound; a looser stop shows here)."""
    X, y, n_classes = data
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    for name, engine in ENGINES.items():
        search = engine(rows, labels, n_classes, kept)
        root = (1 << search.n_rows) - 1
        assert 2 * search.solve(root, 64) - 1 == minimum_tree_size(X, y), name
