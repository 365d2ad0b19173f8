"""``validate_table``'s shortcut for plain numpy matrices at ``fit`` returns what scikit-learn's
``validate_data(..., dtype=None, ensure_all_finite=False)`` returns, records the same
attributes and raises what it raises."""

import re

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.validation import validate_data

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.estimators._inputs import _plain_matrix, validate_table


def _fitted_on_names():
    """An estimator holding ``feature_names_in_`` from an earlier DataFrame fit."""
    estimator = MaxAccuracyTreeClassifier()
    validate_table(estimator, pd.DataFrame({"a": [0, 1]}), np.array([0, 1]), reset=True)
    return estimator


def _outcome(call, estimator, X, y):
    try:
        out = call(estimator, X, y)
    except ValueError as error:
        return ("error", str(error))
    X_out, y_out = out
    return (X_out.dtype, X_out.shape, np.asarray(X_out).tobytes(), y_out.dtype,
            y_out.tolist(), estimator.n_features_in_, hasattr(estimator, "feature_names_in_"))


def _theirs(estimator, X, y):
    return validate_data(estimator, X, y, reset=True, dtype=None, ensure_all_finite=False,
                         y_numeric=False)


def _ours(estimator, X, y):
    return validate_table(estimator, X, y, reset=True)


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(0, 5), columns=st.integers(0, 4), shape=st.sampled_from(
           ["2d", "1d", "3d", "fortran", "strided"]),
       dtype=st.sampled_from(["float64", "float32", "int64", "uint8", "bool", "object",
                              "complex128"]),
       missing=st.booleans(), labels=st.sampled_from(["int64", "bool", "float64", "column"]),
       extra=st.integers(-1, 1), named_before=st.booleans())
def test_plain_matrices_pass_as_validate_data_passes_them(rows, columns, shape, dtype,
                                                          missing, labels, extra,
                                                          named_before):
    X = (np.arange(rows * columns * 2) % 3).reshape(rows, columns * 2).astype(dtype)
    X = X[:, ::2] if shape == "strided" else X[:, :columns]
    if shape == "fortran":
        X = np.asfortranarray(X)
    elif shape == "1d":
        X = X.ravel()
    elif shape == "3d":
        X = X.reshape(rows, columns, 1)
    if missing and dtype.startswith("float") and X.size:
        X.flat[0] = np.nan
    y = np.arange(max(rows + extra, 0)) % 2
    y = y.reshape(-1, 1) if labels == "column" else y.astype(labels)
    expected = _outcome(_theirs, _fitted_on_names() if named_before else
                        MaxAccuracyTreeClassifier(), X, y)
    ours = _outcome(_ours, _fitted_on_names() if named_before else
                    MaxAccuracyTreeClassifier(), X, y)
    if expected[0] == "error":
        assert ours[0] == "error"
        assert re.sub(r"\s+", " ", ours[1])[:40] == re.sub(r"\s+", " ", expected[1])[:40]
    else:
        assert ours == expected
    if _plain_matrix(X):
        assert shape in ("2d", "fortran", "strided") and dtype in (
            "float64", "float32", "int64", "uint8", "bool") and rows and columns


def test_a_plain_matrix_fit_drops_names_of_an_earlier_dataframe_fit():
    model = MaxAccuracyTreeClassifier(max_depth=1, binarizer=None)
    model.fit(pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 1]}), [0, 1, 1])
    assert list(model.feature_names_in_) == ["a", "b"]
    model.fit(np.array([[0, 1], [1, 0], [1, 1]]), np.array([0, 1, 1]))
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 2
