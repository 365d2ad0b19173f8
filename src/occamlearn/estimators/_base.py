"""Input handling shared by occamlearn's estimators: one door for tables, labels and binarising.

Every estimator here learns over *binary* features. ``prepare_training_data`` takes what the
user passed to ``fit`` (a DataFrame, an array, text labels) and returns the binary matrix, the
labels as class indices and what was learned on the way (label encoding, fitted binariser,
binary feature names, rows dropped for conflicts); ``binary_matrix`` does the same for
``predict``. Conflicts -- identical *binary* feature vectors with different labels -- are found
on the binarised matrix, because continuous columns binned together can collide even when
the raw rows differ. Weights have one definition here too: ``row_weights`` is scikit-learn's
``sample_weight`` times ``class_weight``, and rows of weight 0 leave before anything is learnt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    has_fit_parameter,
)

from occamlearn.binarize import (
    FeatureBinarizer,
    QuantileBinarizer,
    ThresholdBinarizer,
    conflict_message,
    find_conflicts,
    kept_rows,
)
from occamlearn.estimators._display import ModelDisplayMixin
from occamlearn.estimators._inputs import (
    check_binary_matrix,
    encode_labels,
    is_dataframe,
    validate_table,
)
from occamlearn.maxsat.solvers import SAT_SOLVERS

__all__ = [
    "BINARIZERS",
    "CLASS_WEIGHT",
    "DEFAULT_TIME_LIMIT",
    "ENCODINGS",
    "ON_CONFLICT",
    "SAT_SOLVERS",
    "FittedTreeMixin",
    "TrainingData",
    "binarizer_to_fit",
    "binary_matrix",
    "leaf_weights",
    "no_limit_as_none",
    "prepare_training_data",
    "resolve_n_jobs",
    "binarizer_within",
    "restriction_of",
    "row_weights",
    "table_input_tags",
]

ON_CONFLICT = ("error", "majority", "relax")
# Seconds a search may take unless told otherwise, in Python and on the command line alike
# (``occamlearn fit --time-limit``): long enough to prove the bundled benchmarks' minima,
# short enough that noisy data never runs for an hour unasked. ``time_limit=None`` or ``0``
# means no limit, in both.
DEFAULT_TIME_LIMIT = 60.0
# ``class_weight`` as scikit-learn's classifiers take it (``row_weights`` applies it).
CLASS_WEIGHT = [dict, StrOptions({"balanced"}), None]
# The strings a tree estimator's ``binarizer="..."`` accepts: ``"readable"`` (the default,
# ``ThresholdBinarizer()``) and the ``FeatureBinarizer(encoding=...)`` encodings.
ENCODINGS = ("readable", "binary", "onehot", "threshold")


# What a ``binarizer="..."`` string builds; the tree estimators accept ``ENCODINGS`` only.
BINARIZERS = {
    "readable": lambda: ThresholdBinarizer(),
    "binary": lambda: FeatureBinarizer(encoding="binary"),
    "onehot": lambda: FeatureBinarizer(encoding="onehot"),
    "threshold": lambda: FeatureBinarizer(encoding="threshold"),
    "quantile": lambda: QuantileBinarizer(),
}


def no_limit_as_none(time_limit: float | None) -> float | None:
    """``time_limit`` for ``stopping.Deadline.for_fit``: ``None`` and ``0`` both mean no limit
    (as ``--time-limit 0`` does on the command line)."""
    return None if time_limit is None or time_limit == 0 else time_limit


def resolve_n_jobs(n_jobs: int | None) -> int:
    """Processes ``n_jobs`` asks for, as scikit-learn reads it: None is 1 (or the active
    ``joblib.parallel_backend``'s count), -1 all cores, -2 all but one, ..."""
    if n_jobs == 0:
        raise ValueError("n_jobs=0 asks for no process at all: use None or 1 (one process), "
                         "a positive count, or -1 (all cores)")
    from joblib import effective_n_jobs

    return int(effective_n_jobs(n_jobs))


def binarizer_to_fit(binarizer):
    """The transformer a ``binarizer`` parameter names: a string is a key of ``BINARIZERS``,
    a transformer is used as given (cloned at fit), None means 0/1 input."""
    if isinstance(binarizer, str):
        return BINARIZERS[binarizer]()
    return binarizer


@dataclass
class TrainingData:
    """What ``prepare_training_data`` learned: binary matrix, class indices and provenance.

    ``X_bin`` and ``y`` hold only the kept rows; ``kept_rows`` are their indices in the input
    and ``conflict_rows`` the indices of the rows the majority filter removed. ``all_X_bin``
    and ``all_y`` hold every row (what training errors are counted on). With weights
    (``sample_weight`` or ``class_weight``) ``weight`` / ``all_weight`` are those rows'
    weights, and rows of weight 0 are in none of these, as if they had not been passed
    (``kept_rows`` and ``conflict_rows`` still count positions in the input); without
    weights both are None.
    """

    X_bin: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    binarizer: object
    feature_names: np.ndarray
    kept_rows: np.ndarray
    conflict_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    all_X_bin: np.ndarray | None = None
    all_y: np.ndarray | None = None
    weight: np.ndarray | None = None
    all_weight: np.ndarray | None = None

    def __post_init__(self):
        if self.all_X_bin is None:
            self.all_X_bin, self.all_y = self.X_bin, self.y
        if self.all_weight is None:
            self.all_weight = self.weight


def _binary_feature_names(binarizer, estimator, n_columns: int) -> np.ndarray:
    if binarizer is not None and hasattr(binarizer, "get_feature_names_out"):
        return np.asarray(binarizer.get_feature_names_out(), dtype=object)
    if hasattr(estimator, "feature_names_in_"):
        return np.asarray(estimator.feature_names_in_, dtype=object)
    return np.asarray([f"x{j}" for j in range(n_columns)], dtype=object)


def row_weights(X, y, sample_weight=None, class_weight=None) -> np.ndarray | None:
    """Each row's weight as scikit-learn defines it, or None when neither is given.

    ``sample_weight`` is checked by scikit-learn's ``_check_sample_weight`` (one finite,
    non-negative number per row, not all zero); ``class_weight`` (``"balanced"`` or a dict
    ``{label: weight}``) becomes per-row weights by ``compute_sample_weight`` over all rows
    passed, and the two multiply. The one definition every estimator uses.
    """
    if sample_weight is None and class_weight is None:
        return None
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                  ensure_non_negative=True)
    if class_weight is not None:
        weight = weight * compute_sample_weight(class_weight, y)
    if not weight.any():
        raise ValueError("sample_weight (times class_weight) is zero for every row: no row is "
                         "left to learn from.")
    return weight


