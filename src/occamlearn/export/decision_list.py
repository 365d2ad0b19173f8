"""Exporting decision lists: text, JSON (and back), Graphviz DOT and the Fig. 1 likelihood plot.

Every function takes a fitted ``DecisionListClassifier`` or a bare ``DecisionList``. Texts use
the binary feature names (for an estimator: its binariser's conditions, e.g. ``t1 == x``), so
what is printed is what ``predict`` evaluates.

* ``export_text`` -- ``IF c1 THEN p=0.93 (n=120)`` / ``ELSE IF ...`` / ``ELSE p=0.04``; in
  classification mode (Sec. III-B) the disjunction ``PREDICT 1 IF ANY OF ...``.
* ``list_to_dict`` / ``save_list`` (read back by ``estimators.model_files.load_model``) -- a JSON file holding
  the list, the classes and the binariser's conditions, so a loaded estimator predicts exactly
  what the saved one did (``"format": "occamlearn-model"``, ``"model":
  "DecisionListClassifier"``).
* ``export_graphviz`` -- the list as a chain of yes/no tests.
* ``plot_log_likelihood`` -- training log-likelihood against the number of rules (Fig. 1);
  matplotlib is imported inside it.
* ``plot_probabilities`` -- each rule's probability (and the default's), as bars.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from occamlearn.model.decision_list import DecisionList

__all__ = [
    "FORMAT",
    "MODEL",
    "export_graphviz",
    "export_text",
    "list_to_dict",
    "plot_log_likelihood",
    "plot_probabilities",
    "readable_list",
    "save_list",
]

FORMAT = "occamlearn-model"
MODEL = "DecisionListClassifier"
VERSION = 1
_PARAMS = ("direction", "search", "beam_width", "max_rules", "min_conjunction",
           "max_conjunction", "min_support", "min_gain", "monotone", "mode")


def _decision_list(model) -> DecisionList:
    if isinstance(model, DecisionList):
        return model
    decision_list = getattr(model, "list_", None)
    if not isinstance(decision_list, DecisionList):
        raise TypeError(f"expected a fitted DecisionListClassifier or a DecisionList; got "
                        f"{type(model).__name__}")
    return decision_list


def readable_list(model) -> DecisionList:
    """The model's list with each binary feature named as a person reads it: a bit of the
    paper's code spelled out as the values or intervals it selects (``Condition.describe``;
    parenthesised when it is a union), other conditions by their own name."""
    decision_list = _decision_list(model)
    conditions = getattr(getattr(model, "binarizer_", None), "conditions_", None)
    if conditions is None or len(conditions) != decision_list.n_features:
        return decision_list
    names = []
    for condition in conditions:
        describe = getattr(condition, "describe", None)
        text = describe() if describe is not None else str(condition)
        names.append(f"({text})" if " or " in text else text)
    return replace(decision_list, feature_names=tuple(names))


def _class_names(model) -> tuple:
    """(name of y = 0, name of y = 1): the estimator's classes, or "0"/"1" for a bare list."""
    if isinstance(model, DecisionList):
        return "0", "1"
    positive = model._positive_index_
    return str(model.classes_[1 - positive]), str(model.classes_[positive])


def export_text(model, *, decimals: int = 2, show_counts: bool = True,
                summary: bool = False) -> str:
    """The list as text; ``summary`` adds a first line with direction, size and likelihood."""
    decision_list = readable_list(model)
    lines = []
    if summary and not isinstance(model, DecisionList):
        lines.append(f"# p = P({model.positive_class_}); direction {model.direction_}; "
                     f"{len(decision_list)} rules; log-likelihood {model.log_likelihood_:.3f}; "
                     f"stopped: {model.stop_reason_}")
    if decision_list.mode == "classification":
        names = _class_names(model)
        target = decision_list.target_class
        lines.append(f"PREDICT {names[target]} IF ANY OF")
        for rule in decision_list.rules:
            counts = f" (n={rule.n_covered})" if show_counts else ""
            lines.append(f"  {decision_list.condition_text(rule)}{counts}")
        lines.append(f"ELSE {names[1 - target]}")
        return "\n".join(lines)
    lines.append(decision_list.to_text(decimals=decimals, counts=show_counts))
    return "\n".join(lines)


