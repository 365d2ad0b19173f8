"""``MaxAccuracyTreeClassifier`` checks its parameters once per set of plain values
(``binarize.fit_checks.ParamsCheckedOnce``): a set is refused exactly when scikit-learn's own
check refuses it, with its message, whatever sets passed before."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from occamlearn import MaxAccuracyTreeClassifier

VALUES = {"max_depth": (1, 4, True, 4.0, 0, None, 2.5),
          "max_leaves": (None, 2, 0, False, 2.5),
          "binarizer": (None, "readable", "nope", 1),
          "method": ("auto", "maxsat", "dp", "x", None),
          "time_limit": (None, 1, 0.5, -1, True, "1"),
          "prefer_small": (True, False, 1, 0, None, "yes"),
          "verbose": (0, 1, True, -1, 1.5, "x"),
          "class_weight": (None, "balanced", "x", 1)}


def _refusal(check) -> tuple | None:
    """(type, message) of the ValueError ``check()`` raises, or None."""
    try:
        check()
    except ValueError as error:
        return type(error), str(error)
    return None


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_parameters_checked_once_refuse_what_scikit_learn_refuses(data):
    params = data.draw(st.fixed_dictionaries({name: st.sampled_from(values)
                                              for name, values in VALUES.items()}))
    estimator = MaxAccuracyTreeClassifier(**params)
    theirs = _refusal(lambda: BaseEstimator._validate_params(estimator))
    assert _refusal(estimator._validate_params) == theirs


@pytest.mark.parametrize("name, passing, lookalike", [("prefer_small", True, 1),
                                                      ("prefer_small", False, 0)])
def test_a_lookalike_of_a_set_that_passed_is_still_refused(name, passing, lookalike):
    """``True == 1`` (and they hash alike), but scikit-learn refuses 1 as a boolean."""
    MaxAccuracyTreeClassifier(**{name: passing})._validate_params()
    with pytest.raises(ValueError, match=name):
        MaxAccuracyTreeClassifier(**{name: lookalike})._validate_params()
