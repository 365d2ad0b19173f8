"""The default DT(max) fit on numeric tables: the ordered engine over the readable binariser's
cuts (``estimators._dtmax_chains``), its lexicographic cost (``prefer_small``) and the
depth-2 solver from pair counts, against brute force and the binary dynamic programme."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pandas as pd
import pytest
from bruteforce import numeric_weighted_data, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.estimators import _dtmax_chains
from occamlearn.estimators._dtmax_chains import column_chains
from occamlearn.trees.dtmax.ordered import best_ordered_tree
from occamlearn.trees.dtmax.ordered.data import OrderedData
from occamlearn.trees.dtmax.ordered.depth2_counts import best_depth2_counts
from occamlearn.trees.dtmax.ordered.search import nested_from_depth2
from occamlearn.trees.dtmax.ordered.solve import nested_errors, nested_tests

CHAINS = "ordered on the readable cuts"


@pytest.fixture(autouse=True, scope="module")
def compiled_kernels():
    """The route needs the engine's kernels in the disk cache (else the binary route runs)."""
    from occamlearn.trees import kernel_cache

    kernel_cache.load("dtmax-ordered")


@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data(whole=True))
def test_prefer_small_is_fewest_errors_then_fewest_tests(data):
    X, y, w, n_classes, depth = data
    result = best_ordered_tree(X, y, n_classes, depth, sample_weight=w, prefer_small=True)
    errors, tests = threshold_tree_optimum(X, y, w, n_classes, depth)
    assert result.status == "optimal"
    assert result.errors == errors == result.lower_bound
    assert nested_errors(result.tree, result.data) == errors
    assert nested_tests(result.tree) == tests


@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data(max_depth=0, whole=True), st.sampled_from([0.0, 0.5]))
def test_depth2_from_pair_counts_against_brute_force(data, penalty):
    """Exact for errors alone and for errors plus a penalty per test (scaled weights)."""
    X, y, w, n_classes, _ = data
    scale = 8 if penalty else 1
    d = OrderedData.from_matrix(X, y, n_classes, w * scale)
    cost, tree, _ = best_depth2_counts(d.order, d.rank, d.y, d.weight.astype(np.int64),
                                       n_classes, penalty, 1e-9)
    errors, tests = threshold_tree_optimum(X, y, w, n_classes, 2)
    nested = nested_from_depth2(tree)
    if penalty:
        assert cost == errors * scale + penalty * tests
        assert nested_tests(nested) == tests
    else:
        assert cost == errors
    assert nested_errors(nested, d) == errors * scale


@st.composite
def small_tables(draw):
    """Tiny tables as users bring them: numeric columns with ties and missing values, a
    string category, 2-3 classes, integer sample weights or none, a class weight."""
    rows = draw(st.integers(2, 12))
    numbers = st.sampled_from([0.0, 1.0, 2.5, 3.0, 4.0, 10.0, np.nan])
    frame = {f"n{j}": draw(st.lists(numbers, min_size=rows, max_size=rows))
             for j in range(draw(st.integers(1, 3)))}
    if draw(st.booleans()):
        frame["colour"] = draw(st.lists(st.sampled_from(["red", "green", "blue"]),
                                        min_size=rows, max_size=rows))
    X = pd.DataFrame(frame)
    n_classes = draw(st.integers(2, 3))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    weight = None
    if draw(st.booleans()):
        weight = np.array(draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)))
        if not weight.any():
            weight[0] = 1
    class_weight = draw(st.sampled_from([None, None, "balanced"]))
    return X, y, weight, class_weight, draw(st.integers(1, 3))


@settings(max_examples=60, deadline=None)
@given(small_tables())
def test_same_errors_and_nodes_as_the_dynamic_programme(table):
    X, y, weight, class_weight, depth = table
    binarizer = ThresholdBinarizer(max_thresholds=3)
    common = dict(max_depth=depth, binarizer=binarizer, class_weight=class_weight,
                  time_limit=None)
    dp = MaxAccuracyTreeClassifier(method="dp", **common).fit(X, y, sample_weight=weight)
    ours = MaxAccuracyTreeClassifier(**common)
    with patch.object(_dtmax_chains, "_chains_pay", lambda *_: True), \
            patch.object(_dtmax_chains, "MIN_CUTS", 0):         # whatever the table
        ours.fit(X, y, sample_weight=weight)
    assert ours.solve_stats_["method"] == CHAINS
    assert (ours.status_, dp.status_) == ("optimal", "optimal")
    assert ours.training_errors_ == pytest.approx(dp.training_errors_)
    assert ours.errors_lower_bound_ == pytest.approx(ours.training_errors_)
    assert ours.n_nodes_ == dp.n_nodes_
    # the tree is over the binariser's own features, and predict agrees with the errors
    assert list(ours.feature_names_) == list(dp.feature_names_)
    wrong = ours.predict(X) != y
    row_weight = np.ones(len(y)) if weight is None else weight.astype(float)
    if class_weight is not None:
        from sklearn.utils.class_weight import compute_sample_weight
        row_weight = row_weight * compute_sample_weight(class_weight, y)
    assert row_weight[wrong].sum() == pytest.approx(ours.training_errors_)


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


