"""Exporting decision lists: text, Graphviz DOT and the Fig. 1 likelihood plot.

Every function takes a fitted ``DecisionListClassifier`` (whose record, ``to_record()``, it
reads), its ``FittedModel`` or a bare ``DecisionList``. Texts use
the binary feature names (for an estimator: its binariser's conditions, e.g. ``t1 == x``), so
what is printed is what ``predict`` evaluates.

* ``export_text`` -- ``IF c1 THEN p=0.93 (n=120)`` / ``ELSE IF ...`` / ``ELSE p=0.04``; in
  classification mode (Sec. III-B) the disjunction ``PREDICT 1 IF ANY OF ...``.

Which probability: p is always the observed rate of the training rows a rule covers. A list
fitted with row weights (``DecisionList.weighted``) predicts with weighted frequencies; its
text adds them, labelled (``p=0.11 (n=739; weighted 0.60)``), its summary line says that
predictions use them, and the Graphviz leaves and the probability plot show both.
* ``export_graphviz`` -- the list as a chain of yes/no tests.
* ``plot_log_likelihood`` -- training log-likelihood against the number of rules (Fig. 1);
  matplotlib is imported inside it.
* ``plot_probabilities`` -- each rule's probability (and the default's), as bars labelled
  with the rules' conditions.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

from occamlearn.export._view import as_record
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.fitted import FittedModel

__all__ = [
    "export_graphviz",
    "export_text",
    "plot_log_likelihood",
    "plot_probabilities",
    "readable_list",
    "rule_labels",
    "summary_line",
]


def _record(model) -> FittedModel | None:
    """The fitted model's record (None for a bare ``DecisionList``)."""
    if isinstance(model, DecisionList):
        return None
    record = as_record(model)
    if not record.is_list:
        raise TypeError(f"expected a fitted DecisionListClassifier or a DecisionList; got a "
                        f"{record.estimator}")
    return record


def _decision_list(model) -> DecisionList:
    record = _record(model)
    return model if record is None else record.model


def readable_list(model) -> DecisionList:
    """The model's list with each binary feature named as a person reads it: a bit of the
    paper's code spelled out as the values or intervals it selects (``Condition.describe``;
    parenthesised when it is a union), other conditions by their own name."""
    record = _record(model)
    if record is None:
        return model
    decision_list, conditions = record.model, record.inputs.conditions
    if conditions is None or len(conditions) != decision_list.n_features:
        return decision_list
    names = []
    for condition in conditions:
        describe = getattr(condition, "describe", None)
        text = describe() if describe is not None else str(condition)
        names.append(f"({text})" if " or " in text else text)
    return replace(decision_list, feature_names=tuple(names))


def _class_names(model) -> tuple:
    """(name of y = 0, name of y = 1): the model's classes, or "0"/"1" for a bare list."""
    record = _record(model)
    return ("0", "1") if record is None else record.class_names


def summary_line(model) -> str:
    """``p = P(1); direction negative; 3 rules; log-likelihood -1.234; stopped: max_rules``
    (a weighted list: ``p = P(1), observed; predictions use the weighted p; ...``)."""
    record = as_record(model)
    label = record.model.adjustment
    which = (f"p = P({record.positive_class}), observed; predictions use the {label} p"
             if label else f"p = P({record.positive_class})")
    over = "" if record.optimal_over is None else f"; features over {record.optimal_over}"
    return (f"{which}; direction {record.direction}; "
            f"{len(record.model)} rules; log-likelihood {record.log_likelihood:.3f}; "
            f"stopped: {record.stop_reason}{over}")


