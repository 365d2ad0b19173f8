"""Drawing a tree with matplotlib (optional dependency, imported inside ``plot_tree``).

Leaves are spread evenly from left to right in the order an in-order walk meets them; each
decision node sits above the middle of its two children, one row per depth. Decision nodes
show their test, edges ``no`` (left) and ``yes`` (right), leaves their class -- the same words
as ``export_graphviz``.

A big tree stays legible: the figure's size follows the drawn tree but never exceeds
``MAX_FIGURE_INCHES`` (16 x 10 inches, 1600 x 1000 pixels at matplotlib's default 100 dpi),
and a tree with more than ``MAX_DRAWN_LEAVES`` leaves is folded below a depth (each subtree
cut there is one grey box, ``... 17 nodes``, whose full text ``export_text`` prints).

``plot_trace`` draws a fitted model's anytime curve (best size or errors against seconds, and
the proven lower bound). Both read the model's record (``as_record``); a figure they create
uses constrained layout, so its labels stay inside the image when it is saved.
"""

from __future__ import annotations

import numpy as np

from occamlearn.export._view import as_record, summary_line, tree_view
from occamlearn.model.record_json import MODELS

__all__ = ["MAX_DRAWN_LEAVES", "MAX_FIGURE_INCHES", "fold_depth", "node_positions",
           "plot_trace", "plot_tree"]

MAX_FIGURE_INCHES = (16.0, 10.0)
MAX_DRAWN_LEAVES = 16  # about one inch per leaf box at the widest figure


def _drawn_leaves(tree, depth: int | None) -> int:
    """Leaves of the tree drawn down to ``depth`` (a subtree cut there counts as one)."""
    if depth is None:
        return tree.n_leaves
    depths = tree.node_depths()
    return int(((tree.is_leaf & (depths <= depth)) | (~tree.is_leaf & (depths == depth))).sum())


def fold_depth(tree, max_leaves: int = MAX_DRAWN_LEAVES) -> int | None:
    """The deepest depth to draw so that at most ``max_leaves`` boxes sit on the bottom row
    (None: the whole tree fits). At least the root's test is drawn."""
    if tree.n_leaves <= max_leaves:
        return None
    depth = 1
    while depth + 1 < tree.depth and _drawn_leaves(tree, depth + 1) <= max_leaves:
        depth += 1
    return depth


def node_positions(tree, fold: int | None = None) -> np.ndarray:
    """(n_nodes, 2) array of (x, y) in [0, 1]: leaves evenly spaced, parents centred, root on
    top. With ``fold``, nodes at that depth are placed as leaves and those below are NaN."""
    x = np.full(tree.n_nodes, np.nan)
    depths = tree.node_depths()
    next_leaf = [0]

    def place(node: int) -> float:
        if tree.is_leaf[node] or (fold is not None and depths[node] == fold):
            x[node] = next_leaf[0]
            next_leaf[0] += 1
        else:
            x[node] = (place(int(tree.left[node])) + place(int(tree.right[node]))) / 2
        return x[node]

    place(0)
    n_leaves = next_leaf[0]
    width = max(n_leaves - 1, 1)
    height = max(int(depths[~np.isnan(x)].max()), 1)
    y = np.where(np.isnan(x), np.nan, 1 - depths / height)
    return np.column_stack([x / width if n_leaves > 1 else x + 0.5, y])


def figure_size(n_leaves: int, depth: int) -> tuple[float, float]:
    """Inches for a drawing ``n_leaves`` boxes wide and ``depth`` edges deep, within
    ``MAX_FIGURE_INCHES``."""
    return (min(MAX_FIGURE_INCHES[0], max(4.0, 1.6 * n_leaves)),
            min(MAX_FIGURE_INCHES[1], 1.2 * (depth + 2)))


def _subtree_size(tree, node: int) -> int:
    stack, size = [node], 0
    while stack:
        at = stack.pop()
        size += 1
        if not tree.is_leaf[at]:
            stack.extend((int(tree.left[at]), int(tree.right[at])))
    return size


def plot_tree(model, *, ax=None, feature_names=None, class_names=None, fontsize: int = 9,
              title: bool = True, max_depth: int | None = None):
    """Draw the tree on ``ax`` (a new figure when None) and return the axes.

    max_depth : draw the tests down to this depth and fold each deeper subtree into one box;
        None folds only a tree with more than ``MAX_DRAWN_LEAVES`` leaves (``fold_depth``)
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_tree needs matplotlib: pip install occamlearn[plot]") from exc
    view = tree_view(model, feature_names, class_names)
    tree = view.tree
    fold = fold_depth(tree) if max_depth is None else max_depth
    if fold is not None and fold >= tree.depth:
        fold = None
    if ax is None:
        shown_depth = tree.depth if fold is None else fold
        n_boxes = tree.n_leaves if fold is None else _drawn_leaves(tree, fold)
        _, ax = plt.subplots(figsize=figure_size(n_boxes, shown_depth), layout="constrained")
    xy = node_positions(tree, fold)
    depths = tree.node_depths()
    box = {"boxstyle": "round", "fc": "white", "ec": "0.3"}
    leaf_box = {"boxstyle": "round", "fc": "0.92", "ec": "0.3"}
    folded_box = {"boxstyle": "round", "fc": "0.8", "ec": "0.5", "ls": "--"}
    for node in range(tree.n_nodes):
        if np.isnan(xy[node, 0]):
            continue
        if tree.is_leaf[node]:
            ax.text(*xy[node], f"class: {view.class_names[int(tree.label[node])]}",
                    ha="center", va="center", fontsize=fontsize, bbox=leaf_box)
            continue
        if fold is not None and depths[node] == fold:
            ax.text(*xy[node], f"... {_subtree_size(tree, node)} nodes", ha="center",
                    va="center", fontsize=fontsize, bbox=folded_box)
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
        heading = summary_line(view)
        if fold is not None:
            heading += f"\n(drawn to depth {fold}; export_text prints every node)"
        ax.set_title(heading, fontsize=fontsize + 1)
    return ax


def plot_trace(model, *, ax=None):
    """The anytime curve of a fitted tree model: the best tree's size (minimum trees) or
    training errors (DT(max)) against seconds, from ``solve_stats["trace"]``, with the proven
    lower bound (its own curve when the search recorded one, else the final bound). Returns
    the axes."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_trace needs matplotlib: pip install occamlearn[plot]") from exc
    record = as_record(model)
    if not record.is_tree:
        raise TypeError(f"expected a fitted tree model; got a {record.estimator}")
    stats = record.solve_stats
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5), layout="constrained")
    errors = MODELS[record.estimator][2]  # DT(max) optimises errors, not size
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
        lower = record.errors_lower_bound if errors else record.lower_bound
        if lower is not None:
            ax.axhline(lower, linestyle="--", color="0.4", label=f"lower bound {lower}")
    ax.set_xlabel("seconds")
    ax.set_ylabel(what)
    ax.set_title(f"{record.estimator}: status {record.status}")
    ax.legend()
    return ax
