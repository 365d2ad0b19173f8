"""The readable binariser keeps every cut a tree can need: brute force against every threshold.

``every_threshold`` below builds, independently of the binarisers, one 0/1 column per gap
between adjacent distinct values (``x >= upper value``; with missing values also true on a
missing row, and ``x is missing``). The minimum pure tree, the smallest tree within one
error and the most accurate tree of bounded depth over it are the optima over every threshold
of the data; ``ThresholdBinarizer`` fitted with the labels must reach the same optima.
"""

import numpy as np
import pandas as pd
import pytest
from bruteforce import minimum_tree_size, minimum_trees_with_errors, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.binarize import ThresholdBinarizer
from occamlearn.binarize.cut_points import level_within, nearest_shares
from occamlearn.binarize.printed_numbers import shortest_between, shortest_between_many
from occamlearn.binarize.threshold import AUTO_MAX_CELLS, AUTO_MAX_FEATURES

VALUES = [-2.0, 0.0, 0.5, 1.0, 3.0, 7.5]


def every_threshold(X: np.ndarray) -> np.ndarray:
    """One column per gap between adjacent distinct present values of each column (and, on a
    column with missing values, the same gap true on a missing row, and ``is missing``)."""
    columns = []
    for j in range(X.shape[1]):
        x = X[:, j]
        absent = np.isnan(x)
        distinct = np.unique(x[~absent])
        for upper in distinct[1:]:
            above = np.where(absent, False, x >= upper)
            columns.append(above)
            if absent.any():
                columns.append(above | absent)
        if absent.any():
            columns.append(absent)
    return np.array(columns, dtype=np.uint8).T.reshape(len(X), len(columns))


@st.composite
def numeric_tables(draw, max_rows=8, missing=True):
    """(X, y): 2-``max_rows`` rows over 1-3 numeric columns with ties (and, sometimes,
    missing values), 2-3 classes, labels equal on identical rows (a pure tree exists)."""
    n_rows, n_columns = draw(st.integers(2, max_rows)), draw(st.integers(1, 3))
    cells = st.sampled_from(VALUES + ([np.nan] if missing and draw(st.booleans()) else []))
    X = np.array(draw(st.lists(cells, min_size=n_rows * n_columns,
                               max_size=n_rows * n_columns))).reshape(n_rows, n_columns)
    n_classes = draw(st.integers(2, 3))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    keys = [tuple(np.where(np.isnan(row), 1e9, row)) for row in X]
    first = {}
    y = np.array([first.setdefault(key, label) for key, label in zip(keys, y)])
    return X, y


def binarised(X, y, weight=None, **params) -> np.ndarray:
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    binarizer = ThresholdBinarizer(drop_identifiers=False, **params)
    matrix = binarizer.fit(frame, y, sample_weight=weight).transform(frame)
    assert binarizer.thinned_columns_ == {}  # nothing thinned: the optimum must match
    return matrix


@settings(max_examples=400, deadline=None)
@given(numeric_tables())
def test_minimum_pure_tree_over_the_kept_cuts_is_minimum_over_every_threshold(table):
    X, y = table
    assert minimum_tree_size(binarised(X, y), y) == minimum_tree_size(every_threshold(X), y)


@settings(max_examples=150, deadline=None)
@given(numeric_tables(max_rows=6, missing=False))
def test_smallest_tree_within_one_error_is_the_same_over_the_kept_cuts(table):
    X, y = table
    n_classes = int(y.max()) + 1
    kept, _ = minimum_trees_with_errors(binarised(X, y), y, n_classes, 1)
    every, _ = minimum_trees_with_errors(every_threshold(X), y, n_classes, 1)
    assert kept == every


@settings(max_examples=150, deadline=None)
@given(numeric_tables(max_rows=7, missing=False), st.integers(1, 3),
       st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=7, max_size=7))
def test_most_accurate_bounded_tree_is_the_same_over_the_kept_cuts(table, depth, weights):
    """The proof's tree has no more leaves, no more depth and no more errors, for any
    non-negative weights (rows of weight 0 are left out of the cuts)."""
    X, y = table
    w = np.array(weights[:len(y)])
    if not (w > 0).any():
        w[0] = 1.0
    n_classes = int(y.max()) + 1
    kept = binarised(X, y, weight=w)
    assert threshold_tree_optimum(kept.astype(float), y, w, n_classes, depth) == \
        threshold_tree_optimum(X, y, w, n_classes, depth)


def test_class_boundary_cuts_alone_can_miss_the_minimum():
    """The counterexample of ``cut_points``: the gap between x = 2 and x = 4 joins two rows
    of label 1, yet the only 4-leaf pure trees cut it; without it the minimum has 5 leaves.
    The binariser keeps it (it lies in a middle run)."""
    X = np.array([[1, 5], [1, 4], [2, 1], [4, 5], [5, 3], [5, 4]], dtype=float)
    y = np.array([0, 1, 1, 1, 0, 1])
    every = every_threshold(X)
    boundary_only = np.delete(every, 1, axis=1)  # x >= 4 is the only cut of gap (2, 4)
    assert minimum_tree_size(every, y) == 7
    assert minimum_tree_size(boundary_only, y) == 9
    assert minimum_tree_size(binarised(X, y), y) == 7


