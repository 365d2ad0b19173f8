"""What a user passes to ``fit``, checked once: the table, the labels and a 0/1 matrix.

``validate_table`` is the estimators' one call into scikit-learn's ``validate_data``
(recording ``n_features_in_`` and ``feature_names_in_``); DataFrames pass through as they are,
so the binarisers see their column dtypes. Plain numpy matrices and label arrays, which
``validate_data`` would return unchanged, skip its checks (a tenth of a millisecond a fit, most
of a small fit's bookkeeping). ``encode_labels`` turns labels into class indices and
``check_binary_matrix`` checks a matrix given with ``binarizer=None``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    column_or_1d,
    validate_data,
)

from occamlearn.binarize import check_unique_names
from occamlearn.binarize.fit_checks import record_frame_features

__all__ = ["check_binary_matrix", "encode_labels", "is_dataframe", "validate_table"]


def is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc")


def validate_table(estimator, X, y=None, *, reset: bool):
    """Check ``X`` (and ``y``) and record ``n_features_in_`` / ``feature_names_in_``.

    DataFrames pass through unchanged so that a binariser sees their column dtypes
    (categories stay categories); arrays go through ``check_array`` with their dtype kept.
    Missing values pass (the binarisers learn from them); repeated column names do not.
    """
    y = _unwrapped_labels(y)
    if is_dataframe(X):
        check_unique_names(X)
        if reset and record_frame_features(estimator, X):
            pass  # what validate_data records, without its narwhals look-up
        elif y is None:
            validate_data(estimator, X, skip_check_array=True, reset=reset)
        else:
            validate_data(estimator, X, y, skip_check_array=True, reset=reset)
        if X.shape[0] == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
                f"required by {type(estimator).__name__}."
            )
        if y is None:
            return X
        if not _plain_labels(y):
            y = column_or_1d(y, warn=True)
            y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
        if len(y) != X.shape[0]:
            check_consistent_length(X, y)  # its error
        return X, y
    if reset and y is not None and _plain_matrix(X) and _plain_labels(y) and len(y) == len(X):
        # what validate_data does to these (check_X_y returns them as they are): a cost of
        # 0.1-0.2 ms a fit, mostly narwhals asking whether X is a DataFrame
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, y
    params = {"dtype": None, "ensure_all_finite": False}
    if y is None:
        return validate_data(estimator, X, reset=reset, **params)
    return validate_data(estimator, X, y, reset=reset, y_numeric=False, **params)


def _plain_matrix(X) -> bool:
    """Whether ``X`` is a 2-D numpy array of booleans, integers or floats with rows and
    columns: what ``check_array(X, dtype=None, ensure_all_finite=False)`` returns as it is
    (no conversion, nothing to refuse; missing values pass)."""
    return (type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "biuf"
            and X.shape[0] > 0 and X.shape[1] > 0)


def _plain_labels(y) -> bool:
    """Whether ``y`` is a 1-D numpy array of booleans or integers with rows: what
    ``column_or_1d`` and ``check_array(y, ensure_2d=False, dtype=None)`` return unchanged
    (no column to flatten, nothing to convert, nothing non-finite, at least one row)."""
    return type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biu" and len(y) > 0


def _unwrapped_labels(y):
    """A pandas Series of numpy booleans or integers as its numpy array (what ``column_or_1d``
    and ``check_array`` make of it: the same values and dtype, 0.15 ms a fit less, most of a
    small list's bookkeeping, spent by narwhals asking what ``y`` is); anything else as it is.
    Extension dtypes (``Int64``, ``category``), text and empty Series keep scikit-learn's
    checks and their errors."""
    if (type(y) is pd.Series and isinstance(y.dtype, np.dtype) and y.dtype.kind in "biu"
            and len(y) > 0):
        return y.to_numpy()
    return y


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, y_index)``: sorted distinct labels and each row's index into them.

    Text labels work; continuous targets raise sklearn's "Unknown label type" ValueError.
    A 1-D array of integers or booleans is what ``check_classification_targets`` always
    accepts ("binary" or "multiclass"), so it is asked only when it would warn (more than
    20 rows, more than half of them distinct classes).

    Such an array whose least value is 0 and largest 1 holds exactly the labels 0 and 1
    (integers, or False and True, in [0, 1]), both present: ``np.unique`` would return them
    in that order, of ``y``'s dtype, and each row's index into them is its own value, so
    they are formed from two reductions instead of a sort.
    """
    integers = isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "biu"
    if not integers:
        check_classification_targets(y)
    elif len(y) and y.min() == 0 and y.max() == 1:
        return np.array([0, 1], dtype=y.dtype), y.astype(np.int64)
    classes, y_index = np.unique(y, return_inverse=True)
    if integers and len(classes) > 2 and len(y) > 20 and len(classes) > round(0.5 * len(y)):
        check_classification_targets(y)            # its warning: regression-like labels
    return classes, y_index.astype(np.int64)


def check_binary_matrix(X, feature_names=None) -> np.ndarray:
    """``X`` as a uint8 0/1 matrix, or a ValueError naming the first non-0/1 entry."""
    values = X.to_numpy() if is_dataframe(X) else np.asarray(X)
    if values.dtype in (np.bool_, np.uint8) and (values.size == 0
                                                  or values.view(np.uint8).max() <= 1):
        return values.astype(np.uint8)  # 0/1 bytes are their own answer: one pass, a copy
    is_one = np.asarray(values == 1, dtype=bool)
    bad = ~(np.asarray(values == 0, dtype=bool) | is_one)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        name = feature_names[col] if feature_names is not None else f"x{col}"
        value = values[row, col]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"binarizer=None expects 0/1 data, but column {name!r} (index {col}) holds "
            f"{value!r} at row {row}; use a binarizer (e.g. the default 'binary') for "
            "non-binary data."
        )
    return is_one.astype(np.uint8)
