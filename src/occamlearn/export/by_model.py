"""The exporters every fitted model has, choosing by what the model is.

``export_text``, ``export_graphviz``, ``render_graphviz`` and ``export_html`` take any fitted
occamlearn estimator, its ``FittedModel``, a bare ``Tree`` or a bare ``DecisionList``, and
hand it to the tree exporter (``tree_text``, ``tree_dot``, ``html.tree_html``) or the
decision-list one (``decision_list``, ``html.list_html``) with the keyword options given;
each option is the chosen exporter's (a tree's ``feature_names``, a list's ``decimals``).
"""

from __future__ import annotations

from occamlearn.export import decision_list, html, tree_dot, tree_text
from occamlearn.export._view import as_record
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.tree import Tree

__all__ = ["export_graphviz", "export_html", "export_text", "render_graphviz"]


def is_list(model) -> bool:
    """Whether ``model`` is a decision list (or a fitted model of one) rather than a tree."""
    if isinstance(model, (DecisionList, Tree)):
        return isinstance(model, DecisionList)
    return as_record(model).is_list


def export_text(model, **options) -> str:
    """The model as text: a tree's branches or a list's ``IF ... ELSE IF ... ELSE``."""
    exporter = decision_list.export_text if is_list(model) else tree_text.export_text
    return exporter(model, **options)


def export_graphviz(model, **options) -> str:
    """Graphviz DOT source of the model: a tree's tests, or a list's chain of rules."""
    exporter = decision_list.export_graphviz if is_list(model) else tree_dot.export_graphviz
    return exporter(model, **options)


def render_graphviz(model, **options):
    """A ``graphviz.Source`` of ``export_graphviz(model, **options)``; needs the optional
    ``graphviz`` package (``pip install occamlearn[plot]``)."""
    return tree_dot.render_source(export_graphviz(model, **options))


def export_html(model, **options) -> str:
    """The model as HTML, for notebooks (``html``: nested branches, or the list's lines)."""
    exporter = html.list_html if is_list(model) else html.tree_html
    return exporter(model, **options)
