"""Wrapping a fitted estimator into a ``FittedModel`` record, and unwrapping it again.

``record_of(estimator)`` copies what ``fit`` learned into the plain record of
``occamlearn.model.fitted`` (parameters as JSON values, the binariser as its conditions and
column checks); ``estimator_from_record(record)`` builds the fitted estimator back, with a
``ConditionBinarizer`` evaluating exactly the stored conditions, so that it predicts what the
saved one did. Everything else about a record (its JSON, its checks) lives in ``model/``; the
estimators reach these two functions through ``RecordMixin`` (``to_record``/``from_record``).
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from importlib import import_module

import numpy as np
from sklearn.utils.validation import check_is_fitted

from occamlearn.binarize.conditions import condition_binarizer_from_dict
from occamlearn.estimators._selection import set_selection
from occamlearn.model import record_checks as checks
from occamlearn.model.fitted import FittedModel, Inputs, Provenance, Selection

__all__ = ["RecordMixin", "data_info_dict", "estimator_from_record", "fit_date",
           "record_of"]

_NOT_SAVED = ("callback",)  # callables cannot be written


def fit_date() -> str:
    """Now, as the record's ``fitted_at`` (ISO 8601, UTC, whole seconds): the system clock
    (``time.time_ns``, the clock ``datetime.now`` reads and floors to microseconds) floored
    to its whole second, as ``datetime.now().replace(microsecond=0)`` has it, whose
    text is kept for the fits within that second (a small table's fit takes about a
    millisecond; making the text took a tenth of that once the caches were cold)."""
    second = time.time_ns() // 1_000_000_000
    if _last_date[0] != second:
        _last_date[:] = [second, datetime.fromtimestamp(second, timezone.utc).isoformat()]
    return _last_date[1]


_last_date: list = [None, ""]  # [a whole second, its fit_date text]


def _package_version() -> str:
    from occamlearn._version import __version__

    return __version__


# -- wrapping ---------------------------------------------------------------------------------
def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return value


def _jsonable(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def _binarizer_param(binarizer):
    """The ``binarizer`` parameter as JSON: a string, null or ``{"class", "params"}``."""
    if binarizer is None or isinstance(binarizer, str):
        return binarizer
    params = {k: _plain(v) for k, v in binarizer.get_params(deep=False).items()}
    if not _jsonable(params):
        return {"class": None, "repr": repr(binarizer)}
    cls = type(binarizer)
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


def _params(estimator) -> dict:
    """The parameters JSON can hold (a RandomState object, e.g., cannot), binarizer last."""
    out = {}
    for key, value in estimator.get_params(deep=False).items():
        value = _plain(value)
        if key in _NOT_SAVED or key == "binarizer" or not _jsonable(value):
            continue
        out[key] = value
    out["binarizer"] = _binarizer_param(estimator.binarizer)
    return out


def _column_checks(binarizer) -> tuple:
    """(columns, handle_unknown): how the fitted binariser checks each input column, or
    (None, "error") when it has no ``columns_`` or their domains are not JSON values."""
    specs = getattr(binarizer, "columns_", None)
    if not specs or not all(hasattr(spec, "kind") for spec in specs):
        return None, "error"
    columns = tuple({"name": str(spec.name), "index": int(spec.index), "kind": spec.kind,
                     "domain": [_plain(v) for v in spec.domain]}
                    for spec in specs if spec.kind not in ("constant", "identifier", "unread"))
    if not _jsonable(list(columns)):
        return None, "error"
    return columns, getattr(binarizer, "handle_unknown", "error")


def _inputs(estimator) -> Inputs:
    binarizer = estimator.binarizer_
    conditions = getattr(binarizer, "conditions_", None)
    opaque = (type(binarizer).__name__
              if binarizer is not None and conditions is None else None)
    columns, handle_unknown = _column_checks(binarizer)
    names_in = getattr(estimator, "feature_names_in_", None)
    return Inputs(int(estimator.n_features_in_),
                  None if names_in is None else tuple(str(n) for n in names_in),
                  tuple(str(n) for n in estimator.feature_names_),
                  None if conditions is None else tuple(conditions), columns, handle_unknown,
                  opaque)


def _stats(stats: dict) -> dict:
    out = {}
    for key, value in stats.items():
        if not _jsonable(value):
            value = np.asarray(value).tolist() if isinstance(value, np.ndarray) else repr(value)
        out[str(key)] = json.loads(json.dumps(value))  # as a file holds it: lists, not tuples
    return out


def _index_of(tree, trees) -> int:
    for k, other in enumerate(trees):
        if other is tree:
            return k
    return next((k for k, other in enumerate(trees) if other == tree), -1)


def _selection(estimator) -> Selection | None:
    """Algorithm 3's candidates (None when the model is the only tree drawn)."""
    pairs = getattr(estimator, "candidate_trees_", None)
    if not pairs:
        return None
    trees = [tree for tree, _ in pairs]
    chosen = _index_of(estimator.tree_, trees)
    best = tuple(_index_of(tree, trees) for tree in estimator.best_trees_)
    stratified = bool(estimator.selection_stratified_)
    count = getattr(estimator, "n_minimum_trees_", None)
    if (len(pairs) == 1 and chosen == 0 and pairs[0][1] == 1.0 and best == (0,) and stratified
            and count is None):
        return None
    if chosen < 0:  # the model is not a candidate: keep it as one, unselected
        pairs, chosen = [*pairs, (estimator.tree_, 0.0)], len(pairs)
    return Selection(tuple((tree, float(acc)) for tree, acc in pairs), best, chosen,
                     stratified, None if count is None else int(count))