def leaf_weights(tree, X_bin: np.ndarray, y: np.ndarray, weight: np.ndarray | None):
    """(n_nodes, n_classes) total weight of the rows of each class reaching each leaf
    (0 at decision nodes), or None without weights: the estimators' ``leaf_weights_``."""
    if weight is None:
        return None
    totals = np.zeros((tree.n_nodes, tree.n_classes))
    np.add.at(totals, (tree.apply(X_bin), y), weight)
    return totals


def _take_rows(X, rows: np.ndarray):
    return X.iloc[rows] if is_dataframe(X) else X[rows]


def prepare_training_data(estimator, X, y, *, binarizer, on_conflict: str,
                          sample_weight=None, class_weight=None,
                          binarize_with_labels: bool = False,
                          fresh_binarizer: bool = False, deadline=None) -> TrainingData:
    """Validate ``X, y``, encode labels, fit a clone of ``binarizer`` and handle conflicts.

    ``binarizer=None`` means ``X`` is already 0/1 (anything else is a ValueError naming the
    column). ``on_conflict`` is ``"error"`` (ValueError listing the conflicting rows),
    ``"majority"`` (the paper's filter, keeping each group's label of largest total weight;
    removed rows are reported in ``conflict_rows``) or ``"relax"`` (all rows kept: the
    learner itself pays for the conflicts in training errors). ``sample_weight`` and
    ``class_weight`` as ``row_weights``; rows of weight 0 are dropped before anything is
    learnt (also before the binariser is fitted), exactly as if they had not been passed.
    ``binarize_with_labels`` fits the binariser with the labels (and the weights, where its
    ``fit`` takes them): ``ThresholdBinarizer`` then keeps every cut a tree can need, so a
    tree search over its features is exact over every threshold (``binarize.cut_points``).
    ``fresh_binarizer``: ``binarizer`` was made for this fit alone, so it is fitted itself
    instead of a clone (what a clone would be: nothing else holds it). ``deadline`` (the
    fit's, or None): a ``ThresholdBinarizer`` gets ``BINARISING_SHARE`` of the time it leaves
    as its own ``time_limit`` (unless it has a shorter one), so that a table too wide to
    read in time is read in part, and says so (``restriction()``), leaving the search time.
    """
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target "
                         "y is None.")
    X, y = validate_table(estimator, X, y, reset=True)
    weight = row_weights(X, y, sample_weight, class_weight)
    positions = np.arange(len(y))
    if weight is not None and not weight.all():
        positions = np.flatnonzero(weight)
        X, y, weight = _take_rows(X, positions), y[positions], weight[positions]
    classes, y_index = encode_labels(y)
    if binarizer is None:
        fitted = None
        X_bin = check_binary_matrix(X, getattr(estimator, "feature_names_in_", None))
    else:
        fitted = binarizer_within(binarizer if fresh_binarizer else clone(binarizer), deadline)
        X_bin = np.asarray(_fit_binarizer(fitted, X, y_index if binarize_with_labels else None,
                                          weight), dtype=np.uint8)
    feature_names = _binary_feature_names(fitted, estimator, X_bin.shape[1])
    all_rows = positions
    if on_conflict == "majority":  # rows grouped once: no conflict is "every row kept"
        keep = kept_rows(X_bin, y_index, "majority", weight)
        if keep is None or keep.all():
            return TrainingData(X_bin, y_index, classes, fitted, feature_names, all_rows,
                                weight=weight)
        return TrainingData(X_bin[keep], y_index[keep], classes, fitted, feature_names,
                            all_rows[keep], all_rows[~keep], X_bin, y_index,
                            None if weight is None else weight[keep], weight)
    groups = None if on_conflict == "relax" else find_conflicts(X_bin, y_index)
    if not groups:
        return TrainingData(X_bin, y_index, classes, fitted, feature_names, all_rows,
                            weight=weight)
    if on_conflict == "error":
        index = X.index if is_dataframe(X) else positions
        raise ValueError(
            "no pure tree exists: " + conflict_message(groups, y, index=index, limit=5)
            + "; pass on_conflict='majority' to apply that filter, or on_conflict='relax' to "
            "keep every row and allow only the errors they force"
        )
    raise ValueError(f"on_conflict must be one of {ON_CONFLICT}; got {on_conflict!r}.")


