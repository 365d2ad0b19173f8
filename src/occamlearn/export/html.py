"""HTML of fitted models, for notebooks (the estimators' ``_repr_html_``).

``tree_html`` draws a tree as nested lists: each decision node lists its false branch, then its
true branch, with the same words as ``export_text``; a heading gives the size, depth, status
and bounds. ``list_html`` draws a decision list as the lines of its text export (``IF``,
``ELSE IF`` ..., ``ELSE``). Both read the model's record (``as_record``). Everything is
escaped; no script or style sheet is needed.
"""

from __future__ import annotations

from html import escape

from occamlearn.export._view import as_record, summary_line, tree_view
from occamlearn.model.tree import Tree

__all__ = ["list_html", "tree_html"]

_BOX = ('<div class="occamlearn-model" style="font-family: monospace; '
        'font-size: 0.9em; line-height: 1.35">')
_LIST = '<ul style="list-style: none; margin: 0; padding-left: 1.5em">'


def tree_html(model, *, title: str | None = None, show_counts: bool = False) -> str:
    """A fitted tree classifier (or a ``Tree``) as HTML: heading, then nested branches."""
    view = tree_view(model)
    tree = view.tree
    if title is None:
        title = "Tree" if isinstance(model, Tree) else as_record(model).estimator

    def leaf(node: int) -> str:
        text = f"class: {view.class_names[int(tree.label[node])]}"
        if show_counts:
            text += " " + str(tree.counts[node].tolist())
        return f"<b>{escape(text)}</b>"

    def branches(node: int) -> str:
        false_text, true_text = view.branches[int(tree.feature[node])]
        items = []
        for text, child in ((false_text, int(tree.left[node])), (true_text, int(tree.right[node]))):
            below = (f"{_LIST}<li>{leaf(child)}</li></ul>" if tree.is_leaf[child]
                     else branches(child))
            items.append(f"<li>{escape(text)}{below}</li>")
        return _LIST + "".join(items) + "</ul>"

    body = leaf(0) if tree.is_leaf[0] else branches(0)
    return (f"{_BOX}<div><b>{escape(title)}</b>: {escape(summary_line(view))}</div>"
            f"{body}</div>")


def list_html(model, *, decimals: int = 2, title: str | None = None) -> str:
    """A fitted ``DecisionListClassifier`` (or its record) as HTML: a heading, then the lines
    of ``export_text`` -- ``IF``, ``ELSE IF`` ..., ``ELSE`` (or, in classification mode,
    ``PREDICT c IF ANY OF`` ... ``ELSE``) -- one per item, so the page and the text agree."""
    from occamlearn.export.decision_list import export_text, summary_line

    record = as_record(model)
    if title is None:
        title = record.estimator
    heading = summary_line(record)
    if record.model.mode == "classification":
        names, target = record.class_names, record.model.target_class
        heading += f"; predicts {names[target]} if any rule applies, else {names[1 - target]}"
    lines = export_text(record, decimals=decimals).splitlines()
    items = "".join(f"<li>{escape(line.strip())}</li>" for line in lines)
    return (f"{_BOX}<div><b>{escape(title)}</b>: {escape(heading)}</div>"
            f'<ol style="list-style: none; margin: 0; padding-left: 0">{items}</ol></div>')
