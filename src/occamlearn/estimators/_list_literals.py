"""The literals a decision-list rule conjoins: a binariser's features and their negations.

A rule is a conjunction of features that hold, so it can only say what its binary features
say: over ``age >= 40`` alone no rule selects the young, over one-hot categories "anything but
red" takes one rule per other colour, and a 0/1 flag offers only ``flag == 1``.
``RuleLiterals`` appends the negation of every comparison the binariser makes (``age < 40``,
``colour != red``, ``flag != 1``), except for the categories of a two-valued column, whose
two ``==`` tests already negate each other.

A negation is its own ``Condition`` (the opposite operator), so what is printed is what is
evaluated and a saved model rebuilds it from the conditions alone. Its column is the
complement of the comparison's column, with the missing rows set right: a comparison false
on a missing value (``income >= 30900``) has a negation true there (``income < 30900 or
missing``) and the other way round, and where the column had no missing value in fit both
are false on one at predict time (``Condition.missing`` None), as ``Condition.evaluate``
gives. The binariser's ``col is missing`` literal stays as it is.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from occamlearn.binarize import ThresholdBinarizer, sorted_columns
from occamlearn.binarize.fit_checks import plain_clone
from occamlearn.binarize.threshold import LABEL_BLIND_THRESHOLDS
from occamlearn.estimators._base import binarizer_within, table_input_tags
from occamlearn.model.conditions import Condition
from occamlearn.stopping import CLOCK

__all__ = ["RuleLiterals", "negation", "time_restriction", "within_deadline"]

# A table this wide is timed on its first PILOT_COLUMNS columns before it is binarised, once
# a first look at its first FIRST_LOOK_COLUMNS leaves any doubt (``within_deadline``).
PILOT_COLUMNS = 64
FIRST_LOOK_COLUMNS = 8
# The first look settles it when its extrapolation is below this part of the time allowed.
FIRST_LOOK_MARGIN = 0.1
# Binarising costs per column (reading and sorting it) and per literal (a cut evaluated on
# every row, its negation, the copies, then ``lists.prepare`` packing it). On a 6,000 x 3,000
# uniform float table (load ~1.8) the 64-column pilot, as a fit runs it (the first arrays of
# that size in the process, their pages fresh as the whole table's are), took 8.6e-5 s a
# column and 7.4e-5 s a literal (0.015 s at one cut, 0.31 s at every cut). The whole table
# took 4.1e-4 s a column at one cut, packing included (1.24 s in all), and each further cut
# 2.0e-4 to 2.7e-4 s a column (1.73 s at 3 cuts, 4.34 s at 7, 10.1 s at 15, plus 1.4e-5 s a
# literal packing): at scale a literal costs 1.4 to 1.8 times the pilot's (its matrices no
# longer fit in the caches). The plan charges twice the pilot's costs, per column and per
# literal: 1.41 s predicted at one cut, 0.89 s a further cut.
COLUMN_SCALE = 2.0
LITERAL_SCALE = 2.0

_OPPOSITE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<="}


def negation(condition: Condition) -> Condition:
    """The comparison that holds exactly where ``condition`` does not (module docstring).

    It is ``Condition(column, opposite op, value, index, missing=not missing, dates=dates)``,
    made as a copy of ``condition``'s fields with its operator, ``missing``, ``domain`` and
    ``edges`` set, without the checks ``Condition.__post_init__`` makes (they cost more
    than the rest of a small table's negations). They hold for the copy because they held
    for ``condition``, whose column, value, index and dates it keeps (already plain), and
    the fields set stay valid: the operator becomes another order or equality operator (no
    interval, bit or missing operator has an opposite, so no check of theirs applies),
    ``missing`` stays None, True or False, and ``domain`` and ``edges`` are None, as the
    constructor call leaves them.
    """
    negated = object.__new__(Condition)
    negated.__dict__.update(condition.__dict__, op=_OPPOSITE[condition.op], domain=None,
                            edges=None, missing=None if condition.missing is None
                            else not condition.missing)
    return negated


class RuleLiterals(TransformerMixin, BaseEstimator):
    """``binarizer``'s features followed by their negations (module docstring).
    ``conditions_``, ``columns_``, ``n_features_in_`` and ``feature_names_in_`` are the
    binariser's, with the negations appended to ``conditions_``."""

    def __init__(self, binarizer=None):
        self.binarizer = binarizer

    def fit(self, X, y=None):
        self.binarizer_ = plain_clone(self.binarizer).fit(X, y)
        return self._with_negations()

    def _with_negations(self):
        base = list(self.binarizer_.conditions_)
        equal = Counter()  # "==" conditions per column (a column of two values needs none)
        for c in base:
            if c.op == "==":
                equal[c.column] += 1
        negated = [k for k, c in enumerate(base)
                   if c.op in _OPPOSITE and not (c.op == "==" and equal[c.column] == 2)]
        self.negated_ = np.array(negated, dtype=np.int64)
        self.conditions_ = base + [negation(base[k]) for k in negated]
        for name in ("columns_", "n_features_in_", "feature_names_in_", "dropped_columns_",
                     "identifier_columns_", "unread_columns_"):
            if hasattr(self.binarizer_, name):
                setattr(self, name, getattr(self.binarizer_, name))
        return self

    @property
    def handle_unknown(self) -> str:
        return getattr(self.binarizer, "handle_unknown", "error")

    def fit_transform(self, X, y=None):
        """``fit(X, y).transform(X)``, from the binariser's own ``fit_transform`` and without
        looking for missing values where ``fit`` saw none."""
        self.binarizer_ = plain_clone(self.binarizer)
        features = self.binarizer_.fit_transform(X, y)
        return self._with_negations()._with_literals(features, X, training=True)

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self._literals(X, training=False)

    def _literals(self, X, training: bool) -> np.ndarray:
        return self._with_literals(self.binarizer_.transform(X), X, training)

    def _with_literals(self, features, X, training: bool) -> np.ndarray:
        """The binariser's ``features`` of ``X`` and their negations."""
        features = np.asarray(features, dtype=np.uint8)
        negations = 1 - features[:, self.negated_]
        absent = {}
        for j, k in enumerate(self.negated_ if not training else ()):
            condition = self.conditions_[k]
            if condition.missing is not None:
                continue  # the complement is already right on missing rows
            if condition.column not in absent:
                absent[condition.column] = Condition(condition.column, "missing", None,
                                                     condition.index).evaluate(X)
            negations[absent[condition.column], j] = 0
        return np.concatenate([features, negations], axis=1)  # hstack of two 2-d arrays

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        if not hasattr(self, "conditions_"):  # with it, check_is_fitted passes (a name in _)
            check_is_fitted(self)
        return np.asarray([str(c) for c in self.conditions_], dtype=object)

    def restriction(self) -> str | None:
        """The binariser's ``restriction()``: what its features leave out, in words."""
        check_is_fitted(self)
        restriction = getattr(self.binarizer_, "restriction", None)
        return None if restriction is None else restriction()

    def __sklearn_tags__(self):
        return table_input_tags(super().__sklearn_tags__())


def within_deadline(literals: RuleLiterals, X, deadline, share: float = 0.5) -> RuleLiterals:
    """``literals`` with fewer cuts per numeric column when binarising ``X`` in full would
    take more than ``share`` of the time ``deadline`` leaves, so that the search gets the
    rest and a time limit still returns rules (otherwise ``literals`` itself).

    The plan: a table wider than ``PILOT_COLUMNS`` columns has its first
    ``FIRST_LOOK_COLUMNS`` binarised and timed, and the time of all of them extrapolated by
    the column count and ``LITERAL_SCALE``. Below ``FIRST_LOOK_MARGIN`` of the share, nothing
    is thinned: a tenfold error in so short an estimate would still fit (a first look costs 8
    columns' binarising, where the full pilot costs 64, a third of a 148-column table's fit).
    Otherwise the first ``PILOT_COLUMNS`` are binarised and timed twice, with every cut and
    with one per column, which separates the cost per column from the cost per literal
    (``_binarising_cost``); the table's cost at c cuts is then predicted as its columns at
    ``COLUMN_SCALE`` times the pilot's cost per column plus its literals at ``LITERAL_SCALE``
    times the pilot's cost per literal (measured factors: the constants' comment), the
    literals counted by interpolating the pilot's between one cut and
    ``LABEL_BLIND_THRESHOLDS``. The prediction grows with c, so every numeric column keeps
    the most cuts (at least 1) it puts within the share, or all ("auto") when that is
    ``LABEL_BLIND_THRESHOLDS``. The binariser notes the thinning (``thinned_columns_``), so
    the fitted model says what it was restricted to. Only a ``ThresholdBinarizer`` with
    ``max_thresholds="auto"`` is thinned. An estimate may be off, or even one cut per column
    too many: so every ``ThresholdBinarizer`` also gets the share as its own ``time_limit``
    (unless it has a shorter one), which stops reading columns in time and names those it
    left out (``unread_columns_``, ``restriction()``), and the search's own deadline still
    holds. A table of one block at most (``sorted_columns.SORT_BLOCK_BYTES`` of float64
    values) gets none: the binariser reads its first block whatever its limit, so the limit
    could change nothing there (and a small fit does not pay for the clone).
    """
    inner = literals.binarizer
    shape = X.shape if hasattr(X, "shape") and len(X.shape) == 2 else (0, 0)
    n_columns = shape[1]
    if deadline is None or deadline.at is None or not isinstance(inner, ThresholdBinarizer):
        return literals
    allowed = share * deadline.remaining()
    if 8 * shape[0] * shape[1] > sorted_columns.SORT_BLOCK_BYTES and (
            inner.time_limit is None or inner.time_limit > allowed):
        literals = RuleLiterals(binarizer_within(clone(inner), deadline, share))
        inner = literals.binarizer
    if n_columns <= PILOT_COLUMNS or inner.max_thresholds != "auto":
        return literals
    first_look = _binarising_time(literals, X, FIRST_LOOK_COLUMNS)
    if first_look is None or LITERAL_SCALE * first_look[0] * n_columns / FIRST_LOOK_COLUMNS \
            <= FIRST_LOOK_MARGIN * allowed:
        return literals
    cost = _binarising_cost(literals, X)
    if cost is None:
        return literals
    at_one, per_cut = (n_columns / PILOT_COLUMNS * c for c in cost)
    allowed = share * deadline.remaining()
    spare_cuts = (allowed - at_one) / per_cut if per_cut > 0 else float("inf")
    cuts = "auto" if spare_cuts >= LABEL_BLIND_THRESHOLDS - 1 else 1 + max(0, int(spare_cuts))
    return RuleLiterals(binarizer_within(clone(inner).set_params(max_thresholds=cuts),
                                         deadline, share))


def _binarising_cost(literals: RuleLiterals, X) -> tuple[float, float] | None:
    """The predicted seconds to binarise ``X``'s first ``PILOT_COLUMNS`` columns at full
    scale with one cut per column, and the seconds each further cut per column adds
    (``within_deadline``), or None when they are bad input.

    Timed with every cut (t_all, L_all literals) and with one (t_one, L_one): the cost per
    literal is (t_all - t_one) / (L_all - L_one), the rest of t_one is per column, and each
    cut after the first adds (L_all - L_one) / (LABEL_BLIND_THRESHOLDS - 1) literals."""
    every = _binarising_time(literals, X, PILOT_COLUMNS)
    one = _binarising_time(
        RuleLiterals(clone(literals.binarizer).set_params(max_thresholds=1)), X, PILOT_COLUMNS)
    if every is None or one is None:
        return None
    (t_all, l_all), (t_one, l_one) = every, one
    per_literal = max(0.0, t_all - t_one) / max(1, l_all - l_one)
    per_column = max(0.0, t_one - per_literal * l_one)
    at_one = COLUMN_SCALE * per_column + LITERAL_SCALE * per_literal * l_one
    per_cut = LITERAL_SCALE * per_literal * max(0, l_all - l_one) / (LABEL_BLIND_THRESHOLDS - 1)
    return at_one, per_cut


def time_restriction(fitted) -> str | None:
    """What a time limit restricted the fitted ``RuleLiterals``' features to, in words: its
    ``ThresholdBinarizer``'s ``restriction()`` when ``within_deadline`` thinned its cuts
    (``max_thresholds`` not "auto") or it left columns unread; None otherwise (a default fit
    keeps ``LABEL_BLIND_THRESHOLDS`` cuts per column by design, not for lack of time)."""
    inner = getattr(fitted, "binarizer_", None)
    if not isinstance(inner, ThresholdBinarizer) or (
            inner.max_thresholds == "auto" and not getattr(inner, "unread_columns_", None)):
        return None
    return inner.restriction()


def _binarising_time(literals: RuleLiterals, X, n_columns: int) -> tuple[float, int] | None:
    """Seconds ``literals`` takes to binarise the first ``n_columns`` columns of ``X`` and
    the literals it makes, or None when they are bad input (the real fit reports it, naming
    the column)."""
    pilot = X.iloc[:, :n_columns] if isinstance(X, pd.DataFrame) else \
        np.asarray(X)[:, :n_columns]
    started = CLOCK()
    try:
        with warnings.catch_warnings():  # the real fit warns, once
            warnings.simplefilter("ignore")
            features = clone(literals).fit_transform(pilot)
    except (TypeError, ValueError):
        return None
    return CLOCK() - started, features.shape[1]
