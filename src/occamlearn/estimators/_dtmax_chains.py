"""``MaxAccuracyTreeClassifier`` with its defaults on numeric tables: the readable binariser's
features, searched as ordered columns.

The default fit (readable binariser, ``prefer_small=True``) wants the most accurate tree over
the binariser's 0/1 features, then the smallest. On numeric columns that matrix is wide and
dense (32 cuts a column; each row has about half of a column's cuts set), which is what makes
the binary dynamic programme slow there: its pair counts cost rows x ones^2 per node
(5,000 x 30 numeric: no proof in 60 s). But the cuts of one column are *nested*: ``x >= t2``
implies ``x >= t1`` for t1 < t2. A column's cuts therefore hold exactly one number per row,
how many of them the row passes (its *code*), and the test "cut j" is the test
"code >= j". The ordered engine (``trees.dtmax.ordered``) searches every threshold of an
ordered column, so run on the codes it searches exactly the binariser's cuts (the partitions
of the rows it can make are those of the 0/1 matrix, column for column), and with
``prefer_small`` its lexicographic cost is the dynamic programme's (fewest errors, then fewest
tests). Its tree comes back over the binariser's own features, so the fitted model, its
printed thresholds and ``predict`` are those of the dynamic programme's route.

Chains are read off the 0/1 matrix, not off names: columns of one source column and one
operator, ordered by how many rows they hold, form a chain when each holds a subset of the
previous one's rows (checked on every row; and one value on missing rows: ``x >= t`` is
false there, ``x >= t or missing`` true); anything else -- a flag, a category, ``x is
missing`` -- is an ordered column with two values. So missing values (``x >= t`` and
``x >= t or missing`` are two chains) and categories need nothing special.

The engine's kernels are used once they are in numba's disk cache (``trees.kernel_cache``,
"dtmax-ordered"); until then the binary route answers and a background process builds it.
"""

from __future__ import annotations

import numpy as np

from occamlearn.binarize import ThresholdBinarizer
from occamlearn.estimators._base import TrainingData, leaf_weights
from occamlearn.estimators._progress import UserProgress, fit_progress, watching_interrupts
from occamlearn.estimators._record import fit_date
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.ordered import OrderedData, best_tree_on
from occamlearn.trees.dtmax.ordered.solve import EXACT_FLOAT, lexicographic_scale
from occamlearn.trees.weights import integer_weights

__all__ = ["UserUnits", "column_chains", "fit_readable_chains", "prefers_readable_chains"]

# Chains holding at least this many cuts (in total) keep the default fit here: below it the
# 0/1 matrix is narrow and the binary dynamic programme is as fast. Decided on the fitted
# binariser (rows of weight 0 dropped), so a zero weight stays a dropped row.
MIN_CUTS = 8
# Tables with at least as many 0/1 columns outside chains (flags, categories) as chains go
# to the dynamic programme unless rows x (ones per row)^2, which its pair counts cost per
# node, reaches ``DENSE_WORK``: measured at depth 3 on the bundled datasets (CPU s, ordered
# vs binary), back (5 chains, 49 flags) 0.42 vs 0.08 and hepa (6, 39) 0.24 vs 0.09, against
# wine (13, 0; rows x ones^2 = 7e6) 0.09 vs 2.05, append (7, 0) 0.07 vs 0.11.
DENSE_WORK = 4e6
ORDERED_KERNELS = "dtmax-ordered"  # its name in ``trees.kernel_cache``
# A fit that finds the ordered kernels not compiled yet compiles them itself when at least
# this many seconds are left (the default limit is 60 s): the binary route it would take
# instead ran the 5,000 x 30 default fit to its 60 s limit with a lower bound of 0 on a fresh
# install, where compiling first (about 22 s on an idle 2-core machine) proved it in 24.7 s.
# With less time left it takes the binary route and the kernels compile in the background
# for the next fit.
FOREGROUND_COMPILE_MIN_SECONDS = 30.0
_LOADED: list = []                 # [True] once loaded in this process


