"""The fitted record (``model.fitted.FittedModel``): every estimator saves and loads through it,
each tree is stored once, and version-1 files written before it still load and predict as
they did (golden files in tests/data/model_files_v1, made by the version-1 writer)."""

from __future__ import annotations

import ast
import json
import pickle
import warnings
from dataclasses import FrozenInstanceError
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import occamlearn
from occamlearn import (
    DecisionListClassifier,
    FittedModel,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    load_model,
    save_model,
)
from occamlearn.export import export_text
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.record_json import record_from_dict

GOLDEN = Path(__file__).parents[1] / "data" / "model_files_v1"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


def _golden_data():
    data = pd.read_csv(GOLDEN / "data.csv")
    y = data.pop("label").to_numpy()
    return data, y


def _input_of(name, X):
    if name == "mpdt_binary_input":  # as tests/data/model_files_v1/make_v1_files.py made it
        return (X[["age"]] > 40).astype(int).assign(v=(X.city == "Vic").astype(int)).to_numpy()
    return X


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_version_1_files_load_and_predict_as_they_did(name, tmp_path):
    X, _ = _golden_data()
    X_in = _input_of(name, X)
    assert json.loads((GOLDEN / f"{name}.json").read_text())["version"] == 1
    model = load_model(GOLDEN / f"{name}.json")
    expected = EXPECTED[name]
    assert model.predict(X_in).tolist() == expected["predict"]
    assert np.array_equal(model.predict_proba(X_in), np.asarray(expected["predict_proba"]))
    assert str(model) == expected["text"].rstrip("\n")  # print(model) no longer adds a blank line
    # saved again, it is a version-2 file that loads to the same predictions
    save_model(model, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["version"] == 2
    again = load_model(tmp_path / "again.json")
    assert again.predict(X_in).tolist() == expected["predict"]
    assert np.array_equal(again.predict_proba(X_in), model.predict_proba(X_in))


def test_a_version_1_bare_list_loads():
    decision_list = load_model(GOLDEN / "bare_list.json")
    assert isinstance(decision_list, DecisionList) and len(decision_list) == 2
    assert decision_list == load_model(GOLDEN / "dlist.json").list_


def test_version_1_algorithm_3_file_keeps_its_candidates_once():
    old = json.loads((GOLDEN / "mpdt_alg3.json").read_text())
    model = load_model(GOLDEN / "mpdt_alg3.json")
    assert [acc for _, acc in model.candidate_trees_] == [acc for _, acc in
                                                          old["candidate_trees"]]
    assert any(tree is model.tree_ for tree, _ in model.candidate_trees_)
    assert all(any(b is t for t, _ in model.candidate_trees_) for b in model.best_trees_)
    selection = model.to_record().to_dict()["selection"]
    assert [tree is None for tree, _ in selection["candidates"]].count(True) == 1


def _fit_all():
    X, y = _golden_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, {
            "mpdt": MinimumPureTreeClassifier(time_limit=60).fit(X, y),
            "mpdt_alg3": MinimumPureTreeClassifier(n_solutions=3, selection_size=0.25,
                                                   random_state=0, time_limit=60).fit(X, y),
            "dtmax": MaxAccuracyTreeClassifier(max_depth=2).fit(X, y),
            "dlist": DecisionListClassifier(max_rules=4).fit(X, y),
        }


@pytest.fixture(scope="module")
def fitted():
    return _fit_all()


@pytest.mark.parametrize("name", ["mpdt", "mpdt_alg3", "dtmax", "dlist"])
def test_save_model_and_load_model_work_for_every_estimator(fitted, name, tmp_path):
    X, models = fitted
    model = models[name]
    save_model(model, tmp_path / "m.json")  # a DecisionListClassifier raised NotFittedError
    loaded = load_model(tmp_path / "m.json")
    assert type(loaded) is type(model)
    assert loaded.predict(X).tolist() == model.predict(X).tolist()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert str(loaded) == str(model) and loaded.get_params() == model.get_params()
    assert loaded.fitted_at_ == model.fitted_at_
    # the format is a fixed point: saving the loaded model writes the same file
    save_model(loaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "m.json").read_text()


def _tree_dicts(document) -> int:
    """How many tree objects (dicts with "feature" and "counts") the JSON holds."""
    if isinstance(document, dict):
        own = int({"feature", "counts"} <= set(document))
        return own + sum(_tree_dicts(v) for v in document.values())
    if isinstance(document, list):
        return sum(_tree_dicts(v) for v in document)
    return 0


def test_each_tree_is_stored_once(fitted, tmp_path):
    _, models = fitted
    plain = models["mpdt"].to_record().to_dict()
    assert _tree_dicts(plain) == 1 and "selection" not in plain
    alg3 = models["mpdt_alg3"]
    document = alg3.to_record().to_dict()
    assert _tree_dicts(document) == len(alg3.candidate_trees_)
    v1 = json.loads((GOLDEN / "mpdt.json").read_text())
    assert _tree_dicts(v1) == 3  # version 1: the tree, its candidate copy, its best copy


def test_the_record_is_plain_frozen_picklable_data(fitted, tmp_path):
    X, models = fitted
    for model in models.values():
        record = model.to_record()
        assert isinstance(record, FittedModel) and record.estimator == type(model).__name__
        assert record.provenance.package_version == occamlearn.__version__
        assert datetime.fromisoformat(record.provenance.fitted_at).tzinfo is not None
        with pytest.raises(FrozenInstanceError):
            record.status = "optimal"
        copy = pickle.loads(pickle.dumps(record))
        assert copy.to_dict() == record.to_dict()
        text = record.to_json(tmp_path / "r.json")
        assert FittedModel.from_json(text).to_dict() == record.to_dict()
        assert FittedModel.from_json(tmp_path / "r.json").to_dict() == record.to_dict()
        back = type(model).from_record(FittedModel.from_json(text))
        assert back.predict(X).tolist() == model.predict(X).tolist()


def test_from_record_refuses_another_estimators_record(fitted):
    _, models = fitted
    with pytest.raises(TypeError, match="fitted by DecisionListClassifier"):
        MinimumPureTreeClassifier.from_record(models["dlist"].to_record())


def test_exports_read_the_record_as_they_read_the_estimator(fitted):
    _, models = fitted
    for name in ("mpdt", "dtmax"):
        assert export_text(models[name].to_record()) == export_text(models[name])
    dlist = models["dlist"]
    assert export_text(dlist.to_record(), summary=True) == export_text(
        dlist, summary=True)


def test_unfitted_estimators_have_no_record():
    from sklearn.exceptions import NotFittedError

    for cls in (MinimumPureTreeClassifier, MaxAccuracyTreeClassifier, DecisionListClassifier):
        with pytest.raises(NotFittedError):
            cls().to_record()
        with pytest.raises(NotFittedError):
            save_model(cls(), "never-written.json")


def test_an_unknown_version_is_named():
    data = json.loads((GOLDEN / "mpdt.json").read_text())
    data["version"] = 7
    with pytest.raises(ValueError, match="version 7"):
        record_from_dict(data)


def test_export_never_reads_an_estimator_attribute():
    """No module of ``occamlearn.export`` reads a fitted attribute (``x.name_``) or a private
    one (``x._name``): exports read the record."""
    package = Path(occamlearn.__file__).parent / "export"
    wrong = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            name = node.attr if isinstance(node, ast.Attribute) else None
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                    "getattr", "hasattr") and isinstance(node.args[1], ast.Constant):
                name = node.args[1].value  # getattr(model, "tree_", None)
            if name and not name.startswith("__") and (name.endswith("_")
                                                       or name.startswith("_")):
                wrong.append(f"{path.name}:{node.lineno} .{name}")
    assert wrong == []


def test_a_loaded_list_checks_its_input_as_the_fitted_one(fitted, tmp_path):
    """Version-2 list files keep the column checks (version 1 inferred them from the
    conditions), so a loaded list refuses what the fitted one refuses."""
    X, models = fitted
    model = models["dlist"]
    save_model(model, tmp_path / "dl.json")
    assert json.loads((tmp_path / "dl.json").read_text())["columns"]
    loaded = load_model(tmp_path / "dl.json")
    bad = X.astype(object).assign(age=X.age.where(X.index != 4, "old"))
    messages = []
    for candidate in (model, loaded):
        with pytest.raises(ValueError) as caught:
            candidate.predict(bad)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "'age'" in messages[0]
