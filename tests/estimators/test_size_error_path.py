"""MaxAccuracyTreeClassifier's ``max_leaves`` and ``size_error_path``: agreement with the
error-budget trees (``MinimumPureTreeClassifier(max_errors=e)``), with ``max_leaves`` fits and
with depth-bounded DT(max); weights as repeated rows; selection, plot, export, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from occamlearn import MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.datasets import load_dataset


def noisy_data(seed=0, n=50, n_features=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, n_features))
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]) ^ (rng.random(n) < 0.15)
    return X, y.astype(int)


@pytest.fixture(scope="module")
def iris_path():
    X, y = load_dataset("iris")
    return X, y, MaxAccuracyTreeClassifier(max_depth=None).size_error_path(X, y)


def test_path_is_certified_and_falls(iris_path):
    X, y, path = iris_path
    assert path.status == "optimal" and path.proven.all()
    assert path.n_leaves.tolist() == list(range(1, len(path) + 1))
    assert (np.diff(path.errors) <= 0).all() and path.errors[-1] < path.errors[-2]
    assert path.errors[0] == len(y) - y.value_counts().max()
    for i in path.distinct():
        model = path.models[i]
        assert model.tree_.n_leaves <= path.n_leaves[i]
        assert (model.predict(X) != y).sum() == path.errors[i] == model.training_errors_
        assert model.status_ == "optimal" and model.errors_lower_bound_ == path.errors[i]
    assert all(path.models[i] is path.models[i - 1]
               for i in range(1, len(path)) if i not in path.distinct())


@pytest.mark.parametrize("weighted", [False, True])
def test_smallest_tree_within_a_budget_sits_on_the_curve(weighted):
    """L(e), the leaves of the smallest tree with <= e errors, is where the curve first
    reaches e: errors[L(e)] <= e < errors[L(e) - 1]."""
    X, y = noisy_data(1)
    weight = np.where(y == 1, 2.0, 1.0) if weighted else None
    path = MaxAccuracyTreeClassifier(max_depth=None, binarizer=None).size_error_path(
        X, y, sample_weight=weight)
    assert path.proven.all()
    for e in sorted({*path.errors.tolist(), *(path.errors + 1).tolist()}):
        if e > path.errors[0]:
            continue
        model = MinimumPureTreeClassifier(max_errors=int(e), binarizer=None, method="bnb").fit(
            X, y, sample_weight=weight)
        assert model.status_ == "optimal"
        leaves = model.tree_.n_leaves
        assert path.errors[leaves - 1] <= e
        assert leaves == 1 or path.errors[leaves - 2] > e


def test_max_leaves_fits_are_the_path():
    X, y = noisy_data(2)
    for depth in (None, 3):
        path = MaxAccuracyTreeClassifier(max_depth=depth, max_leaves=7,
                                         binarizer=None).size_error_path(X, y)
        for leaves in range(1, 8):
            model = MaxAccuracyTreeClassifier(max_depth=depth, max_leaves=leaves,
                                              binarizer=None).fit(X, y)
            assert model.status_ == "optimal"
            assert model.training_errors_ == path.errors[leaves - 1]
            assert model.tree_.n_leaves == path.models[leaves - 1].tree_.n_leaves <= leaves
            assert depth is None or model.depth_ <= depth


def test_depth_and_leaves_both_bind():
    """The depth-bounded path ends at DT(max)'s optimum at depth d (its smallest tree), at
    most 2**d leaves; below that both bounds bind."""
    X, y = noisy_data(3, n_features=5)
    for depth in (1, 2, 3):
        plain = MaxAccuracyTreeClassifier(max_depth=depth, binarizer=None).fit(X, y)
        path = MaxAccuracyTreeClassifier(max_depth=depth, binarizer=None).size_error_path(X, y)
        assert len(path) <= 2 ** depth and path.proven.all()
        assert path.errors[-1] == plain.training_errors_
        assert path.models[-1].n_nodes_ == plain.n_nodes_
        assert all(model.depth_ <= depth for model in path.models)
    deep = MaxAccuracyTreeClassifier(max_depth=None, max_leaves=4, binarizer=None).fit(X, y)
    shallow = MaxAccuracyTreeClassifier(max_depth=2, max_leaves=4, binarizer=None).fit(X, y)
    assert deep.training_errors_ <= shallow.training_errors_


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 2]))
def test_integer_weights_are_repeated_rows(seed, depth):
    rng = np.random.default_rng(seed)
    X, y = noisy_data(seed % 1000, n=int(rng.integers(3, 14)), n_features=3)
    weight = rng.integers(0, 4, size=len(y))
    weight[0] = max(weight[0], 1)
    estimator = MaxAccuracyTreeClassifier(max_depth=depth, max_leaves=5, binarizer=None)
    weighted = estimator.size_error_path(X, y, sample_weight=weight)
    repeated = estimator.size_error_path(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    assert weighted.errors.tolist() == repeated.errors.tolist()
    assert weighted.proven.all() and repeated.proven.all()


def test_select_takes_best_validation_accuracy_ties_to_fewer_leaves(iris_path):
    X, y, path = iris_path
    X_val, y_val = X.iloc[::2], y.iloc[::2]
    scores = path.validation_accuracy(X_val, y_val)
    chosen = path.select(X_val, y_val)
    best = scores.max()
    first = int(np.flatnonzero(scores == best)[0])
    assert chosen is path.models[first] and chosen.validation_accuracy_ == best
    assert chosen.tree_.n_leaves <= first + 1
    # the chosen model is an ordinary fitted estimator: prints, exports, predicts
    text = chosen.export_text()
    assert "class:" in text and "optimal" in str(chosen)
    assert (chosen.predict(X) == chosen.predict(X)).all()
    assert type(chosen).from_record(chosen.to_record()).predict(X).tolist() == \
        chosen.predict(X).tolist()


def test_plot_marks_proven_points(iris_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, path = iris_path
    ax = path.plot(X_val=X, y_val=y)
    labels = [line.get_label() for line in ax.get_lines()]
    assert "proven" in labels and "not proven (time limit)" not in labels
    assert f"{len(path)} of {len(path)} points proven" in ax.get_title()
    plt.close("all")


def test_time_limit_leaves_points_unproven_with_bounds():
    X, y = load_dataset("hepa")
    path = MaxAccuracyTreeClassifier(max_depth=None, time_limit=0.5).size_error_path(X, y)
    assert path.status == "feasible" and not path.proven.all() and path.proven[0]
    assert (path.errors_lower_bound <= path.errors).all()
    for i in path.distinct():
        model = path.models[i]
        assert model.status_ in ("optimal", "feasible")
        assert path.proven[i] or model.status_ == "feasible"
        assert model.training_errors_ == path.errors[i]


def test_estimator_stays_unfitted_and_params_are_checked():
    X, y = noisy_data(4)
    estimator = MaxAccuracyTreeClassifier(max_depth=None, max_leaves=3, binarizer=None)
    estimator.size_error_path(X, y)
    assert not hasattr(estimator, "n_features_in_") and not hasattr(estimator, "tree_")
    with pytest.raises(ValueError, match="max_depth=None needs max_leaves"):
        MaxAccuracyTreeClassifier(max_depth=None, binarizer=None).fit(X, y)
    with pytest.raises(ValueError, match="method must be 'auto'"):
        MaxAccuracyTreeClassifier(max_leaves=3, method="maxsat", binarizer=None).fit(X, y)
    with pytest.raises(ValueError, match="'max_leaves' parameter"):
        MaxAccuracyTreeClassifier(max_leaves=0).fit(X, y)


def test_dataframe_and_labels_round_trip():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "b": list("xyxyxy")})
    labels = np.array(["no", "no", "yes", "yes", "no", "yes"])
    path = MaxAccuracyTreeClassifier(max_depth=None).size_error_path(frame, labels)
    assert path.errors[-1] == 0 and set(path.models[-1].predict(frame)) <= {"no", "yes"}
    assert (path.models[-1].predict(frame) == labels).all()


CLASS_WEIGHT_CHECK = {"check_class_weight_classifiers": "exact fit: no minimum leaf weight"}


@parametrize_with_checks([MaxAccuracyTreeClassifier(max_depth=None, max_leaves=4),
                          MaxAccuracyTreeClassifier(max_depth=2, max_leaves=3,
                                                    binarizer="threshold")],
                         expected_failed_checks=lambda estimator: CLASS_WEIGHT_CHECK)
def test_sklearn_contract_with_max_leaves(estimator, check):
    check(estimator)