def numeric_table(rows=300, seed=0):
    from sklearn.datasets import make_classification

    return make_classification(rows, 6, random_state=seed)


def test_defaults_on_numeric_columns_take_this_route_and_others_do_not():
    X, y = numeric_table()
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    assert model.solve_stats_["method"] == CHAINS
    assert model.status_ == "optimal"
    dp = MaxAccuracyTreeClassifier(max_depth=2, method="dp").fit(X, y)
    assert "method" not in dp.solve_stats_
    assert (dp.training_errors_, dp.n_nodes_) == (model.training_errors_, model.n_nodes_)
    binary = MaxAccuracyTreeClassifier(max_depth=2).fit((X > 0).astype(int), y)
    assert "method" not in binary.solve_stats_          # 0/1 columns: no cuts to chain
    narrow = MaxAccuracyTreeClassifier(max_depth=2).fit(np.round(X[:, :2]).clip(-1, 1), y)
    assert "method" not in narrow.solve_stats_          # 2 x 2 cuts: the binary programme
    flags = np.column_stack([X[:, :2]] + [(X[:, :1] > t).astype(int) for t in range(-4, 4)])
    mixed = MaxAccuracyTreeClassifier(max_depth=2).fit(flags, y)
    assert "method" not in mixed.solve_stats_           # 8 flags beside 2 chains, sparse
    onehot = MaxAccuracyTreeClassifier(max_depth=2, binarizer="onehot").fit(X, y)
    assert onehot.solve_stats_.get("method") != CHAINS


def test_printed_thresholds_are_the_binarisers():
    X, y = numeric_table()
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    names = set(map(str, ThresholdBinarizer().fit(X).get_feature_names_out()))
    used = [model.feature_names_[f] for f in model.tree_.feature if f >= 0]
    assert used and set(used) <= names
    text = str(model)
    for name in used:
        assert name.split(" >= ")[1] in text


def test_a_deadline_gives_the_best_tree_so_far_with_an_honest_bound():
    X, y = numeric_table(2000, seed=1)
    model = MaxAccuracyTreeClassifier(max_depth=4, time_limit=0.5).fit(X, y)
    assert model.solve_stats_["method"] == CHAINS
    assert model.status_ in ("optimal", "feasible")
    assert 0 <= model.errors_lower_bound_ <= model.training_errors_
    assert model.training_errors_ == (model.predict(X) != y).sum()
    exact = MaxAccuracyTreeClassifier(max_depth=4, time_limit=None).fit(X, y)
    assert model.errors_lower_bound_ <= exact.training_errors_ <= model.training_errors_


@settings(max_examples=30, deadline=None)
@given(small_tables())
def test_ordered_method_with_prefer_small_over_every_threshold(table):
    """``method="ordered"`` with ``prefer_small``: the dynamic programme's errors and nodes
    over every threshold (a binariser with no cap), also with class weights (fractions)."""
    X, y, weight, class_weight, depth = table
    X = X.drop(columns=["colour"], errors="ignore").fillna(5.0)
    common = dict(max_depth=depth, class_weight=class_weight, time_limit=None)
    dp = MaxAccuracyTreeClassifier(method="dp", binarizer=ThresholdBinarizer(
        max_thresholds=100), **common).fit(X, y, sample_weight=weight)
    ours = MaxAccuracyTreeClassifier(method="ordered", **common).fit(X, y,
                                                                     sample_weight=weight)
    assert (ours.status_, dp.status_) == ("optimal", "optimal")
    assert ours.training_errors_ == pytest.approx(dp.training_errors_)
    assert ours.n_nodes_ == dp.n_nodes_


@pytest.mark.parametrize(("left", "compiled_here"), [(60.0, True), (10.0, False)])
def test_kernels_not_on_disk_compile_here_only_with_time_left(monkeypatch, left,
                                                              compiled_here):
    """On a fresh install the route compiles the ordered kernels itself when at least
    ``FOREGROUND_COMPILE_MIN_SECONDS`` are left; with less it starts the background compile
    and lets the binary route answer."""
    from occamlearn.stopping import Deadline
    from occamlearn.trees import kernel_cache

    calls = []
    monkeypatch.setattr(_dtmax_chains, "_LOADED", [])
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: False)
    monkeypatch.setattr(kernel_cache, "start_background_compile",
                        lambda names: calls.append("background"))
    monkeypatch.setattr(kernel_cache, "load", lambda name: calls.append(("load", name)))
    assert _dtmax_chains._kernels_loaded(Deadline.after(left)) is compiled_here
    assert calls == ([("load", _dtmax_chains.ORDERED_KERNELS)] if compiled_here
                     else ["background"])
