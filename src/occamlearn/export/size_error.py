"""Drawing the size-error curve of ``MaxAccuracyTreeClassifier.size_error_path`` (matplotlib,
an optional dependency imported inside the function).

The curve is a staircase: the fewest training errors with at most L leaves. Proven points are
filled dots, the others hollow with their proven lower bound drawn dashed below them, so a
time-limited path shows where its gap is. With validation data the accuracy of each point's
model is drawn on a second axis and the point ``select`` would pick is marked.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_size_error_path"]


def plot_size_error_path(path, *, ax=None, X_val=None, y_val=None):
    """Draw ``path`` (a ``SizeErrorPath``): training errors against the number of leaves,
    proven points filled, unproven hollow with their lower bound; with ``X_val, y_val`` also
    each point's validation accuracy (right axis) and the selected point. Returns the axes."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_size_error_path needs matplotlib: "
                          "pip install occamlearn[plot]") from exc
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.5), layout="constrained")
    leaves = np.asarray(path.n_leaves)
    errors = np.asarray(path.errors, dtype=float)
    lower = np.asarray(path.errors_lower_bound, dtype=float)
    proven = np.asarray(path.proven, dtype=bool)
    line = ax.step(leaves, errors, where="post", color="C0", label="fewest training errors")
    color = line[0].get_color()
    ax.plot(leaves[proven], errors[proven], "o", color=color, label="proven")
    if not proven.all():
        ax.plot(leaves[~proven], errors[~proven], "o", markerfacecolor="none", color=color,
                label="not proven (time limit)")
        ax.step(leaves, lower, where="post", linestyle="--", color="0.4",
                label="proven lower bound")
    ax.set_xlabel("leaves (at most)")
    ax.set_ylabel("training errors")
    ax.set_title(f"size-error path: {int(proven.sum())} of {len(leaves)} points proven")
    if X_val is not None and y_val is not None:
        scores = path.validation_accuracy(X_val, y_val)
        chosen = int(np.argmax(scores))
        right = ax.twinx()
        right.plot(leaves, scores, "s-", color="C1", markersize=4,
                   label="validation accuracy")
        right.plot([leaves[chosen]], [scores[chosen]], "*", color="C3", markersize=14,
                   label=f"selected: {leaves[chosen]} leaves")
        right.set_ylabel("validation accuracy")
        handles, labels = right.get_legend_handles_labels()
        right.legend(handles, labels, loc="center right")
    ax.legend(loc="upper right")
    return ax
