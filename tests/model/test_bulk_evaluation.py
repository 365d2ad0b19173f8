"""The fast paths compute what the definitions say: conditions evaluated in bulk equal each
condition's own ``evaluate``, and a prediction that reads only the features a tree tests
equals one over the whole binary matrix (and reads only the columns it needs)."""

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import MaxAccuracyTreeClassifier, MinimumPureTreeClassifier, load_model, save_model
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.model import bulk_evaluation
from occamlearn.model.bulk_evaluation import _INT_FLOAT, evaluate_all
from occamlearn.model.conditions import Condition, _is_number

VALUES = [-1.5, 0.0, 0.5, 2.0, 9.0, np.nan]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(VALUES), min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!=", "missing"]),
                          st.sampled_from([-1.0, 0, 0.5, 1, 2.0, 10, True, False,
                                           2 ** 53 + 1, -(2 ** 53)]),
                          st.sampled_from([None, False, True])), min_size=1, max_size=10))
def test_conditions_in_bulk_equal_one_at_a_time(column, specs):
    frame = pd.DataFrame({"x": column, "y": column[::-1]})
    conditions = []
    for op, value, missing in specs:
        if op == "missing":
            conditions.append(Condition("x", "missing", None, 0))
        else:
            conditions.append(Condition("x" if value != 1 else "y", op, value,
                                        0 if value != 1 else 1, missing=missing))
    expected = np.column_stack([c.evaluate(frame) for c in conditions]).astype(np.uint8)
    for data in (frame, frame.to_numpy(), {"x": frame["x"].to_numpy(),
                                            "y": frame["y"].to_numpy()}):
        assert np.array_equal(evaluate_all(conditions, data, n_rows=len(frame)), expected)


LABELS = ["red", "blue", "1", 1, 1.0, True, None, np.nan, pd.NA]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(LABELS), min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from(["==", "!="]),
                          st.sampled_from(["red", "blue", "1", 1, True, None]),
                          st.sampled_from([None, False, True])), min_size=1, max_size=8))
def test_label_conditions_on_a_text_column_in_bulk_equal_one_at_a_time(column, specs):
    """``==`` / ``!=`` on a text column compare the factorised distinct values: the same as
    comparing every row, missing rows included."""
    frame = pd.DataFrame({"x": pd.Series(column, dtype=object)})
    conditions = [Condition("x", op, value, 0, missing=missing)
                  for op, value, missing in specs]
    expected = np.column_stack([c.evaluate(frame) for c in conditions]).astype(np.uint8)
    for data in (frame, {"x": frame["x"].to_numpy()}):
        assert np.array_equal(evaluate_all(conditions, data, n_rows=len(frame)), expected)


def test_transform_of_chosen_features_reads_only_their_columns():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(50, 4)), columns=list("abcd"))
    y = (X["a"] > 0.3).astype(int)
    binarizer = ThresholdBinarizer().fit(X, y)
    full = binarizer.transform(X)
    on_a = [k for k, c in enumerate(binarizer.conditions_) if c.column == "a"]
    assert np.array_equal(binarizer.transform_features(X, on_a), full[:, on_a])
    bad = X.astype(object)
    bad.loc[0, "d"] = "oops"  # a column the chosen features do not read
    with pytest.raises(ValueError, match="column 'd'"):
        binarizer.transform(bad)
    assert np.array_equal(binarizer.transform_features(bad, on_a), full[:, on_a])


@pytest.mark.parametrize("make", [
    lambda: MinimumPureTreeClassifier(time_limit=20),
    lambda: MaxAccuracyTreeClassifier(max_depth=2, class_weight="balanced"),
])
def test_predictions_read_only_what_the_tree_tests(make, tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(120, 30)), columns=[f"c{j}" for j in range(30)])
    X.loc[rng.choice(120, 10), "c3"] = np.nan
    y = ((X["c0"] > 0) & (X["c1"] < 0.5)).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X, y)
    X_bin = model.binarizer_.transform(X)
    assert np.array_equal(model.predict(X), model.classes_[model.tree_.predict(X_bin)])
    assert np.array_equal(model.apply(X), model.tree_.apply(X_bin))
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    untested = X.astype(object)
    untested["c29"] = "text"  # read by no test of the tree
    assert "c29" not in str(model)
    assert np.array_equal(loaded.predict_proba(untested), model.predict_proba(X))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(VALUES), st.sampled_from(VALUES),
                          st.sampled_from(VALUES)), min_size=1, max_size=10),
       st.sampled_from(["float64", "float32"]),
       st.lists(st.tuples(st.sampled_from(["==", "!=", "<", "missing"]),
                          st.sampled_from([-1.5, 0, 0.5, 1, 2.0, True, 2 ** 53]),
                          st.sampled_from([None, False, True]), st.integers(0, 2)),
                min_size=1, max_size=10))
def test_label_conditions_of_several_float_columns_in_bulk_equal_one_at_a_time(
        rows, dtype, specs):
    """``==`` / ``!=`` on several float columns (of different float dtypes) are compared in
    one block, or in blocks of one or two columns (``BLOCK_CELLS``): the same as each
    condition's own ``evaluate``."""
    frame = pd.DataFrame(rows, columns=["a", "b", "c"]).astype({"b": dtype})
    conditions = [Condition("abc"[j], op, None if op == "missing" else value, j,
                            missing=None if op == "missing" else missing)
                  for op, value, missing, j in specs]
    expected = np.column_stack([c.evaluate(frame) for c in conditions]).astype(np.uint8)
    for cells in (bulk_evaluation.BLOCK_CELLS, 1, 2 * len(rows)):
        with mock.patch.object(bulk_evaluation, "BLOCK_CELLS", cells):
            for data in (frame, {name: frame[name].to_numpy() for name in "abc"}):
                found = evaluate_all(conditions, data, n_rows=len(frame))
                assert np.array_equal(found, expected)


@given(st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=2), st.none(),
                 st.sampled_from([np.int64(1), np.float32(0.5), np.bool_(True), 1j])))
def test_the_exact_number_types_are_numbers(value):
    """``evaluate_all``'s test by exact type only shortcuts ``_is_number``."""
    assert (type(value) in _INT_FLOAT or _is_number(value)) == _is_number(value)
