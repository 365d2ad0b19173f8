"""sample_weight and class_weight in every estimator: brute force on tiny weighted data, and
the properties that define weights (integer weights = repeated rows, weight 0 = dropped row,
class_weight = the explicit weights scikit-learn computes)."""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import cache

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.class_weight import compute_sample_weight

from occamlearn import DecisionListClassifier, MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.binarize import resolve_conflicts
from occamlearn.trees.weights import integer_weights

ESTIMATORS = {
    "dtmax": lambda **kw: MaxAccuracyTreeClassifier(max_depth=2, **kw),
    "mpdt": lambda **kw: MinimumPureTreeClassifier(**kw),
    "mpdt_budget": lambda **kw: MinimumPureTreeClassifier(max_errors=2, **kw),
    # the rates' shrinkage is chosen on folds of rows, and a row of weight 3 stays in one fold
    # where three copies of it may not: weights equal repeated rows in everything else
    "dlist": lambda **kw: DecisionListClassifier(shrinkage_folds=None, **kw),
}


# -- independent brute force over weighted errors (exact with Fractions) -------------------
def _masks(X, y, n_classes):
    n_rows, n_features = X.shape
    columns = [sum(1 << q for q in range(n_rows) if X[q, j]) for j in range(n_features)]
    per_class = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in range(n_classes)]
    return columns, per_class


def _leaf_error(rows, weight, per_class):
    total = sum(weight[q] for q in range(len(weight)) if rows >> q & 1)
    best = max(sum(weight[q] for q in range(len(weight)) if (rows & mask) >> q & 1)
               for mask in per_class)
    return total - best


def fewest_weighted_errors(X, y, weight, n_classes, depth):
    """Least total weight of misclassified rows over every tree of depth <= ``depth``."""
    columns, per_class = _masks(X, y, n_classes)

    @cache
    def best(rows, budget):
        result = _leaf_error(rows, weight, per_class)
        if budget:
            for col in columns:
                ones, zeros = rows & col, rows & ~col
                if ones and zeros:
                    result = min(result, best(zeros, budget - 1) + best(ones, budget - 1))
        return result

    return best((1 << len(y)) - 1, depth)


def smallest_size_within(X, y, weight, n_classes, budget):
    """Fewest nodes of a tree whose misclassified rows weigh at most ``budget``."""
    columns, per_class = _masks(X, y, n_classes)

    @cache
    def errors(rows, size):  # least weighted errors with at most ``size`` nodes
        result = _leaf_error(rows, weight, per_class)
        for col in columns:
            ones, zeros = rows & col, rows & ~col
            if ones and zeros:
                for left in range(1, size - 1, 2):
                    result = min(result, errors(zeros, left) + errors(ones, size - 1 - left))
        return result

    for size in range(1, 2 * len(y) + 2, 2):
        if errors((1 << len(y)) - 1, size) <= budget:
            return size
    raise AssertionError("a tree with one leaf per row makes only forced errors")


def tiny(rng, max_rows=9, max_features=4):
    n = int(rng.integers(2, max_rows + 1))
    X = rng.integers(0, 2, (n, int(rng.integers(1, max_features + 1))))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return X, y


@pytest.mark.parametrize("method", ["auto", "maxsat"])
@pytest.mark.parametrize("seed", range(3))
def test_dtmax_weighted_errors_match_brute_force(method, seed):
    rng = np.random.default_rng(seed)
    for _ in range(12):
        X, y = tiny(rng)
        halves = rng.integers(0, 7, len(y))
        halves[rng.integers(len(y))] += 1                     # never all zero
        weight = [Fraction(int(h), 2) for h in halves]        # multiples of 1/2, zeros too
        depth = int(rng.integers(1, 3))
        model = MaxAccuracyTreeClassifier(max_depth=depth, binarizer=None, method=method)
        model.fit(X, y, sample_weight=[float(w) for w in weight])
        expected = fewest_weighted_errors(X, y, weight, 2, depth)
        wrong = model.predict(X) != y
        assert model.training_errors_ == pytest.approx(float(expected))
        assert sum(w for w, bad in zip(weight, wrong, strict=True) if bad) == expected
        assert model.status_ == "optimal" and model.depth_ <= depth


@pytest.mark.parametrize("method", ["bnb", "maxsat"])
@pytest.mark.parametrize("seed", range(3))
def test_error_budget_in_weight_units_matches_brute_force(method, seed):
    rng = np.random.default_rng(10 + seed)
    for _ in range(8):
        X, y = tiny(rng, max_rows=8, max_features=3)
        weight = rng.integers(1, 4, len(y))
        budget = int(rng.integers(0, 4))
        forced = fewest_weighted_errors(X, y, weight.tolist(), 2, len(y))
        model = MinimumPureTreeClassifier(binarizer=None, method=method, max_errors=budget)
        if forced > budget:
            with pytest.raises(ValueError, match="max_errors"):
                model.fit(X, y, sample_weight=weight)
            continue
        model.fit(X, y, sample_weight=weight)
        assert model.n_nodes_ == smallest_size_within(X, y, weight.tolist(), 2, budget)
        assert model.training_errors_ == weight[model.predict(X) != y].sum() <= budget


