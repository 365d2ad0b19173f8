"""MaxAccuracyTreeClassifier over the table as given: every threshold, categories, missing
values as their own code, exact weights -- against a brute force over the raw table -- and an
explicit binariser honoured exactly; what is printed is what predicts."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from bruteforce import raw_tables, table_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.binarize._columns import shortest_between
from occamlearn.estimators import _dtmax_columns
from occamlearn.estimators._dtmax_columns import column_chains
from occamlearn.model.conditions import Condition

EVERY = ThresholdBinarizer(max_thresholds=None, drop_identifiers=False)


def brute_force(frame, y, w, n_classes, depth):
    """(fewest weighted errors, fewest tests) over the table's rows of positive weight."""
    kept = w > 0
    columns = [np.asarray(frame[c].to_numpy()[kept]) for c in frame.columns]
    columns = [c.astype(float) if c.dtype.kind == "f" else c for c in columns]
    labels = np.unique(y[kept], return_inverse=True)[1]
    return table_tree_optimum(columns, labels, w[kept], n_classes, depth)


def fit(frame, y, depth, **params):
    return MaxAccuracyTreeClassifier(max_depth=max(depth, 1), time_limit=None,
                                     binarizer=params.pop("binarizer", EVERY), **params)


@settings(max_examples=120, deadline=None)
@given(raw_tables())
def test_fewest_weighted_errors_then_tests_over_the_raw_table(table):
    frame, y, w, n_classes, depth = table
    depth = max(depth, 1)
    kept = w > 0
    if len(np.unique(y[kept])) < 2:
        return
    model = fit(frame, y, depth).fit(frame, y, sample_weight=w)
    errors, tests = brute_force(frame, y, w, n_classes, depth)
    assert model.status_ == "optimal"
    assert model.training_errors_ == pytest.approx(errors) == model.errors_lower_bound_
    assert model.n_nodes_ - model.tree_.n_leaves == tests
    wrong = model.predict(frame[kept]) != y[kept]         # (rows of weight 0: as absent)
    assert w[kept][wrong].sum() == pytest.approx(errors)
    assert model.solve_stats_["misclassified_rows"] == int(wrong.sum())


@settings(max_examples=60, deadline=None)
@given(raw_tables(max_rows=6), st.data())
def test_integer_weights_are_repeated_rows_and_zero_is_dropped(table, draw):
    frame, y, w, n_classes, depth = table
    counts = w.astype(int)
    if len(np.unique(y[counts > 0])) < 2:
        return
    weighted = fit(frame, y, depth).fit(frame, y, sample_weight=counts)
    repeated = frame.loc[frame.index.repeat(counts)].reset_index(drop=True)
    plain = fit(frame, y, depth).fit(repeated, np.repeat(y, counts))
    assert weighted.training_errors_ == plain.training_errors_
    assert weighted.n_nodes_ == plain.n_nodes_
    assert weighted.status_ == plain.status_ == "optimal"


def test_weight_zero_places_no_threshold():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0, 10.0]})
    y = np.array([0, 0, 1, 1, 1])
    # the row at 10 with weight 0 is as if absent: the cut lies between 1 and 2
    model = MaxAccuracyTreeClassifier(max_depth=1).fit(X, y, sample_weight=[1, 1, 1, 0, 0])
    assert [str(c) for c in model.binarizer_.conditions_] == ["a >= 2"]
    assert model.training_errors_ == 0.0


def test_missing_or_income_above_a_cut_is_one_split():
    """The issue's table: y = "income missing or income > 60" is one test over every
    threshold with missing values sent to either side."""
    rng = np.random.default_rng(0)
    income = rng.uniform(10, 100, 400).round(1)
    income[rng.random(400) < 0.2] = np.nan
    frame = pd.DataFrame({"income": income, "age": rng.integers(18, 80, 400)})
    y = (np.isnan(income) | (income > 60)).astype(int)
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(frame, y)
    assert (model.status_, model.training_errors_, model.n_nodes_) == ("optimal", 0, 3)
    assert "income >= " in str(model) and "or missing" in str(model)
    assert model.solve_stats_["optimal_over"] == "every threshold"


def test_every_cut_no_quantile_lands_on():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > np.sort(X[:, 0])[203]).astype(int)
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    assert (model.training_errors_, model.n_nodes_, model.status_) == (0, 3, "optimal")
    capped = MaxAccuracyTreeClassifier(max_depth=1, binarizer="threshold").fit(X, y)
    assert capped.training_errors_ > 0                   # bins by quantile miss it
    n_features = len(capped.feature_names_)
    assert capped.optimal_over_ == capped.solve_stats_["optimal_over"] \
        == f"the binariser's {n_features} features"
    assert f"status optimal over the binariser's {n_features} features" in str(capped)
    assert model.optimal_over_ is None


