"""The literals a decision-list rule conjoins: a binariser's features and the negations of its
equality tests.

A rule is a conjunction of features that hold. Over thresholds that is enough when both sides
are offered (``ThresholdBinarizer(sides="both")``: ``age >= 40`` and ``age < 40``, each also
with ``or missing``), but a one-hot category offers only ``colour == red``, so "anything but
red" would take one rule per other colour, and a 0/1 flag offers only ``flag == 1``.
``RuleLiterals`` adds ``colour != red`` for every category of a column with more than two
(a two-valued column already has both sides) and ``flag != 1`` for every flag.

A negation is its own ``Condition`` (``col != v``, with the equality test's ``missing``
value), so what is printed is what is evaluated and a saved model rebuilds it from the
conditions alone. Its column is computed here as the complement of the equality test's column
on the rows where the column has a value, and false where it is missing, which is exactly what
``Condition.evaluate`` gives for ``!=``; a column with missing values in fit also keeps the
binariser's ``col is missing`` literal.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from occamlearn.model.conditions import Condition

__all__ = ["RuleLiterals"]


def _negation(condition: Condition) -> Condition:
    return Condition(condition.column, "!=", condition.value, condition.index,
                     missing=condition.missing)


class RuleLiterals(TransformerMixin, BaseEstimator):
    """``binarizer``'s features followed by the negations of its ``==`` features (module
    docstring). ``conditions_``, ``columns_``, ``n_features_in_`` and ``feature_names_in_``
    are the binariser's, with the negations appended to ``conditions_``."""

    def __init__(self, binarizer=None):
        self.binarizer = binarizer

    def fit(self, X, y=None):
        self.binarizer_ = clone(self.binarizer).fit(X, y)
        base = list(self.binarizer_.conditions_)
        equal = Counter(c.column for c in base if c.op == "==")
        self.negated_ = np.array([k for k, c in enumerate(base)
                                  if c.op == "==" and equal[c.column] != 2], dtype=np.int64)
        self.conditions_ = base + [_negation(base[k]) for k in self.negated_]
        for name in ("columns_", "n_features_in_", "feature_names_in_", "dropped_columns_",
                     "identifier_columns_"):
            if hasattr(self.binarizer_, name):
                setattr(self, name, getattr(self.binarizer_, name))
        return self

    @property
    def handle_unknown(self) -> str:
        return getattr(self.binarizer, "handle_unknown", "error")

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        features = np.asarray(self.binarizer_.transform(X), dtype=np.uint8)
        negations = 1 - features[:, self.negated_]
        absent = {}
        for j, k in enumerate(self.negated_):
            condition = self.conditions_[k]
            if condition.column not in absent:
                absent[condition.column] = Condition(condition.column, "missing", None,
                                                     condition.index).evaluate(X)
            negations[absent[condition.column], j] = 0
        return np.hstack([features, negations])

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self)
        return np.asarray([str(c) for c in self.conditions_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags
