"""JSON model files of DT(max) (``MaxAccuracyTreeClassifier``) and of trees with an error
budget: save, load, predict the same, ``occamlearn show``."""

import json

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.cli import main
from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier
from occamlearn.estimators.model_files import load_model, model_from_dict, model_to_dict, save_model
from occamlearn.estimators.model_files import load_model as load_any_model


@pytest.fixture(scope="module")
def iris_split():
    X, y = load_dataset("iris")
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    return train_test_split(X, names[y.to_numpy()], train_size=0.5, stratify=y, random_state=0)


@pytest.fixture(scope="module")
def dtmax(iris_split):
    X_train, _, y_train, _ = iris_split
    return MaxAccuracyTreeClassifier(max_depth=2, time_limit=60).fit(X_train, y_train)


def test_dtmax_json_round_trip_predicts_the_same(dtmax, iris_split, tmp_path):
    X_train, X_test, _, _ = iris_split
    assert dtmax.status_ == "optimal" and dtmax.training_errors_ > 0
    save_model(dtmax, tmp_path / "dtmax.json")
    data = json.loads((tmp_path / "dtmax.json").read_text())
    assert data["model"] == "MaxAccuracyTreeClassifier"
    assert (data["lower_bound"], data["upper_bound"]) == (None, None)
    assert data["training_errors"] == data["errors_lower_bound"] == dtmax.training_errors_
    for loaded in (load_model(tmp_path / "dtmax.json"), load_any_model(tmp_path / "dtmax.json")):
        assert type(loaded) is MaxAccuracyTreeClassifier
        for X in (X_train, X_test):
            assert (loaded.predict(X) == dtmax.predict(X)).all()
            assert np.array_equal(loaded.predict_proba(X), dtmax.predict_proba(X))
        assert loaded.tree_ == dtmax.tree_ and loaded.get_params() == dtmax.get_params()
        assert (loaded.status_, loaded.training_errors_, loaded.errors_lower_bound_) == (
            dtmax.status_, dtmax.training_errors_, dtmax.errors_lower_bound_)
        assert loaded.export_text() == dtmax.export_text()
        assert model_to_dict(loaded) == data  # saving again writes the same file


def test_show_prints_a_dtmax_model_with_its_training_errors(dtmax, tmp_path, capsys):
    save_model(dtmax, tmp_path / "dtmax.json")
    assert main(["show", str(tmp_path / "dtmax.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"MaxAccuracyTreeClassifier: {dtmax.n_nodes_} nodes (")
    assert f"depth {dtmax.depth_}, status optimal, {dtmax.training_errors_} training errors" \
        in out.splitlines()[0]
    assert out == f"{dtmax}\n"  # what print(dtmax) prints
    assert main(["show", str(tmp_path / "dtmax.json"), "--dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph")


def test_error_budget_tree_keeps_its_training_errors_through_json():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [1, 1]])
    y = np.array([0, 1, 1, 0, 0, 1])
    clf = MinimumPureTreeClassifier(binarizer=None, max_errors=2).fit(X, y)
    loaded = model_from_dict(json.loads(json.dumps(model_to_dict(clf))))
    assert (loaded.training_errors_, loaded.max_errors, loaded.n_nodes_) == (2, 2, 5)
    assert (loaded.predict(X) == clf.predict(X)).all()
    assert "5 nodes (2 decisions, 3 leaves), depth 2, status optimal" in loaded.export_text()
    assert "2 training errors" in loaded.export_text().splitlines()[0]


def test_only_tree_classifiers_are_saved():
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier().fit([[0], [1]], [0, 1])
    model.tree_ = None  # fitted, but not one of ours
    with pytest.raises(TypeError, match="cannot save a DecisionTreeClassifier"):
        model_to_dict(model)


def test_unknown_model_name_is_rejected():
    with pytest.raises(ValueError, match="unsupported model file: model 'Forest'"):
        model_from_dict({"format": "occamlearn-model", "version": 1, "model": "Forest"})
