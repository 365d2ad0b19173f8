"""The shortcuts of scikit-learn's fit checks record what scikit-learn itself records."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from occamlearn import DecisionListClassifier
from occamlearn.binarize import QuantileBinarizer, ThresholdBinarizer
from occamlearn.binarize.fit_checks import record_frame_features

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
