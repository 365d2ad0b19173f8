"""The transformer machinery both binarisers share.

``fit`` reads the table through sklearn's ``validate_data``, classifies every column
(``_columns.fit_column``), sets aside identifier-like columns and caps the categories of the
others (``column_roles``), and asks the subclass for that column's conditions; ``transform``
re-checks the values and evaluates exactly those conditions, so the output column ``k`` is by
construction ``conditions_[k].evaluate(X)`` and its name is ``str(conditions_[k])``.

Missing values are learned, not refused. The subclass sees only a column's present values; for
a column with missing values in fit the base then adds the feature ``col is missing`` and
makes each of the column's conditions false on a missing row (``Condition.missing=False``:
``income >= 30900``, whose other branch prints ``income < 30900 or missing``). A binariser
whose ``missing_sides`` is ``"both"`` (``ThresholdBinarizer``'s default) also offers each
condition of a numeric column true on a missing row (``income >= 30900 or missing``), so a
search chooses which side missing values go to, as scikit-learn's trees do at each split.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from dataclasses import replace
from numbers import Integral
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from occamlearn.binarize._columns import clean_column, fit_column, read_columns
from occamlearn.binarize.column_roles import (
    identifier_reason,
    kept_categories,
    warn_folded,
    warn_identifiers,
)
from occamlearn.model.conditions import Condition, missing_mask

__all__ = ["BaseBinarizer"]


class BaseBinarizer(TransformerMixin, BaseEstimator, metaclass=ABCMeta):
    """Table -> 0/1 matrix, one ``Condition`` per output column.

    Subclasses implement ``_column_conditions(spec, values) -> list[Condition]``.
    """

    _parameter_constraints: ClassVar[dict] = {
        "continuous": ["array-like", None],
        "categorical": ["array-like", None],
        "constant": [StrOptions({"error", "drop"})],
        "handle_unknown": [StrOptions({"error", "ignore"})],
        "drop_identifiers": ["boolean"],
        "max_categories": [Interval(Integral, 1, None, closed="left"), None],
    }

    def _overrides(self, names: list[str]) -> dict[str, str]:
        """Column name -> forced kind, from the ``continuous``/``categorical`` lists."""
        forced: dict[str, str] = {}
        for kind in ("continuous", "categorical"):
            for ref in self.get_params()[kind] or ():
                if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
                    if not 0 <= ref < len(names):
                        raise ValueError(
                            f"{kind}= refers to column index {ref}, but X has {len(names)} columns"
                        )
                    ref = names[ref]
                if ref not in names:
                    raise ValueError(
                        f"{kind}= names column {ref!r}, which is not in X "
                        f"(columns: {', '.join(names)})"
                    )
                if forced.get(ref, kind) != kind:
                    raise ValueError(f"column {ref!r} is listed as both continuous and categorical")
                forced[ref] = kind
        return forced

    # "one": a condition is false on a missing value; "both": also offered true on it
    missing_sides = "one"

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn each column's kind, domain and conditions. ``y`` is ignored."""
        names, columns = read_columns(self, X, reset=True)
        forced = self._overrides(names)
        owner = type(self).__name__
        specs, conditions, dropped, identifiers, folded = [], [], [], {}, {}
        for index, (name, column) in enumerate(zip(names, columns)):
            spec, values = fit_column(name, index, column, override=forced.get(name))
            why = None if name in forced or not self.drop_identifiers else (
                identifier_reason(spec, values))
            if why is not None:
                identifiers[name] = why
                spec = replace(spec, kind="identifier")
            specs.append(spec)
            if spec.kind == "identifier":
                dropped.append(name)
                continue
            if spec.kind == "constant":
                if self.constant == "error":
                    every = repr(spec.domain[0]) if spec.domain else "missing"
                    raise ValueError(
                        f"column {name!r} is constant (every value is {every}); "
                        "remove it or pass constant='drop'"
                    )
                dropped.append(name)
                continue
            present = values[~missing_mask(values)]
            capped = self._capped(spec, present, folded)
            learned = self._column_conditions(capped, present) \
                if len(pd.unique(present)) > 1 else []
            conditions.extend(_with_missing_rules(learned, spec, self.missing_sides))
        warn_identifiers(identifiers, owner)
        warn_folded(folded, self.max_categories, owner)
        self.columns_ = specs
        self.dropped_columns_ = dropped
        self.identifier_columns_ = list(identifiers)
        self.conditions_ = conditions
        return self

    def _capped(self, spec, values, folded: dict):
        """``spec`` with at most ``max_categories`` categories (the rest fold into "other",
        noted in ``folded``); ``columns_`` keeps the full domain, so folded values are known
        values at transform, not unseen ones."""
        if spec.kind != "categorical":
            return spec
        kept = kept_categories(spec.domain, values, self.max_categories)
        if len(kept) == len(spec.domain):
            return spec
        n_rows = int((pd.Index(kept).get_indexer(pd.Index(values)) < 0).sum())
        folded[spec.name] = (len(spec.domain) - len(kept), n_rows)
        return replace(spec, domain=kept)

    def transform(self, X) -> np.ndarray:
        """0/1 matrix (``uint8``): column ``k`` is ``conditions_[k].evaluate(X)``."""
        check_is_fitted(self)
        _, columns = read_columns(self, X, reset=False)
        clean = {
            spec.name: clean_column(spec, column, handle_unknown=self.handle_unknown)
            for spec, column in zip(self.columns_, columns)
            if spec.kind not in ("constant", "identifier")
        }
        frame = pd.DataFrame(clean, copy=False)
        # filled column by column (contiguous writes), returned row-major
        out = np.empty((len(columns[0]), len(self.conditions_)), dtype=np.uint8, order="F")
        for k, condition in enumerate(self.conditions_):
            out[:, k] = condition.evaluate(frame)
        return np.ascontiguousarray(out)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """``str(condition)`` for each output column (with renamed inputs if given)."""
        check_is_fitted(self)
        conditions = self.conditions_
        if input_features is not None:
            names = _check_feature_names_in(self, input_features)
            conditions = [replace(c, column=str(names[c.index])) for c in conditions]
        return np.asarray([str(c) for c in conditions], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags

    @abstractmethod
    def _column_conditions(self, spec, values) -> list[Condition]:
        """The conditions for one non-constant column (``values``: its cleaned training data)."""


def _with_missing_rules(conditions: list[Condition], spec, sides: str) -> list[Condition]:
    """A column's conditions as learned from its present values, marked as on dates and, for
    a column with missing values in fit, preceded by ``col is missing``, false on a missing
    row and (``sides="both"``, numeric columns) also offered true on it."""
    if spec.dates:
        conditions = [replace(c, dates=True) for c in conditions]
    if not spec.missing:
        return conditions
    false = [replace(c, missing=False) for c in conditions]
    true = [replace(c, missing=True) for c in conditions
            if sides == "both" and spec.kind != "categorical" and c.op != "bit"]
    return [Condition(spec.name, "missing", None, spec.index), *false, *true]
