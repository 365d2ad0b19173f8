"""``ThresholdBinarizer``: the readable default -- cut points on ordered columns, one-hot on
categories.

Every numeric column (integer or float) is ordered, so it becomes thresholds ``col >= t``, one
per gap between adjacent distinct training values. Each ``t`` is the shortest-printing number
in its gap (``petal-length >= 2.5``, ``age >= 40``; ``printed_numbers``). A value unseen in
fit falls where its order puts it.

Which gaps (``max_thresholds="auto"``, the default). Fitted with labels (``fit(X, y)``, as the
tree estimators do), every gap that can matter is kept: all of them except those inside the
two end runs of one label, which no tree needs (proof in ``cut_points``). So a minimum tree
over these features is minimum over every threshold of the data. Only when that would make
more than ``AUTO_MAX_FEATURES`` binary features, or more than ``AUTO_MAX_CELLS`` cells (rows
x features, the matrix every search reads), are the longest columns thinned, to an equal
number of cuts each (short columns keep all theirs): class boundaries first, spread by
weighted quantiles. ``thinned_columns_`` then names them, and an estimator's status says
"optimal over 136 cuts per column on 'x', ...". Without labels (``fit(X)``) no gap can be
told apart, and each column keeps at most 32 cuts at evenly spaced quantiles, as before.
``max_thresholds=k`` caps every column at ``k`` (the same choice, label-aware when fitted
with labels); ``None`` keeps every gap that can matter, whatever the size.

Categorical (string / ``category``) columns become ``col == v`` per category (both values of
a 2-valued column, so that a decision-list rule can name either). A category unseen in fit
makes them all false, with a ``UserWarning`` (``handle_unknown="ignore"``, the default) or
raises (``"error"``). 0/1 columns are flags and pass through as ``col == 1``, as in the other
binarisers (any other number reads as "not 1").

Missing values (see ``BaseBinarizer``): a column with missing values in fit also gets
``col is missing``, and each of its thresholds comes twice, false on a missing value
(``income >= 30900``; other branch ``income < 30900 or missing``) and true on it (``income >=
30900 or missing``), so the search sends missing values to whichever side serves it
(``missing_sides="one"`` keeps only the first). Such a column keeps every gap (the end-run
proof needs a column without missing values). Date columns are cut at the roundest instant
between adjacent training dates (a midnight if there is one: ``application_date >=
2022-06-23``).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from occamlearn.binarize._base import BaseBinarizer, fit_in_context, with_missing_rules
from occamlearn.binarize._fit_inputs import FitColumn
from occamlearn.binarize.cut_points import column_cuts, level_within, quantile_gaps, thinned
from occamlearn.binarize.printed_numbers import (
    date_between,
    shortest_between,
    shortest_between_many,
)
from occamlearn.model.conditions import Condition, comparison

__all__ = ["AUTO_MAX_CELLS", "AUTO_MAX_FEATURES", "LABEL_BLIND_THRESHOLDS",
           "ThresholdBinarizer", "threshold_condition"]

# ``max_thresholds="auto"`` fitted with labels keeps every cut that can matter unless the
# binary features would number more than this (every search's work per row set grows with
# them) ...
AUTO_MAX_FEATURES = 2048
# ... or the binary matrix (rows x features, one byte each) would hold more cells than this
# (8 MiB, the matrix every search reads): 100,000 rows keep 83 features, 4,096 rows 2,048.
AUTO_MAX_CELLS = 2**23
# Cuts per column when fitted without labels (``fit(X)``), at evenly spaced quantiles.
LABEL_BLIND_THRESHOLDS = 32


class ThresholdBinarizer(BaseBinarizer):
    """Thresholds between adjacent training values on numeric columns; one-hot on categories.

    Parameters
    ----------
    max_thresholds : "auto", int >= 1 or None, default="auto"
        Which gaps between adjacent training values of a numeric column become thresholds.
        "auto": fitted with labels, every gap that can matter (all but those inside the end
        runs of one label, which no tree needs), thinned only beyond ``AUTO_MAX_FEATURES``
        binary features or ``AUTO_MAX_CELLS`` matrix cells, the longest columns first
        (``thinned_columns_``); fitted without labels, at most ``LABEL_BLIND_THRESHOLDS``
        (32) per column at evenly spaced quantiles. An int ``k``: at most ``k`` per column
        (with labels: class boundaries first, spread by weighted quantiles). None: every
        gap that can matter, whatever the size. A tree over every gap that can matter is a
        tree over every threshold of the data (``cut_points``), so "optimal" means optimal
        over the data's thresholds; the minimum trees' branch and bound walks a column's
        nested thresholds as one chain (``trees.exact.nesting``).
    sides : {"upper", "both"}, default="upper"
        ``"upper"``: one feature ``col >= t`` per cut (enough for a tree, whose other branch
        is ``col < t``); ``"both"``: also ``col < t``, so that a decision-list rule (a
        conjunction of features that hold) can select either tail.
    continuous, categorical : list of column names or positions, default=None
        Force these columns to be numeric (cut) / unordered categories (one-hot).
    constant : {"drop", "error"}, default="drop"
        As in ``FeatureBinarizer``.
    handle_unknown : {"ignore", "error"}, default="ignore"
        A category unseen in fit: ``"ignore"`` makes its ``col == v`` features false and
        warns naming the column and value; ``"error"`` raises. Numbers are never unknown.
    missing_sides : {"both", "one"}, default="both"
        For a numeric column with missing values in fit: ``"both"`` offers each threshold
        false and true on a missing value (the search picks the side, as scikit-learn's trees
        do); ``"one"``: false only (the ``col is missing`` feature is there either way).
    drop_identifiers : bool, default=True
        As in ``FeatureBinarizer`` (identifier-like columns are dropped with a warning).
    max_categories : int >= 1 or None, default=64
        As in ``FeatureBinarizer`` (rarer categories fold into "other" with a warning).
    time_limit : float >= 0 or None, default=None
        Seconds ``fit`` may take on a wide numeric table: the numeric columns are read in
        blocks (``sorted_columns``), and once half of this has passed the columns not read
        yet are left out (the first block is always read), named in ``unread_columns_`` and
        in ``restriction()``. An estimator with a ``time_limit`` passes part of it here
        when its table is wide. None: every column is read.

    ``fit(X, y=None, sample_weight=None)``: labels make the cuts label-aware (above);
    weights place thinned cuts by weighted quantiles (integer weights act as repeated rows)
    and rows of weight 0 are left out.

    Attributes
    ----------
    conditions_, columns_, dropped_columns_ :
        As in ``FeatureBinarizer``.
    identifier_columns_, n_features_in_, feature_names_in_ :
        As in ``FeatureBinarizer``.
    thinned_columns_ : dict
        ``{column: (cuts kept, cuts that could matter)}`` for every numeric column that kept
        fewer cuts than could matter: a tree over these features is optimal over the kept
        cuts only there (``restriction()`` says so in words).
    folded_columns_ : dict
        ``{column: categories folded into "other"}`` (``max_categories``).
    unread_columns_ : list
        The columns ``time_limit`` left no time to read (kind ``"unread"`` in ``columns_``).
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseBinarizer._parameter_constraints,
        "max_thresholds": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}),
                           None],
        "sides": [StrOptions({"upper", "both"})],
        "missing_sides": [StrOptions({"one", "both"})],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        max_thresholds="auto",
        sides="upper",
        continuous=None,
        categorical=None,
        constant="drop",
        handle_unknown="ignore",
        missing_sides="both",
        drop_identifiers=True,
        max_categories=64,
        time_limit=None,
    ):
        self.time_limit = time_limit
        self.missing_sides = missing_sides
        self.max_thresholds = max_thresholds
        self.sides = sides
        self.continuous = continuous
        self.categorical = categorical
        self.constant = constant
        self.handle_unknown = handle_unknown
        self.drop_identifiers = drop_identifiers
        self.max_categories = max_categories

    @fit_in_context
    def fit(self, X, y=None, sample_weight=None):
        """Learn each column's kind, domain and cuts: with labels ``y``, every cut that can
        matter (see ``max_thresholds``); ``sample_weight`` places thinned cuts (integer
        weights act as repeated rows, weight 0 as an absent row)."""
        return self._fit(X, y, sample_weight)

    def _learn_conditions(self, learned: list[FitColumn], n_rows: int) -> list[Condition]:
        """Plan the cuts of every numeric column together (the budget is shared), then
        build each column's conditions in column order."""
        ordered = [c for c in learned if c.capped.kind in ("continuous", "discrete")
                   and c.values.size and c.values.min() < c.values.max()]
        labelled = bool(ordered) and ordered[0].labels is not None
        cuts = {id(c): column_cuts(c.values, c.labels, c.weight, missing=c.spec.missing,
                                   summary=c.summary) for c in ordered}
        cap = self._cap(learned, ordered, cuts, labelled, n_rows)
        self.thinned_columns_ = {}
        gaps = {id(c): self._chosen_gaps(c, cuts[id(c)], cap, labelled) for c in ordered}
        printed = _printed_thresholds([(c, cuts[id(c)], gaps[id(c)]) for c in ordered])
        conditions = []
        for column in learned:
            if id(column) not in cuts:
                found = self._column_conditions(column.capped, column.values) \
                    if column.distinct_count() > 1 else []
            else:
                found = self._cut_conditions(column.capped, printed[id(column)])
            conditions.extend(with_missing_rules(found, column.spec, self.missing_sides))
        return conditions

    def _cap(self, learned, ordered, cuts, labelled: bool, n_rows: int) -> int | None:
        """Cuts per numeric column (None: all that can matter)."""
        if self.max_thresholds is None:
            return None
        if self.max_thresholds != "auto":
            return int(self.max_thresholds)
        if not labelled:
            return LABEL_BLIND_THRESHOLDS
        per_cut = np.array([self._features_per_cut(c) for c in ordered], dtype=np.int64)
        others = sum(self._other_features(c) for c in learned if id(c) not in cuts)
        budget = min(AUTO_MAX_FEATURES, AUTO_MAX_CELLS // max(n_rows, 1)) - others
        return level_within([cuts[id(c)].n_gaps for c in ordered], per_cut, budget)

    def _features_per_cut(self, column: FitColumn) -> int:
        both_missing = column.spec.missing and self.missing_sides == "both"
        return (2 if self.sides == "both" else 1) * (2 if both_missing else 1)

    @staticmethod
    def _other_features(column: FitColumn) -> int:
        """Features of a column that is not cut (categories, a flag), missing included."""
        n = 1 if column.capped.kind == "binary" else len(column.capped.domain)
        return n + int(column.spec.missing)

    def _chosen_gaps(self, column: FitColumn, cuts, cap, labelled: bool) -> np.ndarray:
        """The gap indices the column cuts, noted in ``thinned_columns_`` when fewer than
        could matter."""
        if cap is not None and not labelled:
            gaps = quantile_gaps(column.values, cuts.distinct, cap, column.weight,
                                 None if column.summary is None else column.summary.run_ends)
        else:
            gaps = cuts.gaps if cap is None else thinned(cuts, cap)
        if gaps.size < cuts.n_gaps:
            self.thinned_columns_[column.spec.name] = (int(gaps.size), cuts.n_gaps)
        return gaps

    def _cut_conditions(self, spec, thresholds: list) -> list[Condition]:
        conditions = [comparison(spec.name, ">=", t, spec.index) for t in thresholds]
        if self.sides == "both":
            conditions += [comparison(spec.name, "<", t, spec.index) for t in thresholds]
        return conditions

    def _column_conditions(self, spec, values) -> list[Condition]:
        name, index = spec.name, spec.index
        if spec.kind == "binary":
            return [comparison(name, "==", 1, index)]
        # every category, so a rule can name either side
        return [comparison(name, "==", v, index) for v in spec.domain]


def _printed_thresholds(chosen) -> dict:
    """``{id(column): thresholds}`` for ``(column, cuts, gap indices)`` triples: the
    shortest-printing number of each chosen gap, all numeric columns in one
    ``shortest_between_many`` call; dates at the roundest instant."""
    numeric = [(c, cuts, gaps) for c, cuts, gaps in chosen if not c.spec.dates]
    below = [cuts.distinct[gaps - 1] for _, cuts, gaps in numeric]
    above = [cuts.distinct[gaps] for _, cuts, gaps in numeric]
    values = shortest_between_many(np.concatenate(below), np.concatenate(above)) \
        if numeric else np.zeros(0)
    out, start = {}, 0
    for column, cuts, gaps in numeric:
        integral = bool(np.all(cuts.distinct == np.round(cuts.distinct)))
        out[id(column)] = _printed(values[start:start + gaps.size], integral)
        start += gaps.size
    for column, cuts, gaps in chosen:
        if column.spec.dates:
            out[id(column)] = [date_between(a, b) for a, b in
                               zip(cuts.distinct[gaps - 1], cuts.distinct[gaps])]
    return out


def _printed(values: np.ndarray, integral: bool) -> list:
    """Thresholds as the conditions hold them: whole numbers as ints on whole-number
    columns (``age >= 40``), floats otherwise."""
    if not integral:
        return values.tolist()
    return [int(t) if t.is_integer() and abs(t) < 1e15 else t for t in values.tolist()]


def threshold_condition(name: str, index: int, below: float, above: float, *,
                        integral: bool) -> Condition:
    """``name >= t`` with ``t`` the shortest-printing number in ``(below, above]``, the gap
    between two adjacent training values; whole-number columns (``integral``: ints, or floats
    holding whole numbers) print whole thresholds."""
    t = shortest_between(below, above)
    return Condition(name, ">=", _printed(np.array([t]), integral)[0], index)
