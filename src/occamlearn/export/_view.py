"""What every tree exporter reads: a fitted tree plus the words to describe it.

Exporters accept a fitted model's record (a ``FittedModel``, or an estimator, whose
``to_record()`` is read: ``as_record``) or a bare ``Tree``. ``tree_view`` turns them into a
``TreeView``: the tree, one class name per class index, and for each binary feature the text
of its two branches (the test false -> left child, true -> right child, as in
``model/tree.py``). Branch texts come from the binariser's conditions when
there are any (a condition describes itself: its meaning lives in one object, which
the binariser, ``predict`` and every export share; ``Condition.describe`` spells a bit of the
paper's code out as the values or intervals it selects), otherwise from the binary column's
name as ``name = 0`` / ``name = 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from occamlearn.model.fitted import FittedModel
from occamlearn.model.tree import Tree

__all__ = ["TreeView", "as_record", "branch_texts", "code_legend", "summary_line", "tree_view"]


@dataclass(frozen=True)
class TreeView:
    """A tree and its vocabulary; ``status`` and bounds are None for a bare ``Tree``."""

    tree: Tree
    class_names: tuple
    feature_names: tuple
    branches: tuple  # branches[j] = (text when feature j is 0, text when it is 1)
    conditions: tuple = ()  # the binariser's condition per binary feature, or None each
    status: str | None = None
    lower_bound: int | None = None
    upper_bound: int | None = None
    training_errors: int | None = None
    errors_lower_bound: float | None = None   # DT(max): proven fewest errors
    optimal_over: str | None = None  # the restriction "optimal" is subject to, if any


def branch_texts(name: str, condition=None) -> tuple[str, str]:
    """(false-branch text, true-branch text) of one binary feature.

    A condition describes itself and its negation (``Condition.describe``): a comparison's
    false branch is the opposite comparison, a bit of the paper's code reads as the intervals
    (or the set of values) it selects and its complement. Other conditions (a
    ``Conjunction``) read ``not (...)``. Without a condition the binary column's name is used.
    """
    if condition is None:
        return f"{name} = 0", f"{name} = 1"
    describe = getattr(condition, "describe", None)
    if describe is not None:
        return describe(True), describe(False)
    return f"not ({condition})", str(condition)


def code_legend(view: TreeView) -> list[str]:
    """One line per column whose binary code a tested ``bit`` condition reads.

    ``code(col)`` is the position of the value in the column's ordered domain, or the number
    of bin edges at or below the value (``model/conditions.py``).
    """
    tested = {int(f) for f in view.tree.feature[~view.tree.is_leaf]}
    lines, seen = [], set()
    for j in sorted(tested):
        condition = view.conditions[j]
        if getattr(condition, "op", None) != "bit" or condition.column in seen:
            continue
        seen.add(condition.column)
        if condition.domain is not None:
            codes = ", ".join(f"{k}={v}" for k, v in enumerate(condition.domain))
        else:
            edges = [f"{e!r}" if isinstance(e, float) else str(e) for e in condition.edges]
            bins = [f"< {edges[0]}"] + [f"[{a}, {b})" for a, b in pairwise(edges)]
            codes = ", ".join(f"{k}: {b}" for k, b in enumerate(bins + [f">= {edges[-1]}"]))
        lines.append(f"code({condition.column}): {codes}")
    return lines


def as_record(model, expected: str = "a fitted occamlearn model") -> FittedModel:
    """The ``FittedModel`` every export reads: ``model`` itself, or a fitted estimator's
    ``to_record()`` (NotFittedError before ``fit``); exports never read an estimator's own
    attributes."""
    if isinstance(model, FittedModel):
        return model
    to_record = getattr(model, "to_record", None)
    if to_record is None:
        raise TypeError(f"expected {expected} (an estimator or its FittedModel); got "
                        f"{type(model).__name__}")
    return to_record()


def _conditions_of(record: FittedModel, n_features: int):
    conditions = record.inputs.conditions
    if conditions is None or len(conditions) != n_features:
        return [None] * n_features
    return list(conditions)


def _check_names(names, expected: int, what: str) -> tuple:
    names = tuple(str(n) for n in names)
    if len(names) != expected:
        raise ValueError(f"{what} must have {expected} entries; got {len(names)}.")
    return names


def tree_view(model, feature_names=None, class_names=None) -> TreeView:
    """Normalise a fitted classifier or a ``Tree`` (plus optional overriding names)."""
    record = None
    if isinstance(model, Tree):
        tree, status, bounds = model, None, (None, None, None, None, None)
        default_classes = range(tree.n_classes)
    else:
        record = as_record(model, "a fitted tree classifier or an occamlearn Tree")
        if not record.is_tree:
            raise TypeError(f"expected a fitted tree classifier or an occamlearn Tree; got a "
                            f"{record.estimator}")
        tree, status = record.model, record.status
        bounds = (record.lower_bound, record.upper_bound, record.training_errors,
                  getattr(record, "errors_lower_bound", None), record.optimal_over)
        default_classes = record.classes
    n = tree.n_features
    if feature_names is None:
        feature_names = [tree.feature_name(j) for j in range(n)]
        conditions = [None] * n if record is None else _conditions_of(record, n)
    else:
        conditions = [None] * n
    feature_names = _check_names(feature_names, n, "feature_names")
    class_names = _check_names(
        default_classes if class_names is None else class_names, tree.n_classes, "class_names"
    )
    branches = tuple(branch_texts(name, cond) for name, cond in zip(feature_names, conditions))
    return TreeView(tree, class_names, feature_names, branches, tuple(conditions), status,
                    *bounds)


def summary_line(view: TreeView) -> str:
    """One line: size, shape and (for fitted classifiers) status, bounds and training errors
    (when there are any: a pure tree has none). The status names its restriction when the
    binary features left out cuts that could matter (``status optimal over 32 cuts per
    column on 'x'``), and a feasible minimum tree says that its size is what is not proven
    (``status feasible, size not proven minimum (minimum size in [5, 9])``)."""
    tree = view.tree
    line = (f"{tree.n_nodes} nodes ({tree.n_nodes - tree.n_leaves} decisions, "
            f"{tree.n_leaves} leaves), depth {tree.depth}")
    if view.status is not None:
        line += f", status {view.status}"
        if view.optimal_over:
            line += f" over {view.optimal_over}"
        if view.lower_bound is not None:
            if view.status != "optimal":  # say what is not proven
                line += ", size not proven minimum"
            line += f" (minimum size in [{view.lower_bound}, {view.upper_bound}])"
    lower, errors = view.errors_lower_bound, view.training_errors
    return line + _errors_text(view, lower, errors)


def _number(value) -> str:
    """A count as an int, a total weight with six significant digits."""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.1f}"


def _errors_text(view: TreeView, lower, errors) -> str:
    """The training errors (a total weight after a weighted fit: then, for DT(max), whose
    ``counts`` hold exactly the rows it learnt from, the misclassified rows too, when they
    differ), the gap to the proven bound, or -- a feasible tree whose errors are proven --
    that the size is what is not proven."""
    tree, text, rows = view.tree, "", errors
    if lower is not None:                       # DT(max): errors optimised
        leaves = tree.is_leaf
        rows = int((tree.counts[leaves].sum(axis=1)
                    - tree.counts[leaves, tree.label[leaves]]).sum())
    what = "training errors" if rows == errors else "weighted training errors"
    if errors and lower is not None and lower < errors:
        text += f", {what} in [{_number(lower)}, {_number(errors)}]"   # not proven: the gap
    elif errors:
        text += f", {_number(errors)} {what}"
    if errors and rows != errors:
        text += f" ({rows} rows misclassified)"
    if view.status == "feasible" and lower is not None and view.lower_bound is None \
            and errors is not None and lower >= errors:
        text += ", size not proven smallest"
    return text
