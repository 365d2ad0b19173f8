"""``FeatureBinarizer``: the MaxSAT paper's preprocessing (Alós, Ansótegui and Torres, Sec. 8) and
two more readable variants.

``encoding="binary"`` (the paper): continuous columns are cut into ``n_bins`` bins by
``KBinsDiscretizer`` (8, ``"uniform"``); every non-binary column with domain D (its distinct
values, or its occupied bins, in order for ordinal and binned columns) becomes
ceil(log2 |D|) bit features of the value's position in D, most significant bit first. A
2-valued column becomes the single feature ``col == second value`` (``col >= second value``
for a numeric one). Columns already 0/1 pass through as ``col == 1``, so a 0/1 matrix comes
out unchanged.

Integer columns are ordered too: their "positions" are intervals ``[v_i, v_{i+1})`` between
consecutive training values (the first open below, the last open above), so a value unseen in
fit takes the code of the interval it falls in -- the training matrix is the paper's, and new
data never trips. Bin edges of the bit encoding are the shortest-printing numbers that split
the training values as the discretiser's edges do (``sepal-width < 3``,
not ``< 2.9000000000000004``).

Bins nobody occupies in the training data are merged into their lower neighbour (the first
occupied bin absorbs those below it), so D counts occupied bins -- this is what reproduces
the paper's column counts (hayes-r: 4 columns of 3 values -> 8 bits, not 12) -- and every
value, seen or not, still falls in exactly one bin.

An integer column with more than ``max_values`` distinct training values (``"onehot"`` and
``"threshold"`` only; the bit encoding needs just log2 of them) is cut at ``max_values - 1``
quantiles of its training values instead, so a column of 10^6 distinct integers makes at most
``max_values`` features, not 10^6.

``encoding="onehot"``: one feature per category (``col == v``) or per interval of an ordered
column (``col < v_1``, ``v_i <= col < v_{i+1}``, ``col >= v_last``; bins of a continuous one).
``encoding="threshold"``: ordered features ``col <= v`` for ordinal columns and ``col < edge`` for
binned ones (bins are half-open ``[lo, hi)`` as in ``KBinsDiscretizer``); unordered categorical
columns are one-hot, having no order.
"""

from __future__ import annotations

import math
import warnings
from itertools import pairwise
from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils._param_validation import Interval, StrOptions

from occamlearn.binarize._base import BaseBinarizer
from occamlearn.binarize._columns import check_range as _check_range
from occamlearn.binarize._columns import shortest_between, shortest_threshold
from occamlearn.model.conditions import Condition

__all__ = ["FeatureBinarizer"]