def column_chains(X_bin: np.ndarray, conditions) -> tuple[np.ndarray, tuple]:
    """(codes: rows x chains, float64; chains: per ordered column the 0/1 columns it stands
    for, the one with most rows first). Row r's code in a chain is how many of its columns
    hold r, so column ``chain[j - 1]`` holds r exactly when the code is >= j."""
    X_bin = np.asarray(X_bin)
    groups: dict = {}
    for j, condition in enumerate(conditions):
        key = tuple(getattr(condition, name, None) for name in ("column", "op", "missing"))
        groups.setdefault(key if key[0] is not None else ("", j), []).append(j)
    ones = X_bin.sum(axis=0, dtype=np.int64)
    chains, codes = [], []
    for members in groups.values():
        members = sorted(members, key=lambda j: -ones[j])
        block = X_bin[:, members].astype(bool)
        nested = len(members) > 1 and not np.any(block[:, 1:] & ~block[:, :-1])
        parts = [members] if nested else [[j] for j in members]
        for part in parts:
            chains.append(tuple(part))
            codes.append(X_bin[:, part].sum(axis=1))
    matrix = (np.column_stack(codes).astype(np.float64) if codes
              else np.zeros((X_bin.shape[0], 0)))
    return matrix, tuple(chains)


def prefers_readable_chains(estimator) -> bool:
    """``method="auto"`` with ``prefer_small`` and the readable binariser: try this route
    (``fit_readable_chains`` still hands narrow tables back to the dynamic programme)."""
    binarizer = estimator.binarizer
    if estimator.method != "auto" or not estimator.prefer_small:
        return False
    return binarizer == "readable" if isinstance(binarizer, str) \
        else isinstance(binarizer, ThresholdBinarizer)


class UserUnits:
    """Forwards the engine's reports to the fit's sink: errors in the caller's weight units
    (the engine counts integer-scaled weights), trees over the binary features."""

    def __init__(self, sink, weight_scale: int, as_tree):
        self.sink, self.weight_scale, self.as_tree = sink, weight_scale, as_tree

    def report(self, upper=None, lower=None, seconds: float = 0.0, model=None) -> None:
        scaled = (lambda v: None if v is None else v / self.weight_scale) \
            if self.weight_scale != 1 else (lambda v: v)
        tree = self.as_tree(model) if model is not None and upper is not None else None
        self.sink.report(scaled(upper), scaled(lower), seconds, tree)


def _binary_nested(nested, chains, values):
    """The engine's tree over (chain, rank) as a tree over the 0/1 columns."""
    if nested[0] == "leaf":
        return nested
    feature, rank = nested[1], nested[2]
    column = chains[feature][int(values[feature][rank]) - 1]
    return ("test", int(column), _binary_nested(nested[3], chains, values),
            _binary_nested(nested[4], chains, values))


def _chains_pay(X_bin: np.ndarray, chains: tuple) -> bool:
    """Whether the ordered engine is expected faster than the binary programme here (see
    ``MIN_CUTS`` and ``DENSE_WORK``)."""
    long = [chain for chain in chains if len(chain) > 1]
    if sum(map(len, long)) < MIN_CUTS:
        return False
    if len(chains) - len(long) < len(long):
        return True
    ones = float(np.asarray(X_bin).sum(dtype=np.int64)) / max(1, X_bin.shape[0])
    return X_bin.shape[0] * ones ** 2 >= DENSE_WORK


