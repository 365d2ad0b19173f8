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
from sklearn import get_config
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
)

from occamlearn.binarize._clean_columns import clean_column
from occamlearn.binarize._columns import ColumnSpec, fit_column, read_columns
from occamlearn.binarize._fit_inputs import (
    FitColumn,
    is_flag,
    reading_deadline,
    row_count,
    rows_that_count,
)
from occamlearn.binarize._training_columns import training_columns
from occamlearn.binarize.column_roles import (
    identifier_reason,
    kept_categories,
    warn_folded,
    warn_identifiers,
)
from occamlearn.binarize.fit_checks import ParamsCheckedOnce
from occamlearn.binarize.sorted_columns import sorted_summaries
from occamlearn.model.bulk_evaluation import evaluate_all
from occamlearn.model.conditions import Condition, missing_mask

__all__ = ["BaseBinarizer", "fit_in_context", "restriction_text", "with_missing_rules"]


# the binarisers' ``fit`` methods wrapped by scikit-learn's ``_fit_context`` (``fit_in_context``)
_CONTEXT_FITS: set = set()


def fit_in_context(fit):
    """``_fit_context(prefer_skip_nested_validation=True)(fit)``, noted as such so that
    ``fit_transform`` may call ``fit`` itself when nested (``_fit_nested``)."""
    wrapped = _fit_context(prefer_skip_nested_validation=True)(fit)
    _CONTEXT_FITS.add(wrapped)
    return wrapped


def _fit_nested(binarizer, X, y, fit_params: dict) -> None:
    """``binarizer.fit(X, y, **fit_params)``, calling the method ``_fit_context`` wraps
    directly when scikit-learn's parameter validation is already skipped (inside the fit of
    an estimator that skips it for what it calls, such as ``DecisionListClassifier``) and
    the binariser has no callbacks. Why the same: the wrapper then validates nothing, sets
    ``skip_parameter_validation`` to the value it has (so the configuration inside is the
    same, and restored on exit to what it was, which the binariser's ``fit`` does not
    change), and its callback context does nothing for an estimator without a callback
    context (``_callback_fit_ctx``), which the binarisers' ``fit`` never makes."""
    fit = type(binarizer).fit
    if fit in _CONTEXT_FITS and get_config()["skip_parameter_validation"] \
            and not hasattr(binarizer, "_callback_fit_ctx") \
            and not hasattr(binarizer, "_skl_callbacks"):
        fit.__wrapped__(binarizer, X, y, **fit_params)
    else:
        binarizer.fit(X, y, **fit_params)


