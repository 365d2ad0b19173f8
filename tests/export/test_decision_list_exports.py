"""Exports of decision lists: text, DOT, JSON round trip, likelihood plot."""

import json

import numpy as np
import pytest

from occamlearn import DecisionListClassifier, load_dataset
from occamlearn.estimators.model_files import load_model as load_list
from occamlearn.estimators.model_files import model_from_dict as list_from_dict
from occamlearn.estimators.model_files import model_to_dict, save_model
from occamlearn.export.decision_list import (
    export_graphviz,
    export_text,
    plot_log_likelihood,
)
from occamlearn.model.decision_list import DecisionList, Rule


@pytest.fixture(scope="module")
def titanic_model():
    X, y = load_dataset("titanic")
    return DecisionListClassifier(direction="negative", max_conjunction=2, max_rules=3,
                                  binarizer="onehot").fit(X, y), X, y


def test_text_of_a_fitted_estimator(titanic_model):
    model, _, _ = titanic_model
    text = export_text(model, summary=True)
    lines = text.splitlines()
    assert lines[0].startswith("# p = P(1); direction negative; 3 rules; log-likelihood -")
    assert lines[1].startswith("IF ") and lines[-1].startswith("ELSE p=")
    assert len(lines) == 5 and model.export_text() == "\n".join(lines[1:])


def test_classification_text_is_a_disjunction():
    dl = DecisionList((Rule((0,), 1.0, 4, 4), Rule((1,), 0.8, 5, 4)), 0.1, 2, 10, 1,
                      ("a", "b"), "classification", 1)
    assert export_text(dl) == "PREDICT 1 IF ANY OF\n  a (n=4)\n  b (n=5)\nELSE 0"


def test_graphviz_is_a_chain():
    dl = DecisionList((Rule((0,), 1.0, 4, 4), Rule((1,), 0.8, 5, 4)), 0.1, 2, 10, 1,
                      ("a", 'b "quoted"'))
    dot = export_graphviz(dl)
    assert 'rule0 -> rule1 [label="no"]' in dot and 'rule1 -> default [label="no"]' in dot
    assert 'label="b \\"quoted\\""' in dot and 'label="p=0.10\\nn=10"' in dot


def test_json_round_trip_predicts_the_same(titanic_model, tmp_path):
    model, X, _ = titanic_model
    path = tmp_path / "list.json"
    save_model(model, path)
    loaded = load_list(path)
    assert loaded.list_ == model.list_
    assert loaded.predict(X).tolist() == model.predict(X).tolist()
    assert loaded.reasons(X.iloc[:5]) == model.reasons(X.iloc[:5])
    assert loaded.direction_ == "negative" and loaded.get_params() == model.get_params()
    bare = list_from_dict(json.loads(json.dumps(model_to_dict(model.list_))))
    assert bare == model.list_


def test_loading_garbage_is_a_value_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "something"}')
    with pytest.raises(ValueError, match="not an occamlearn model file"):
        load_list(path)


def test_plot_log_likelihood(titanic_model):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    model, _, _ = titanic_model
    ax = plot_log_likelihood([model], labels=["died"])
    xs, ys = ax.lines[0].get_data()
    assert list(xs) == [0, 1, 2, 3] and np.allclose(ys, model.log_likelihoods_)
