"""``QuantileBinarizer``: the decision-list paper's discretisation (Sec. IV, fuel pumps).

Each numeric column becomes indicators of where a value lies relative to the column's
empirical quantiles: ``< 1 %``, ``< 5 %``, ``< 10 %``, ``< 25 %``, ``in [25 %, 75 %]``,
``> 75 %``, ``> 90 %``, ``> 95 %``, ``> 99 %`` by default. Quantiles at or below 0.5 give
``col < Q(q)``, those at or above 0.5 give ``col > Q(q)``, and the band between the largest
lower and the smallest upper quantile gives ``Q(lo) <= col <= Q(hi)``. Categorical columns
are one-hot (``col == v`` for every value), 0/1 columns pass through (``col == 1``).

Indicators that are constant on the training data (on a skewed column ``col < Q(1 %)`` can be
empty) or that repeat an earlier one are dropped: they cannot separate anything.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from occamlearn.binarize._base import BaseBinarizer
from occamlearn.binarize._columns import shortest_threshold
from occamlearn.model.conditions import Condition

__all__ = ["DEFAULT_QUANTILES", "QuantileBinarizer"]

DEFAULT_QUANTILES = (0.01, 0.05, 0.10, 0.25, 0.75, 0.90, 0.95, 0.99)


class QuantileBinarizer(BaseBinarizer):
    """Quantile indicators for numeric columns, one-hot for categorical ones.

    Parameters
    ----------
    quantiles : sequence of float in (0, 1), default=(0.01, 0.05, 0.1, 0.25, 0.75, 0.9, 0.95, 0.99)
        Cut points; see the module docstring for the indicators they give.
    continuous, categorical : list of column names or positions, default=None
        Force these columns to be cut at quantiles / one-hot encoded.
    constant : {"drop", "error"}, default="drop"
        As in ``FeatureBinarizer``.
    handle_unknown : {"ignore", "error"}, default="ignore"
        As in ``FeatureBinarizer`` (an unseen category makes every ``col == v`` false).
    drop_identifiers : bool, default=True
        As in ``FeatureBinarizer`` (identifier-like columns are dropped with a warning).
    max_categories : int >= 1 or None, default=64
        As in ``FeatureBinarizer`` (rarer categories fold into "other" with a warning).

    Attributes
    ----------
    conditions_, columns_, dropped_columns_ :
        As in ``FeatureBinarizer``.
    identifier_columns_, n_features_in_, feature_names_in_ :
        As in ``FeatureBinarizer``.
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseBinarizer._parameter_constraints,
        "quantiles": ["array-like"],
    }

    def __init__(
        self,
        *,
        quantiles=DEFAULT_QUANTILES,
        continuous=None,
        categorical=None,
        constant="drop",
        handle_unknown="ignore",
        drop_identifiers=True,
        max_categories=64,
    ):
        self.quantiles = quantiles
        self.continuous = continuous
        self.categorical = categorical
        self.constant = constant
        self.handle_unknown = handle_unknown
        self.drop_identifiers = drop_identifiers
        self.max_categories = max_categories

    def _checked_quantiles(self) -> np.ndarray:
        try:
            quantiles = np.asarray(self.quantiles, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(
                f"quantiles must be numbers in (0, 1), got {self.quantiles!r}"
            ) from None
        if quantiles.size == 0 or not ((quantiles > 0) & (quantiles < 1)).all():
            raise ValueError(f"quantiles must be numbers in (0, 1), got {list(self.quantiles)}")
        return np.unique(quantiles)

    def _column_conditions(self, spec, values) -> list[Condition]:
        name, index = spec.name, spec.index
        if spec.kind == "binary":
            return [Condition(name, "==", 1, index)]
        if spec.kind == "categorical":
            return [Condition(name, "==", v, index) for v in spec.domain]
        quantiles = self._checked_quantiles()
        lower, upper = quantiles[quantiles <= 0.5], quantiles[quantiles >= 0.5]
        ordered = np.sort(values)
        cut = dict(zip(quantiles, np.quantile(ordered, quantiles)))
        conditions = [
            Condition(name, "<", shortest_threshold(cut[q], ordered, "left"), index) for q in lower
        ]
        if lower.size and upper.size:
            band = (
                shortest_threshold(cut[lower[-1]], ordered, "left"),
                shortest_threshold(cut[upper[0]], ordered, "right"),
            )
            conditions.append(Condition(name, "between", band, index))
        conditions += [
            Condition(name, ">", shortest_threshold(cut[q], ordered, "right"), index) for q in upper
        ]
        return _informative(conditions, pd.DataFrame({name: values}))


def _informative(conditions: list[Condition], frame: pd.DataFrame) -> list[Condition]:
    """Drop conditions constant on the training data and repeats of an earlier column."""
    kept, seen = [], set()
    for condition in conditions:
        column = condition.evaluate(frame)
        key = column.tobytes()
        if column.all() or not column.any() or key in seen:
            continue
        seen.add(key)
        kept.append(condition)
    return kept
