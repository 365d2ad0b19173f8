"""``counted_list`` makes the ``DecisionList`` (and ``Rule``s) the constructors make from
the same counts, fields, types and errors alike."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.model.decision_list import DecisionList, Rule, counted_list

INTS = st.one_of(st.integers(-1, 6), st.integers(-1, 6), st.sampled_from([np.int64(2), True]))


def _fields(made) -> dict:
    return {name: (type(value), repr(value)) for name, value in vars(made).items()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy counts divided by 0
@settings(max_examples=600, deadline=None)
@given(rules=st.lists(st.tuples(st.one_of(st.lists(INTS, max_size=3).map(tuple),
                                          st.just([1, 2])),
                                INTS, INTS), max_size=3),
       n_default=INTS, n_default_positive=INTS,
       default=st.one_of(st.floats(0, 1), st.floats(-0.5, 1.5),
                         st.sampled_from([1, np.float64(0.25)])),
       n_features=st.sampled_from([4, 4, 4, 2, 0, np.int64(4)]),
       names=st.sampled_from([(), ("a", "b", "c", "d"), ("a", "b", "c", "d"), ("a", 1, "c", "d"),
                              ["a", "b", "c", "d"], ("a",)]),
       mode=st.sampled_from(["probabilistic", "classification", "other"]),
       target=st.sampled_from([0, 1, 1, 2, True]))
def test_counted_list_is_the_constructors(rules, n_default, n_default_positive, default,
                                          n_features, names, mode, target):
    try:
        expected = DecisionList(tuple(Rule(f, p / n, n, p) for f, n, p in rules), default,
                                n_features, n_default, n_default_positive, names, mode, target)
    except (ValueError, TypeError, ZeroDivisionError) as error:
        with pytest.raises(type(error)):
            counted_list(rules, n_default, n_default_positive, default, n_features, names,
                         mode, target)
        return
    made = counted_list(rules, n_default, n_default_positive, default, n_features, names,
                        mode, target)
    assert type(made) is DecisionList and _fields(made) == _fields(expected)
    assert list(vars(made)) == list(vars(expected))
    for ours, theirs in zip(made.rules, expected.rules, strict=True):
        assert type(ours) is Rule and _fields(ours) == _fields(theirs)
        assert list(vars(ours)) == list(vars(theirs))
    assert made == expected and made.to_dict() == expected.to_dict()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=300, deadline=None)
@given(rules=st.lists(st.tuples(st.lists(st.integers(-1, 5), max_size=3).map(tuple),
                                st.integers(-1, 6), st.integers(-1, 6)), min_size=1,
                      max_size=3),
       default=st.floats(0, 1), named=st.booleans())
def test_counted_list_checks_every_rule(rules, default, named):
    """Valid list fields, drawn rules: the constructors' list or their error."""
    test_counted_list_is_the_constructors.hypothesis.inner_test(
        rules, 3, 1, default, 4, ("a", "b", "c", "d") if named else (), "probabilistic", 1)