def record_of(estimator) -> FittedModel:
    """The ``FittedModel`` of a fitted occamlearn estimator (NotFittedError otherwise)."""
    check_is_fitted(estimator)
    provenance = Provenance(type(estimator).__name__, _params(estimator), _package_version(),
                            getattr(estimator, "fitted_at_", None))
    common = {"classes": estimator.classes_, "inputs": _inputs(estimator),
              "provenance": provenance}
    if hasattr(estimator, "list_"):
        return FittedModel(estimator.list_, **common,
                           positive_index=int(estimator._positive_index_),
                           direction=estimator.direction_,
                           log_likelihoods=tuple(estimator.log_likelihoods_),
                           stop_reason=estimator.stop_reason_,
                           optimal_over=getattr(estimator, "features_over_", None))
    errors_bound = getattr(estimator, "errors_lower_bound_", None)
    return FittedModel(
        estimator.tree_, **common, status=estimator.status_,
        lower_bound=estimator.lower_bound_, upper_bound=estimator.upper_bound_,
        training_errors=_amount(estimator.training_errors_),
        errors_lower_bound=None if errors_bound is None else _amount(errors_bound),
        conflict_rows=tuple(getattr(estimator, "conflict_rows_", ())),
        selection=_selection(estimator), solve_stats=_stats(estimator.solve_stats_),
        optimal_over=getattr(estimator, "optimal_over_", None),
        leaf_weights=getattr(estimator, "leaf_weights_", None))


def _amount(value):
    """Rows as an int, a total weight (weighted fits) as a float, as the estimator has it."""
    value = value.item() if isinstance(value, np.generic) else value
    return int(value) if isinstance(value, int) else float(value)


def data_info_dict(estimator) -> dict:
    """The data-facing fields of a tree file (parameters, classes, names, conditions, column
    checks, conflict rows) of an estimator ``fit`` has only prepared (no tree yet): what the
    WCNF sidecar keeps so that ``decode`` can write the model file."""
    from occamlearn.model.record_json import array_to_json, inputs_to_dict

    info = {**inputs_to_dict(_inputs(estimator)), "params": _params(estimator),
            "classes": array_to_json(estimator.classes_),
            "conflict_rows": [int(r) for r in getattr(estimator, "conflict_rows_", ())]}
    if getattr(estimator, "optimal_over_", None) is not None:
        info["optimal_over"] = estimator.optimal_over_  # the decoded tree's status says it
    return info


# -- unwrapping -------------------------------------------------------------------------------
def _estimator_class(name: str):
    return getattr(import_module("occamlearn.estimators"), name)


def _binarizer(spec, fitted):
    """The ``binarizer`` parameter back: a string, None, one of occamlearn's binariser
    classes rebuilt from its parameters, or (not rebuildable) the fitted binariser."""
    if spec is None or isinstance(spec, str):
        return spec
    if not isinstance(spec, dict) or not (spec.get("class") is None or (
            isinstance(spec.get("class"), str) and spec["class"].startswith("occamlearn."))):
        checks.fail("params.binarizer.class", f"= {checks.short(spec)}: refusing to rebuild "
                    "a class from outside occamlearn")
    if spec.get("class") is None:
        return fitted
    module, _, name = spec["class"].rpartition(".")
    return getattr(import_module(module), name)(**spec["params"])


def _fitted_binarizer(inputs: Inputs):
    if inputs.conditions is None:
        return None
    data = {"conditions": [c.to_dict() for c in inputs.conditions],
            "binary_feature_names": list(inputs.binary_feature_names),
            "n_features_in": inputs.n_features_in,
            "feature_names_in": (None if inputs.feature_names_in is None
                                 else list(inputs.feature_names_in)),
            "handle_unknown": inputs.handle_unknown}
    if inputs.columns is not None:
        data["columns"] = [dict(c) for c in inputs.columns]
    return checks.wrap(lambda: condition_binarizer_from_dict(data))


def _new_estimator(record: FittedModel, binarizer_):
    cls = _estimator_class(record.estimator)
    params = dict(record.provenance.params)
    spec = params.pop("binarizer", None)
    unknown = sorted(set(params) - set(cls().get_params(deep=False)))
    if unknown:
        checks.fail("params", f"has unknown parameter(s) {', '.join(map(str, unknown))}")
    try:
        estimator = cls(binarizer=_binarizer(spec, binarizer_), **params)
    except (TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f'model file: "params.binarizer" cannot be rebuilt: {exc}') from None
    try:
        estimator._validate_params()
    except (ValueError, TypeError) as exc:
        raise ValueError(f'model file: "params": {exc}') from None
    return estimator