# The part of the time a fit's deadline leaves that its readable binariser may take.
BINARISING_SHARE = 0.5


def binarizer_within(binarizer, deadline, share: float = BINARISING_SHARE):
    """``binarizer`` with ``share`` of ``deadline``'s time left as its ``time_limit`` when
    it is a ``ThresholdBinarizer`` without a shorter one."""
    from occamlearn.binarize import ThresholdBinarizer

    if deadline is None or deadline.at is None or not isinstance(binarizer, ThresholdBinarizer):
        return binarizer
    allowed = share * deadline.remaining()
    if binarizer.time_limit is None or binarizer.time_limit > allowed:
        binarizer.set_params(time_limit=allowed)
    return binarizer


def _fit_binarizer(binarizer, X, labels, weight):
    """``binarizer.fit_transform`` with the labels (None: without) and, if its ``fit`` takes
    them, the weights (``fit_transform`` is ``fit(...).transform(X)``, and the binarisers'
    own evaluates the columns ``fit`` already read)."""
    if labels is None:
        return binarizer.fit_transform(X)
    if weight is not None and has_fit_parameter(binarizer, "sample_weight"):
        return binarizer.fit_transform(X, labels, sample_weight=weight)
    return binarizer.fit_transform(X, labels)


def restriction_of(binarizer) -> str | None:
    """What a model over ``binarizer``'s features is optimal over, short of the data's
    thresholds and categories, in words (``BaseBinarizer.restriction``); None when nothing
    was left out or the binariser does not say."""
    restriction = getattr(binarizer, "restriction", None)
    return None if restriction is None else restriction()


