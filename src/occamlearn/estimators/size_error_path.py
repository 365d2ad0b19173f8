"""``MaxAccuracyTreeClassifier``'s size-error trade-off: ``max_leaves`` fits and the whole path.

``size_error_path(X, y)`` is the exact analogue of scikit-learn's ``cost_complexity_pruning_path``:
for L = 1, 2, ... leaves, the fewest weighted training errors of any tree with at most L leaves over
every threshold of the table as given (or a binariser's features: ``_dtmax_columns``), each point
certified or bounded (``trees.dtmax.entry.find_size_error_curve``), with a fitted model per point.
``SizeErrorPath.select`` picks a point on held-out data -- the role ``ccp_alpha`` plays for pruned
CART and Algorithm 3 of Alós, Ansótegui and Torres plays for minimum trees: the best validation
accuracy, ties to fewer leaves. A fit with ``max_leaves`` is the path's last point (the same curve,
through ``fit``'s one entry point), so the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from occamlearn.estimators._base import no_limit_as_none
from occamlearn.estimators._dtmax_columns import table_columns
from occamlearn.estimators._dtmax_fitted import set_fitted
from occamlearn.estimators._process_exit import freeze_collector_at_exit
from occamlearn.stopping import Deadline

__all__ = ["SizeErrorPath", "size_error_path"]


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


def size_error_path(estimator, X, y, sample_weight=None) -> SizeErrorPath:
    """``MaxAccuracyTreeClassifier.size_error_path``: see ``SizeErrorPath``. Uses the
    estimator's parameters (``max_leaves`` caps the path, ``max_depth`` bounds the depth,
    ``time_limit`` the whole computation); the estimator itself stays unfitted."""
    estimator._validate_params()
    if estimator.method == "maxsat":
        raise ValueError("max_leaves and size_error_path use their own exact search; method "
                         "must be 'auto' there. Got method='maxsat'.")
    work = clone(estimator)  # reads the data (n_features_in_...); the estimator stays unfitted
    deadline = Deadline.for_fit(no_limit_as_none(work.time_limit))
    freeze_collector_at_exit()  # the process's exit skips the collector
    # the engine (and scikit-learn's trees it imports) is imported here, under the deadline
    from occamlearn.trees.dtmax.entry import find_size_error_curve

    columns = table_columns(work, X, y, sample_weight, work.class_weight, deadline)
    curve = find_size_error_curve(columns.data, max_leaves=work.max_leaves,
                                  max_depth=work.max_depth, deadline=deadline)
    models, made = [], {}
    for i, tree in enumerate(curve.trees):
        if id(tree) not in made:
            model = clone(work).set_params(max_leaves=_leaves(tree))
            for name in ("n_features_in_", "feature_names_in_"):
                if hasattr(work, name):
                    setattr(model, name, getattr(work, name))
            set_fitted(model, columns, curve.point(i), None, deadline)
            made[id(tree)] = model
        models.append(made[id(tree)])
    errors, lower = curve.errors, curve.lower
    if columns.weight is None:                       # row counts
        errors, lower = errors.round().astype(np.int64), lower.round().astype(np.int64)
    return SizeErrorPath(np.arange(1, len(errors) + 1), errors, lower, curve.proven,
                         tuple(models), curve.status)


def _leaves(tree: tuple) -> int:
    return 1 if tree[0] == "leaf" else _leaves(tree[3]) + _leaves(tree[4])