def test_an_explicit_binariser_is_honoured_exactly():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.integers(0, 30, 150),
                      "c": rng.choice(["x", "y", "z"], 150)})
    X.loc[::9, "a"] = np.nan
    y = ((X["a"] > 0.3) | (X["b"] > 20)).astype(int)
    binarizer = ThresholdBinarizer(max_thresholds=4)
    model = MaxAccuracyTreeClassifier(max_depth=3, binarizer=binarizer).fit(X, y)
    cuts = set(map(str, binarizer.fit(X, y).get_feature_names_out()))  # with the labels
    used = {model.feature_names_[f] for f in model.tree_.feature if f >= 0}
    assert used <= cuts and model.binarizer_ is not binarizer
    # the same optimum as the dynamic programme over those 0/1 columns would find: the
    # maxsat route reads them as they are, without chains
    maxsat = MaxAccuracyTreeClassifier(max_depth=2, binarizer=binarizer,
                                       method="maxsat").fit(X.iloc[:60], y[:60])
    ours = MaxAccuracyTreeClassifier(max_depth=2, binarizer=binarizer).fit(X.iloc[:60],
                                                                          y[:60])
    assert (ours.training_errors_, ours.n_nodes_) == (maxsat.training_errors_,
                                                      maxsat.n_nodes_)


def test_chains_reproduce_the_binary_matrix_with_missing_values_and_categories():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.integers(0, 5, 60).astype(float),
                      "c": rng.choice(["x", "y", "z"], 60)})
    X.loc[::7, "a"] = np.nan
    binarizer = ThresholdBinarizer(max_thresholds=6).fit(X)
    X_bin = np.asarray(binarizer.transform(X))
    codes, chains = column_chains(X_bin, binarizer.conditions_)
    assert sorted(j for chain in chains for j in chain) == list(range(X_bin.shape[1]))
    for f, chain in enumerate(chains):
        for j, column in enumerate(chain, start=1):
            assert np.array_equal(codes[:, f] >= j, X_bin[:, column] == 1)
    # "a >= t" and "a >= t or missing" are separate chains; each numeric one has > 1 cut
    assert sum(len(chain) > 1 for chain in chains) >= 3


def test_prints_the_binarisers_thresholds_and_predicts_what_it_prints():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=120).round(3), "b": rng.integers(0, 50, 120),
                      "colour": rng.choice(["red", "green", "blue"], 120),
                      "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(
                          rng.integers(0, 90, 120), unit="D")})
    y = np.where((X["a"] > 0.2) & (X["colour"] != "red") | (X["b"] > 40), "yes", "no")
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    assert model.status_ == "optimal"
    assert (model.predict(X) != y).sum() == model.training_errors_
    for condition in model.binarizer_.conditions_:        # a cut between training values
        if condition.op == ">=" and not condition.dates:
            values = np.unique(X[condition.column])
            above = values[values >= condition.value].min()
            below = values[values < condition.value].max()
            shortest = shortest_between(below, above)
            assert condition.value == (int(shortest) if condition.column == "b" else shortest)
    text = str(model)
    assert all(c.describe() in text for c in model.binarizer_.conditions_)
    tree, conditions = model.tree_, model.binarizer_.conditions_
    predicted = []
    for i in range(len(X)):
        node = 0
        while not tree.is_leaf[node]:
            holds = bool(conditions[tree.feature[node]].evaluate(X.iloc[[i]])[0])
            node = tree.right[node] if holds else tree.left[node]
        predicted.append(model.classes_[tree.label[node]])
    assert np.array_equal(predicted, model.predict(X))


def test_weighted_errors_and_misclassified_rows_are_both_printed():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 1.2).astype(int)
    model = MaxAccuracyTreeClassifier(max_depth=2, class_weight="balanced").fit(X, y)
    rows = model.solve_stats_["misclassified_rows"]
    assert rows == int((model.predict(X) != y).sum())
    recorded = model.to_record().training_errors
    assert rows != recorded            # the weighted errors differ from the rows
    assert f"{recorded:g} weighted training errors ({rows} rows misclassified)" in str(model)
    plain = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    assert f", {plain.training_errors_} training errors\n" in str(plain)


def test_a_feasible_status_says_what_is_unproven():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 12))
    y = (X[:, :4].sum(axis=1) + rng.normal(size=3000) > 0).astype(int)
    model = MaxAccuracyTreeClassifier(max_depth=4, time_limit=1).fit(X, y)
    assert model.errors_lower_bound_ <= model.training_errors_
    assert (model.predict(X) != y).sum() == model.training_errors_
    if model.status_ == "feasible":
        unproven = model.solve_stats_["unproven"]
        assert unproven in ("errors", "size")
        if unproven == "errors":
            assert (f"training errors in [{model.errors_lower_bound_}, "
                    f"{model.training_errors_}]") in str(model)
        else:
            assert "size not proven" in str(model)


