"""Issue 31's time limits on the routes that overran: the greedy start (now counted with numpy:
the same tree as the bitset greedy it replaced, checked here against that reference), its
min-plus pruning, and whole fits on tables where a kernel call or the first tree once took
tens of seconds. Each fit keeps the project's rule (``within_time_limit``)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.trees import pruning
from occamlearn.trees.exact import splits
from occamlearn.trees.exact.data import bitset
from occamlearn.trees.exact.splits import entropy, greedy_tree
from occamlearn.trees.pruning import NO_ERRORS_BOUND as INF
from occamlearn.trees.pruning import min_plus


def _bitset_greedy(rows, columns, class_weights, is_leaf):
    """The greedy start as it was, over Python bitsets: the reference for ``greedy_tree``."""
    if is_leaf(rows):
        return (rows,)
    best_index, best_entropy = -1, np.inf
    for index, column in enumerate(columns):
        one_side = rows & column
        if not one_side or one_side == rows:
            continue
        value = entropy(class_weights(one_side)) + entropy(class_weights(rows ^ one_side))
        if value < best_entropy - 1e-12:
            best_index, best_entropy = index, value
    if best_index < 0:
        return (rows,)
    one_side = rows & columns[best_index]
    return (rows, best_index, _bitset_greedy(rows ^ one_side, columns, class_weights, is_leaf),
            _bitset_greedy(one_side, columns, class_weights, is_leaf))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(0, 7), st.integers(1, 3),
       st.sampled_from([(0, 1), (0, 1, 2, 3)]), st.booleans())
def test_greedy_tree_is_the_bitset_greedy(seed, n_patterns, n_columns, n_classes, weights,
                                          as_if_large):
    """Distinct patterns with class weights (0/1 as in the pure search, or several units per
    class as in the error-budget search, where each unit is a bit): the same tree, node for
    node, as the information-gain greedy over bitsets, ties to the lowest column. With
    ``as_if_large`` the counts, the bitsets and the blocks of nodes take the ways of large
    tables (count_nonzero or blocked products, byte buffers, several blocks a depth)."""
    with pytest.MonkeyPatch.context() as patch:
        if as_if_large:
            patch.setattr(splits, "SMALL_CELLS", 0)
            patch.setattr(splits, "SMALL_BITS", 0)
            patch.setattr(splits, "COUNT_BLOCK_CELLS", 16)
            patch.setattr(splits, "SPLIT_BLOCK_CELLS", 16)
        _check_greedy_tree(seed, n_patterns, n_columns, n_classes, weights)


def _check_greedy_tree(seed, n_patterns, n_columns, n_classes, weights):
    rng = np.random.default_rng(seed)
    matrix = np.unique(rng.integers(0, 2, (n_patterns, n_columns)), axis=0)
    weight = rng.choice(weights, (len(matrix), n_classes))
    weight[weight.sum(axis=1) == 0, 0] = 1
    units = weight.sum(axis=1)
    start = np.concatenate([[0], np.cumsum(units)])
    bit_class = np.concatenate([np.repeat(np.arange(n_classes), row) for row in weight])
    bit_pattern = np.repeat(np.arange(len(matrix)), units)
    columns = [bitset(matrix[bit_pattern, j] == 1) for j in range(n_columns)]
    class_sets = [bitset(bit_class == k) for k in range(n_classes)]

    def class_weights(rows):
        return [(rows & s).bit_count() for s in class_sets]

    expected = _bitset_greedy((1 << int(start[-1])) - 1, columns, class_weights,
                              lambda rows: sum(map(bool, class_weights(rows))) <= 1)
    assert greedy_tree(matrix, weight, start) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=20),
       st.lists(st.integers(0, 30), min_size=1, max_size=20), st.booleans())
def test_min_plus_is_the_double_loop(left, right, vectorised):
    """front[l] = min over a + b = l of left[a] + right[b], choice[l] the least such a, by
    numpy's vector operations or, on small fronts, in Python."""
    left, right = np.array([INF, *left]), np.array([INF, *right])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pruning, "SMALL_PRODUCT", 0 if vectorised else 400)
        front, choice = min_plus(left, right)
    assert front.dtype == left.dtype and choice.dtype == np.int64
    for leaves in range(2, len(front)):
        pairs = [(left[a] + right[leaves - a], a) for a in range(1, len(left))
                 if 1 <= leaves - a < len(right)]
        assert (front[leaves], choice[leaves]) == min(pairs)


@pytest.mark.slow
def test_error_budget_fit_on_breast_cancer_keeps_a_short_limit(within):
    """``max_errors=5, time_limit=5`` once took 43-46 s here (a small-tree kernel call per new
    row set, half a second at the root, with no look at the deadline)."""
    from sklearn.datasets import load_breast_cancer

    from occamlearn import MinimumPureTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    started = time.perf_counter()
    model = MinimumPureTreeClassifier(max_errors=5, time_limit=3).fit(X, y)
    assert within(3, time.perf_counter() - started)
    assert model.training_errors_ <= 5 and model.status_ in ("feasible", "optimal")


@pytest.mark.slow
def test_pure_fit_on_many_rows_returns_its_greedy_tree_in_time(within):
    """20,000 numeric rows: the first tree (the greedy start) comes before the search is set
    up, and the fit ends within the limit (before, the bitset greedy alone took a minute on
    100,000 rows)."""
    from sklearn.datasets import make_classification

    from occamlearn import MinimumPureTreeClassifier

    X, y = make_classification(n_samples=20_000, n_features=10, n_informative=8,
                               random_state=0)
    started = time.perf_counter()
    model = MinimumPureTreeClassifier(time_limit=3).fit(X, y)
    assert within(3, time.perf_counter() - started)
    assert model.status_ == "feasible" and model.solve_stats_["trace"]
    assert model.solve_stats_["trace"][0][0] < 3  # the first tree, seconds after fit began
