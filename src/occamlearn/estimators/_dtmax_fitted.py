"""What a ``MaxAccuracyTreeClassifier`` fit writes, in one place, and what it reports meanwhile.

``fit``, a ``max_leaves`` fit and every model of ``size_error_path`` end in ``set_fitted``:
the search's tree (``trees.dtmax.result.DtmaxResult``) over the table's columns
(``_dtmax_columns``) becomes the fitted ``tree_`` with its binariser, counts, weights and
status. ``search_progress`` is the fit's progress sink, which names a reported tree only when
someone looks (``verbose`` or ``callback``).
"""

from __future__ import annotations

import numpy as np

from occamlearn.estimators._base import leaf_weights
from occamlearn.estimators._dtmax_columns import TableColumns, tree_of
from occamlearn.estimators._progress import UserProgress, fit_progress
from occamlearn.estimators._record import fit_date
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax.result import DtmaxResult

__all__ = ["search_progress", "set_fitted"]


def _errors_text(estimator, columns: TableColumns):
    bound = f"depth <= {estimator.max_depth}" if estimator.max_leaves is None else (
        f"at most {estimator.max_leaves} leaves")
    weighted = "weighted " if columns.weight is not None else ""
    return lambda tree, errors: f"{bound} tree with {errors:g} {weighted}training errors"


def search_progress(estimator, columns: TableColumns) -> ProgressSink:
    """The fit's sink: the searches report nested trees over ``columns``; the user's
    ``callback`` and ``verbose`` see them as ``Tree`` objects over the conditions."""
    user = UserProgress(estimator, (), _errors_text(estimator, columns))
    wanted = estimator.verbose or estimator.callback is not None

    def named(upper, lower, seconds, model):
        tree = None
        if model is not None and upper is not None:
            tree, _, names, _ = tree_of(model, columns, matrix=False)
            user.feature_names = names
        user(upper, lower, seconds, tree)

    progress = fit_progress(user, lower=0)
    progress.callback = named if wanted else None
    return progress


def _number(value: float, weighted: bool) -> int | float:
    """Errors as the user reads them: a row count without weights, a total weight with."""
    return float(value) if weighted else int(round(value))


def _traces(trace) -> dict:
    """The sink's (seconds, upper, lower) as ``trace`` (seconds, errors) at each better tree
    and ``bound_trace`` (seconds, lower bound) at each rise of the bound."""
    best, bound, errors, bounds = None, None, [], []
    for seconds, upper, lower in trace:
        if upper is not None and upper != best:
            best = upper
            errors.append((float(seconds), float(upper)))
        if lower is not None and lower != bound:
            bound = lower
            bounds.append((float(seconds), float(lower)))
    return {"trace": errors, "bound_trace": bounds}


def _misclassified(tree) -> int:
    """Training rows the tree misclassifies, from its counts (rows of each class at each
    node): at each leaf, its rows not of its label."""
    leaves = np.flatnonzero(tree.is_leaf)
    counts = tree.counts[leaves]
    return int(counts.sum() - counts[np.arange(len(leaves)), tree.label[leaves]].sum())


def set_fitted(estimator, columns: TableColumns, result: DtmaxResult,
               progress: ProgressSink | None, deadline: Deadline) -> None:
    """Every fitted attribute of ``estimator`` from ``result`` (the one place they are
    written). ``training_errors_`` is the weighted error (a row count unweighted);
    ``solve_stats_["misclassified_rows"]`` counts the rows, ``optimal_over_`` says what an
    optimum is over when that is less than every threshold and category of the table
    (None otherwise; ``solve_stats_["optimal_over"]`` says it either way) and
    ``solve_stats_["unproven"]`` what a "feasible" status leaves open."""
    tree, fitted, names, X_bin = tree_of(result.tree, columns)
    y, weight = columns.data.y, columns.weight
    estimator.classes_, estimator.binarizer_ = columns.classes, fitted
    estimator.fitted_at_ = fit_date()
    estimator.feature_names_ = np.asarray(names, dtype=object)
    estimator.tree_ = tree.with_counts(X_bin, y)
    estimator.leaf_weights_ = leaf_weights(estimator.tree_, X_bin, y, weight)
    estimator.n_nodes_, estimator.depth_ = estimator.tree_.n_nodes, estimator.tree_.depth
    estimator.status_ = result.status
    weighted = weight is not None
    estimator.training_errors_ = _number(result.errors, weighted)
    estimator.errors_lower_bound_ = _number(result.errors_lower_bound, weighted)
    estimator.lower_bound_ = estimator.upper_bound_ = None
    over = "; ".join(part for part in (columns.over, result.optimal_over) if part) or None
    estimator.optimal_over_ = over
    stats = dict(result.stats, optimal_over=over or "every threshold", unproven=result.unproven,
                 misclassified_rows=_misclassified(estimator.tree_),
                 n_rows=columns.data.n_rows, n_features=columns.data.n_features,
                 n_thresholds=columns.data.n_thresholds,
                 n_binary_features=(columns.data.n_thresholds if columns.X_bin is None
                                    else columns.X_bin.shape[1]),
                 total_seconds=deadline.elapsed())
    if progress is not None:
        stats.update(_traces(progress.trace))
    estimator.solve_stats_ = stats
