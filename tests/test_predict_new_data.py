"""Predicting on held-out rows never raises: numbers are ordered, only unseen categories warn.

Every bundled dataset is split 64/36 (``train_test_split(random_state=0)``); the binarisers
and the estimators are fitted on the 64 % and applied to the rest.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    list_datasets,
    load_dataset,
)
from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer, ThresholdBinarizer

DATASETS = list_datasets()
# MPDT on a subset (each fit is capped at 1 s); the binarisers and DT(max) see every dataset
MPDT_DATASETS = ["back", "hepa", "iris", "irish", "lympho", "wine", "titanic", "hayes-r"]


def _split(name):
    X, y = load_dataset(name)
    return train_test_split(X, y, train_size=0.64, random_state=0)


def _binarizers():
    return [FeatureBinarizer(encoding=e) for e in ("binary", "onehot", "threshold")] + [
        ThresholdBinarizer(),
        QuantileBinarizer(),
    ]


def _quietly(call):
    """Run ``call`` allowing only the unseen-category UserWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    for warning in caught:
        assert issubclass(warning.category, UserWarning), warning
        assert "unseen in fit" in str(warning.message), warning
    return result


@pytest.mark.parametrize("name", DATASETS)
def test_binarizers_transform_held_out_rows(name):
    X_train, X_test, _, _ = _split(name)
    for binarizer in _binarizers():
        train = binarizer.fit_transform(X_train)
        test = _quietly(lambda b=binarizer: b.transform(X_test))
        assert test.shape == (len(X_test), train.shape[1])
        assert set(np.unique(test)) <= {0, 1}


@pytest.mark.parametrize("name", DATASETS)
def test_tree_and_list_estimators_predict_held_out_rows(name):
    X_train, X_test, y_train, _ = _split(name)
    models = [MaxAccuracyTreeClassifier(max_depth=2)]
    if name in MPDT_DATASETS:
        models.append(MinimumPureTreeClassifier(on_conflict="majority", time_limit=1))
    if pd.Series(y_train).nunique() == 2:
        models.append(DecisionListClassifier())
    for model in models:
        model.fit(X_train, y_train)
        predicted = _quietly(lambda m=model: m.predict(X_test))
        assert len(predicted) == len(X_test)
        assert set(predicted) <= set(model.classes_)


def test_unseen_integer_falls_where_its_order_puts_it():
    train = pd.DataFrame({"n": [1, 2, 3, 5]})
    test = pd.DataFrame({"n": [0, 4, 9]})
    for binarizer in _binarizers():
        fitted = binarizer.fit(train)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = fitted.transform(test)
        # an unseen value agrees with a seen neighbour on every threshold/interval it sits in
        lower, upper = fitted.transform(pd.DataFrame({"n": [1, 3, 5]})), out
        assert (upper[0] == lower[0]).all() or binarizer.__class__ is QuantileBinarizer
        assert (upper[2] == lower[2]).all()
    bits = FeatureBinarizer().fit(train)  # codes 0..3 of [1, 2), [2, 3), [3, 5), [5, inf)
    assert bits.transform(test).tolist() == [[0, 0], [1, 0], [1, 1]]


def test_unseen_category_warns_or_raises():
    train = pd.DataFrame({"colour": ["red", "blue", "green"], "n": [1, 2, 3]})
    test = pd.DataFrame({"colour": ["purple"], "n": [7]})
    for binarizer in (FeatureBinarizer(), FeatureBinarizer(encoding="onehot"),
                      ThresholdBinarizer()):
        fitted = binarizer.fit(train)
        with pytest.warns(UserWarning, match=r"column 'colour'.*'purple'"):
            out = fitted.transform(test)
        categorical = [k for k, c in enumerate(fitted.conditions_) if c.column == "colour"]
        assert not out[0, categorical].any()
        fitted.set_params(handle_unknown="error")
        with pytest.raises(ValueError, match=r"column 'colour' \(row 0\) has value 'purple'"):
            fitted.transform(test)


def test_estimator_predicts_with_unseen_category_and_constant_column():
    X = pd.DataFrame({"colour": ["red", "blue"] * 10, "n": list(range(20)), "k": [3] * 20})
    y = np.array([0, 1] * 10)
    model = MinimumPureTreeClassifier().fit(X, y)
    new = pd.DataFrame({"colour": ["purple", "red"], "n": [100, -5], "k": [4, 2]})
    with pytest.warns(UserWarning, match="'purple'"):
        assert len(model.predict(new)) == 2


def test_huge_values_do_not_overflow():
    X = pd.DataFrame({"x": [-1e308, 0.0, 1e308, 1.7e308], "i": [1, 2, 3, 4]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = ThresholdBinarizer().fit(X)
        assert fitted.transform(X).sum(axis=0).tolist() == [3, 2, 1, 3, 2, 1]
        assert fitted.get_feature_names_out()[:3].tolist() == [
            "x >= 0", "x >= 1e+308", "x >= 1.4e+308"]
        with pytest.raises(ValueError, match="column 'x' spans"):
            FeatureBinarizer().fit(X)


def test_many_distinct_integers_are_capped():
    X = pd.DataFrame({"n": np.arange(10**6)})  # counts the rows: kept only on purpose
    fitted = ThresholdBinarizer(drop_identifiers=False).fit(X)
    assert len(fitted.conditions_) == 32
    assert len(ThresholdBinarizer(max_thresholds=5, drop_identifiers=False).fit(X)
               .conditions_) == 5
    every = ThresholdBinarizer(max_thresholds=None, drop_identifiers=False).fit(X[:1000])
    assert len(every.conditions_) == 999          # None: every gap between distinct values
    assert [c.value for c in every.conditions_] == list(range(1, 1000))
