"""The shortcuts of scikit-learn's fit checks record what scikit-learn itself records."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import validate_data

from occamlearn import DecisionListClassifier
from occamlearn.binarize import QuantileBinarizer, ThresholdBinarizer
from occamlearn.binarize.fit_checks import plain_clone, record_frame_features

NAMES = st.one_of(st.text(max_size=4), st.integers(-3, 3), st.sampled_from([np.str_("a"), 1.5]))


class _Holder(BaseEstimator):
    pass


def _recorded(estimator) -> dict:
    return {name: getattr(estimator, name) for name in ("feature_names_in_", "n_features_in_")
            if hasattr(estimator, name)}


@settings(max_examples=150, deadline=None)
@given(names=st.lists(NAMES, max_size=5, unique_by=str), rows=st.integers(0, 3),
       before=st.booleans())
def test_record_frame_features_sets_what_validate_data_sets(names, rows, before):
    X = pd.DataFrame(np.zeros((rows, len(names))), columns=pd.Index(names, dtype=object))
    ours, theirs = _Holder(), _Holder()
    if before:  # a refit must replace (or drop) the names of an earlier fit
        for holder in (ours, theirs):
            holder.feature_names_in_, holder.n_features_in_ = np.array(["old"], object), 9
    try:
        validate_data(theirs, X, skip_check_array=True, reset=True)
    except TypeError:  # mixed str and other names: left to validate_data
        assert not record_frame_features(ours, X)
        return
    if record_frame_features(ours, X):
        expected, got = _recorded(theirs), _recorded(ours)
        assert got.keys() == expected.keys()
        assert got["n_features_in_"] == expected["n_features_in_"]
        assert got["feature_names_in_"].dtype == expected["feature_names_in_"].dtype
        assert got["feature_names_in_"].tolist() == expected["feature_names_in_"].tolist()
    else:  # not handled (no names, or a name not a str): nothing was touched
        assert not names or any(type(n) is not str for n in names)
        assert set(_recorded(ours)) == ({"feature_names_in_", "n_features_in_"} if before
                                        else set())
        assert not before or ours.n_features_in_ == 9


@pytest.mark.parametrize("cls", [DecisionListClassifier, ThresholdBinarizer, QuantileBinarizer])
def test_param_names_once_are_scikit_learns(cls):
    assert cls._get_param_names() == BaseEstimator._get_param_names.__func__(cls)
    names = cls._get_param_names()
    names.append("changed by a caller")
    assert "changed by a caller" not in cls._get_param_names()


VALUES = {"max_rules": (1, 10, True, 1.0, -1, "1", None),
          "penalty": (1.0, 1, 0, True, -1.0, "a", None, np.float64(1.0)),
          "direction": ("both", "positive", "x", None, 1),
          "binarizer": ("readable", "nope", None, ThresholdBinarizer())}


BINARIZER_VALUES = {"max_thresholds": ("auto", 1, 64, 0, True, 2.0, "x", None),
                    "sides": ("upper", "both", "lower", 1),
                    "drop_identifiers": (True, False, 1, "yes"),
                    "max_categories": (64, 1, 0, None, 1.5),
                    "continuous": (None, ["a"], "a")}
CHECKED = {DecisionListClassifier: VALUES, ThresholdBinarizer: BINARIZER_VALUES}


@pytest.mark.parametrize("cls", list(CHECKED))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_params_checked_once_refuse_what_scikit_learn_refuses(cls, data):
    """Whatever sets passed before (the cache is the process's), a set is refused exactly
    when scikit-learn's own check refuses it, with its message (DecisionListClassifier and,
    through BaseBinarizer, ThresholdBinarizer)."""
    params = data.draw(st.fixed_dictionaries({name: st.sampled_from(values)
                                              for name, values in CHECKED[cls].items()}))
    estimator = cls(**params)
    try:
        BaseEstimator._validate_params(estimator)
    except ValueError as error:
        with pytest.raises(type(error), match=re.escape(str(error))):
            estimator._validate_params()
        return
    estimator._validate_params()


class _Rounding(BaseEstimator):
    """An estimator whose constructor changes its parameter: clone refuses it."""

    def __init__(self, width=1.0):
        self.width = round(width) if isinstance(width, float) else width


def _state(estimator) -> dict:
    return {name: (type(value), repr(value)) for name, value in vars(estimator).items()}


@settings(max_examples=150, deadline=None)
@given(make=st.sampled_from([ThresholdBinarizer, QuantileBinarizer, DecisionListClassifier]),
       values=st.lists(st.sampled_from([None, True, 0, 1, 2.5, "drop", "ignore", ["a"],
                                        np.int64(3)]), max_size=3),
       output=st.sampled_from([None, "default", "pandas"]))
def test_plain_clone_makes_what_clone_makes(make, values, output):
    """The same class, parameters (values and types) and state as scikit-learn's clone,
    and a new instance; plain or not, with an output configuration or without."""
    names = sorted(make().get_params(deep=False))
    estimator = make()
    for name, value in zip(names, values):
        setattr(estimator, name, value)  # any value: clone does not validate
    if output is not None and hasattr(estimator, "set_output"):
        estimator.set_output(transform=output)
    ours, theirs = plain_clone(estimator), clone(estimator)
    assert type(ours) is type(theirs) and ours is not estimator
    assert _state(ours) == _state(theirs)
    for name in names:  # a value clone copies (a list, a numpy scalar) is copied here too
        kept = getattr(theirs, name) is getattr(estimator, name)
        assert (getattr(ours, name) is getattr(estimator, name)) == kept


def test_plain_clone_refuses_what_clone_refuses():
    for width in (1.5, "x"):
        estimator = _Rounding(width=1)
        estimator.width = width
        if isinstance(width, float):
            with pytest.raises(RuntimeError, match="modifies parameter width"):
                clone(estimator)
            with pytest.raises(RuntimeError, match="modifies parameter width"):
                plain_clone(estimator)
        else:
            assert _state(plain_clone(estimator)) == _state(clone(estimator))
