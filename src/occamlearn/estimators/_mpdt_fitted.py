"""What a ``MinimumPureTreeClassifier`` fit writes, in one place.

``set_prepared`` writes what is known once the table is read and binarised (classes, the
binariser, the rows set aside as conflicts, with the warning the default ``on_conflict``
owes the user); ``set_fitted`` turns the search's ``MinimumTreeResult`` into the fitted
``tree_`` over every row passed to ``fit``, with its errors, status, bounds and the fit's
traces. The estimator's own module then holds only its parameters and the order of the
steps of ``fit``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from occamlearn.estimators._base import leaf_weights, restriction_of
from occamlearn.estimators._record import fit_date
from occamlearn.model.tree import Tree
from occamlearn.stopping import ProgressSink

if TYPE_CHECKING:
    from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["set_fitted", "set_prepared"]


def set_prepared(estimator, data) -> None:
    """The attributes ``data`` (``_base.prepare_training_data``) decides, and a
    ``UserWarning`` naming the rows the default ``on_conflict="auto"`` set aside."""
    estimator.classes_ = data.classes
    estimator.binarizer_ = data.binarizer
    estimator.optimal_over_ = restriction_of(data.binarizer)
    estimator.fitted_at_ = fit_date()
    estimator.feature_names_ = data.feature_names
    estimator.conflict_rows_ = data.conflict_rows
    estimator.n_conflicts_removed_ = len(data.conflict_rows)
    if len(data.conflict_rows) and estimator.on_conflict == "auto":
        shown = ", ".join(str(int(r)) for r in data.conflict_rows[:10])
        more = "" if len(data.conflict_rows) <= 10 else f", ... ({len(data.conflict_rows)})"
        warnings.warn(
            f"{len(data.conflict_rows)} training row(s) share their binarised features "
            f"with rows of another label and were set aside (0-based rows {shown}{more}; "
            "the default on_conflict='auto' keeps each group's majority label): the tree "
            "is pure "
            "on the other rows, and training_errors_ counts these. Pass "
            "on_conflict='error' to refuse such data, or 'relax' to keep every row.",
            UserWarning, stacklevel=4)


def set_fitted(estimator, result: MinimumTreeResult, data, progress: ProgressSink) -> None:
    """``tree_`` and what is said of it: the search's tree with leaf counts over every
    training row, its training errors, status, proven bounds and ``solve_stats_``."""
    tree = result.tree
    blank = np.zeros((tree.n_nodes, len(data.classes)), dtype=np.int64)
    # leaf counts over every training row: the rows the majority filter set aside fall in
    # some leaf too, so predict_proba reports them (see FittedTreeMixin.predict_proba)
    estimator.tree_ = Tree(tree.feature, tree.left, tree.right, tree.label, blank,
                           tree.n_features, tuple(str(n) for n in estimator.feature_names_)
                           ).with_counts(data.all_X_bin, data.all_y)
    fitted = estimator.tree_
    estimator.leaf_weights_ = leaf_weights(fitted, data.all_X_bin, data.all_y,
                                           data.all_weight)
    estimator.n_nodes_ = fitted.n_nodes
    estimator.depth_ = fitted.depth
    # every row passed to fit counts, also those the majority filter set aside; without
    # weights they are the leaves' counts of the other classes (no second walk of the rows)
    if data.all_weight is None:
        leaves = fitted.is_leaf
        counts = fitted.counts[leaves]
        estimator.training_errors_ = int(counts.sum()
                                         - counts[np.arange(len(counts)),
                                                  fitted.label[leaves]].sum())
    else:
        wrong = fitted.predict(data.all_X_bin) != data.all_y
        estimator.training_errors_ = float(data.all_weight[wrong].sum())
    estimator.status_ = result.status
    estimator.lower_bound_ = int(result.lower_bound)
    estimator.upper_bound_ = int(result.upper_bound)
    stats = dict(result.stats)
    stats["trace"] = [(float(s), int(n)) for s, n in progress.improvements()]
    stats["bound_trace"] = [(float(s), None if u is None else int(u), int(lb))
                            for s, u, lb in progress.trace]
    stats["n_rows"], stats["n_binary_features"] = data.X_bin.shape
    estimator.solve_stats_ = stats