class BaseBinarizer(ParamsCheckedOnce, TransformerMixin, BaseEstimator, metaclass=ABCMeta):
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
            for ref in getattr(self, kind) or ():
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

    @fit_in_context
    def fit(self, X, y=None):
        """Learn each column's kind, domain and conditions (``y`` is ignored here;
        ``ThresholdBinarizer`` reads it)."""
        return self._fit(X, None, None)

    def _fit(self, X, y, sample_weight):
        """``fit`` with labels and weights for the subclass: ``ThresholdBinarizer`` keeps
        the cuts labels can need and spreads thinned cuts by weight. Rows of weight 0 are
        left out altogether, as if absent."""
        X, labels, weight = rows_that_count(X, y, sample_weight)
        names, table = read_columns(self, X, reset=True, split=False)
        forced = self._overrides(names)
        # plain numeric columns read in one pass per dtype, then summarised sorted in blocks,
        # within the reading's share of ``time_limit`` (a ``ThresholdBinarizer`` parameter)
        deadline = reading_deadline(getattr(self, "time_limit", None))
        columns = sorted_summaries(
            training_columns(table, [forced.get(n) for n in names], deadline), labels, deadline)
        owner = type(self).__name__
        specs, learned, dropped, identifiers, folded = [], [], [], {}, {}
        self.unread_columns_ = [name for name, c in zip(names, columns) if c is None]
        for index, (name, column) in enumerate(zip(names, columns)):
            if column is None:  # not read within the time limit
                specs.append(ColumnSpec(name, index, "unread", ()))
                continue
            if is_flag(column) and name not in forced:  # what the loop makes of it
                spec = ColumnSpec(name, index, "binary", (0, 1))
                specs.append(spec)
                if getattr(self, "_kept_columns", None) is not None:
                    self._kept_columns[name] = column.values
                learned.append(FitColumn(spec, spec, column.values, labels, weight))
                continue
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
            if getattr(self, "_kept_columns", None) is not None:  # for ``fit_transform``
                self._kept_columns[name] = values
            summary = getattr(column, "summary", None)
            if spec.missing:
                present = ~missing_mask(values)
                values = values[present]
                column_labels = None if labels is None else labels[present]
                column_weight = None if weight is None else weight[present]
            else:  # every row present: the arrays themselves, not copies
                column_labels, column_weight = labels, weight
            learned.append(FitColumn(spec, self._capped(spec, values, folded, column_weight),
                                     values, column_labels, column_weight, summary))
        warn_identifiers(identifiers, owner)
        warn_folded(folded, self.max_categories, owner)
        self.columns_ = specs
        self.dropped_columns_ = dropped
        self.identifier_columns_ = list(identifiers)
        self.conditions_ = self._learn_conditions(learned, row_count(X))
        self.folded_columns_ = {name: n_categories for name, (n_categories, _) in folded.items()}
        return self

    def _learn_conditions(self, learned: list[FitColumn], n_rows: int) -> list[Condition]:
        """Every column's conditions, in column order (``n_rows``: the training rows that
        count); a subclass that plans over all columns at once overrides this."""
        conditions = []
        for column in learned:
            found = self._column_conditions(column.capped, column.values) \
                if column.distinct_count() > 1 else []
            conditions.extend(with_missing_rules(found, column.spec, self.missing_sides))
        return conditions

    def _capped(self, spec, values, folded: dict, weight=None):
        """``spec`` with at most ``max_categories`` categories (the rest fold into "other",
        noted in ``folded``); ``columns_`` keeps the full domain, so folded values are known
        values at transform, not unseen ones."""
        if spec.kind != "categorical":
            return spec
        kept = kept_categories(spec.domain, values, self.max_categories, weight)
        if len(kept) == len(spec.domain):
            return spec
        n_rows = int((pd.Index(kept).get_indexer(pd.Index(values)) < 0).sum())
        folded[spec.name] = (len(spec.domain) - len(kept), n_rows)
        return replace(spec, domain=kept)

    def fit_transform(self, X, y=None, **fit_params) -> np.ndarray:
        """``fit(X, y, **fit_params).transform(X)``, evaluated on the columns as ``fit``
        cleaned them instead of reading and cleaning ``X`` again. They are what
        ``transform`` would clean: the same conversion (numbers as floats, NaN where
        missing; categories as objects, None where missing, text where the domain is text),
        every category is in the domain (it was learned from them) and a column's missing
        values were seen. Where ``fit`` left rows out (weight 0), ``transform`` reads X."""
        self._kept_columns = {}
        try:
            _fit_nested(self, X, y, fit_params)
            kept = self._kept_columns
        finally:
            del self._kept_columns
        n_rows = row_count(X)
        if any(len(values) != n_rows for values in kept.values()):
            return self.transform(X)
        return evaluate_all(self.conditions_, kept, n_rows=n_rows)

    def transform(self, X) -> np.ndarray:
        """0/1 matrix (``uint8``): column ``k`` is ``conditions_[k].evaluate(X)``."""
        check_is_fitted(self)
        return self.transform_features(X, None)

    def transform_features(self, X, features) -> np.ndarray:
        """The columns ``features`` (indices into ``conditions_``; None: all) of
        ``transform(X)``, reading and checking only the input columns they test: a model
        that tests 5 features predicts at the cost of 5, whatever the width of the table."""
        check_is_fitted(self)
        _, columns = read_columns(self, X, reset=False)
        chosen = self.conditions_ if features is None else [self.conditions_[int(k)]
                                                            for k in features]
        read = {c.column for c in chosen}
        clean = {
            spec.name: clean_column(spec, column, handle_unknown=self.handle_unknown)
            for spec, column in zip(self.columns_, columns)
            if spec.kind not in ("constant", "identifier", "unread") and spec.name in read
        }
        return evaluate_all(chosen, clean, n_rows=len(columns[0]))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """``str(condition)`` for each output column (with renamed inputs if given)."""
        check_is_fitted(self)
        conditions = self.conditions_
        if input_features is not None:
            names = _check_feature_names_in(self, input_features)
            conditions = [replace(c, column=str(names[c.index])) for c in conditions]
        return np.asarray([str(c) for c in conditions], dtype=object)

    def restriction(self) -> str | None:
        """In words, what a tree over these features is optimal over, short of every
        threshold and category of the data (None when nothing was left out): the cuts of
        thinned columns (``thinned_columns_``, ``ThresholdBinarizer``) and the categories
        kept where rare ones were folded (``folded_columns_``), e.g. ``"32 cuts per column
        on 'x'; the 64 most frequent categories of 'city'"``."""
        check_is_fitted(self)
        return restriction_text(getattr(self, "thinned_columns_", {}),
                                getattr(self, "folded_columns_", {}), self.max_categories,
                                getattr(self, "unread_columns_", ()))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags

    @abstractmethod
    def _column_conditions(self, spec, values) -> list[Condition]:
        """The conditions for one non-constant column (``values``: its cleaned training data)."""


def with_missing_rules(conditions: list[Condition], spec, sides: str) -> list[Condition]:
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


def _names(columns: list[str]) -> str:
    shown = ", ".join(repr(c) for c in columns[:3])
    return shown + (f" and {len(columns) - 3} more" if len(columns) > 3 else "")


def restriction_text(thinned: dict, folded: dict, max_categories,
                     unread=()) -> str | None:
    """``"32 cuts per column on 'x', 'y'; the 64 most frequent categories of 'city'; 1766
    columns not read within the time limit: 'x1234', 'x1235', 'x1236' and 1763 more"``, or
    None when nothing was thinned, folded or left unread."""
    parts = []
    if thinned:
        kept = sorted({k for k, _ in thinned.values()})
        amount = f"{kept[0]}" if len(kept) == 1 else f"at most {kept[-1]}"
        cuts = "cut" if kept[-1] == 1 else "cuts"
        parts.append(f"{amount} {cuts} per column on {_names(list(thinned))}")
    if folded:
        parts.append(f"the {max_categories} most frequent categories of {_names(list(folded))}")
    if unread:
        parts.append(f"{len(unread)} column{'s' if len(unread) > 1 else ''} not read within "
                     f"the time limit: {_names(list(unread))}")
    return "; ".join(parts) or None