def _quote(text: str) -> str:
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def export_graphviz(model, *, decimals: int = 2, show_counts: bool = True) -> str:
    """DOT source: rule k is a box with a ``yes`` edge to its probability and a ``no`` edge to
    rule k + 1; the last ``no`` leads to the default probability."""
    decision_list = readable_list(model)

    def leaf(p, n):
        return f"p={p:.{decimals}f}" + (f"\nn={n}" if show_counts else "")

    out = ["digraph DecisionList {", '  node [fontname="Helvetica"];', "  rankdir=TB;"]
    for k, rule in enumerate(decision_list.rules):
        out.append(f"  rule{k} [shape=box, label={_quote(decision_list.condition_text(rule))}];")
        out.append(f"  p{k} [shape=ellipse, label={_quote(leaf(rule.probability, rule.n_covered))}];")
        out.append(f'  rule{k} -> p{k} [label="yes"];')
        target = f"rule{k + 1}" if k + 1 < len(decision_list) else "default"
        out.append(f'  rule{k} -> {target} [label="no"];')
    out.append(f"  default [shape=ellipse, label="
               f"{_quote(leaf(decision_list.default_probability, decision_list.n_default))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def plot_log_likelihood(curves, *, ax=None, labels=None):
    """Fig. 1: training log-likelihood after 0, 1, ..., K rules, one line per curve.

    ``curves`` is a fitted estimator, a ``SearchResult`` (anything with ``log_likelihoods_`` or
    ``log_likelihoods``), or a list of them. Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt

    if not isinstance(curves, (list, tuple)):
        curves = [curves]
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    for i, curve in enumerate(curves):
        values = getattr(curve, "log_likelihoods_", None)
        if values is None:
            values = getattr(curve, "log_likelihoods", None)
        if values is None:
            raise TypeError(f"curves[{i}] ({type(curve).__name__}) has no log_likelihoods")
        label = labels[i] if labels else str(getattr(curve, "direction_",
                                                     getattr(curve, "direction", i)))
        ax.plot(range(len(values)), values, marker="o", label=label)
    ax.set_xlabel("number of rules")
    ax.set_ylabel("training log-likelihood")
    ax.legend()
    return ax


def plot_probabilities(model, *, ax=None, decimals: int = 2):
    """Bars of P(positive) for each rule in order and for the default, labelled with the
    training rows each covers. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt

    decision_list = _decision_list(model)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4, 0.8 * (len(decision_list) + 1)), 3.5))
    labels = [f"rule {k + 1}" for k in range(len(decision_list))] + ["default"]
    probabilities = [r.probability for r in decision_list.rules]
    probabilities.append(decision_list.default_probability)
    covered = [r.n_covered for r in decision_list.rules] + [decision_list.n_default]
    bars = ax.bar(range(len(labels)), probabilities, color=["C0"] * len(decision_list) + ["0.6"])
    for bar, p, n in zip(bars, probabilities, covered):
        ax.text(bar.get_x() + bar.get_width() / 2, p, f"{p:.{decimals}f}\nn={n}",
                ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(labels)), labels, rotation=45 if len(labels) > 6 else 0)
    positive = "y = 1" if isinstance(model, DecisionList) else str(model.positive_class_)
    ax.set_ylabel(f"P({positive})")
    ax.set_ylim(0, 1.15)
    return ax


# -- JSON ------------------------------------------------------------------------------------
def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _binarizer_param(binarizer):
    if binarizer is None or isinstance(binarizer, str):
        return binarizer
    cls = type(binarizer)
    params = {k: (list(v) if isinstance(v, (tuple, np.ndarray)) else v)
              for k, v in binarizer.get_params(deep=False).items()}
    try:
        json.dumps(params)
    except TypeError:
        return {"class": None, "repr": repr(binarizer)}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


def list_to_dict(model) -> dict:
    """JSON-ready dict of a fitted ``DecisionListClassifier`` (or of a bare ``DecisionList``)."""
    decision_list = _decision_list(model)
    if isinstance(model, DecisionList):
        return {"format": FORMAT, "version": VERSION, "model": "DecisionList",
                "list": decision_list.to_dict()}
    conditions = None
    if model.binarizer_ is not None:
        conditions = getattr(model.binarizer_, "conditions_", None)
        if conditions is None:
            raise TypeError(f"cannot save a list whose binariser ({type(model.binarizer_).__name__})"
                            " has no conditions_; use occamlearn's binarisers or pickle it")
        conditions = [c.to_dict() for c in conditions]
    names_in = getattr(model, "feature_names_in_", None)
    return {
        "format": FORMAT, "version": VERSION, "model": MODEL,
        "params": {**{p: _plain(getattr(model, p)) for p in _PARAMS},
                   "positive_class": _plain(model.positive_class),
                   "binarizer": _binarizer_param(model.binarizer)},
        "classes": [_plain(c) for c in model.classes_],
        "classes_dtype": model.classes_.dtype.str if model.classes_.dtype != object else "object",
        "positive_index": int(model._positive_index_),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "binary_feature_names": [str(n) for n in model.feature_names_],
        "conditions": conditions,
        "list": decision_list.to_dict(),
        "direction_chosen": model.direction_,
        "log_likelihoods": [float(v) for v in model.log_likelihoods_],
        "stop_reason": model.stop_reason_,
    }


def save_list(model, path) -> None:
    """Write ``model`` (estimator or ``DecisionList``) as JSON to ``path``."""
    Path(path).write_text(json.dumps(list_to_dict(model), indent=1) + "\n")
