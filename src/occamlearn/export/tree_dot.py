"""Graphviz DOT source of a tree, and rendering it when the ``graphviz`` package is present.

``export_graphviz`` returns the DOT text and needs nothing beyond occamlearn. Decision nodes
are boxes labelled with the test (the true-branch text, e.g. ``Bit 0 = 1`` or a binariser
condition); the edge to the left child is labelled ``no``, to the right child ``yes``; leaves are
ellipses with their class (and, optionally, training examples per class). ``render_graphviz`` wraps
the text in a ``graphviz.Source`` -- the optional dependency is imported only there.
"""

from __future__ import annotations

from occamlearn.export._view import summary_line, tree_view

__all__ = ["export_graphviz", "render_graphviz", "render_source"]


def _quote(text: str) -> str:
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def export_graphviz(model, *, feature_names=None, class_names=None, show_counts: bool = True,
                    title: bool = True) -> str:
    """DOT source of a fitted ``MinimumPureTreeClassifier`` or of a ``Tree``.

    title : put the summary line (size, depth, status) as the graph label
    """
    view = tree_view(model, feature_names, class_names)
    tree = view.tree
    lines = ["digraph Tree {",
             'node [shape=box, style="rounded", fontname="helvetica"] ;',
             'edge [fontname="helvetica"] ;']
    if title:
        lines.append(f"label={_quote(summary_line(view))} ;")
        lines.append("labelloc=t ;")
    for node in range(tree.n_nodes):
        if tree.is_leaf[node]:
            label = f"class: {view.class_names[int(tree.label[node])]}"
            if show_counts:
                label += "\n" + str(tree.counts[node].tolist())
            lines.append(f"{node} [label={_quote(label)}, shape=ellipse] ;")
            continue
        question = view.branches[int(tree.feature[node])][1]
        lines.append(f"{node} [label={_quote(question)}] ;")
        lines.append(f'{node} -> {int(tree.left[node])} [label="no"] ;')
        lines.append(f'{node} -> {int(tree.right[node])} [label="yes"] ;')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_graphviz(model, **kwargs):
    """A ``graphviz.Source`` of the tree (displays in notebooks; ``.render(path)`` writes files).

    Needs the optional ``graphviz`` package (``pip install occamlearn[plot]``).
    """
    return render_source(export_graphviz(model, **kwargs))


def render_source(dot: str):
    """``graphviz.Source(dot)``, or an ImportError saying how to install ``graphviz``."""
    try:
        import graphviz
    except ImportError as exc:
        raise ImportError(
            "render_graphviz needs the 'graphviz' package: pip install occamlearn[plot]"
        ) from exc
    return graphviz.Source(dot)
