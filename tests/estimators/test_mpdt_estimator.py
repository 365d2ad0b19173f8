"""MinimumPureTreeClassifier: scikit-learn's common checks and what the tree means.

The common checks run with ``on_conflict="majority"`` and ``time_limit=2``: they feed random
continuous data, which the binariser bins into identical rows with different labels (no pure
tree exists without the paper's majority filter), and random labels, the NP-hard worst case for
a *minimum* tree. Only ``check_dtype_object`` (56 rows, 4 random classes) hits the limit, and
it checks only that fit and predict run; every check that compares two fits sees data whose
optimum is proven within the limit, so its results are deterministic.
"""


import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import (
    check_class_weight_classifiers,
    parametrize_with_checks,
)

from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.maxsat.pysat_adapter import SATInterrupt


def _split(name, train_size=0.64):
    X, y = load_dataset(name)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=train_size, stratify=y, random_state=0)
    return X_train, y_train, X_test, y_test


# the check weighs class 0 by 1000 and class 1 by 0.0001 on noisy blobs and wants class 0
# predicted almost everywhere: a tree that may err (max_errors=1) gives the light class up and
# passes; a pure tree must classify every training row, whatever its weight
PURE_TREE_IGNORES_CLASS_WEIGHT = {
    "check_class_weight_classifiers": "a pure tree classifies every training row whatever its "
                                      "class weight; class_weight counts within max_errors"}


@parametrize_with_checks([MinimumPureTreeClassifier()],  # default parameters, as users build it
                         expected_failed_checks=lambda estimator: PURE_TREE_IGNORES_CLASS_WEIGHT)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


def test_class_weight_counts_within_the_error_budget():
    """scikit-learn's own class-weight check passes once the tree may err (the other common
    checks fit random tables whose conflicts exceed a budget of 1, so only this one runs)."""
    check_class_weight_classifiers("MinimumPureTreeClassifier",
                                   MinimumPureTreeClassifier(max_errors=1))


@pytest.mark.parametrize("method", ["auto", "maxsat", "bnb"])
@pytest.mark.parametrize("name, size", [("mux6", 15), ("corral", 13)])
def test_certified_minimum_sizes(name, size, method):
    X, y, _, _ = _split(name)
    clf = MinimumPureTreeClassifier(method=method).fit(X, y)
    assert (clf.n_nodes_, clf.status_) == (size, "optimal")
    assert clf.lower_bound_ == clf.upper_bound_ == size
    assert clf.score(X, y) == 1.0
    assert clf.tree_.is_pure_on(clf.binarizer_.transform(X), np.searchsorted(clf.classes_, y))
    assert list(clf.feature_names_in_) == list(X.columns)
    assert clf.n_features_in_ == X.shape[1]
    assert clf.depth_ == clf.tree_.depth
    stats = clf.solve_stats_
    assert stats["n_rows"] == len(X) and stats["trace"][-1][1] == size
    assert "total_seconds" in stats
    if method == "maxsat":
        assert {"sat_calls", "n_vars", "n_clauses", "solve_seconds"} <= set(stats)
    else:
        assert stats["proved_by"] == "branch-and-bound"


def test_the_portfolio_reports_bounds_that_met():
    X, y, _, _ = _split("monks-3")
    for n_jobs in (None, 2):
        clf = MinimumPureTreeClassifier(on_conflict="majority", n_jobs=n_jobs,
                                        time_limit=60).fit(X, y)
        assert clf.n_nodes_ == 31
        stats = clf.solve_stats_
        assert clf.status_ == "optimal" and clf.lower_bound_ == clf.upper_bound_ == clf.n_nodes_
        assert stats["proved_by"] in ("branch-and-bound", "maxsat", "both")
        lower_bounds = [lb for _, _, lb in stats["bound_trace"]]
        assert lower_bounds == sorted(lower_bounds) and lower_bounds[-1] == clf.n_nodes_
        sizes = [size for _, size in stats["trace"]]
        assert sizes == sorted(sizes, reverse=True) and sizes[-1] == clf.n_nodes_


def test_multiclass_text_labels_and_backends_agree():
    X, y, X_test, _ = _split("iris", train_size=0.5)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    y_text = names[y.to_numpy()]
    lsu = MinimumPureTreeClassifier(solver="lsu").fit(X, y_text)
    rc2 = MinimumPureTreeClassifier(solver="rc2").fit(X, y_text)
    assert list(lsu.classes_) == list(names)
    assert lsu.status_ == rc2.status_ == "optimal"
    assert lsu.n_nodes_ == rc2.n_nodes_
    assert (lsu.predict(X) == y_text).all()
    assert set(lsu.predict(X_test)) <= set(names)
    proba = lsu.predict_proba(X_test)
    assert proba.shape == (len(X_test), 3)
    assert np.allclose(proba.sum(axis=1), 1)
    assert (names[proba.argmax(axis=1)] == lsu.predict(X_test)).all()
    leaves = lsu.apply(X_test)
    assert lsu.tree_.is_leaf[leaves].all()


