"""A fitted model as one plain record: what an estimator learned, without the estimator.

``FittedModel`` holds everything a fitted occamlearn classifier knows, as plain data: the model
itself (a ``Tree`` or a ``DecisionList`` over binary features), the classes, how a table is
read (``Inputs``: the binariser's conditions and column checks), where it came from
(``Provenance``: estimator name, its parameters as JSON values, occamlearn's version, the fit
date), its status and bounds, and what each family adds (the rows the majority filter set
aside, Algorithm 3's candidate trees, a list's direction and likelihoods). It is frozen and
picklable, holds no solver and no estimator, and reads and writes itself as versioned JSON
(``to_json``/``from_json``, ``model.record_json``).

The estimators only wrap and unwrap it (``estimator.to_record()``, ``Estimator.from_record``),
and every export reads it, so a model file, ``print(model)`` and a plot all describe the same
record. This module imports nothing from occamlearn outside ``model``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.decision_list import DecisionList
from occamlearn.model.tree import Tree

__all__ = ["FittedModel", "Inputs", "Provenance", "Selection"]

STATUSES = ("optimal", "feasible")


@dataclass(frozen=True)
class Inputs:
    """How the model turns a table into its binary features.

    n_features_in, feature_names_in : the input columns (names None for array input)
    binary_feature_names : one name per binary feature the model reads
    conditions : one ``Condition`` (or ``Conjunction``) per binary feature, or None when the
        model reads 0/1 input columns as they are (``binarizer=None``)
    columns : how each input column is checked before the conditions are evaluated, as
        ``{"name", "index", "kind", "domain"}`` dicts; None infers it from the conditions
    handle_unknown : "error" or "ignore" for a category unseen in fit
    opaque_binarizer : class name of a fitted binariser that has no conditions (a foreign
        transformer): the record can be shown and pickled but not written to JSON
    """

    n_features_in: int
    feature_names_in: tuple | None
    binary_feature_names: tuple
    conditions: tuple | None = None
    columns: tuple | None = None
    handle_unknown: str = "error"
    opaque_binarizer: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Who fitted the model and how: ``params`` are the estimator's parameters that JSON can
    hold (the binariser as a string, None or ``{"class": ..., "params": ...}``)."""

    estimator: str
    params: dict = field(default_factory=dict)
    package_version: str | None = None
    fitted_at: str | None = None  # ISO 8601, UTC


@dataclass(frozen=True)
class Selection:
    """Algorithm 3 (MaxSAT paper, Sec. 7): the minimum trees drawn with their selection
    accuracies, the indices of those within ``delta`` of the best, and which one is the model.
    The model is one of the candidates (``candidates[chosen][0] is record.model``).
    ``n_minimum_trees`` is the exact number of minimum trees of the training part when the
    candidates were drawn from the branch and bound's tree space (None: not counted)."""

    candidates: tuple  # ((Tree, accuracy), ...)
    best: tuple  # indices into candidates
    chosen: int
    stratified: bool
    n_minimum_trees: int | None = None


