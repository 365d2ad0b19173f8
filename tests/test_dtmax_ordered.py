"""The ordered-column DT(max) engine (trees.dtmax.ordered): exact over every threshold against
brute force (weighted), weights equal repeated rows, agreement with the binary dynamic
programme, and an honest answer on a deadline."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import numeric_weighted_data, threshold_tree_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.datasets import load_dataset
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax.ordered import best_ordered_tree
from occamlearn.trees.dtmax.ordered.solve import nested_errors
from occamlearn.trees.dtmax.search import find_max_accuracy_tree


def brute_force(X, y, w, n_classes, depth):
    """Fewest weighted errors of any tree of depth <= ``depth`` over every threshold."""
    return threshold_tree_optimum(X, y, w, n_classes, depth)[0]


def tree_depth(nested) -> int:
    return 0 if nested[0] == "leaf" else 1 + max(tree_depth(nested[3]), tree_depth(nested[4]))


@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data())
def test_fewest_weighted_errors_match_brute_force(data):
    X, y, w, n_classes, depth = data
    result = best_ordered_tree(X, y, n_classes, depth, sample_weight=w)
    expected = brute_force(X, y, w, n_classes, depth)
    assert result.status == "optimal"
    assert result.errors == pytest.approx(expected, abs=1e-9)
    assert result.lower_bound == result.errors
    assert nested_errors(result.tree, result.data) == pytest.approx(expected, abs=1e-9)
    assert tree_depth(result.tree) <= depth


@settings(max_examples=60, deadline=None)
@given(numeric_weighted_data(max_rows=7), st.data())
def test_whole_weights_equal_repeated_rows(data, draw):
    X, y, _, n_classes, depth = data
    counts = np.array(draw.draw(st.lists(st.integers(0, 3), min_size=len(y),
                                         max_size=len(y))))
    if counts.sum() == 0:
        counts[0] = 1
    weighted = best_ordered_tree(X, y, n_classes, depth, sample_weight=counts)
    repeated = best_ordered_tree(np.repeat(X, counts, axis=0), np.repeat(y, counts),
                                 n_classes, depth)
    assert weighted.errors == repeated.errors


@settings(max_examples=150, deadline=None)
@given(numeric_weighted_data(max_depth=0), st.floats(0.0, 1.5), st.floats(0.0, 1.0))
def test_depth2_solver_keeps_its_contract_against_brute_force(data, upper_scale, lower_scale):
    """``best_depth2`` with an upper bound (a tree below it is exact, else a bound >= upper
    that no tree beats) and a known lower bound, on float and whole (int64) weights."""
    from occamlearn.trees.dtmax.ordered.data import OrderedData
    from occamlearn.trees.dtmax.ordered.depth2 import best_depth2
    from occamlearn.trees.dtmax.ordered.search import nested_from_depth2

    X, y, w, n_classes, _ = data
    d = OrderedData.from_matrix(X, y, n_classes, w)
    optimum = brute_force(X, y, w, n_classes, 2)
    upper = upper_scale * (optimum + 1.0)
    lower = lower_scale * optimum
    whole = np.all(d.weight == np.round(d.weight))
    weight = d.weight.astype(np.int64) if whole else d.weight
    cost, found, tree, _ = best_depth2(d.order, d.rank, d.y, weight, n_classes, upper, lower,
                                       1e-9)
    if optimum < upper - 1e-9:
        assert found and cost == pytest.approx(optimum, abs=1e-9)
        nested = nested_from_depth2(tree)
        assert nested_errors(nested, d) == pytest.approx(optimum, abs=1e-9)
        assert tree_depth(nested) <= 2
    else:
        assert not found and upper - 1e-9 <= cost <= optimum + 1e-9


def test_depth_two_matches_brute_force_on_continuous_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] < -0.2) ^ (rng.random(40) < 0.15)).astype(int)
    w = rng.random(40) + 0.1
    result = best_ordered_tree(X, y, 2, 2, sample_weight=w)
    assert result.errors == pytest.approx(brute_force(X, y, w, 2, 2))


def binary_training_data(name):
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer

    X, y = load_dataset(name)
    X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                              random_state=0)
    X_bin = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X_train), np.uint8)
    classes, y_index = np.unique(np.asarray(y_train), return_inverse=True)
    return X_bin, y_index, len(classes)


@pytest.mark.parametrize("name", ["monks-1", "haber", "hayes-r", "iris", "tic-tac-toe"])
@pytest.mark.parametrize("depth", [2, 3])
def test_same_optimum_as_the_binary_dynamic_programme(name, depth):
    X, y, n_classes = binary_training_data(name)
    ours = best_ordered_tree(X, y, n_classes, depth)
    dp = find_max_accuracy_tree(X, y, n_classes, depth, method="dp")
    assert ours.status == dp.status == "optimal"
    assert ours.errors == dp.training_errors


def test_deadline_keeps_a_tree_and_an_honest_lower_bound():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 8))
    y = (X[:, :3].sum(axis=1) + rng.normal(size=600) > 0).astype(int)
    sink = ProgressSink()
    result = best_ordered_tree(X, y, 2, 4, deadline=Deadline.after(0.3), progress=sink)
    assert nested_errors(result.tree, result.data) == result.errors
    assert result.lower_bound <= result.errors
    exact = best_ordered_tree(X, y, 2, 3)             # depth 3 makes at least as many errors
    assert result.lower_bound <= exact.errors
    if result.status == "feasible":
        assert result.lower_bound < result.errors
    uppers = [u for _, u, _ in sink.trace if u is not None]
    assert uppers == sorted(uppers, reverse=True) and uppers[-1] == result.errors


def test_bad_weights_and_shapes_are_named():
    X, y = np.zeros((3, 1)), np.array([0, 1, 0])
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0; row 1"):
        best_ordered_tree(X, y, 2, 2, sample_weight=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="one weight per row"):
        best_ordered_tree(X, y, 2, 2, sample_weight=[1.0])
    with pytest.raises(ValueError, match="every row has weight 0"):
        best_ordered_tree(X, y, 2, 2, sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="max_depth"):
        best_ordered_tree(X, y, 2, -1)
    with pytest.raises(ValueError, match="only finite numbers"):
        best_ordered_tree(np.array([[np.nan], [1.0], [2.0]]), y, 2, 2)


# -- the estimator: MaxAccuracyTreeClassifier(method="ordered") ---------------------------------
def test_estimator_prints_binariser_thresholds_and_predicts_what_it_prints():
    import pandas as pd

    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.binarize._columns import shortest_between

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=120).round(3), "b": rng.integers(0, 50, 120),
                      "colour": rng.choice(["red", "green", "blue"], 120)})
    y = np.where((X["a"] > 0.2) & (X["colour"] != "red") | (X["b"] > 40), "yes", "no")
    model = MaxAccuracyTreeClassifier(max_depth=2, method="ordered", prefer_small=False).fit(X, y)
    assert model.status_ == "optimal"
    expected = brute_force(np.column_stack([X["a"], X["b"],
                                            *(X["colour"] == c for c in ("blue", "green",
                                                                         "red"))]),
                           np.unique(y, return_inverse=True)[1], np.ones(120), 2, 2)
    assert model.training_errors_ == model.errors_lower_bound_ == expected
    assert (model.predict(X) != y).sum() == model.training_errors_
    for condition in model.binarizer_.conditions_:        # a cut between training values
        if condition.op == ">=":
            values = np.unique(X[condition.column])
            above = values[values >= condition.value].min()
            below = values[values < condition.value].max()
            shortest = shortest_between(below, above)
            assert condition.value == (int(shortest) if condition.column == "b" else shortest)
        else:
            assert condition.op == "==" and condition.column == "colour"
    text = str(model)
    assert all(str(c) in text for c in model.binarizer_.conditions_ if c.op == ">=")
    # the printed conditions, evaluated on the table, route rows as predict does
    tree, conditions = model.tree_, model.binarizer_.conditions_
    predicted = []
    for i in range(len(X)):
        node = 0
        while not tree.is_leaf[node]:
            holds = bool(conditions[tree.feature[node]].evaluate(X.iloc[[i]])[0])
            node = tree.right[node] if holds else tree.left[node]
        predicted.append(model.classes_[tree.label[node]])
    assert np.array_equal(predicted, model.predict(X))


def test_estimator_sees_every_threshold_the_readable_dp_cannot():
    from occamlearn import MaxAccuracyTreeClassifier

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > np.sort(X[:, 0])[203]).astype(int)    # a cut no quantile lands on
    ordered = MaxAccuracyTreeClassifier(max_depth=1, method="ordered", prefer_small=False).fit(X, y)
    dp = MaxAccuracyTreeClassifier(max_depth=1, method="dp").fit(X, y)
    assert ordered.training_errors_ == 0 < dp.training_errors_


def test_every_threshold_binariser_is_exact_over_every_cut_by_either_route():
    """``ThresholdBinarizer(max_thresholds=None)`` keeps every cut: with ``prefer_small``
    (the chain route) or without (the ordered engine, chosen because a column has more
    than 33 values) the fit finds the cut no quantile lands on, at the fewest nodes."""
    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.binarize import ThresholdBinarizer
    from occamlearn.estimators._dtmax_ordered import prefers_ordered

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > np.sort(X[:, 0])[203]).astype(int)
    every = ThresholdBinarizer(max_thresholds=None)
    assert prefers_ordered(every, X, prefer_small=False)
    assert not prefers_ordered(every, X[:30], prefer_small=False)   # 30 values: the dp
    for prefer_small in (True, False):
        model = MaxAccuracyTreeClassifier(max_depth=2, binarizer=every,
                                          prefer_small=prefer_small).fit(X, y)
        assert model.training_errors_ == 0 and model.status_ == "optimal"
        assert model.n_nodes_ == 3 or not prefer_small


def test_estimator_shows_the_gap_when_stopped():
    from occamlearn import MaxAccuracyTreeClassifier

    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 12))
    y = (X[:, :4].sum(axis=1) + rng.normal(size=3000) > 0).astype(int)
    model = MaxAccuracyTreeClassifier(max_depth=4, method="ordered", prefer_small=False,
                                      time_limit=1).fit(X, y)
    assert model.errors_lower_bound_ <= model.training_errors_
    assert (model.predict(X) != y).sum() == model.training_errors_
    if model.status_ == "feasible":
        assert (f"training errors in [{model.errors_lower_bound_}, "
                f"{model.training_errors_}]") in str(model)
    small = MaxAccuracyTreeClassifier(method="ordered", prefer_small=True).fit(X[:5], y[:5])
    assert small.status_ == "optimal"          # prefer_small: the lexicographic search