def export_text(model, *, decimals: int = 2, show_counts: bool = True,
                summary: bool = False) -> str:
    """The list as text; ``summary`` adds a first line with direction, size and likelihood."""
    decision_list = readable_list(model)
    lines = []
    if summary and not isinstance(model, DecisionList):
        lines.append(f"# {summary_line(model)}")
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
    observed, weighted = decision_list.observed_probabilities, decision_list.probabilities

    def leaf(k, n):
        text = f"p={observed[k]:.{decimals}f}"
        if decision_list.adjustment:
            text += f"\n{decision_list.adjustment} {weighted[k]:.{decimals}f}"
        return text + (f"\nn={n}" if show_counts else "")

    out = ["digraph DecisionList {", '  node [fontname="Helvetica"];', "  rankdir=TB;"]
    for k, rule in enumerate(decision_list.rules):
        out.append(f"  rule{k} [shape=box, label={_quote(decision_list.condition_text(rule))}];")
        out.append(f"  p{k} [shape=ellipse, label={_quote(leaf(k, rule.n_covered))}];")
        out.append(f'  rule{k} -> p{k} [label="yes"];')
        target = f"rule{k + 1}" if k + 1 < len(decision_list) else "default"
        out.append(f'  rule{k} -> {target} [label="no"];')
    out.append(f"  default [shape=ellipse, label={_quote(leaf(-1, decision_list.n_default))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _new_axes(figsize):
    """A new figure's axes, laid out when drawn or saved (constrained layout), so that tick
    and axis labels stay inside the saved image."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _curve(curve, i: int):
    """(log-likelihoods, direction) of a fitted model or of a search result."""
    if isinstance(curve, FittedModel) or hasattr(curve, "to_record"):
        record = as_record(curve)
        return record.log_likelihoods, record.direction
    values = getattr(curve, "log_likelihoods", None)
    if values is None:
        raise TypeError(f"curves[{i}] ({type(curve).__name__}) has no log_likelihoods")
    return values, getattr(curve, "direction", i)


def plot_log_likelihood(curves, *, ax=None, labels=None):
    """Fig. 1: training log-likelihood after 0, 1, ..., K rules, one line per curve.

    ``curves`` is a fitted model, a ``SearchResult`` (anything with ``log_likelihoods``), or
    a list of them. Returns the matplotlib Axes (of a new figure laid out to keep its labels
    when ``ax`` is None).
    """
    if not isinstance(curves, (list, tuple)):
        curves = [curves]
    if ax is None:
        ax = _new_axes((5, 3.5))
    for i, curve in enumerate(curves):
        values, direction = _curve(curve, i)
        label = labels[i] if labels else str(direction)
        ax.plot(range(len(values)), values, marker="o", label=label)
    ax.set_xlabel("number of rules")
    ax.set_ylabel("training log-likelihood")
    ax.legend()
    return ax


def rule_labels(model, width: int = 24) -> list[str]:
    """One label per rule, its condition as a person reads it (wrapped at ``width``
    characters), then ``"default"``."""
    decision_list = readable_list(model)
    return [textwrap.fill(decision_list.condition_text(rule), width, break_on_hyphens=False)
            for rule in decision_list.rules] + ["default"]


def plot_probabilities(model, *, ax=None, decimals: int = 2):
    """Bars of the observed P(positive) for each rule in order and for the default, each bar
    labelled with its rule's condition and the training rows it covers; a weighted (or
    shrunk) list also marks the probability each rule predicts with (a black tick, labelled).
    Returns the matplotlib Axes."""
    decision_list = _decision_list(model)
    labels = rule_labels(model)
    if ax is None:
        ax = _new_axes((max(4.0, 1.3 * len(labels)), 4.5))
    observed = decision_list.observed_probabilities
    covered = [r.n_covered for r in decision_list.rules] + [decision_list.n_default]
    bars = ax.bar(range(len(labels)), observed, color=["C0"] * len(decision_list) + ["0.6"],
                  label="observed")
    label = decision_list.adjustment
    weighted = decision_list.probabilities if label else None
    for k, (bar, p, n) in enumerate(zip(bars, observed, covered)):
        text = f"{p:.{decimals}f}\nn={n}"
        if weighted is not None:
            text = f"{p:.{decimals}f} ({label} {weighted[k]:.{decimals}f})\nn={n}"
        ax.text(bar.get_x() + bar.get_width() / 2, max(p, 0 if weighted is None else
                                                      weighted[k]), text,
                ha="center", va="bottom", fontsize=8)
    if weighted is not None:
        ax.scatter(range(len(labels)), weighted, marker="_", s=400, color="black",
                   label=f"{label} (predicts)", zorder=3)
        ax.legend(fontsize=8, loc="upper right")
    tilted = len(labels) > 4 or any(len(line) > 12 for text in labels for line in text.split("\n"))
    ax.set_xticks(range(len(labels)), labels, rotation=30 if tilted else 0,
                  ha="right" if tilted else "center", fontsize=8)
    record = _record(model)
    ax.set_ylabel(f"observed P({'y = 1' if record is None else record.positive_class})")
    ax.set_ylim(0, 1.15)
    return ax
