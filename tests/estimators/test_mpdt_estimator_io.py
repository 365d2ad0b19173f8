"""A fitted MinimumPureTreeClassifier survives JSON (no pickle) and pickle unchanged."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.estimators.model_files import load_model, model_from_dict, model_to_dict, save_model


@pytest.fixture(scope="module")
def iris_split():
    X, y = load_dataset("iris")
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    return train_test_split(X, names[y.to_numpy()], train_size=0.5, stratify=y, random_state=0)


def _assert_same_model(a, b, X):
    assert (a.predict(X) == b.predict(X)).all()
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert np.array_equal(a.apply(X), b.apply(X))
    assert a.tree_ == b.tree_
    assert a.classes_.dtype == b.classes_.dtype and list(a.classes_) == list(b.classes_)
    assert (a.status_, a.lower_bound_, a.upper_bound_) == (b.status_, b.lower_bound_,
                                                           b.upper_bound_)
    assert list(a.feature_names_) == list(b.feature_names_)
    assert a.export_text() == b.export_text()


def test_json_round_trip_dataframe(iris_split, tmp_path):
    X_train, X_test, y_train, _ = iris_split
    clf = MinimumPureTreeClassifier(on_conflict="majority").fit(X_train, y_train)
    save_model(clf, tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    _assert_same_model(clf, loaded, X_test)
    _assert_same_model(clf, loaded, X_train)
    assert list(loaded.feature_names_in_) == list(X_train.columns)
    assert loaded.get_params()["binarizer"] == clf.get_params()["binarizer"]
    # a second save writes the same file: the format is a fixed point
    assert model_to_dict(loaded) == json.loads((tmp_path / "model.json").read_text())
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(X_test.rename(columns={"sepal-length": "other"}))


def test_json_round_trip_integer_classes_and_binary_input():
    X = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0]])
    y = np.array([3, 7, 7, 3, 3])
    clf = MinimumPureTreeClassifier(binarizer=None).fit(X, y)
    loaded = model_from_dict(json.loads(json.dumps(model_to_dict(clf))))
    _assert_same_model(clf, loaded, X)
    assert loaded.binarizer_ is None and loaded.binarizer is None
    assert loaded.classes_.dtype == np.int64
    with pytest.raises(ValueError, match="expects 0/1 data"):
        loaded.predict(X + 1)


def test_pickle_round_trip(iris_split):
    X_train, X_test, y_train, _ = iris_split
    clf = MinimumPureTreeClassifier(on_conflict="majority").fit(X_train, y_train)
    _assert_same_model(clf, pickle.loads(pickle.dumps(clf)), X_test)


def test_bad_model_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{")
    with pytest.raises(ValueError, match="is not JSON"):
        load_model(path)
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not an occamlearn model file"):
        load_model(path)
    with pytest.raises(FileNotFoundError, match="no such model file"):
        load_model(tmp_path / "missing.json")


def test_saving_unfitted_model_fails():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        model_to_dict(MinimumPureTreeClassifier())


def test_loaded_model_refits_with_its_parameters(iris_split):
    X_train, _, y_train, _ = iris_split
    clf = MinimumPureTreeClassifier(on_conflict="majority", solver="rc2", time_limit=60,
                                    verbose=0).fit(X_train, y_train)
    loaded = model_from_dict(model_to_dict(clf))
    params = clf.get_params()
    assert loaded.get_params() == params
    refit = loaded.fit(pd.DataFrame(X_train), y_train)
    assert refit.get_params()["solver"] == "rc2"
    assert refit.n_nodes_ == clf.n_nodes_