def test_a_single_boundary_column_keeps_one_cut():
    """y = (a > 0): every cut of ``a`` but the one at 0 lies inside an end run."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    y = (X["a"] > 0).astype(int)
    binarizer = ThresholdBinarizer().fit(X, y)
    assert [str(c) for c in binarizer.conditions_ if c.column == "a"] == ["a >= 0.0"]
    assert binarizer.thinned_columns_ == {}
    assert binarizer.restriction() is None


def test_without_labels_at_most_32_cuts_per_column_as_before():
    X = pd.DataFrame({"a": np.arange(100) * 0.5})
    binarizer = ThresholdBinarizer(drop_identifiers=False).fit(X)
    assert len(binarizer.conditions_) == 32
    assert binarizer.thinned_columns_ == {"a": (32, 99)}
    assert binarizer.restriction() == "32 cuts per column on 'a'"


def test_the_feature_budget_thins_the_longest_columns_and_says_so():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(3000, 3)), columns=["a", "b", "c"])
    X["short"] = rng.integers(0, 5, size=3000)
    y = rng.integers(0, 2, size=3000)
    binarizer = ThresholdBinarizer().fit(X, y)
    kept = {name: k for name, (k, _) in binarizer.thinned_columns_.items()}
    assert set(kept) == {"a", "b", "c"} and len(set(kept.values())) == 1
    assert len(binarizer.conditions_) <= min(AUTO_MAX_FEATURES, AUTO_MAX_CELLS // 3000)
    assert sum(c.column == "short" for c in binarizer.conditions_) == 4
    k = kept["a"]
    assert binarizer.restriction() == f"{k} cuts per column on 'a', 'b', 'c'"


@settings(max_examples=60, deadline=None)
@given(numeric_tables(max_rows=9, missing=False),
       st.lists(st.integers(0, 3), min_size=9, max_size=9), st.integers(1, 3),
       st.booleans())
def test_integer_weights_thin_as_repeated_rows(table, counts, cap, labelled):
    X, y = table
    counts = np.array(counts[:len(y)])
    if not counts.any():
        counts[0] = 1
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    repeated = frame.loc[np.repeat(frame.index, counts)].reset_index(drop=True)
    params = {"drop_identifiers": False, "max_thresholds": cap}
    weighted = ThresholdBinarizer(**params).fit(frame, y if labelled else None,
                                                sample_weight=counts.astype(float))
    plain = ThresholdBinarizer(**params).fit(repeated,
                                             np.repeat(y, counts) if labelled else None)
    assert weighted.conditions_ == plain.conditions_


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=8),
       st.lists(st.integers(1, 4), min_size=8, max_size=8), st.integers(0, 200))
def test_water_filling_level_is_the_largest_within_the_budget(n_gaps, cost, budget):
    n_gaps, cost = np.array(n_gaps), np.array(cost[:len(n_gaps)])
    level = level_within(n_gaps, cost, budget)

    def used(k):
        return int((np.minimum(n_gaps, k) * cost).sum())

    if level is None:
        assert used(n_gaps.max()) <= budget
    elif level > 1:
        assert used(level) <= budget < used(level + 1)
    else:
        assert used(2) > budget


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30, unique=True), st.integers(0, 30))
def test_nearest_shares_are_distinct_increasing_and_complete(shares, k):
    share = np.sort(np.array(shares))
    chosen = nearest_shares(share, k)
    assert len(chosen) == min(k, len(share))
    assert np.all(np.diff(chosen) > 0) and (chosen.size == 0 or (
        chosen[0] >= 0 and chosen[-1] < len(share)))


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e20, 1e20, allow_nan=False), st.floats(1e-13, 1e3),
       st.sampled_from([1, 1, 1, 10, 0.01]))
def test_printed_thresholds_in_bulk_equal_the_exact_definition(low, width, scale):
    low = round(low * scale, 3) if abs(low) < 1e6 else low
    high = low + abs(low) * width if low else width
    if not low < high:
        return
    assert shortest_between_many(np.array([low]), np.array([high]))[0] == \
        shortest_between(low, high)


@pytest.mark.parametrize("low, high, printed", [(1.9, 3.0, 2.0), (2.85, 2.9, 2.9),
                                                (3.0, 6.0, 4.0), (-0.5, 2.0, 0.0),
                                                (1e300, 2e300, 2e300)])
def test_printed_thresholds_in_bulk_examples(low, high, printed):
    assert shortest_between_many(np.array([low]), np.array([high]))[0] == printed


def test_rows_merged_by_thinned_cuts_leave_optimal_qualified():
    """Cuts that merge rows (here 8 of a noisy column's) can only give a tree optimal over
    those cuts: the status line says so, next to the rows the merge set aside."""
    import warnings

    from occamlearn import MinimumPureTreeClassifier

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=1000)})
    y = ((X["x"] > 0) ^ (rng.random(1000) < 0.15)).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MinimumPureTreeClassifier(binarizer=ThresholdBinarizer(max_thresholds=8),
                                          time_limit=20).fit(X, y)
    assert model.optimal_over_ == "8 cuts per column on 'x'"
    assert f"status {model.status_} over 8 cuts per column on 'x'" in str(model)
    assert len(model.conflict_rows_) > 0 and model.training_errors_ > 0
