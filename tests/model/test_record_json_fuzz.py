"""Hand-edited model files: any one edit either loads as a working model or is a ValueError.

A model file is JSON a person may edit. Whatever a single edit does (a number changed, a key
deleted, a value of another type), ``model_from_dict`` must raise ``ValueError`` (naming the
field) or return a model that predicts like a valid one -- never another exception, never a
hang (a child index pointing back up used to loop ``predict`` forever). The trees are small,
so a valid edit predicts at once; ``signal.alarm`` turns a hang into a failure.
"""

from __future__ import annotations

import copy
import json
import signal
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn import DecisionListClassifier, MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.estimators.model_files import model_from_dict, model_to_dict


def _data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 40), "b": rng.integers(0, 4, 40),
                      "c": rng.normal(size=40).round(3), "d": rng.choice(["x", "y", "z"], 40)})
    y = np.where((X.a == 1) ^ (X.b > 1), "yes", "no")
    return X, y


X, Y = _data()
MODELS = {
    "mpdt": model_to_dict(MinimumPureTreeClassifier().fit(X, Y)),
    "mpdt-alg3": model_to_dict(MinimumPureTreeClassifier(
        n_solutions=3, selection_size=0.25, random_state=0).fit(X, Y)),
    "dtmax": model_to_dict(MaxAccuracyTreeClassifier(max_depth=2).fit(X, Y)),
    "dlist": model_to_dict(DecisionListClassifier(max_rules=4).fit(X, Y)),
}
for _name, _file in MODELS.items():
    MODELS[_name] = json.loads(json.dumps(_file))  # what a file holds: JSON types only


def _paths(value, prefix=()):
    """Every (path) to a value inside the JSON document, containers included."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


REPLACEMENTS = st.one_of(
    st.integers(-3, 12), st.sampled_from([10**20, -(10**20), 0.5, -1.0, 1e308]),
    st.sampled_from([None, True, False, "", "nonsense", "optimal", "feasible", [], {}, [0],
                     [[0]], {"dtype": "<i8", "values": []}, float("nan"), float("inf")]),
    st.text(max_size=4),
)


@st.composite
def edits(draw):
    name = draw(st.sampled_from(sorted(MODELS)))
    data = copy.deepcopy(MODELS[name])
    paths = [p for p in _paths(data) if p]
    path = draw(st.sampled_from(paths))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = draw(st.sampled_from(["replace", "replace", "delete", "swap", "bump"]))
    if action == "delete":
        del parent[key]
    elif action == "swap":  # the value of another field, of another type most likely
        other = draw(st.sampled_from(paths))
        value = data
        for k in other:
            value = value[k] if (isinstance(value, dict) and k in value) or (
                isinstance(value, list) and isinstance(k, int) and k < len(value)) else None
        parent[key] = copy.deepcopy(value)
    elif action == "bump" and isinstance(parent[key], (int, float)) and not isinstance(
            parent[key], bool):
        parent[key] = parent[key] + draw(st.sampled_from([-2, -1, 1, 2]))
    else:
        parent[key] = draw(REPLACEMENTS)
    return Edit(name, path, action, data)


class Edit(tuple):
    """(model name, path, action, edited document), shown briefly in failure reports."""

    def __new__(cls, name, path, action, data):
        return super().__new__(cls, (name, path, action, data))

    def __repr__(self) -> str:
        name, path, action, data = self
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        now = parent.get(path[-1], "<deleted>") if isinstance(parent, dict) else (
            parent[path[-1]] if path[-1] < len(parent) else "<deleted>")
        return f"Edit({name}: {action} {'.'.join(map(str, path))} -> {str(now)[:80]})"


@contextmanager
def deadline(seconds: int):
    def fail(*_):
        raise TimeoutError(f"no answer in {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _check_predicts(model) -> None:
    try:
        predictions = model.predict(X)
    except ValueError:  # it refuses this data, as a fitted model may: a named error
        return
    assert len(predictions) == len(X)
    assert set(predictions.tolist()) <= set(model.classes_.tolist())
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), len(model.classes_))
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert isinstance(model.export_text(), str)


@settings(max_examples=600, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(edits())
def test_an_edited_model_file_loads_or_raises_value_error(edit):
    name, path, action, data = edit
    with deadline(10):
        try:
            model = model_from_dict(data)
        except ValueError as exc:
            assert str(exc), (name, path, action)
            return
        if name == "dlist" and not hasattr(model, "predict_proba"):
            return
        if hasattr(model, "list_") or hasattr(model, "tree_"):
            _check_predicts(model)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_unedited_files_load_and_predict_as_saved(name):
    model = model_from_dict(copy.deepcopy(MODELS[name]))
    predictions = model.predict(X)
    assert set(predictions.tolist()) <= {"yes", "no"}
