"""Conditions evaluate exactly what they print, on DataFrames and arrays, and survive JSON."""

import json
import operator

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.model.conditions import Condition, Conjunction, condition_from_dict

FRAME = pd.DataFrame(
    {
        "petal_width": [0.2, 0.8, 1.5, 2.4],
        "color": pd.Categorical(["red", "blue", "red", "green"]),
        "age": [1, 3, 5, 3],
    }
)


@pytest.mark.parametrize(
    "condition, text, expected",
    [
        (Condition("petal_width", "<=", 0.8, 0), "petal_width <= 0.8", [1, 1, 0, 0]),
        (Condition("petal_width", "<", 0.8, 0), "petal_width < 0.8", [1, 0, 0, 0]),
        (Condition("petal_width", ">", 0.8, 0), "petal_width > 0.8", [0, 0, 1, 1]),
        (Condition("petal_width", ">=", 0.8, 0), "petal_width >= 0.8", [0, 1, 1, 1]),
        (Condition("color", "==", "red", 1), "color == red", [1, 0, 1, 0]),
        (Condition("color", "!=", "red", 1), "color != red", [0, 1, 0, 1]),
        (Condition("petal_width", "in", (0.8, 2.4), 0), "0.8 <= petal_width < 2.4", [0, 1, 1, 0]),
        (
            Condition("petal_width", "between", (0.8, 2.4), 0),
            "0.8 <= petal_width <= 2.4",
            [0, 1, 1, 1],
        ),
        # age codes: 1 -> 0, 3 -> 1, 5 -> 2 (binary 00, 01, 10)
        (Condition("age", "bit", 1, 2, domain=(1, 3, 5)), "bit 1 of code(age)", [0, 0, 1, 0]),
        (Condition("age", "bit", 0, 2, domain=(1, 3, 5)), "bit 0 of code(age)", [0, 1, 0, 1]),
        # bins [-inf, 1), [1, 2), [2, inf) -> codes 0, 0, 1, 2
        (Condition("petal_width", "bit", 1, 0, edges=(1.0, 2.0)), "bit 1 of code(petal_width)",
         [0, 0, 0, 1]),
    ],
)
def test_condition_evaluates_and_prints(condition, text, expected):
    assert str(condition) == text
    assert condition.evaluate(FRAME).astype(int).tolist() == expected
    array = FRAME.to_numpy(dtype=object)
    if condition.op not in ("==", "!="):
        array = FRAME.assign(color=0).to_numpy(dtype=float)
    assert condition.evaluate(array).astype(int).tolist() == expected


def test_condition_json_round_trip():
    conditions = [
        Condition("age", "bit", 1, 2, domain=(1, 3, 5)),
        Condition("petal_width", "in", (0.8, 2.4), 0),
        Condition("color", "==", "red"),
        Condition("x", "bit", 0, 3, edges=(np.float64(0.5), 1.5)),
    ]
    for condition in conditions:
        restored = condition_from_dict(json.loads(json.dumps(condition.to_dict())))
        assert restored == condition
        assert str(restored) == str(condition)


def test_conjunction():
    both = Conjunction((Condition("color", "==", "red"), Condition("age", "<=", 3)))
    assert str(both) == "color == red & age <= 3"
    assert both.evaluate(FRAME).tolist() == [True, False, False, False]
    assert condition_from_dict(json.loads(json.dumps(both.to_dict()))) == both


def test_conditions_are_hashable_and_frozen():
    condition = Condition("a", "<", np.float64(1.5), np.int64(0))
    assert type(condition.value) is float and type(condition.index) is int
    assert len({condition, Condition("a", "<", 1.5, 0)}) == 1
    with pytest.raises(AttributeError):
        condition.value = 2.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"column": "a", "op": "=>", "value": 1}, "unknown operator '=>'"),
        ({"column": "a", "op": "in", "value": 1}, r"needs value=\(lo, hi\)"),
        ({"column": "a", "op": "bit", "value": -1, "domain": (1, 2)}, "bit index >= 0"),
        ({"column": "a", "op": "bit", "value": 0}, "exactly one of domain= or edges="),
    ],
)
def test_bad_condition(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Condition(**kwargs)


def test_bad_evaluation_inputs():
    with pytest.raises(ValueError, match="column 'size' is not in the data"):
        Condition("size", "<", 1).evaluate(FRAME)
    with pytest.raises(ValueError, match="has no column index"):
        Condition("size", "<", 1).evaluate(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="index 5, but X has 2 columns"):
        Condition("size", "<", 1, 5).evaluate(np.zeros((2, 2)))
    # a number outside a numeric domain takes the code of the interval it falls in; a
    # category outside the domain has every bit 0 (the binariser warns)
    ages = pd.DataFrame({"age": [3, 4, 0, 9]})
    assert Condition("age", "bit", 0, domain=(1, 3, 5)).evaluate(ages).tolist() == [
        True, True, False, False]
    colours = pd.DataFrame({"c": ["b", "z"]})
    assert Condition("c", "bit", 0, domain=("a", "b")).evaluate(colours).tolist() == [True, False]
    with pytest.raises(ValueError, match="from_dict|not a condition dict"):
        Condition.from_dict({"column": "a", "op": "<"})


PRINTED_MEANING = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@settings(max_examples=60, deadline=None)
@given(
    threshold=st.floats(-1e6, 1e6, allow_nan=False),
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20),
    op=st.sampled_from(["<", "<=", ">", ">="]),
)
def test_printed_threshold_is_the_evaluated_one(threshold, values, op):
    """Parsing the printed text back gives the same threshold, so text and test agree."""
    condition = Condition("x", op, threshold)
    column, printed_op, printed_value = str(condition).split(" ")
    assert (column, printed_op, float(printed_value)) == ("x", op, threshold)
    frame = pd.DataFrame({"x": values})
    expected = PRINTED_MEANING[printed_op](np.asarray(values), float(printed_value))
    assert condition.evaluate(frame).tolist() == expected.tolist()


def test_describe_words_bits_and_conjunctions():
    bit = Condition("w", "bit", 0, edges=(2.5, 3.0, 4.5))
    assert bit.describe() == "2.5 <= w < 3.0 or w >= 4.5"
    assert bit.describe(negate=True) == "w < 2.5 or 3.0 <= w < 4.5"
    assert bit.intervals() == [(2.5, 3.0), (4.5, None)]
    both = Conjunction((bit, Condition("c", "==", "red")))
    assert both.describe() == "(2.5 <= w < 3.0 or w >= 4.5) & c == red"
    assert both.describe(negate=True) == "not ((2.5 <= w < 3.0 or w >= 4.5) & c == red)"
    assert Condition("t", "between", (1, 2)).describe(negate=True) == "t < 1 or t > 2"
    assert Condition("x", "<=", 4).describe(negate=True) == "x > 4"


@settings(max_examples=200, deadline=None)
@given(op=st.sampled_from(["==", "!=", "<", ">=", "<=", ">"]),
       value=st.one_of(st.integers(-3, 3), st.floats(-1e4, 1e4), st.text(max_size=2),
                       st.booleans(), st.just(np.float32(0.1)), st.just(np.int64(7))),
       missing=st.sampled_from([None, True, False]), dates=st.booleans())
def test_a_comparison_prints_what_it_says_of_a_present_value(op, value, missing, dates):
    condition = Condition("c", op, value, 0, missing=missing, dates=dates)
    said = condition._present_text(False) + (" or missing" if missing else "")
    assert str(condition) == said
