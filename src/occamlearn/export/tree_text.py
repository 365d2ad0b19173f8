"""Plain-text rendering of a tree, in the shape of scikit-learn's ``export_text``.

Each decision node prints its false branch (left child) then its true branch (right child);
each leaf prints its class and, optionally, the training examples of each class that reach it.
The first line states the size, depth and -- for a fitted classifier -- whether the size is a
proven minimum (``status optimal``) or the best found before a time limit (``status
feasible, size not proven minimum``), and over what, when the binary features left out cuts
that could matter (``status optimal over 32 cuts per column on 'x'``).
"""

from __future__ import annotations

from io import StringIO

from occamlearn.export._view import code_legend, summary_line, tree_view

__all__ = ["export_text"]


def export_text(model, *, feature_names=None, class_names=None, show_counts: bool = False,
                show_summary: bool = True, show_codes: bool = False, spacing: int = 3) -> str:
    """Text drawing of a fitted ``MinimumPureTreeClassifier`` or of a ``Tree``.

    feature_names : binary feature names overriding the model's (one per binary feature)
    class_names : names overriding the model's ``classes_`` (one per class)
    show_counts : append ``[n_0, n_1, ...]``, the training examples per class at each leaf
    show_summary : begin with a line giving size, depth, status and bounds
    show_codes : end with the value of each code a tested ``bit`` condition reads (the
        paper's binary encoding), e.g. ``code(color): 0=blue, 1=green, 2=red``; off by
        default, since each test already reads as the values or intervals it selects
    spacing : width of one indentation step (at least 1)
    """
    if spacing < 1:
        raise ValueError(f"spacing must be at least 1; got {spacing!r}.")
    view = tree_view(model, feature_names, class_names)
    tree = view.tree
    out = StringIO()
    if show_summary:
        out.write(summary_line(view) + "\n")

    def write(node: int, depth: int) -> None:
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        feature = int(tree.feature[node])
        if tree.is_leaf[node]:
            text = f"class: {view.class_names[int(tree.label[node])]}"
            if show_counts:
                text += " " + str(tree.counts[node].tolist())
            out.write(f"{indent} {text}\n")
            return
        false_text, true_text = view.branches[feature]
        out.write(f"{indent} {false_text}\n")
        write(int(tree.left[node]), depth + 1)
        out.write(f"{indent} {true_text}\n")
        write(int(tree.right[node]), depth + 1)

    if tree.is_leaf[0]:
        out.write(f"class: {view.class_names[int(tree.label[0])]}"
                  + (f" {tree.counts[0].tolist()}" if show_counts else "") + "\n")
    else:
        write(0, 1)
    if show_codes:
        for line in code_legend(view):
            out.write(line + "\n")
    return out.getvalue()
