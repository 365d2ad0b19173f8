"""``MaxAccuracyTreeClassifier``'s size-error trade-off: ``max_leaves`` fits and the whole path.

``size_error_path(X, y)`` is the exact analogue of scikit-learn's
``cost_complexity_pruning_path``: for L = 1, 2, ... leaves, the fewest weighted training
errors of any tree with at most L leaves (``trees.frontier``: the error-budget branch and
bound walked down the staircase, or ``trees.frontier_depth`` under a depth bound), each point certified
or bounded, with a fitted model per point. ``SizeErrorPath.select`` picks a point on held-out
data -- the role ``ccp_alpha`` plays for pruned CART and Algorithm 3 of Alós, Ansótegui and
Torres plays for minimum trees: the best validation accuracy, ties to fewer leaves.
A fit with ``max_leaves`` is the path's last point, so the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from occamlearn.estimators._base import (
    binarizer_to_fit,
    leaf_weights,
    no_limit_as_none,
    prepare_training_data,
)
from occamlearn.estimators._record import fit_date
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.frontier import size_error_frontier

__all__ = ["SizeErrorPath", "fit_max_leaves", "size_error_path"]


@dataclass(frozen=True)
class SizeErrorPath:
    """The size-error curve of one training set (``MaxAccuracyTreeClassifier.size_error_path``).

    n_leaves : (L,) 1, 2, ..., L
    errors : (L,) fewest weighted training errors found with at most ``n_leaves[i]`` leaves
        (the minimum where ``proven``)
    errors_lower_bound : (L,) proven lower bound on that minimum
    proven : (L,) bool, certified points (``errors == errors_lower_bound``)
    models : (L,) fitted ``MaxAccuracyTreeClassifier`` per point (one object per distinct
        tree: a point whose errors do not drop repeats the previous model); each predicts,
        prints and exports like any fitted model, with ``max_leaves`` its own leaf count
    status : "optimal" when every point is proven, else "feasible" (time limit)
    """

    n_leaves: np.ndarray
    errors: np.ndarray
    errors_lower_bound: np.ndarray
    proven: np.ndarray
    models: tuple
    status: str

    def __len__(self) -> int:
        return len(self.n_leaves)

    def distinct(self) -> list[int]:
        """Indices of the points where the errors strictly drop (one per distinct model)."""
        return [i for i in range(len(self)) if i == 0 or self.models[i] is not self.models[i - 1]]

    def validation_accuracy(self, X_val, y_val, sample_weight=None) -> np.ndarray:
        """(L,) weighted accuracy of each point's model on (X_val, y_val)."""
        y_val = np.asarray(y_val)
        weight = (np.ones(len(y_val)) if sample_weight is None
                  else np.asarray(sample_weight, dtype=np.float64))
        if weight.shape != y_val.shape:
            raise ValueError(f"sample_weight has {weight.size} entries; y_val has "
                             f"{y_val.size}.")
        if not weight.sum() > 0:
            raise ValueError("the validation weights sum to 0: no accuracy to compare.")
        scores, seen = np.empty(len(self)), {}
        for i, model in enumerate(self.models):
            if id(model) not in seen:
                right = model.predict(X_val) == y_val
                seen[id(model)] = float(weight[right].sum() / weight.sum())
            scores[i] = seen[id(model)]
        return scores

    def select(self, X_val, y_val, sample_weight=None):
        """The model with the best accuracy on the validation rows; ties go to fewer leaves.
        Returns the fitted model, with ``validation_accuracy_`` set."""
        scores = self.validation_accuracy(X_val, y_val, sample_weight)
        model = self.models[int(np.argmax(scores))]  # argmax: the first, fewest leaves
        model.validation_accuracy_ = float(scores.max())
        return model

    def plot(self, *, ax=None, X_val=None, y_val=None):
        """Draw the curve with matplotlib (``export.size_error.plot_size_error_path``)."""
        from occamlearn.export.size_error import plot_size_error_path

        return plot_size_error_path(self, ax=ax, X_val=X_val, y_val=y_val)


def _check_route(estimator) -> None:
    if estimator.method != "auto":
        raise ValueError(f"max_leaves and size_error_path use their own exact search; "
                         f"method must be 'auto' there. Got method={estimator.method!r}.")


