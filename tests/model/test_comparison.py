"""``comparison`` makes the ``Condition`` the constructor makes, fields, types and all."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.model.conditions import OPERATORS, Condition, comparison

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                   st.floats(allow_nan=True), st.text(max_size=3),
                   st.sampled_from([np.int64(3), np.float32(0.5), np.bool_(True), (1, 2)]))
INDICES = st.one_of(st.none(), st.integers(0, 5), st.sampled_from([np.int64(2), True]))


def _fields(condition) -> dict:
    return {name: (type(value), repr(value)) for name, value in vars(condition).items()}


@settings(max_examples=300, deadline=None)
@given(column=st.text(max_size=3), op=st.sampled_from(OPERATORS), value=VALUES, index=INDICES)
def test_comparison_is_the_constructors(column, op, value, index):
    try:
        expected = Condition(column, op, value, index)
    except (ValueError, TypeError) as error:
        with pytest.raises(type(error)):
            comparison(column, op, value, index)
        return
    made = comparison(column, op, value, index)
    assert type(made) is Condition and _fields(made) == _fields(expected)
    assert list(vars(made)) == list(vars(expected))
    assert str(made) == str(expected) and made.to_dict() == expected.to_dict()
    if value == value:  # NaN is unequal to itself, in either
        assert made == expected and hash(made) == hash(expected)