def binary_matrix(estimator, X, features=None) -> np.ndarray:
    """Validate ``X`` against the fitted estimator and return its binary matrix: every
    binary feature, or only the columns ``features`` (indices), computed from the input
    columns they read alone when the binariser can (``transform_features``)."""
    X = validate_table(estimator, X, reset=False)
    binarizer = estimator.binarizer_
    if binarizer is None:
        matrix = check_binary_matrix(X, getattr(estimator, "feature_names_in_", None))
        return matrix if features is None else matrix[:, features]
    if features is not None and hasattr(binarizer, "transform_features"):
        return np.asarray(binarizer.transform_features(X, features), dtype=np.uint8)
    matrix = np.asarray(binarizer.transform(X), dtype=np.uint8)
    return matrix if features is None else matrix[:, features]


def _tested(estimator, X):
    """(the fitted tree over the features it tests, the binary matrix of those features):
    predicting costs what the tree tests, not every feature of the binariser."""
    tree = estimator.tree_
    used = np.unique(tree.feature[~tree.is_leaf])
    return tree.on_features(used), binary_matrix(estimator, X, used)


class FittedTreeMixin(ModelDisplayMixin):
    """Prediction and text export shared by the tree estimators (a fitted ``tree_`` over the
    binariser's features, ``classes_``); ``print``, notebook HTML and ``plot()`` come from
    ``ModelDisplayMixin``. Put it after ``ClassifierMixin`` and before ``BaseEstimator`` so
    that scikit-learn's tags chain through it."""

    def apply(self, X) -> np.ndarray:
        """Index in ``tree_`` of the leaf each row reaches."""
        check_is_fitted(self)
        tree, X_bin = _tested(self, X)
        return tree.apply(X_bin)

    def predict(self, X) -> np.ndarray:
        """The class of the leaf each row reaches; only the conditions the tree tests are
        evaluated."""
        check_is_fitted(self)
        tree, X_bin = _tested(self, X)
        return self.classes_[tree.predict(X_bin)]

    def predict_proba(self, X) -> np.ndarray:
        """Class frequencies of the training rows in each row's leaf (``tree_.counts``).

        The counts cover every row passed to ``fit``: for a minimum pure tree also the rows
        the majority filter set aside, which share their leaf with the rows of their
        conflict group it kept. ``predict`` is the leaf's class (the one printed); for a
        pure tree it always has the largest frequency in its leaf, since the filter keeps
        each group's majority label (on a tie, ``predict`` keeps the tree's class). After a
        weighted fit the frequencies are weighted (``leaf_weights_``), as the labels are.
        """
        check_is_fitted(self)
        tree, X_bin = _tested(self, X)
        weights = getattr(self, "leaf_weights_", None)
        if weights is None:
            return tree.predict_proba(X_bin)
        leaves = tree.apply(X_bin)
        reached = weights[leaves]
        totals = reached.sum(axis=1, keepdims=True)
        empty = totals[:, 0] == 0              # a leaf only weight-0 rows reached: its label
        reached[empty, self.tree_.label[leaves[empty]]] = 1.0
        totals[empty] = 1.0
        return reached / totals

    def export_text(self, **kwargs) -> str:
        """The fitted tree as text (see ``occamlearn.export.export_text``)."""
        from occamlearn.export.tree_text import export_text

        check_is_fitted(self)
        return export_text(self, **kwargs)

    def __sklearn_tags__(self):
        return table_input_tags(super().__sklearn_tags__())


def table_input_tags(tags):
    """scikit-learn's tags of an estimator that takes a table: categories, text and missing
    values are welcome (the binariser reads them)."""
    tags.input_tags.categorical = True
    tags.input_tags.string = True
    tags.input_tags.allow_nan = True
    return tags
