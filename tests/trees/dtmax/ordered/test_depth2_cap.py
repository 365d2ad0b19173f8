"""The depth-2 solver's cap on its passes (``depth2.best_depth2(max_evaluations=...)``), which
lets a search with a deadline stop before a compiled solve that the time left cannot finish:
a capped solve gives up (``ABORTED``) and never answers, an uncapped or loosely capped one
answers as before, and a search whose solves give up stops with an honest, unproven result."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from bruteforce import threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.ordered import search as ordered_search_module
from occamlearn.trees.dtmax.ordered.depth2 import ABORTED, best_depth2
from occamlearn.trees.dtmax.ordered.search import SWEEPS
from occamlearn.trees.dtmax.ordered.solve import ordered_search
from occamlearn.trees.dtmax.result import nested_errors


def _swept_node(seed: int, rows: int = 120, features: int = 4):
    """A node the sweeps answer (continuous values: pair counts predict more work)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, features))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=rows) > 0).astype(np.int64)
    return OrderedData.from_matrix(X, y, 2), X, y


def _solve(data, cap):
    w = np.ones(data.n_rows, dtype=np.int64)
    return best_depth2(data.order, data.rank, data.y, w, data.n_classes, np.inf, 0.0, 1e-9,
                       0.0, *SWEEPS, max_evaluations=cap)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16))
def test_a_capped_solve_gives_up_or_answers_as_the_uncapped_one(seed):
    """Below the passes it needs, a solve returns ``ABORTED``; at or above them, the uncapped
    answer (cost, exactness, tree, passes)."""
    data, _, _ = _swept_node(seed)
    free = _solve(data, -1)
    assert not free[4] and free[3] > 0          # the sweeps answered, in some passes
    for cap in (0, free[3] // 2, free[3] - 1):
        assert _solve(data, cap)[3] == ABORTED
    for cap in (free[3], free[3] + 5):
        capped = _solve(data, cap)
        assert capped[:2] == free[:2] and np.array_equal(capped[2], free[2])
        assert capped[3] == free[3]


def _paired_node(seed: int, rows: int = 150, features: int = 5):
    """A node the pair counts answer (few values a column)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(rows, features)).astype(float)
    y = ((X[:, 0] > 1) ^ (X[:, 1] > 2) | (rng.random(rows) < 0.1)).astype(np.int64)
    return OrderedData.from_matrix(X, y, 2), X, y


def _pair_work(data) -> float:
    from occamlearn.trees.dtmax.ordered.depth2_pairs import local_values, pair_counts_work

    return pair_counts_work(data.n_rows, local_values(data.order, data.rank), data.n_classes)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16))
def test_capped_pair_counts_give_up_or_answer_as_uncapped(seed):
    """Pair counts below the work ``pair_counts_work`` predicts give up (``ABORTED``, by
    pairs, no answer); at it or above, the uncapped answer."""
    data, _, _ = _paired_node(seed)
    w = np.ones(data.n_rows, dtype=np.int64)

    def solve(cap):
        return best_depth2(data.order, data.rank, data.y, w, data.n_classes, np.inf, 0.0,
                           1e-9, 0.0, *SWEEPS, max_pair_work=cap)

    free = solve(-1.0)
    assert free[4] and free[1] and free[3] > 0   # the pair counts answered
    work = _pair_work(data)
    for cap in (0.0, work / 2, work - 1):
        capped = solve(cap)
        assert capped[3] == ABORTED and capped[4] and not capped[1]
    for cap in (work, 2 * work):
        capped = solve(cap)
        assert capped[:2] == free[:2] and np.array_equal(capped[2], free[2])
        assert capped[3] == free[3]


@pytest.mark.parametrize("node, first_rate", [(_swept_node, "FIRST_CELL_RATE"),
                                              (_paired_node, "FIRST_PAIR_RATE")])
def test_a_search_whose_solves_give_up_stops_unproven_and_honest(node, first_rate):
    """A first speed guess too low for any pass of the sweeps or any pair of the pair counts
    (a cap of 0): the depth-3 search stops at its first depth-2 solve and returns a tree
    making the errors it states, with a lower bound at most the optimum and the status
    unproven; with no deadline the same search is optimal."""
    data, X, y = node(3 if node is _swept_node else 5, rows=60, features=3)
    w = np.ones(len(y))
    optimum = threshold_tree_optimum(X, y, w, 2, 3)[0]
    assert ordered_search(data, 3).errors == optimum
    with mock.patch.object(ordered_search_module, first_rate, 1e-12):
        result = ordered_search(data, 3, deadline=Deadline.after(1000.0))
    assert result.status == "feasible"
    assert nested_errors(result.tree, data.rank, data.y, data.weight) == result.errors
    assert result.errors_lower_bound <= optimum <= result.errors