def _training_frontier(estimator, X, y, sample_weight, max_leaves, deadline):
    data = prepare_training_data(estimator, X, y, binarizer=binarizer_to_fit(
        estimator.binarizer), on_conflict="relax", sample_weight=sample_weight,
        class_weight=estimator.class_weight)
    frontier = size_error_frontier(data.X_bin, data.y, len(data.classes),
                                   max_leaves=max_leaves, max_depth=estimator.max_depth,
                                   sample_weight=data.weight, deadline=deadline)
    return data, frontier


def _set_fitted(estimator, data, tree, status, errors, lower, stats) -> None:
    """The fitted attributes of ``MaxAccuracyTreeClassifier`` for ``tree`` (as ``fit``)."""
    estimator.classes_, estimator.binarizer_ = data.classes, data.binarizer
    estimator.fitted_at_ = fit_date()
    estimator.feature_names_ = data.feature_names
    names = tuple(str(n) for n in data.feature_names)
    estimator.tree_ = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                           tree.n_features, names)
    estimator.leaf_weights_ = leaf_weights(estimator.tree_, data.X_bin, data.y, data.weight)
    estimator.n_nodes_, estimator.depth_ = estimator.tree_.n_nodes, estimator.tree_.depth
    estimator.status_ = status
    estimator.training_errors_ = errors.item() if hasattr(errors, "item") else errors
    estimator.errors_lower_bound_ = lower.item() if hasattr(lower, "item") else lower
    estimator.lower_bound_ = estimator.upper_bound_ = None
    estimator.solve_stats_ = stats


def _status(frontier, index: int) -> str:
    """"optimal" when the point's fewest errors are proven and so is that fewer leaves
    than its tree has make more errors (the tree is the smallest of the most accurate)."""
    leaves = frontier.trees[index].n_leaves
    smallest = leaves == 1 or frontier.lower[leaves - 2] > frontier.errors[index]
    return "optimal" if frontier.proven[index] and smallest else "feasible"


def _stats(frontier, data, deadline) -> dict:
    stats = dict(frontier.stats, route="size-error frontier")
    stats["n_rows"], stats["n_binary_features"] = data.X_bin.shape
    stats["trace"] = []
    stats["total_seconds"] = deadline.elapsed()
    return stats


def fit_max_leaves(estimator, X, y, sample_weight, deadline: Deadline):
    """``fit`` with ``max_leaves``: the fewest weighted errors over trees with at most
    ``max_leaves`` leaves (and depth <= ``max_depth`` when given), the smallest such tree."""
    _check_route(estimator)
    data, frontier = _training_frontier(estimator, X, y, sample_weight,
                                        estimator.max_leaves, deadline)
    _set_fitted(estimator, data, frontier.trees[-1], _status(frontier, -1), frontier.errors[-1],
                frontier.lower[-1], _stats(frontier, data, deadline))
    if frontier.stats.get("interrupted"):  # Ctrl-C: the best tree is kept, raise again
        raise KeyboardInterrupt
    return estimator


def size_error_path(estimator, X, y, sample_weight=None) -> SizeErrorPath:
    """``MaxAccuracyTreeClassifier.size_error_path``: see ``SizeErrorPath``. Uses the
    estimator's parameters (``max_leaves`` caps the path, ``max_depth`` bounds the depth,
    ``time_limit`` the whole computation); the estimator itself stays unfitted."""
    estimator._validate_params()
    _check_route(estimator)
    work = clone(estimator)  # reads the data (n_features_in_...); the estimator stays unfitted
    deadline = Deadline.after(no_limit_as_none(work.time_limit))
    data, frontier = _training_frontier(work, X, y, sample_weight, work.max_leaves, deadline)
    stats = _stats(frontier, data, deadline)
    models, made = [], {}
    for i, tree in enumerate(frontier.trees):
        if id(tree) not in made:
            model = clone(work).set_params(max_leaves=tree.n_leaves)
            for name in ("n_features_in_", "feature_names_in_"):
                if hasattr(work, name):
                    setattr(model, name, getattr(work, name))
            _set_fitted(model, data, tree, _status(frontier, i), frontier.errors[i],
                        frontier.lower[i],
                        dict(stats))
            made[id(tree)] = model
        models.append(made[id(tree)])
    return SizeErrorPath(frontier.n_leaves, frontier.errors, frontier.lower,
                         frontier.proven, tuple(models), frontier.status)