def _kernels_loaded(deadline: Deadline) -> bool:
    """The engine's kernels loaded from numba's disk cache, or compiled here when they are
    not there yet and ``FOREGROUND_COMPILE_MIN_SECONDS`` are left; with less, the background
    compile is started and False returned (the binary route answers this fit: compiling in
    the foreground would spend a short time limit on it)."""
    from occamlearn.trees import kernel_cache

    if _LOADED:
        return True
    if not kernel_cache.kernels_ready(ORDERED_KERNELS) \
            and deadline.remaining() < FOREGROUND_COMPILE_MIN_SECONDS:
        kernel_cache.start_background_compile(ORDERED_KERNELS)
        return False
    try:
        kernel_cache.load(ORDERED_KERNELS)
    except kernel_cache.KernelsUnavailable:
        return False
    _LOADED.append(True)
    return True


def fit_readable_chains(estimator, data: TrainingData, deadline: Deadline):
    """The default fit through the ordered engine, on ``data`` prepared as the dynamic
    programme's route prepares it; returns ``estimator`` fitted as that route fits it, or
    None (nothing set) when the binary route is expected faster (``_chains_pay``), the
    kernels are not compiled yet and too little time is left to compile them
    (``_kernels_loaded``), or the weights are too large for exact float costs (the
    caller then takes the binary route on ``data``)."""
    conditions = data.binarizer.conditions_
    if sum(getattr(c, "op", None) == ">=" for c in conditions) < MIN_CUTS:
        return None                      # no numeric cuts to chain: not worth a look
    X_bin, y_index, n_classes = data.X_bin, data.y, len(data.classes)
    weight, weight_scale = (None, 1) if data.weight is None else integer_weights(
        data.weight, len(y_index))
    unit = np.ones(len(y_index)) if weight is None else weight.astype(np.float64)
    if unit.sum() * lexicographic_scale(len(y_index), estimator.max_depth) >= EXACT_FLOAT:
        return None
    codes, chains = column_chains(X_bin, conditions)
    if not _chains_pay(X_bin, chains):
        return None
    if not _kernels_loaded(deadline):
        return None
    ordered = OrderedData.from_matrix(codes, y_index, n_classes, unit)
    names = tuple(str(n) for n in data.feature_names)
    n_features = X_bin.shape[1]

    def as_tree(nested):
        return Tree.from_nested(_binary_nested(nested, chains, ordered.values), n_features,
                                n_classes, names)

    user = UserProgress(estimator, names, lambda tree, errors: (
        f"depth <= {estimator.max_depth} tree with {errors:g} training errors"))
    progress = fit_progress(user, lower=0)
    with watching_interrupts(deadline, progress):
        result = best_tree_on(ordered, estimator.max_depth, deadline=deadline,
                              progress=UserUnits(progress, weight_scale, as_tree),
                              prefer_small=True)
    estimator.classes_, estimator.binarizer_ = data.classes, data.binarizer
    estimator.fitted_at_ = fit_date()
    estimator.feature_names_ = data.feature_names
    estimator.tree_ = as_tree(result.tree).with_counts(X_bin, y_index)
    estimator.leaf_weights_ = leaf_weights(estimator.tree_, X_bin, y_index, data.weight)
    estimator.n_nodes_, estimator.depth_ = estimator.tree_.n_nodes, estimator.tree_.depth
    estimator.status_ = result.status
    whole = (lambda v: int(round(v))) if weight is None else (lambda v: v / weight_scale)
    estimator.training_errors_ = whole(result.errors)
    estimator.errors_lower_bound_ = whole(result.lower_bound)
    estimator.lower_bound_ = estimator.upper_bound_ = None
    as_number = int if weight is None else float
    stats = dict(result.stats, method="ordered on the readable cuts",
                 n_binary_features=n_features, n_chains=len(chains),
                 trace=[(float(s), as_number(e)) for s, e in progress.improvements()],
                 total_seconds=deadline.elapsed())
    if weight is not None:
        stats["weight_scale"] = weight_scale
    estimator.solve_stats_ = stats
    if progress.interrupted_at is not None:  # Ctrl-C: the best tree is kept, raise again
        stats["interrupted"] = True
        raise KeyboardInterrupt
    return estimator
