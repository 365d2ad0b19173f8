"""The margin filter of ``trees.size_error.pure_tail`` against brute force on tiny weighted data:
best(S, b) >= pure(F_b) for every budget (equal at b = forced with two classes), and the path
with the pure-tree tail is the brute-force curve, bounds and all."""

from __future__ import annotations

import numpy as np
from bruteforce import brute_curve, minimum_tree_size, weighted_data
from hypothesis import HealthCheck, given, settings

from occamlearn.trees.size_error.frontier import find_size_error_frontier
from occamlearn.trees.size_error.pure_tail import margin_levels


def pattern_weights(X, y, n_classes, weight):
    patterns, inverse = np.unique(X, axis=0, return_inverse=True)
    table = np.zeros((len(patterns), n_classes))
    np.add.at(table, (inverse.ravel(), y), weight)
    return patterns, table


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_data(max_rows=7))
def test_margin_filter_bounds_every_budget(data):
    X, y, n_classes, weight = data
    units = (weight * 2).astype(np.int64)  # the strategy's weights are halves
    curve = brute_curve(X, y, n_classes, units, 2 * len(y))
    patterns, table = pattern_weights(X, y, n_classes, units)
    ordered = np.sort(table, axis=1)[:, ::-1]
    margin = ordered[:, 0] - ordered[:, 1]
    forced = int((table.sum(axis=1) - ordered[:, 0]).sum())
    label = table.argmax(axis=1)
    for budget in range(forced, int(units.sum()) + 1):
        best = next(leaves for leaves, e in enumerate(curve, 1) if e <= budget)
        kept = margin > budget - forced
        pure = (minimum_tree_size(patterns[kept], label[kept]) + 1) // 2 if kept.any() else 1
        assert best >= pure, (budget, best, pure)
        if budget == forced and n_classes == 2:
            assert best == pure
    levels = margin_levels(table.astype(np.int64))
    for m, kept in levels:
        assert kept.tolist() == np.flatnonzero(margin >= m).tolist()
        assert len(set(label[kept].tolist())) > 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_data(max_rows=7))
def test_path_with_the_tail_is_the_brute_force_curve(data):
    X, y, n_classes, weight = data
    with_tail = find_size_error_frontier(X, y, n_classes, sample_weight=weight)
    without = find_size_error_frontier(X, y, n_classes, sample_weight=weight, use_pure_tail=False)
    assert with_tail.status == without.status == "optimal"
    assert with_tail.errors.tolist() == without.errors.tolist()
    units = (weight * 2).astype(np.int64)
    curve = brute_curve(X, y, n_classes, units, len(with_tail.errors))
    assert (with_tail.errors * 2).tolist() == curve
    for tree, errors in zip(with_tail.trees, with_tail.errors, strict=True):
        assert weight[tree.predict(X) != y].sum() == errors


def test_pure_searches_run_and_change_nothing():
    """On noisy two-class data the tail and the pure oracle both run (when the compiled
    kernels are cached) and the path is the one found without them."""
    from occamlearn.trees.compiling import kernel_cache

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(40, 6))
    y = (((X[:, 0] & X[:, 1]) | X[:, 2]) ^ (rng.random(40) < 0.2)).astype(int)
    X = np.r_[X, X[:5]]  # conflicting copies: forced errors and tie patterns
    y = np.r_[y, 1 - y[:5]]
    with_tail = find_size_error_frontier(X, y, 2)
    without = find_size_error_frontier(X, y, 2, use_pure_tail=False)
    assert with_tail.status == without.status == "optimal"
    assert with_tail.errors.tolist() == without.errors.tolist()
    assert with_tail.stats["tail_levels"] >= 1
    if kernel_cache.kernels_ready("bnb"):
        assert with_tail.stats["pure_oracle_calls"] > 0
    assert without.stats["pure_oracle_calls"] == 0


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_data(max_rows=7))
def test_core_proofs_are_the_deletion_minimum(data):
    """``CoreProver.prove(slack, L)`` is True exactly when every deletable set H of weight
    <= slack leaves pure(F \\ H) > L (brute force over all H), which implies best(b) > L;
    otherwise the tree it returns has at most L leaves and, with two classes, at most
    forced + slack errors."""
    from occamlearn.trees.compiling import kernel_cache
    from occamlearn.trees.size_error.core_budgets import CoreProver

    if not kernel_cache.kernels_ready("bnb"):
        return
    kernel_cache.load("bnb", search=True)
    X, y, n_classes, weight = data
    units = (weight * 2).astype(np.int64)
    patterns, table = pattern_weights(X, y, n_classes, units)
    table = table.astype(np.int64)
    ordered = np.sort(table, axis=1)[:, ::-1]
    margin = ordered[:, 0] - ordered[:, 1]
    forced = int((table.sum(axis=1) - ordered[:, 0]).sum())
    kept = np.flatnonzero(margin > 0)
    label = table.argmax(axis=1)
    if len(set(label[kept].tolist())) < 2:
        return
    curve = brute_curve(X, y, n_classes, units, 2 * len(y))
    prover = CoreProver(patterns, kept, label[kept], margin[kept], n_classes, None)
    for slack in range(1, int(margin[kept].sum()) + 1):
        for leaves in range(1, len(kept) + 1):
            least = min(
                (minimum_tree_size(patterns[kept[rest]], label[kept[rest]]) + 1) // 2
                if rest.any() else 1
                for mask in range(1 << len(kept))
                if margin[kept][[i for i in range(len(kept)) if mask >> i & 1]].sum() <= slack
                for rest in [np.array([not mask >> i & 1 for i in range(len(kept))])])
            found = prover.prove(slack, leaves)
            assert (found is True) == (least > leaves), (slack, leaves, least)
            best = next(n for n, e in enumerate(curve, 1) if e <= forced + slack)
            if found is True:
                assert best > leaves
            else:
                assert _leaves(found) <= leaves
                if n_classes == 2:
                    assert best <= leaves


def _leaves(nested) -> int:
    return 1 if nested[0] == "leaf" else _leaves(nested[1]) + _leaves(nested[2])
