"""``describe``: the text ``print(model)`` shows, for every kind of fitted model.

One function, so that ``print(model)`` in Python and ``occamlearn show model.json`` print the
same thing: the estimator's name, then for a tree its summary line (size, depth, status,
bounds, training errors) and its branches, for a decision list its summary (positive class,
direction, rules, log-likelihood, why it stopped) and its rules with their ``(n=)`` counts.
"""

from __future__ import annotations

from occamlearn.export import decision_list, tree_text
from occamlearn.export._view import as_record
from occamlearn.model.decision_list import DecisionList

__all__ = ["describe"]


def describe(model, *, show_counts: bool | None = None) -> str:
    """``"<Estimator>: "`` and the fitted model as text (a bare ``DecisionList``: its text),
    without a final newline (``print`` adds one).

    show_counts : training rows per class at each leaf of a tree, the ``(n=)`` of each rule
        of a list; None shows them for lists only, as ``print(model)`` does
    """
    if isinstance(model, DecisionList):
        return model.to_text(counts=show_counts is not False)
    record = as_record(model)
    if record.is_tree:
        text = tree_text.export_text(record, show_counts=bool(show_counts)).rstrip("\n")
    else:
        text = (decision_list.summary_line(record) + "\n"
                + decision_list.export_text(record, show_counts=show_counts is not False))
    return f"{record.estimator}: {text}"