@dataclass(frozen=True, eq=False)
class FittedModel:
    """One fitted classifier as plain data (see the module docstring).

    model : Tree (class indices into ``classes``) or DecisionList (y = 1 is
        ``classes[positive_index]``)
    status : "optimal" or "feasible" (trees); None for decision lists
    lower_bound, upper_bound : proven bounds on the minimum size (minimum trees; None for
        DT(max), which optimises errors)
    training_errors, errors_lower_bound : misclassified training rows, and the proven
        minimum (DT(max)); after a weighted fit, their total weight
    optimal_over : what "optimal" is restricted to, in words, when the binary features
        left out cuts or categories of the data that could matter (``"32 cuts per column on
        'x'"``); None when nothing was left out
    leaf_weights : (n_nodes, n_classes) total weight of the training rows of each class at
        each leaf after a weighted fit (what ``predict_proba`` reads), or None
    conflict_rows : 0-based training rows the majority filter set aside (minimum trees)
    selection : Algorithm 3's candidates, or None when the model is the only tree drawn
    solve_stats : seconds per phase, traces, engine names (JSON values)
    direction, log_likelihoods, stop_reason : what the decision-list search reports
    """

    model: Tree | DecisionList
    classes: np.ndarray
    inputs: Inputs
    provenance: Provenance
    status: str | None = None
    lower_bound: int | None = None
    upper_bound: int | None = None
    training_errors: float | None = None
    errors_lower_bound: float | None = None
    positive_index: int | None = None
    conflict_rows: tuple = ()
    selection: Selection | None = None
    solve_stats: dict = field(default_factory=dict)
    direction: str | None = None
    log_likelihoods: tuple = ()
    stop_reason: str | None = None
    optimal_over: str | None = None
    leaf_weights: np.ndarray | None = None

    def __post_init__(self):
        if not isinstance(self.model, (Tree, DecisionList)):
            raise TypeError(f"model must be a Tree or a DecisionList; got "
                            f"{type(self.model).__name__}")
        classes = np.asarray(self.classes)
        if classes.ndim != 1 or len(classes) == 0:
            raise ValueError("classes must be a non-empty 1-D array of labels")
        object.__setattr__(self, "classes", classes)
        if self.status is not None and self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES} or None; got {self.status!r}")
        if self.is_list and self.positive_index not in (0, 1):
            raise ValueError("a decision list's record needs positive_index 0 or 1; got "
                             f"{self.positive_index!r}")
        object.__setattr__(self, "conflict_rows", tuple(int(r) for r in self.conflict_rows))
        object.__setattr__(self, "log_likelihoods",
                           tuple(float(v) for v in self.log_likelihoods))
        if self.leaf_weights is not None:
            weights = np.array(self.leaf_weights, dtype=np.float64)
            shape = (self.model.n_nodes, len(classes)) if self.is_tree else None
            if shape is None or weights.shape != shape or not np.all(np.isfinite(weights)) \
                    or (weights < 0).any():
                raise ValueError(f"leaf_weights must be a {shape} array of non-negative "
                                 f"weights (one row per node, one column per class); got "
                                 f"shape {weights.shape}")
            weights.setflags(write=False)
            object.__setattr__(self, "leaf_weights", weights)

    # -- what it is -----------------------------------------------------------------------
    @property
    def estimator(self) -> str:
        return self.provenance.estimator

    @property
    def is_tree(self) -> bool:
        return isinstance(self.model, Tree)

    @property
    def is_list(self) -> bool:
        return isinstance(self.model, DecisionList)

    @property
    def positive_class(self):
        """The class a decision list's probabilities are about (None for trees)."""
        return None if self.positive_index is None else self.classes[self.positive_index]

    @property
    def class_names(self) -> tuple:
        """(name of y = 0, name of y = 1) for a decision list; every class for a tree."""
        if self.is_list:
            positive = self.positive_index
            return str(self.classes[1 - positive]), str(self.classes[positive])
        return tuple(str(c) for c in self.classes)

    @property
    def log_likelihood(self) -> float | None:
        return self.log_likelihoods[-1] if self.log_likelihoods else None

    # -- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The JSON document of a model file (``model.record_json.record_to_dict``)."""
        from occamlearn.model.record_json import record_to_dict

        return record_to_dict(self)

    def to_json(self, path=None) -> str:
        """The model file's text; also written to ``path`` when given."""
        from occamlearn.model.record_json import dumps, write_record

        if path is not None:
            write_record(self, path)
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> FittedModel:
        """The record of a parsed model file of any version this occamlearn reads; a
        ValueError names the field at fault."""
        from occamlearn.model.record_json import record_from_dict

        record = record_from_dict(data)
        if not isinstance(record, cls):
            raise ValueError(f"the file holds a bare {type(record).__name__}, not a fitted "
                             "model")
        return record

    @classmethod
    def from_json(cls, source) -> FittedModel:
        """The record in ``source``: JSON text, or a path to a model file."""
        import json
        from pathlib import Path

        from occamlearn.model.record_json import read_json_file

        if isinstance(source, str) and source.lstrip().startswith("{"):
            try:
                return cls.from_dict(json.loads(source))
            except json.JSONDecodeError as exc:
                raise ValueError(f"not JSON: {exc}") from None
        return cls.from_dict(read_json_file(Path(source)))
