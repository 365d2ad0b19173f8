"""Saved = fitted: for every estimator and option, a model read back from its file predicts
the same probabilities, prints the same text and writes the same file again.

Everything ``predict`` and ``predict_proba`` read must be in the file: the weights per leaf
after a weighted fit (``leaf_weights_``), Algorithm 3's candidates, the training errors as a
total weight, and what "optimal" is restricted to.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    load_model,
    save_model,
)
from occamlearn.binarize import ThresholdBinarizer


def _table(n_rows=80, seed=0):
    """Numbers with missing values, a category with a missing value, a noisy label."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "income": rng.normal(40, 12, n_rows).round(1),
        "age": rng.integers(18, 70, n_rows),
        "housing": rng.choice(["rent", "own", "free"], n_rows),
    })
    y = np.where((X["income"] > 38) & (X["age"] > 25) | (rng.random(n_rows) < 0.15),
                 "yes", "no")
    X.loc[rng.choice(n_rows, 8, replace=False), "income"] = np.nan
    X.loc[3, "housing"] = None
    return X, y


def _weights(n_rows, seed=1):
    return np.random.default_rng(seed).integers(0, 4, n_rows).astype(float) + \
        np.random.default_rng(seed + 1).choice([0.0, 0.5], n_rows)


CASES = {
    "pure tree": (lambda: MinimumPureTreeClassifier(time_limit=20), False),
    "pure tree, weights": (lambda: MinimumPureTreeClassifier(time_limit=20), True),
    "tree within 4 errors, weights": (
        lambda: MinimumPureTreeClassifier(max_errors=4, time_limit=20), "whole"),
    "Algorithm 3": (lambda: MinimumPureTreeClassifier(
        n_solutions=3, selection_size=0.25, random_state=0, time_limit=20), False),
    "paper's bits": (lambda: MinimumPureTreeClassifier(binarizer="binary", time_limit=20),
                     False),
    "thinned cuts": (lambda: MinimumPureTreeClassifier(
        binarizer=ThresholdBinarizer(max_thresholds=3), time_limit=20), False),
    "depth 2": (lambda: MaxAccuracyTreeClassifier(max_depth=2), False),
    "depth 2, balanced": (lambda: MaxAccuracyTreeClassifier(max_depth=2,
                                                            class_weight="balanced"), False),
    "depth 2, weights": (lambda: MaxAccuracyTreeClassifier(max_depth=2), True),
    "3 leaves, balanced": (lambda: MaxAccuracyTreeClassifier(
        max_depth=None, max_leaves=3, class_weight="balanced", time_limit=20), False),
    "list": (lambda: DecisionListClassifier(max_rules=3), False),
    "list, balanced": (lambda: DecisionListClassifier(max_rules=3, class_weight="balanced"),
                       False),
    "list, weights": (lambda: DecisionListClassifier(max_rules=3), True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_saved_model_predicts_and_prints_as_the_fitted_one(case, tmp_path):
    make, weighted = CASES[case]
    X, y = _table()
    weight = None
    if weighted:
        weight = _weights(len(y))
        if weighted == "whole":
            weight = np.ceil(weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = make().fit(X, y, sample_weight=weight)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    new, _ = _table(40, seed=5)  # rows unseen in fit, values between the cuts
    for data in (X, new):
        assert np.array_equal(loaded.predict_proba(data), model.predict_proba(data)), case
        assert np.array_equal(loaded.predict(data), model.predict(data)), case
    assert str(loaded) == str(model)
    for name in ("training_errors_", "optimal_over_", "status_", "errors_lower_bound_"):
        assert getattr(loaded, name, None) == getattr(model, name, None), name
    if hasattr(model, "leaf_weights_"):
        assert (model.leaf_weights_ is None) == (weight is None and "balanced" not in case)
        assert (loaded.leaf_weights_ is None) == (model.leaf_weights_ is None)
        if model.leaf_weights_ is not None:
            assert np.array_equal(loaded.leaf_weights_, model.leaf_weights_)
    save_model(loaded, tmp_path / "again.json")  # a fixed point
    assert (tmp_path / "again.json").read_text() == (tmp_path / "m.json").read_text()


def test_a_weighted_depth_tree_keeps_its_probabilities():
    """The case users met: P(1) changed after save/load because ``leaf_weights_`` was not
    saved, and the loaded model predicted class 1 where no row had P(1) > 0.5."""
    X, y = _table(200, seed=3)
    model = MaxAccuracyTreeClassifier(max_depth=3, class_weight="balanced").fit(X, y)
    unweighted = MaxAccuracyTreeClassifier(max_depth=3).fit(X, y)
    assert model.leaf_weights_ is not None
    assert not np.allclose(model.predict_proba(X), unweighted.predict_proba(X))
    loaded = MaxAccuracyTreeClassifier.from_record(model.to_record())
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_file_without_the_new_fields_reads_as_unweighted_and_unrestricted(tmp_path):
    X, y = _table()
    model = MinimumPureTreeClassifier(time_limit=20).fit(X, y)
    document = model.to_record().to_dict()
    assert "leaf_weights" not in document and "optimal_over" not in document
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.leaf_weights_ is None and loaded.optimal_over_ is None


@pytest.mark.parametrize("field, value, message", [
    ("leaf_weights", [[1.0]], "leaf_weights"),
    ("leaf_weights", "heavy", "leaf_weights"),
    ("optimal_over", 3, "optimal_over"),
    ("training_errors", -1.5, "training_errors"),
])
def test_a_bad_new_field_is_named(field, value, message, tmp_path):
    from occamlearn.estimators.model_files import model_from_dict

    X, y = _table()
    model = MinimumPureTreeClassifier(time_limit=20).fit(X, y, sample_weight=_weights(len(y)))
    document = model.to_record().to_dict()
    document[field] = value
    with pytest.raises(ValueError, match=message):
        model_from_dict(document)
