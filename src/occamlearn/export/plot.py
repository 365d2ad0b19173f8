"""Drawing a tree with matplotlib (optional dependency, imported inside ``plot_tree``).

Leaves are spread evenly from left to right in the order an in-order walk meets them; each
decision node sits above the middle of its two children, one row per depth. Decision nodes
show their test, edges ``no`` (left) and ``yes`` (right), leaves their class -- the same words
as ``export_graphviz``. ``plot_trace`` draws a fitted estimator's anytime curve (best size or
errors against seconds, and the proven lower bound).
"""

from __future__ import annotations

import numpy as np

from occamlearn.export._view import summary_line, tree_view

__all__ = ["node_positions", "plot_trace", "plot_tree"]


def node_positions(tree) -> np.ndarray:
    """(n_nodes, 2) array of (x, y) in [0, 1]: leaves evenly spaced, parents centred, root on top."""
    x = np.zeros(tree.n_nodes)
    next_leaf = [0]

    def place(node: int) -> float:
        if tree.is_leaf[node]:
            x[node] = next_leaf[0]
            next_leaf[0] += 1
        else:
            x[node] = (place(int(tree.left[node])) + place(int(tree.right[node]))) / 2
        return x[node]

    place(0)
    depths = tree.node_depths()
    width = max(tree.n_leaves - 1, 1)
    height = max(int(depths.max()), 1)
    return np.column_stack([x / width if tree.n_leaves > 1 else x + 0.5, 1 - depths / height])


def plot_tree(model, *, ax=None, feature_names=None, class_names=None, fontsize: int = 9,
              title: bool = True):
    """Draw the tree on ``ax`` (a new figure when None) and return the axes."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_tree needs matplotlib: pip install occamlearn[plot]") from exc
    view = tree_view(model, feature_names, class_names)
    tree = view.tree
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4, 1.6 * tree.n_leaves), 1.2 * (tree.depth + 2)))
    xy = node_positions(tree)
    box = {"boxstyle": "round", "fc": "white", "ec": "0.3"}
    leaf_box = {"boxstyle": "round", "fc": "0.92", "ec": "0.3"}
    for node in range(tree.n_nodes):
        if tree.is_leaf[node]:
            ax.text(*xy[node], f"class: {view.class_names[int(tree.label[node])]}",
                    ha="center", va="center", fontsize=fontsize, bbox=leaf_box)
            continue
        ax.text(*xy[node], view.branches[int(tree.feature[node])][1], ha="center",
                va="center", fontsize=fontsize, bbox=box)
        for child, text in ((int(tree.left[node]), "no"), (int(tree.right[node]), "yes")):
            ax.annotate("", xy=xy[child], xytext=xy[node],
                        arrowprops={"arrowstyle": "-", "color": "0.5"})
            middle = (xy[node] + xy[child]) / 2
            ax.text(*middle, text, ha="center", va="center", fontsize=fontsize - 2,
                    color="0.25", bbox={"fc": "white", "ec": "none", "pad": 0.5})
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(-0.15, 1.15)
    ax.set_axis_off()
    if title:
        ax.set_title(summary_line(view), fontsize=fontsize + 1)
    return ax


def plot_trace(model, *, ax=None):
    """The anytime curve of a fitted tree estimator: the best tree's size (MPDT) or training
    errors (DT(max)) against seconds, from ``solve_stats_["trace"]``, with the proven lower
    bound (its own curve when the search recorded one, else the final bound). Returns the axes.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_trace needs matplotlib: pip install occamlearn[plot]") from exc
    stats = getattr(model, "solve_stats_", None)
    if stats is None:
        raise TypeError(f"expected a fitted tree estimator with solve_stats_; got "
                        f"{type(model).__name__}")
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    errors = hasattr(model, "errors_lower_bound_")
    what = "training errors" if errors else "tree size (nodes)"
    trace = list(stats.get("trace") or [])
    end = float(stats.get("total_seconds") or (trace[-1][0] if trace else 1.0))
    if trace:
        seconds = [s for s, _ in trace] + [max(end, trace[-1][0])]
        values = [v for _, v in trace] + [trace[-1][1]]
        ax.step(seconds, values, where="post", marker="o", label=f"best {what}")
    bounds = stats.get("bound_trace")
    if bounds:
        seconds = [b[0] for b in bounds] + [max(end, bounds[-1][0])]
        lower = [b[-1] for b in bounds] + [bounds[-1][-1]]
        ax.step(seconds, lower, where="post", linestyle="--", label="lower bound")
    else:
        lower = model.errors_lower_bound_ if errors else getattr(model, "lower_bound_", None)
        if lower is not None:
            ax.axhline(lower, linestyle="--", color="0.4", label=f"lower bound {lower}")
    ax.set_xlabel("seconds")
    ax.set_ylabel(what)
    ax.set_title(f"{type(model).__name__}: status {getattr(model, 'status_', '?')}")
    ax.legend()
    return ax
