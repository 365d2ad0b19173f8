"""A binariser that evaluates a fixed list of conditions: how a saved model reads new data.

A model file stores the fitted binariser's conditions (``Condition.to_dict``), not the
binariser object; ``ConditionBinarizer`` evaluates exactly those conditions, so a reloaded
model turns a table into the same binary matrix the saved one did.

It also checks the input as the fitted binariser did (``binarize._clean_columns.clean_column``):
a string in a numeric column and (with ``handle_unknown="error"``) a value unseen in fit are
``ValueError`` naming the column, the value and the row; missing values follow the
conditions' own ``missing`` rule (a column whose conditions have none warns, as the fitted
binariser did). Whether a column had missing values and holds dates is read off its
conditions. The column kinds and domains
come from the file's ``"columns"`` (written since this check exists); for older files and for
decision lists they are read off the conditions themselves (a column compared with numbers is
numeric, one compared with strings categorical, a bit code's ``domain`` is the known values).
"""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from occamlearn.binarize._clean_columns import clean_column
from occamlearn.binarize._columns import ColumnSpec, _to_objects
from occamlearn.binarize._values import check_unique_names, warn_new_missing
from occamlearn.model.bulk_evaluation import evaluate_all
from occamlearn.model.conditions import Conjunction, condition_from_dict, missing_mask

__all__ = ["ConditionBinarizer", "column_specs_from_conditions", "condition_binarizer_from_dict"]

KINDS = ("binary", "categorical", "continuous", "discrete")


def _leaves(conditions):
    for condition in conditions:
        if isinstance(condition, Conjunction):
            yield from condition.conditions
        else:
            yield condition


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def column_specs_from_conditions(conditions) -> list[ColumnSpec]:
    """One ``ColumnSpec`` per column the conditions read, inferred from the conditions.

    A categorical column (compared with strings) and a bit-coded one with a ``domain`` get
    that domain as their known values; other columns are numeric ("continuous": any finite
    number is accepted).
    """
    specs: dict = {}
    for c in _leaves(conditions):
        if c.op == "missing":  # says nothing of the kind; text if nothing else reads it
            specs.setdefault(c.column, ColumnSpec(c.column, c.index if c.index is not None
                                                  else -1, "categorical", ()))
            continue
        values = (c.value if isinstance(c.value, tuple) else (c.value,)) if c.op != "bit" else (
            c.domain or c.edges)
        textual = any(isinstance(v, str) for v in values)
        kind = "categorical" if textual else "continuous"
        domain = ()
        if c.op == "bit" and c.domain is not None:
            kind, domain = ("categorical" if textual else "discrete"), tuple(c.domain)
        previous = specs.get(c.column)
        placeholder = previous is not None and previous.kind == "categorical" \
            and not previous.domain and not textual
        if previous is not None and previous.kind != "continuous" and kind == "continuous" \
                and not placeholder:
            continue
        specs[c.column] = ColumnSpec(c.column, c.index if c.index is not None else -1, kind,
                                     domain)
    return list(specs.values())


def _with_flags(specs, conditions) -> list[ColumnSpec]:
    """``specs`` with ``missing``/``dates`` set as the conditions on each column say."""
    leaves = list(_leaves(conditions))
    return [replace(spec,
                    missing=any(c.column == spec.name and (c.op == "missing"
                                                           or c.missing is not None)
                                for c in leaves),
                    dates=any(c.column == spec.name and c.dates for c in leaves))
            for spec in specs]


class ConditionBinarizer(TransformerMixin, BaseEstimator):
    """Fixed binariser: column j of the output is ``conditions[j].evaluate(X)``.

    ``fit`` learns nothing from the data; it only records the input's shape and names.
    ``columns`` (``ColumnSpec`` list) says how each input column is checked; None: inferred
    from the conditions (``column_specs_from_conditions``).
    """

    def __init__(self, conditions=(), feature_names=None, columns=None, handle_unknown="error"):
        self.conditions = conditions
        self.feature_names = feature_names
        self.columns = columns
        self.handle_unknown = handle_unknown

    def fit(self, X, y=None):
        if hasattr(X, "columns"):
            check_unique_names(X)
        validate_data(self, X, skip_check_array=True, reset=True)
        self.conditions_ = tuple(self.conditions)
        self.columns_ = _with_flags(self.columns if self.columns is not None
                                    else column_specs_from_conditions(self.conditions_),
                                    self.conditions_)
        return self

    def _column(self, X, spec: ColumnSpec):
        if hasattr(X, "columns"):
            labelled = all(isinstance(c, str) for c in X.columns)
            if spec.name not in X.columns and not labelled and 0 <= spec.index < X.shape[1]:
                return X.iloc[:, spec.index]  # non-string labels (printed x[L]): by position
            if spec.name not in X.columns:
                raise ValueError(f"column {spec.name!r} is not in the data (columns: "
                                 f"{', '.join(map(str, X.columns))})")
            return X[spec.name]
        if not 0 <= spec.index < X.shape[1]:
            raise ValueError(f"column {spec.name!r} is at index {spec.index}, but X has "
                             f"{X.shape[1]} columns")
        return X[:, spec.index]

    def _clean(self, spec: ColumnSpec, column) -> np.ndarray:
        if spec.kind == "categorical" and not spec.domain:  # known values not recorded
            values = _to_objects(spec.name, column)
            warn_new_missing(spec, missing_mask(values))
            return values
        return clean_column(spec, column, handle_unknown=self.handle_unknown)

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        validate_data(self, X, skip_check_array=True, reset=False)
        return self._evaluate(X, self.conditions_)

    def transform_features(self, X, features) -> np.ndarray:
        """The columns ``features`` (indices into ``conditions_``; None: all) of
        ``transform(X)``, reading and checking only the input columns they test."""
        check_is_fitted(self)
        validate_data(self, X, skip_check_array=True, reset=False)
        chosen = self.conditions_ if features is None else [self.conditions_[int(k)]
                                                            for k in features]
        return self._evaluate(X, chosen)

    def _evaluate(self, X, chosen) -> np.ndarray:
        if hasattr(X, "columns"):
            check_unique_names(X)
        else:
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"expected a DataFrame or a 2-D array, got an array of shape "
                                 f"{X.shape}")
        n_rows = X.shape[0]
        if n_rows == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum "
                             "of 1 is required.")
        columns = getattr(self, "columns_", None)
        if columns is None:
            columns = _with_flags(column_specs_from_conditions(self.conditions_),
                                  self.conditions_)
        read = {leaf.column for leaf in _leaves(chosen)}
        clean = {spec.name: self._clean(spec, self._column(X, spec)) for spec in columns
                 if spec.name in read}
        return evaluate_all(chosen, clean, n_rows=n_rows)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self)
        names = self.feature_names or [str(c) for c in self.conditions_]
        return np.asarray(names, dtype=object)


