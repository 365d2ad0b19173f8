"""A binariser that evaluates a fixed list of conditions: how a saved model reads new data.

A model file stores the fitted binariser's conditions (``Condition.to_dict``), not the
binariser object; ``ConditionBinarizer`` evaluates exactly those conditions, so a reloaded
model turns a table into the same binary matrix the saved one did.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from occamlearn.model.conditions import condition_from_dict

__all__ = ["ConditionBinarizer", "condition_binarizer_from_dict"]


class ConditionBinarizer(TransformerMixin, BaseEstimator):
    """Fixed binariser: column j of the output is ``conditions[j].evaluate(X)``.

    ``fit`` learns nothing from the data; it only records the input's shape and names.
    """

    def __init__(self, conditions=(), feature_names=None):
        self.conditions = conditions
        self.feature_names = feature_names

    def fit(self, X, y=None):
        validate_data(self, X, skip_check_array=True, reset=True)
        self.conditions_ = tuple(self.conditions)
        return self

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        validate_data(self, X, skip_check_array=True, reset=False)
        columns = [np.asarray(c.evaluate(X), dtype=bool) for c in self.conditions_]
        return np.column_stack(columns).astype(np.uint8) if columns else np.zeros(
            (len(X), 0), dtype=np.uint8)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self)
        names = self.feature_names or [str(c) for c in self.conditions_]
        return np.asarray(names, dtype=object)


def condition_binarizer_from_dict(data: dict):
    """The fitted ``ConditionBinarizer`` of a model file (None when the model had none):
    ``conditions``, ``binary_feature_names``, ``n_features_in`` and ``feature_names_in``."""
    if data["conditions"] is None:
        return None
    conditions = tuple(condition_from_dict(c) for c in data["conditions"])
    binarizer = ConditionBinarizer(conditions, list(data["binary_feature_names"]))
    binarizer.conditions_ = conditions
    binarizer.n_features_in_ = data["n_features_in"]
    if data["feature_names_in"] is not None:
        binarizer.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)
    return binarizer
