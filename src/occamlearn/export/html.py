"""HTML of fitted models, for notebooks (the estimators' ``_repr_html_``).

``tree_html`` draws a tree as nested lists: each decision node lists its false branch, then its
true branch, with the same words as ``export_text``; a heading gives the size, depth, status
and bounds. ``list_html`` draws a decision list as an ordered list of ``IF ... THEN p`` rules
and the default. Everything is escaped; no script or style sheet is needed.
"""

from __future__ import annotations

from html import escape

from occamlearn.export._view import summary_line, tree_view

__all__ = ["list_html", "tree_html"]

_BOX = ('<div class="occamlearn-model" style="font-family: monospace; '
        'font-size: 0.9em; line-height: 1.35">')
_LIST = '<ul style="list-style: none; margin: 0; padding-left: 1.5em">'


def tree_html(model, *, title: str | None = None, show_counts: bool = False) -> str:
    """A fitted tree classifier (or a ``Tree``) as HTML: heading, then nested branches."""
    view = tree_view(model)
    tree = view.tree
    if title is None:
        title = type(model).__name__

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
    """A fitted ``DecisionListClassifier`` as HTML: heading, then the rules in order."""
    from occamlearn.export.decision_list import readable_list

    decision_list = readable_list(model)
    if title is None:
        title = type(model).__name__
    heading = (f"{len(decision_list)} rules, p = P({model.positive_class_}), direction "
               f"{model.direction_}, training log-likelihood {model.log_likelihood_:.3f}, "
               f"stopped: {model.stop_reason_}")
    rules = []
    if decision_list.mode == "classification":
        names = [str(c) for c in model.classes_]
        positive = model._positive_index_
        names = (names[1 - positive], names[positive])
        target = decision_list.target_class
        heading += f"; predicts {names[target]} if any rule applies, else {names[1 - target]}"
    for rule in decision_list.rules:
        rules.append(f"<li>IF {escape(decision_list.condition_text(rule))} THEN "
                     f"p={rule.probability:.{decimals}f} (n={rule.n_covered})</li>")
    rules.append(f"<li>ELSE p={decision_list.default_probability:.{decimals}f} "
                 f"(n={decision_list.n_default})</li>")
    return (f"{_BOX}<div><b>{escape(title)}</b>: {escape(heading)}</div>"
            f'<ol style="margin: 0">{"".join(rules)}</ol></div>')