def weighted_log_likelihood(p, y, weight):
    p = np.clip(p, 1e-300, 1)
    q = np.clip(1 - p, 1e-300, 1)
    return float(np.sum(weight * np.where(y == 1, np.log(p), np.log(q))))


@pytest.mark.parametrize("seed", range(4))
def test_decision_list_likelihood_is_the_weighted_one_and_first_rule_is_best(seed):
    rng = np.random.default_rng(20 + seed)
    X = rng.integers(0, 2, (40, 5))
    y = (X[:, 0] & X[:, 1] | (rng.random(40) < 0.25)).astype(int)
    weight = rng.random(40) * 3
    model = DecisionListClassifier(binarizer=None, direction=None, max_rules=1,
                                   max_conjunction=1, penalty=None, shrinkage_folds=None)
    model.fit(X, y, sample_weight=weight)
    p = model.predict_proba(X)[:, 1]
    assert model.log_likelihood_ == pytest.approx(weighted_log_likelihood(p, y, weight))

    def ll_with_rule(j):  # the one-rule list "IF x_j THEN weighted frequency ELSE ..."
        covered = X[:, j] == 1
        probs = np.empty(40)
        for part in (covered, ~covered):
            probs[part] = weight[part] @ y[part] / weight[part].sum()
        return weighted_log_likelihood(probs, y, weight)

    usable = [j for j in range(5) if 0 < X[:, j].sum() < 40]
    assert model.log_likelihood_ == pytest.approx(max(ll_with_rule(j) for j in usable))


# -- properties -----------------------------------------------------------------------------
@st.composite
def weighted_table(draw):
    n = draw(st.integers(4, 12))
    cells = draw(st.lists(st.integers(0, 3), min_size=3 * n, max_size=3 * n))
    X = pd.DataFrame(np.array(cells).reshape(n, 3), columns=["a", "b", "c"])
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]
    weight = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    weight[:2] = np.maximum(weight[:2], 1)
    return X, y, weight


def _same_model(a, b):
    if hasattr(a, "tree_"):
        for name in ("feature", "left", "right", "label"):
            assert np.array_equal(getattr(a.tree_, name), getattr(b.tree_, name)), name
        assert a.training_errors_ == b.training_errors_
    else:
        assert [r.features for r in a.rules_] == [r.features for r in b.rules_]
        assert [r.probability for r in a.rules_] == pytest.approx(
            [r.probability for r in b.rules_])
        assert a.log_likelihood_ == pytest.approx(b.log_likelihood_)


@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=15, deadline=None)
@given(data=weighted_table())
def test_integer_weights_equal_repeated_rows(name, data):
    X, y, weight = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            weighted = ESTIMATORS[name]().fit(X, y, sample_weight=weight)
        except ValueError as error:              # a budget below the forced errors
            assert "max_errors" in str(error)
            return
        repeated = ESTIMATORS[name]().fit(X.loc[X.index.repeat(weight)],
                                          np.repeat(y, weight))
    if name in ("dlist", "dtmax"):
        _same_model(weighted, repeated)
    else:  # a minimum tree: the same size and errors (ties may pick another minimum)
        assert weighted.n_nodes_ == repeated.n_nodes_
        assert weighted.training_errors_ == repeated.training_errors_


@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=15, deadline=None)
@given(data=weighted_table())
def test_zero_weights_equal_dropped_rows(name, data):
    X, y, weight = data
    weight = (weight > 0).astype(float) * 1.5            # some rows 0, the others equal
    kept = weight > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            weighted = ESTIMATORS[name]().fit(X, y, sample_weight=weight)
        except ValueError as error:
            assert "max_errors" in str(error)
            return
        dropped = ESTIMATORS[name]().fit(X[kept], y[kept], sample_weight=weight[kept])
    _same_model(weighted, dropped)
    assert np.array_equal(weighted.predict(X), dropped.predict(X))


@pytest.mark.parametrize("name", ["dtmax", "dlist"])
@pytest.mark.parametrize("class_weight", ["balanced", {0: 1, 1: 4}])
def test_class_weight_equals_the_explicit_weights(name, class_weight):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, (60, 3))
    y = ((X[:, 0] + rng.integers(0, 3, 60)) > 4).astype(int)
    sample = rng.integers(1, 3, 60)
    by_class = ESTIMATORS[name](class_weight=class_weight).fit(X, y, sample_weight=sample)
    explicit = ESTIMATORS[name]().fit(
        X, y, sample_weight=sample * compute_sample_weight(class_weight, y))
    _same_model(by_class, explicit)


