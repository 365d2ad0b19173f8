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
def test_kernels_are_the_fewest_errors_up_to_four_leaves(data):
    """On the root and on both sides of every column, (e1, e2, e3) of ``small_tree_errors``
    and E(4) of ``four_leaf_errors`` are the brute-force curve for 1..4 leaves, in the
    search's units."""
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
        e4 = search.small.four_errors(rows)[0]
        curve = brute_curve(X[mask], y[mask], n_classes, halves[mask], 4)
        # search units -> weights: times search.unit / scale; halves: twice that
        assert [2 * e * search.unit for e in (e1, e2, e3, e4)] == \
            [c * scale for c in curve], (rows, [e1, e2, e3, e4], curve)


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


@st.composite
def wide_data(draw):
    """(X, y, n_classes, weight): 4-10 rows over 3-5 features, 2-3 classes, weights 1-3:
    room for every shape of a four-leaf tree (a balanced one and chains on three columns)."""
    n_classes = draw(st.sampled_from([2, 3]))
    n_rows, n_features = draw(st.integers(4, 10)), draw(st.integers(3, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n_rows * n_features,
                               max_size=n_rows * n_features))).reshape(n_rows, n_features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    weight = np.array(draw(st.lists(st.integers(1, 3), min_size=n_rows, max_size=n_rows)),
                      dtype=float)
    return X, y, n_classes, weight


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_data(), st.integers(0, 12))
def test_four_leaf_kernel_on_wider_tables(data, budget):
    """On tables wide enough for every four-leaf shape: ``four_leaf_errors`` is the
    brute-force fewest errors with at most four leaves, or its target when that is lower; a
    call given one step less than the work it reports computes nothing (-1). What
    ``store_four`` stores at a budget keeps ``lower`` at most the brute-force best(S, b) at
    every budget, and every tree in the fronts (the four-leaf one among them, which it
    stores when it beats three leaves within the budget) rebuilds to a tree with at most
    its leaves and errors."""
    from occamlearn.model.tree import Tree

    X, y, n_classes, weight = data
    search, scale = _search(X, y, n_classes, weight)
    root = search.view.root
    curve = brute_curve(X, y, n_classes, weight.astype(np.int64), 2 * len(y) + 1)
    exact = curve[3] * scale // search.unit  # E(4) in the search's units
    kernel = search.small.four_kernel
    for target in (1 << 62, budget + 1):
        found = search.small._call(kernel, root, target, 1 << 62).tolist()
        assert found[0] == min(exact, target), (found, curve)
        work = found[1]
        assert search.small._call(kernel, root, target, work - 1).tolist()[0] == -1
        assert search.small._call(kernel, root, target, work).tolist() == found
    entry = search.entry(root)
    e4 = search.small.store_four(search, root, entry, budget)
    assert e4 == min(exact, budget + 1)
    if exact <= budget and exact < entry[4][3]:
        assert entry[6][4][0] == exact
    for b in range(entry[FORCED], entry[ERR1] + 1):
        limit = b * search.unit
        best = next(leaves for leaves, e in enumerate(curve, 1) if e * scale <= limit)
        assert best >= search.lower(entry, b), (b, best)
    groups = search.view.groups
    patterns = groups.patterns[groups.pattern]
    for leaves, (errors, *_rest) in entry[6].items():
        tree = Tree.from_nested(search.nested(root, leaves), X.shape[1], n_classes)
        made = int(groups.count[tree.predict(patterns) != groups.label].sum())
        assert tree.n_leaves <= leaves
        assert made <= errors * search.unit


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_data())
def test_path_with_the_four_leaf_bound_is_the_brute_force_curve(data):
    """On the wider tables, where the search asks row sets below their three-leaf errors, the
    path is the brute-force curve and each tree makes its point's errors."""
    X, y, n_classes, weight = data
    path = find_size_error_frontier(X, y, n_classes, sample_weight=weight,
                                    use_pure_tail=False)
    assert path.status == "optimal"
    curve = brute_curve(X, y, n_classes, weight.astype(np.int64), len(path.errors))
    assert path.errors.tolist() == curve
    for tree, errors in zip(path.trees, path.errors, strict=True):
        assert weight[tree.predict(X) != y].sum() == errors


def test_the_four_leaf_bound_is_asked_and_raises_bounds():
    """A noisy table of 40 rows and 7 columns: the search asks the four-leaf bound, it
    passes the budget asked at least once, and the path is the brute-force curve."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(40, 7))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3]) ^ (rng.random(40) < 0.15)).astype(int)
    path = find_size_error_frontier(X, y, 2, use_pure_tail=False)
    assert path.stats["four_leaf_calls"] > 0 and path.stats["four_leaf_gains"] > 0
    assert path.errors.tolist() == brute_curve(X, y, 2, np.ones(40, dtype=np.int64),
                                               len(path.errors))


def test_the_four_leaf_bound_is_asked_only_on_large_row_sets(monkeypatch):
    """The search asks the four-leaf bound only of row sets holding at least
    ``FOUR_ROOT_SHARE`` of the root's weight (here it would ask smaller ones too: at share 0
    they are asked), and the path stays the brute-force curve."""
    from occamlearn.trees.mpdt.error_budget import bnb_engine
    from occamlearn.trees.mpdt.error_budget.small_trees import SmallTrees

    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(60, 8))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3]) ^ (rng.random(60) < 0.2)).astype(int)
    asked = []
    store_four = SmallTrees.store_four

    def recorded(self, search, rows, entry, budget):
        asked.append(entry[0] / search.static(search.view.root)[0])
        return store_four(self, search, rows, entry, budget)

    monkeypatch.setattr(SmallTrees, "store_four", recorded)
    curve = brute_curve(X, y, 2, np.ones(60, dtype=np.int64), 12)
    gate = bnb_engine.FOUR_ROOT_SHARE
    for share in (0.0, gate):
        monkeypatch.setattr(bnb_engine, "FOUR_ROOT_SHARE", share)
        asked.clear()
        path = find_size_error_frontier(X, y, 2, use_pure_tail=False, max_leaves=12)
        assert path.status == "optimal"
        assert path.errors.tolist() == curve[:len(path.errors)]
        assert asked and min(asked) >= share
        if share == 0.0:
            assert min(asked) < gate  # the gate has work to do
