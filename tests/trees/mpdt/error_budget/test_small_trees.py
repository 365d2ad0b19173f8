"""Exact answers up to three leaves (``error_budget.small_trees``) against brute force on tiny
weighted data with duplicates and conflicts: the kernel's errors, the bounds and trees it
stores, and the searches that use them (size-error path, ``max_errors``) unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import brute_curve, weighted_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.trees.compiling import kernel_cache
from occamlearn.trees.exact.data import group_examples
from occamlearn.trees.mpdt.error_budget.bnb_engine import (
    ERR1,
    FORCED,
    LO,
    BudgetRowSetSearch,
)
from occamlearn.trees.size_error.frontier import find_size_error_frontier
from occamlearn.trees.weights import integer_weights


@pytest.fixture(scope="module", autouse=True)
def kernels():
    kernel_cache.load("error-budget")


HEAVY = (0.5, 1, 97, 200.5)  # units far above 64 per group: one bit per group, planes


@st.composite
def duplicated_data(draw, weights=(0, 0.5, 1, 1.5, 2, 3)):
    """(X, y, n_classes, weight): ``weighted_data`` with some rows repeated, some with another
    class (conflicts), so groups hold several rows and patterns several classes. With
    ``HEAVY`` weights the search's groups are single bits of many units (``exact.bits``)."""
    X, y, n_classes, weight = draw(weighted_data(max_rows=6, weights=weights))
    copies = draw(st.lists(st.integers(0, len(y) - 1), max_size=4))
    flips = draw(st.lists(st.booleans(), min_size=len(copies), max_size=len(copies)))
    for row, flip in zip(copies, flips, strict=True):
        X = np.r_[X, X[row:row + 1]]
        y = np.r_[y, (y[row] + flip) % n_classes]
        weight = np.r_[weight, max(weight[row], 0.5)]
    return X, y, n_classes, weight


def _search(X, y, n_classes, weight):
    """(the search with the small trees, the scale of ``integer_weights``: its weights are
    ``weight * scale``)."""
    units, scale = integer_weights(weight, len(y))
    return BudgetRowSetSearch(group_examples(X, y, units), n_classes,
                              use_small_trees=True), scale


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(duplicated_data(), duplicated_data(weights=HEAVY)))
def test_kernel_is_the_fewest_errors_up_to_three_leaves(data):
    """On the root and on both sides of every column, (e1, e2, e3) is the brute-force curve
    for 1..3 leaves, in the search's units."""
    X, y, n_classes, weight = data
    search, scale = _search(X, y, n_classes, weight)
    halves = (weight * 2).astype(np.int64)  # the strategy's weights are halves
    root = search.view.root
    sides = [(root, np.ones(len(y), dtype=bool))]
    for index, feature in enumerate(search.view.features):
        one = search.columns[index] & root
        sides += [(one, X[:, feature] == 1), (root ^ one, X[:, feature] == 0)]
    for rows, mask in sides:
        e1, e2, _, e3, *_ = search.small.errors(rows).tolist()
        curve = brute_curve(X[mask], y[mask], n_classes, halves[mask], 3)
        # search units -> weights: times search.unit / scale; halves: twice that
        assert [2 * e * search.unit for e in (e1, e2, e3)] == [c * scale for c in curve], \
            (rows, [e1, e2, e3], curve)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duplicated_data())
def test_stored_bounds_and_trees_hold(data):
    """With the bounds ``small_trees`` stores, the root's lower bound at every budget is at
    most the brute-force best(S, b), and every tree stored rebuilds to a tree with at most
    its recorded errors."""
    X, y, n_classes, weight = data
    search, scale = _search(X, y, n_classes, weight)
    halves = (weight * 2).astype(np.int64)
    curve = brute_curve(X, y, n_classes, halves, 2 * len(y) + 1)
    entry = search.entry(search.view.root)
    assert not entry[LO]  # the bounds live in class_err, the stored-bound dict stays empty
    for budget in range(entry[FORCED], entry[ERR1] + 1):
        limit = 2 * budget * search.unit  # halves times scale
        best = next(leaves for leaves, e in enumerate(curve, 1) if e * scale <= limit)
        assert best >= search.lower(entry, budget), (budget, best)
    groups = search.view.groups
    patterns = groups.patterns[groups.pattern]
    for leaves, (errors, *_rest) in entry[6].items():
        from occamlearn.model.tree import Tree

        tree = Tree.from_nested(search.nested(search.view.root, leaves), X.shape[1], n_classes)
        made = int(groups.count[tree.predict(patterns) != groups.label].sum())
        assert tree.n_leaves <= leaves
        assert made <= errors * search.unit


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(duplicated_data(), duplicated_data(weights=HEAVY)))
def test_path_with_small_trees_is_the_brute_force_curve(data):
    """The path is the same with the small trees as without (``use_small_trees=False``), and
    it is the brute-force curve, each tree making its point's errors."""
    from unittest import mock

    X, y, n_classes, weight = data
    halves = (weight * 2).astype(np.int64)
    with_small = find_size_error_frontier(X, y, n_classes, sample_weight=weight,
                                          use_pure_tail=False)
    # (none where nothing is searched: one leaf makes only the forced errors, or the greedy
    # start's entries, whose small trees wait for a search to visit them, settle the path)
    assert with_small.stats["small_tree_calls"] > 0 or with_small.stats["calls"] == 0
    with mock.patch.object(BudgetRowSetSearch, "__init__", _without_small):
        without = find_size_error_frontier(X, y, n_classes, sample_weight=weight,
                                           use_pure_tail=False)
    assert without.stats["small_tree_calls"] == 0
    assert with_small.status == without.status == "optimal"
    assert with_small.errors.tolist() == without.errors.tolist()
    curve = brute_curve(X, y, n_classes, halves, len(with_small.errors))
    assert (with_small.errors * 2).tolist() == curve
    for tree, errors in zip(with_small.trees, with_small.errors, strict=True):
        assert weight[tree.predict(X) != y].sum() == errors


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(duplicated_data(), duplicated_data(weights=HEAVY)), st.integers(0, 6))
def test_max_errors_with_small_trees_is_the_brute_force_size(data, extra):
    """The budget search (``max_errors``) with the small trees proves the brute-force
    smallest tree, also where the small trees settle the root without a search."""
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    X, y, n_classes, weight = data
    halves = (weight * 2).astype(np.int64)
    curve = brute_curve(X, y, n_classes, halves, 2 * len(y) + 1)
    budget = (curve[-1] + extra) / 2  # a weight: forced errors and up to three more halves
    result = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget, sample_weight=weight)
    assert result.status == "optimal"
    best = next(leaves for leaves, e in enumerate(curve, 1) if e <= 2 * budget)
    assert result.tree.n_leaves == best
    assert weight[result.tree.predict(X) != y].sum() <= budget