def _set_tree(estimator, record: FittedModel) -> None:
    tree = record.model
    estimator.tree_ = tree
    estimator.n_nodes_, estimator.depth_ = tree.n_nodes, tree.depth
    estimator.status_ = record.status
    estimator.lower_bound_, estimator.upper_bound_ = record.lower_bound, record.upper_bound
    estimator.training_errors_ = _amount(record.training_errors or 0)
    estimator.solve_stats_ = dict(record.solve_stats)
    estimator.optimal_over_ = record.optimal_over
    estimator.leaf_weights_ = None if record.leaf_weights is None \
        else np.array(record.leaf_weights)


def _set_minimum_tree(estimator, record: FittedModel) -> None:
    _set_tree(estimator, record)
    estimator.conflict_rows_ = np.asarray(record.conflict_rows, dtype=np.int64)
    estimator.n_conflicts_removed_ = len(record.conflict_rows)
    selection = record.selection
    if selection is None:
        set_selection(estimator)
        return
    trees = [record.model if k == selection.chosen else tree
             for k, (tree, _) in enumerate(selection.candidates)]
    set_selection(estimator, trees, [acc for _, acc in selection.candidates], selection.best,
                  selection.stratified, selection.n_minimum_trees)


def _set_max_accuracy_tree(estimator, record: FittedModel) -> None:
    _set_tree(estimator, record)
    if record.errors_lower_bound is not None:
        estimator.errors_lower_bound_ = _amount(record.errors_lower_bound)


def _set_list(estimator, record: FittedModel) -> None:
    estimator._positive_index_ = int(record.positive_index)
    estimator.positive_class_ = record.positive_class
    estimator.list_ = record.model
    estimator.rules_ = record.model.rules
    estimator.default_probability_ = record.model.default_probability
    estimator.shrinkage_ = record.model.shrinkage
    estimator.direction_ = record.direction
    estimator.log_likelihoods_ = tuple(record.log_likelihoods)
    estimator.log_likelihood_ = record.log_likelihood
    estimator.stop_reason_ = record.stop_reason
    estimator.features_over_ = record.optimal_over
    # each rule's description cost follows from its size and the penalty (none in files
    # written before the penalty existed); the list learner is imported only by a list's record
    from occamlearn.lists.cost import rule_cost

    cost = rule_cost(record.model.n_features, record.provenance.params.get("penalty"))
    estimator.rule_costs_ = tuple(cost(len(rule.features)) for rule in record.model.rules)


# estimator name -> what its fitted attributes are, given the record
_FITTED = {
    "MinimumPureTreeClassifier": _set_minimum_tree,
    "MaxAccuracyTreeClassifier": _set_max_accuracy_tree,
    "DecisionListClassifier": _set_list,
}


def estimator_from_record(record: FittedModel):
    """The fitted estimator a record describes; a record that cannot be one (parameters out
    of range, a foreign binariser class, columns that contradict the conditions) is a
    ValueError naming the field."""
    if record.estimator not in _FITTED:
        raise ValueError(f"unsupported model file: model {record.estimator!r} is unknown; "
                         f"this occamlearn rebuilds {', '.join(sorted(_FITTED))}")
    binarizer_ = _fitted_binarizer(record.inputs)
    estimator = _new_estimator(record, binarizer_)
    inputs = record.inputs
    estimator.n_features_in_ = inputs.n_features_in
    if inputs.feature_names_in is not None:
        estimator.feature_names_in_ = np.asarray(inputs.feature_names_in, dtype=object)
    estimator.binarizer_ = binarizer_
    estimator.classes_ = record.classes
    estimator.feature_names_ = np.asarray(inputs.binary_feature_names, dtype=object)
    if record.provenance.fitted_at is not None:
        estimator.fitted_at_ = record.provenance.fitted_at
    _FITTED[record.estimator](estimator, record)
    return estimator


class RecordMixin:
    """``to_record()`` and ``from_record(record)``: a fitted estimator as a plain
    ``FittedModel`` and back (see ``occamlearn.model.fitted``)."""

    def to_record(self) -> FittedModel:
        """What ``fit`` learned, as a plain, picklable ``FittedModel`` (NotFittedError before
        ``fit``); ``record.to_json(path)`` writes it as a model file."""
        return record_of(self)

    @classmethod
    def from_record(cls, record: FittedModel):
        """The fitted estimator of ``record`` (a ``FittedModel``, e.g. from
        ``FittedModel.from_json``); TypeError if it was fitted by another estimator."""
        if record.estimator != cls.__name__:
            raise TypeError(f"the record was fitted by {record.estimator}, not {cls.__name__}")
        return estimator_from_record(record)