def test_majority_filter_keeps_the_heavier_label():
    X = np.zeros((5, 1), dtype=int)
    y = np.array([0, 0, 0, 1, 1])
    _, kept = resolve_conflicts(X, y, sample_weight=[1, 1, 1, 2, 2])
    assert kept.tolist() == [1, 1]
    _, kept = resolve_conflicts(X, y, sample_weight=[1, 1, 2, 2, 2])   # 4 vs 4: smaller label
    assert kept.tolist() == [0, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MinimumPureTreeClassifier(binarizer=None).fit(X, y, sample_weight=[1, 1, 1, 2, 2])
    assert model.n_nodes_ == 1 and model.predict(X[:1])[0] == 1
    assert model.training_errors_ == 3.0 and model.conflict_rows_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize(("weight", "message"), [
    ([1, 1, -1, 1, 1, 1], "Negative values"),
    ([1, 1, np.nan, 1, 1, 1], "NaN"),
    ([1, 1, 1], "sample_weight.shape"),
    ([0, 0, 0, 0, 0, 0], "non-zero"),
])
def test_bad_weights_are_a_clear_value_error(name, weight, message):
    X = np.array([[0], [1], [0], [1], [0], [1]])
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        ESTIMATORS[name]().fit(X, y, sample_weight=weight)


def test_weights_an_exact_search_cannot_scale_name_the_fix():
    X = np.array([[0], [1], [0], [1]])
    y = np.array([0, 1, 1, 1])
    weight = [0.1234567891, 1, 1, 1]
    with pytest.raises(ValueError, match="Round the weights"):
        MaxAccuracyTreeClassifier().fit(X, y, sample_weight=weight)
    with pytest.raises(ValueError, match="Round the weights"):
        MinimumPureTreeClassifier(max_errors=1).fit(X, y, sample_weight=weight)
    DecisionListClassifier().fit(X, y, sample_weight=weight)       # no exact search: fine
    scaled, scale = integer_weights([0.5, 2, 1 / 3], 3)
    assert scale == 6 and scaled.tolist() == [3, 12, 2]


def test_score_takes_sample_weight():
    X = np.array([[0], [1], [0], [1]])
    y = np.array([0, 1, 1, 1])
    model = MaxAccuracyTreeClassifier(binarizer=None).fit(X, y)   # one leaf: class 1
    assert model.score(X, y, sample_weight=[3, 1, 1, 1]) == pytest.approx(3 / 6)
    model = MaxAccuracyTreeClassifier(binarizer=None).fit(X, y, sample_weight=[3, 1, 1, 1])
    assert model.predict(X).tolist() == [0, 1, 0, 1]                # x=0 -> 0 (3 vs 1)
    assert model.score(X, y, sample_weight=[3, 1, 1, 1]) == pytest.approx(5 / 6)


def _imbalanced(seed=0, n=600):
    """About 7 % positives; in the region x0 > 0.5, x1 > 0 they are a minority still (35 %)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    region = (X[:, 0] > 0.5) & (X[:, 1] > 0)
    y = (rng.random(n) < np.where(region, 0.35, 0.03)).astype(int)
    return X, y


def test_grid_search_passes_sample_weight():
    X, y = _imbalanced()
    weight = compute_sample_weight("balanced", y)
    search = GridSearchCV(MaxAccuracyTreeClassifier(), {"max_depth": [1, 2]}, cv=3,
                          scoring="balanced_accuracy").fit(X, y, sample_weight=weight)
    direct = MaxAccuracyTreeClassifier(max_depth=search.best_params_["max_depth"]).fit(
        X, y, sample_weight=weight)
    assert search.best_estimator_.training_errors_ == pytest.approx(direct.training_errors_)
    pipe = Pipeline([("tree", MaxAccuracyTreeClassifier(max_depth=1))])
    pipe.fit(X, y, tree__sample_weight=weight)
    assert pipe[-1].training_errors_ == pytest.approx(
        MaxAccuracyTreeClassifier(max_depth=1).fit(X, y, sample_weight=weight).training_errors_)


def test_metadata_routing_requests_sample_weight():
    X, y = _imbalanced()
    weight = compute_sample_weight("balanced", y)
    with sklearn.config_context(enable_metadata_routing=True):
        tree = (MaxAccuracyTreeClassifier().set_fit_request(sample_weight=True)
                .set_score_request(sample_weight=True))
        search = GridSearchCV(tree, {"max_depth": [1, 2]}, cv=3).fit(X, y, sample_weight=weight)
    direct = MaxAccuracyTreeClassifier(max_depth=search.best_params_["max_depth"])
    assert search.best_estimator_.training_errors_ == pytest.approx(
        direct.fit(X, y, sample_weight=weight).training_errors_)


def test_balanced_class_weight_beats_the_majority_rate_in_grid_search():
    """The issue's case: 7 % positives. Unweighted, grid search picks a depth-1 tree at the
    majority rate (balanced accuracy 0.5); with class_weight="balanced" it finds a tree
    whose balanced accuracy is far above it, in cross-validation and on the training data."""
    X, y = _imbalanced()
    assert 0.05 < y.mean() < 0.09
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    grid = {"max_depth": [1, 2, 3]}
    plain = GridSearchCV(MaxAccuracyTreeClassifier(), grid, cv=cv).fit(X, y)
    # near the majority rate (every threshold searched, a depth-1 tree may peel off a few)
    assert balanced_accuracy_score(y, plain.best_estimator_.predict(X)) < 0.55
    balanced = GridSearchCV(MaxAccuracyTreeClassifier(class_weight="balanced"), grid, cv=cv,
                            scoring="balanced_accuracy").fit(X, y)
    assert balanced.best_score_ > 0.75
    assert balanced_accuracy_score(y, balanced.best_estimator_.predict(X)) > 0.75
    lists = DecisionListClassifier(class_weight="balanced", max_rules=3).fit(X, y)
    assert balanced_accuracy_score(y, lists.predict(X)) > 0.75


@pytest.mark.parametrize("name", ["dtmax", "dlist"])
def test_weighted_probabilities_agree_with_predict(name):
    X, y = _imbalanced()
    model = ESTIMATORS[name](class_weight="balanced").fit(X, y)
    proba = model.predict_proba(X)
    assert (model.predict(X) == 1).any()
    agree = (proba[:, 1] > 0.5) == (model.predict(X) == 1)
    assert agree[np.abs(proba[:, 1] - 0.5) > 1e-9].all()


def test_identical_rows_keep_the_majority_leaf_weighted_or_not():
    """Ten identical rows labelled 0, 1, 0, 1, ...: the majority filter keeps one label and
    the minimum tree is one leaf (the binarised matrix has no column left)."""
    X, y = np.ones((10, 2)), np.array([0, 1] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = MinimumPureTreeClassifier().fit(X, y)
        weighted = MinimumPureTreeClassifier().fit(X, y, sample_weight=[1, 2] * 5)
    assert plain.n_nodes_ == weighted.n_nodes_ == 1
    assert plain.predict(X[:1])[0] == 0 and plain.training_errors_ == 5   # tie: smaller label
    assert weighted.predict(X[:1])[0] == 1 and weighted.training_errors_ == 5.0


@pytest.mark.parametrize("seed", range(3))
def test_dtmax_prefer_small_with_weights_agrees_between_methods(seed):
    rng = np.random.default_rng(40 + seed)
    X, y = tiny(rng, max_rows=10)
    weight = compute_sample_weight("balanced", y) * rng.integers(1, 3, len(y))
    fits = [MaxAccuracyTreeClassifier(max_depth=2, binarizer=None, method=method,
                                      prefer_small=True).fit(X, y, sample_weight=weight)
            for method in ("auto", "maxsat")]
    assert fits[0].training_errors_ == pytest.approx(fits[1].training_errors_)
    assert fits[0].n_nodes_ == fits[1].n_nodes_
    assert fits[0].status_ == fits[1].status_ == "optimal"


def test_huge_weights_stay_exact():
    rng = np.random.default_rng(50)
    X, y = tiny(rng, max_rows=8)
    weight = rng.integers(1, 4, len(y)) * 3_000_001            # sums beyond 2**24
    expected = fewest_weighted_errors(X, y, weight.tolist(), 2, 2)
    model = MaxAccuracyTreeClassifier(max_depth=2, binarizer=None).fit(X, y, sample_weight=weight)
    assert model.training_errors_ == expected and model.status_ == "optimal"


def test_prefer_small_with_huge_weights_leaves_the_maxsat_size_unproven_instead_of_exploding():
    rng = np.random.default_rng(52)                 # its best trees make errors
    X, y = tiny(rng, max_rows=8)
    weight = rng.integers(1, 4, len(y)) * 3_000_001
    model = MaxAccuracyTreeClassifier(max_depth=2, binarizer=None, prefer_small=True,
                                      method="maxsat")
    model.fit(X, y, sample_weight=weight)
    assert model.training_errors_ == fewest_weighted_errors(X, y, weight.tolist(), 2, 2) > 0
    assert model.status_ == "feasible" and model.solve_stats_["unproven"] == "size"
    assert model.solve_stats_["size_solver_status"].startswith("skipped")
    searched = MaxAccuracyTreeClassifier(max_depth=2, binarizer=None).fit(
        X, y, sample_weight=weight)
    assert searched.status_ == "optimal"
    assert searched.training_errors_ == model.training_errors_