def _random_problem(n_rows=56, n_features=10, n_classes=4, seed=0):
    rng = np.random.RandomState(seed)
    X = (rng.uniform(size=(n_rows, n_features)) < 0.5).astype(int)
    y = rng.randint(0, n_classes, size=n_rows)
    keep = np.unique(X, axis=0, return_index=True)[1]
    return X[keep], y[keep]


def test_other_solver_errors_propagate():
    X, y = _random_problem(n_rows=30, n_features=8, seed=1)

    def fail(tree, seconds):
        raise SATInterrupt("some other failure")

    with pytest.raises(SATInterrupt, match="some other failure"):
        MinimumPureTreeClassifier(binarizer=None, callback=fail).fit(X, y)


def test_verbose_reports_progress_on_stderr(capsys):
    X, y, _, _ = _split("corral")
    trees = []
    MinimumPureTreeClassifier(verbose=1, callback=lambda t, s: trees.append(t)).fit(X, y)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pure tree with 13 nodes" in captured.err
    assert [t.n_nodes for t in trees] == sorted((t.n_nodes for t in trees), reverse=True)
    assert trees[-1].feature_names == tuple(f"{c} == 1" for c in ["A0", "A1", "B0", "B1",
                                                                  "Irrelevant", "Correlated"])


def test_conflicts_error_names_rows_and_majority_removes_them():
    X = pd.DataFrame({"a": [0, 0, 1, 1, 0, 1], "b": [0, 1, 0, 1, 0, 1]},
                     index=[10, 11, 12, 13, 14, 15])
    y = np.array(["no", "yes", "yes", "no", "yes", "no"])
    with pytest.raises(ValueError, match=r"no pure tree exists.*rows 10, 14"):
        MinimumPureTreeClassifier(on_conflict="error").fit(X, y)
    with pytest.warns(UserWarning, match=r"1 training row\(s\) .* set aside \(0-based rows 4;"):
        default = MinimumPureTreeClassifier().fit(X, y)  # the default filter, with a warning
    assert default.conflict_rows_.tolist() == [4] and default.training_errors_ == 1
    y[4] = y[0] = "no"
    y[5] = "yes"
    clf = MinimumPureTreeClassifier(on_conflict="majority").fit(X, y)
    assert clf.conflict_rows_.tolist() == [5] and clf.n_conflicts_removed_ == 1
    assert clf.status_ == "optimal" and clf.n_nodes_ == 7  # XOR of a and b


def test_single_class_is_one_leaf():
    X = np.array([[0, 1], [1, 1], [1, 0]])
    clf = MinimumPureTreeClassifier(binarizer=None).fit(X, ["only"] * 3)
    assert (clf.n_nodes_, clf.depth_, clf.status_) == (1, 0, "optimal")
    assert (clf.predict([[0, 0]]) == ["only"]).all()


def test_binary_input_must_be_zero_one():
    X = pd.DataFrame({"a": [0, 1, 1], "b": [0, 0.5, 1]})
    with pytest.raises(ValueError, match=r"binarizer=None expects 0/1 data.*'b'.*0\.5 at row 1"):
        MinimumPureTreeClassifier(binarizer=None).fit(X, [0, 1, 1])


@pytest.mark.parametrize("params, match", [
    ({"solver": "nope"}, "'solver' parameter"),
    ({"on_conflict": "ignore"}, "'on_conflict' parameter"),
    ({"time_limit": -1}, "'time_limit' parameter"),  # 0 now means no limit
    ({"sat_solver": "nope"}, "'sat_solver' parameter"),
    ({"binarizer": "bits"}, "'binarizer' parameter"),
])
def test_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        MinimumPureTreeClassifier(**params).fit([[0, 1], [1, 0]], [0, 1])


def test_str_shows_tree_and_status():
    X, y, _, _ = _split("corral")
    clf = MinimumPureTreeClassifier().fit(X, y)
    text = str(clf)
    assert text.startswith("MinimumPureTreeClassifier: 13 nodes")
    assert "status optimal" in text and "|--- B0 == 1" in text
    assert str(MinimumPureTreeClassifier()) == "MinimumPureTreeClassifier()"


def test_a_three_argument_callback_sees_the_proven_lower_bound():
    X, y, _, _ = _split("monks-3")
    seen = []
    clf = MinimumPureTreeClassifier(callback=lambda tree, s, lower: seen.append(
        (tree.n_nodes, lower))).fit(X, y)
    bounds = [lower for _, lower in seen if lower is not None]
    assert bounds and bounds == sorted(bounds) and bounds[-1] == clf.n_nodes_
    assert all(lower is None or lower <= size for size, lower in seen)
    two = []
    MinimumPureTreeClassifier(callback=lambda tree, s: two.append(tree)).fit(X, y)
    assert two[-1].n_nodes == clf.n_nodes_  # two-argument callbacks keep working

