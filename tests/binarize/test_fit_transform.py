"""``fit_transform`` evaluates the conditions on the columns ``fit`` cleaned: the same matrix
as ``fit(X).transform(X)`` on tables of every column kind, with missing values, with labels
and with weights of 0 (rows ``fit`` leaves out, so ``transform`` reads X)."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer, ThresholdBinarizer
from occamlearn.estimators._list_literals import RuleLiterals

NUMBERS = [-1.5, 0.0, 0.5, 2.0, 9.0, np.nan]
TEXT = ["red", "blue", "1", 2, None]
BINARIZERS = [FeatureBinarizer(), QuantileBinarizer(), ThresholdBinarizer(),
              ThresholdBinarizer(max_thresholds=2), RuleLiterals(ThresholdBinarizer())]


@st.composite
def tables(draw):
    n = draw(st.integers(2, 14))
    column = st.lists(st.integers(0, 5), min_size=n, max_size=n)
    picks = [draw(column) for _ in range(5)]
    frame = pd.DataFrame({
        "number": [NUMBERS[k] for k in picks[0]],
        "count": [k % 3 for k in picks[1]],
        "flag": [k % 2 == 0 for k in picks[2]],
        "colour": pd.Categorical([["b", "o", "x"][k % 3] for k in picks[3]]),
        "text": pd.Series([TEXT[k % 5] for k in picks[4]], dtype=object),
    })
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    weight = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n,
                                    max_size=n)))
    weight[0] = 1.0
    return frame, y, weight


def _outcome(call):
    """The matrix ``call`` returns, or the error it raises (type and message)."""
    try:
        return call().tolist()
    except (TypeError, ValueError) as error:
        return type(error), str(error)


@settings(max_examples=60, deadline=None)
@given(tables(), st.sampled_from(range(len(BINARIZERS))), st.booleans())
def test_fit_transform_is_fit_then_transform(table, which, labelled):
    frame, y, weight = table
    binarizer = BINARIZERS[which]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant or identifier columns warn alike
        args = (frame, y) if labelled else (frame,)
        assert _outcome(lambda: clone(binarizer).fit_transform(*args)) == \
            _outcome(lambda: clone(binarizer).fit(*args).transform(frame))
        if labelled and isinstance(binarizer, ThresholdBinarizer):
            # rows of weight 0 are left out of fit: transform reads X (and may meet a value
            # fit never saw, which both raise alike)
            assert _outcome(lambda: clone(binarizer).fit_transform(
                frame, y, sample_weight=weight)) == _outcome(
                lambda: clone(binarizer).fit(frame, y, sample_weight=weight).transform(frame))