_original_init = BudgetRowSetSearch.__init__


def _without_small(self, *args, **kwargs):
    _original_init(self, *args, **{**kwargs, "use_small_trees": False})


def test_without_cached_small_tree_kernels_the_search_goes_without(monkeypatch):
    """When the error-budget kernels are not all in the disk cache, only the bound is loaded,
    the background compile is asked for the rest, and the path is the same without the
    small trees."""
    from occamlearn.trees.mpdt.error_budget import small_trees

    started = []
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: False)
    monkeypatch.setattr(kernel_cache, "start_background_compile",
                        lambda names: started.append(names) or True)
    assert small_trees.load_kernels()[2] is False and started
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(30, 5))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    without = find_size_error_frontier(X, y, 2)
    assert without.stats["small_tree_calls"] == 0
    monkeypatch.undo()
    with_small = find_size_error_frontier(X, y, 2)
    assert with_small.stats["small_tree_calls"] > 0
    assert with_small.errors.tolist() == without.errors.tolist()
    assert with_small.status == without.status == "optimal"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duplicated_data())
def test_a_call_over_its_work_budget_computes_nothing(data):
    """Under a time limit each kernel call gets a work budget (``Deadline.step_seconds``):
    a call over it returns e1 and no small trees (e2 = e3 = -1), one given the work it
    reported returns what an unlimited call does."""
    X, y, n_classes, weight = data
    search, _ = _search(X, y, n_classes, weight)
    root = search.view.root
    full = search.small.errors(root).tolist()
    work = full[6]
    if work > 0:
        capped = search.small.errors(root, max_work=work - 1).tolist()
        assert capped[0] == full[0] and capped[1] == capped[3] == -1 and capped[6] == work
    assert search.small.errors(root, max_work=work).tolist() == full


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duplicated_data(), st.integers(0, 4), st.integers(0, 200))
def test_the_bound_under_a_work_cap_is_still_a_lower_bound(data, budget, max_work):
    """The error-budget incompatibility bound stops picking items past its work cap; what it
    returns then is at most the uncapped bound, which is at most the brute-force best."""
    from occamlearn.trees.mpdt.error_budget import bnb_kernels

    X, y, n_classes, weight = data
    search, scale = _search(X, y, n_classes, weight)
    patterns = search.view.patterns_in(search.view.root)
    args = (search.packed, search.weights, search.totals, patterns, budget)
    full, _ = bnb_kernels.incompatibility_bound(*args, 1 << 62)
    capped, _ = bnb_kernels.incompatibility_bound(*args, max_work)
    assert 1 <= capped <= full
    curve = brute_curve(X, y, n_classes, (weight * 2).astype(np.int64), 2 * len(y) + 1)
    limit = 2 * budget * search.unit  # the budget in the curve's units (halves x scale)
    best = next((leaves for leaves, e in enumerate(curve, 1) if e * scale <= limit), None)
    assert best is None or full <= best


@pytest.mark.parametrize(("share_bytes", "reads"), [(2**40, 2), (64, 100)])
def test_the_memory_left_is_read_again_when_tables_may_not_fit(monkeypatch, share_bytes, reads):
    """``max_work`` reads the memory left every ``MEMORY_RECHECK_CALLS`` calls while the
    largest pair-count table fits four times in the last share read, and at every call when
    it may not; the work it allows is never above the share read."""
    from occamlearn.trees.mpdt.error_budget import small_trees

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(12, 4))
    search, _ = _search(X, rng.integers(0, 2, 12), 2, np.ones(12))
    read = []
    monkeypatch.setattr(small_trees.memory, "share",
                        lambda fraction, cap=None: read.append(fraction) or share_bytes)
    for _ in range(100):
        assert search.small.max_work() <= share_bytes // 8
        search.small.calls += 1
    assert len(read) == reads  # 100 calls: at calls 0 and MEMORY_RECHECK_CALLS, or all