class FeatureBinarizer(BaseBinarizer):
    """Binarise a table as the MaxSAT decision-tree paper does (or one-hot / thresholds).

    Parameters
    ----------
    encoding : {"binary", "onehot", "threshold"}, default="binary"
        ``"binary"``: ceil(log2 |D|) bits per column (paper, Sec. 8); ``"onehot"``: one
        feature per value or bin; ``"threshold"``: ``col <= v`` / ``col < edge`` features.
    n_bins : int >= 2, default=8
        Bins per continuous column (before empty bins are merged).
    strategy : {"uniform", "quantile"}, default="uniform"
        ``KBinsDiscretizer`` strategy for continuous columns.
    continuous, categorical : list of column names or positions, default=None
        Force these columns to be binned / treated as unordered categories.
    constant : {"drop", "error"}, default="drop"
        A column with a single value carries no information: ``"drop"`` leaves it out of the
        output (listed in ``dropped_columns_``), ``"error"`` raises a ``ValueError`` naming it.
    max_values : int >= 2, default=32
        With ``"onehot"`` / ``"threshold"``, an integer column with more distinct values is
        cut at this many quantile intervals (features stay bounded whatever the data).
    handle_unknown : {"ignore", "error"}, default="ignore"
        A category (string/categorical column) not seen in ``fit``: ``"ignore"`` evaluates
        its conditions as false (``col == v`` false; every bit 0) and warns (``UserWarning``
        naming column and value); ``"error"`` raises a ``ValueError`` naming column, value
        and row. Numbers are never unknown: their conditions are thresholds and intervals.
    drop_identifiers : bool, default=True
        Drop identifier-like columns (all values distinct strings, or integers counting the
        rows; see ``occamlearn.binarize.column_roles``) with one ``UserWarning`` naming them,
        listed in ``identifier_columns_``. A column named in ``categorical``/``continuous``
        is always kept.
    max_categories : int >= 1 or None, default=64
        Categories per column that keep their own ``col == v`` test (the most frequent);
        the rest fold into "other" (every test on the column false) with a ``UserWarning``
        naming the column and the count. None: no cap.

    Attributes
    ----------
    conditions_ : list of Condition
        One per output column; ``transform`` evaluates them, ``get_feature_names_out`` prints
        them.
    columns_ : list of ColumnSpec
        Kind (binary, categorical, discrete, continuous, constant) and domain of each input.
    dropped_columns_ : list of str
        Constant columns left out (``constant="drop"``) and identifier-like ones.
    identifier_columns_ : list of str
        The identifier-like columns dropped (``drop_identifiers``).
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseBinarizer._parameter_constraints,
        "encoding": [StrOptions({"binary", "onehot", "threshold"})],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "strategy": [StrOptions({"uniform", "quantile"})],
        "max_values": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        *,
        encoding="binary",
        n_bins=8,
        strategy="uniform",
        max_values=32,
        continuous=None,
        categorical=None,
        constant="drop",
        handle_unknown="ignore",
        drop_identifiers=True,
        max_categories=64,
    ):
        self.encoding = encoding
        self.n_bins = n_bins
        self.strategy = strategy
        self.max_values = max_values
        self.continuous = continuous
        self.categorical = categorical
        self.constant = constant
        self.handle_unknown = handle_unknown
        self.drop_identifiers = drop_identifiers
        self.max_categories = max_categories

    def _column_conditions(self, spec, values) -> list[Condition]:
        name, index = spec.name, spec.index
        if spec.kind == "binary":
            return [Condition(name, "==", 1, index)]
        if spec.kind == "continuous":
            _check_range(name, values)
            return _binned_conditions(name, index, self._bin_edges(values), self.encoding)
        domain = spec.domain
        if spec.kind == "categorical":
            if self.encoding == "binary":
                return _bit_conditions(name, index, len(domain), domain=domain)
            return [Condition(name, "==", v, index) for v in domain]
        # discrete (integer) column: ordered, so intervals between consecutive values
        if self.encoding != "binary" and len(domain) > self.max_values:
            return _binned_conditions(name, index, self._quantile_cuts(values, domain),
                                      self.encoding)
        if self.encoding == "threshold":
            return [Condition(name, "<=", v, index) for v in domain[:-1]]
        return _binned_conditions(name, index, domain[1:], self.encoding)

    def _quantile_cuts(self, values: np.ndarray, domain) -> tuple:
        """At most ``max_values - 1`` training values at which to cut a large integer
        column: each interval between two cuts holds about as many training rows."""
        ordered = np.sort(np.asarray(values, dtype=float))
        ranks = np.linspace(0, len(ordered), self.max_values + 1)[1:-1].astype(np.int64)
        cuts = np.unique(ordered[np.clip(ranks, 1, len(ordered) - 1)])
        cuts = cuts[cuts > ordered[0]]  # a cut at the minimum would leave its side empty
        by_value = {float(v): v for v in domain}  # keep the column's own values (ints)
        return tuple(by_value.get(float(c), c) for c in cuts)

    def _bin_edges(self, values: np.ndarray) -> tuple[float, ...]:
        """Interior edges of the occupied bins, each printed as briefly as its split allows."""
        discretizer = KBinsDiscretizer(
            n_bins=self.n_bins,
            encode="ordinal",
            strategy=self.strategy,
            quantile_method="averaged_inverted_cdf",
            subsample=None,
        )
        with warnings.catch_warnings():  # collapsed quantile bins: merged below anyway
            warnings.simplefilter("ignore", UserWarning)
            discretizer.fit(values.reshape(-1, 1))
        interior = discretizer.bin_edges_[0][1:-1]
        occupied = np.unique(np.searchsorted(interior, values, side="right"))
        kept = interior[occupied[1:] - 1]
        ordered = np.sort(values)
        if kept.size == 0:  # every value in one bin (collapsed quantiles): split off the minimum
            kept = np.unique(values)[1:2]
        if self.encoding != "binary":  # names printed as they were (rounded to >= 3 digits)
            return tuple(shortest_threshold(e, ordered, side="left") for e in kept)
        # bit edges are only ever described: the shortest number in each gap
        positions = np.searchsorted(ordered, kept, side="left")
        return tuple(
            shortest_between(ordered[p - 1], ordered[p]) for p in positions
        )


def _bit_conditions(name, index, size, *, domain=None, edges=None) -> list[Condition]:
    """ceil(log2 size) bit features, most significant first; 2 values -> one plain test."""
    if size == 2:
        if domain is not None:
            return [Condition(name, "==", domain[1], index)]
        return [Condition(name, ">=", edges[0], index)]
    n_bits = math.ceil(math.log2(size))
    return [
        Condition(name, "bit", bit, index, domain=domain, edges=edges)
        for bit in reversed(range(n_bits))
    ]


def _binned_conditions(name, index, edges, encoding) -> list[Condition]:
    if encoding == "binary":
        return _bit_conditions(name, index, len(edges) + 1, edges=edges)
    if encoding == "threshold":
        return [Condition(name, "<", e, index) for e in edges]
    middle = [Condition(name, "in", (lo, hi), index) for lo, hi in pairwise(edges)]
    return [Condition(name, "<", edges[0], index), *middle, Condition(name, ">=", edges[-1], index)]