@pytest.mark.parametrize("weights", ["class_weight", "sample_weight"])
def test_a_saved_model_predicts_the_probabilities_of_the_fitted_one(tmp_path, weights):
    """Saved = fitted: ``predict_proba`` reads the weighted leaf frequencies
    (``leaf_weights_``), which the model file keeps, with the weighted errors and the
    conditions; the missing values of the table route as they did."""
    from occamlearn import load_model, save_model

    rng = np.random.default_rng(11)
    X = pd.DataFrame({"a": rng.normal(size=400), "b": rng.integers(0, 9, 400).astype(float),
                      "c": rng.choice(["x", "y"], 400)})
    X.loc[rng.random(400) < 0.1, "a"] = np.nan
    y = (X["a"].fillna(1) + rng.normal(size=400) > 1.1).astype(int)
    options = {"class_weight": "balanced"} if weights == "class_weight" else {}
    fit_weights = rng.integers(1, 4, 400) if weights == "sample_weight" else None
    model = MaxAccuracyTreeClassifier(max_depth=3, **options).fit(X, y,
                                                                 sample_weight=fit_weights)
    assert model.leaf_weights_ is not None
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    proba = model.predict_proba(X)
    assert np.array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X)) or \
        np.any(proba.max(axis=1) == 0.5)                  # predict is the heavier class
    assert loaded.training_errors_ == pytest.approx(model.training_errors_)
    assert str(loaded) == str(model)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(0, 5), st.sampled_from([np.int64, np.float64, bool]),
       st.integers(0, 2**32 - 1))
def test_stacked_columns_are_the_column_stack(n_rows, n_columns, dtype, seed):
    """``stacked_columns``: the float64 ``np.column_stack`` of the codes, Fortran-ordered,
    the list emptied as it is read."""
    from occamlearn.estimators._dtmax_columns import stacked_columns

    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, 3, n_rows).astype(dtype) for _ in range(n_columns)]
    expected = np.column_stack(codes).astype(np.float64) if codes else np.zeros((n_rows, 0))
    matrix = stacked_columns(codes, n_rows)
    assert matrix.dtype == np.float64 and matrix.flags.f_contiguous
    assert np.array_equal(matrix, expected) and codes == [None] * n_columns


def _chains_by_columns(X_bin, conditions):
    """``column_chains`` read column by column off the row-major matrix (the reference the
    windowed reading must reproduce; the grouping is not what the windows change)."""
    ones = X_bin.sum(axis=0, dtype=np.int64)
    chains, codes = [], []
    for members in _dtmax_columns.chain_groups(X_bin.shape[1], conditions):
        members = sorted(members, key=lambda j: -ones[j])
        block = X_bin[:, members].astype(bool)
        nested = len(members) > 1 and not np.any(block[:, 1:] & ~block[:, :-1])
        for part in ([members] if nested else [[j] for j in members]):
            chains.append(tuple(part))
            codes.append(X_bin[:, part].sum(axis=1))
    return np.column_stack(codes).astype(np.float64), tuple(chains)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), rows=st.integers(1, 12), columns=st.integers(1, 14),
       window=st.integers(1, 40), tile=st.integers(1, 5),
       dtype=st.sampled_from(["uint8", "bool"]), named=st.booleans())
def test_windowed_chains_equal_the_column_by_column_reading(data, rows, columns, window, tile,
                                                            dtype, named):
    """Windows of any width (one row of bytes to more than the matrix; groups wider than a
    window gathered), transposed in tiles of any rows, give the column-by-column reading's
    codes and chains: the same matrix, groups of interleaved or nested columns, with or
    without conditions."""
    X_bin = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=columns,
                                                  max_size=columns),
                                         min_size=rows, max_size=rows)), dtype=dtype)
    if data.draw(st.booleans()):  # nested thresholds in some groups: chains of several
        X_bin = np.sort(X_bin, axis=1)[:, ::-1].astype(dtype)
    conditions = None
    if named:
        sources = data.draw(st.lists(st.integers(0, 3), min_size=columns, max_size=columns))
        conditions = [Condition(f"x{s}", ">=", float(j), s) for j, s in enumerate(sources)]
    with mock.patch.object(_dtmax_columns, "WINDOW_BYTES", window * X_bin.itemsize), \
            mock.patch.object(_dtmax_columns, "TILE_ROWS", tile):
        codes, chains = column_chains(X_bin, conditions)
    expected_codes, expected_chains = _chains_by_columns(X_bin, conditions)
    assert chains == expected_chains
    assert codes.dtype == np.float64 and np.array_equal(codes, expected_codes)