def _spec_from_dict(data, position: int, names_in) -> ColumnSpec:
    where = f'model file: "columns[{position}]"'
    if not isinstance(data, dict) or set(data) != {"name", "index", "kind", "domain"}:
        raise ValueError(f"{where} must be an object with the keys name, index, kind, domain")
    if data["kind"] not in KINDS:
        raise ValueError(f'{where}.kind = {data["kind"]!r} is not one of {KINDS}')
    if not isinstance(data["domain"], list):
        raise ValueError(f"{where}.domain must be a list")
    if not isinstance(data["name"], str) or (names_in is not None
                                             and data["name"] not in names_in):
        raise ValueError(f'{where}.name = {data["name"]!r} is not an input column')
    index = data["index"]
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise ValueError(f"{where}.index = {index!r} is not a column index")
    domain = tuple(data["domain"])
    if data["kind"] in ("binary", "discrete") and not domain:
        raise ValueError(f"{where}.domain is empty")  # categorical: empty = not recorded
    numeric = all(_is_number(v) and abs(v) < 2**53 for v in domain)
    if not (numeric or (data["kind"] == "categorical" and all(
            isinstance(v, (str, int, float)) for v in domain))):
        raise ValueError(f"{where}.domain must hold the column's values (numbers"
                         + (" or strings)" if data["kind"] == "categorical" else ")"))
    if len(set(domain)) != len(domain):
        raise ValueError(f"{where}.domain repeats a value")
    return ColumnSpec(data["name"], index, data["kind"], domain)


def _check_kinds(conditions, columns) -> None:
    """Each condition applies to its column's kind: a categorical column is only tested for
    (in)equality or bit-coded over a domain of its values; a numeric one never against a
    domain of strings."""
    kinds = {spec.name: spec.kind for spec in columns}
    for k, c in enumerate(_leaves(conditions)):
        if c.op == "missing":
            continue
        categorical = kinds[c.column] == "categorical"
        textual_domain = c.op == "bit" and c.domain is not None and all(
            isinstance(v, str) for v in c.domain)
        if categorical and not (c.op in ("==", "!=") or (c.op == "bit" and c.domain)):
            raise ValueError(f"model file: condition {k} ({c}) orders the categorical column "
                             f"{c.column!r}")
        if not categorical and textual_domain:
            raise ValueError(f"model file: condition {k} ({c}) codes the numeric column "
                             f"{c.column!r} over strings")


def condition_binarizer_from_dict(data: dict):
    """The fitted ``ConditionBinarizer`` of a model file (None when the model had none):
    ``conditions``, ``binary_feature_names``, ``n_features_in``, ``feature_names_in`` and,
    when present, ``columns`` and ``handle_unknown``."""
    if data["conditions"] is None:
        return None
    conditions = tuple(condition_from_dict(c) for c in data["conditions"])
    names_in = data["feature_names_in"]
    columns = data.get("columns")
    if columns is not None:
        if not isinstance(columns, list):
            raise ValueError('model file: "columns" must be a list')
        specs = [_spec_from_dict(c, k, names_in) for k, c in enumerate(columns)]
        known = {spec.name for spec in specs}
        for c in _leaves(conditions):
            if c.column not in known:
                raise ValueError(f'model file: a condition reads column {c.column!r}, which '
                                 '"columns" does not describe')
        columns = [spec for spec in specs
                   if any(c.column == spec.name for c in _leaves(conditions))]
    else:
        columns = column_specs_from_conditions(conditions)
    _check_kinds(conditions, columns)
    handle_unknown = data.get("handle_unknown", "error")
    if handle_unknown not in ("error", "ignore"):
        raise ValueError(f'model file: "handle_unknown" = {handle_unknown!r} is not "error" or '
                         '"ignore"')
    binarizer = ConditionBinarizer(conditions, list(data["binary_feature_names"]),
                                   columns, handle_unknown)
    binarizer.conditions_ = conditions
    binarizer.columns_ = _with_flags(columns, conditions)
    binarizer.n_features_in_ = data["n_features_in"]
    if names_in is not None:
        binarizer.feature_names_in_ = np.asarray(names_in, dtype=object)
    return binarizer
