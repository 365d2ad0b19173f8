"""The input of a decision-list search: packed literals and labels, the space of conditions.

``prepare(X, y, ...)`` packs the binary matrix once (``bits.pack_columns``): its columns are
the literals that rules conjoin. Hill climbing and beam search, in every direction and with
every rule search, then run on the same ``SearchProblem`` without repacking. The enumerated
candidate conditions (``candidates.build_candidates``: every conjunction of
``min_conjunction``..``max_conjunction`` literals, or an explicit ``conditions`` list) are built
the first time a search enumerates them, so growing rules never materialises them.

With ``sample_weight`` every count of the search (rows covered, positives, support, the
log-likelihood's n and pos) is a total weight instead: integer weights give exactly the
list of the rows repeated that many times. ``count_covered`` picks the popcounts or their
weighted alternative, so unweighted problems run as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from occamlearn.lists.bits import (
    count_covered,
    pack_columns,
    pack_vector,
    popcount_rows,
    weighted_count_covered,
)
from occamlearn.lists.candidates import (
    Candidates,
    build_candidates,
    check_conditions,
    check_sizes,
)
from occamlearn.lists.likelihood import CountXLogX, xlogx

__all__ = ["SearchProblem", "check_binary", "prepare"]


@dataclass(frozen=True, eq=False)
class SearchProblem:
    """Everything the searches read; built by ``prepare``.

    n_rows, n_positive : training rows and positives (y = 1); with weights, their totals
    all_rows, positives : packed masks of all rows and of the positive rows
    literals : (d, n_words) packed columns of the binary features
    n_features, feature_names : d and the features' names
    min_conjunction, max_conjunction : the fewest / most literals of a condition
    min_support : the enumerated candidates' least support (rows or total weight)
    conditions : explicit candidate conditions (tuples of literal indices), or None
    weight : float64 weight per row, or None (every row counts 1)
    """

    n_rows: float
    n_positive: float
    all_rows: np.ndarray
    positives: np.ndarray
    literals: np.ndarray
    n_features: int
    feature_names: tuple
    min_conjunction: int = 1
    max_conjunction: int = 1
    min_support: float = 1
    conditions: tuple | None = None
    weight: np.ndarray | None = None

    @cached_property
    def candidates(self) -> Candidates:
        """The enumerated conditions and their packed columns (built on first use)."""
        return self.candidates_within(None)

    def candidates_within(self, deadline) -> Candidates:
        """``candidates``, built (on first use) only until ``deadline``
        (``candidates.build_candidates``); kept for the searches that follow."""
        if "candidates" not in self.__dict__:
            self.__dict__["candidates"] = build_candidates(
                self.literals, self.min_conjunction, self.max_conjunction, self.min_support,
                self.conditions, self.weight, deadline)
        return self.__dict__["candidates"]

    @cached_property
    def tolerance(self) -> float:
        """How much less a strictly smaller set of rows covers at least, minus rounding:
        0 for counts, half the least positive weight for weights."""
        if self.weight is None:
            return 0.0
        positive = self.weight[self.weight > 0]
        return 0.5 * float(positive.min()) if positive.size else 0.0

    @cached_property
    def xlogx(self):
        """x log x for this problem's counts: a table for row counts, the function itself for
        weights (``likelihood.CountXLogX``)."""
        return xlogx if self.weight is not None else CountXLogX(self.n_rows)

    def count(self, columns: np.ndarray, rows: np.ndarray, positives: np.ndarray,
              index: np.ndarray | None = None):
        """(covered, covered positives) of every packed column (of ``columns[index]``)
        within the packed ``rows`` (``bits.count_covered``; weighted sums when the problem
        has weights)."""
        if self.weight is None:
            return count_covered(columns, rows, positives, index)
        if index is not None:
            columns = columns[index]
        return weighted_count_covered(columns, rows, positives, self.weight)

    def count_covered(self, rows: np.ndarray, positives: np.ndarray):
        """``count`` over the enumerated candidates."""
        return self.count(self.candidates.columns, rows, positives)

    def row_counts(self, rows: np.ndarray, positives: np.ndarray) -> tuple[int, int]:
        """Unweighted (rows, positives) in packed ``rows`` (the counts a fitted list keeps)."""
        return (int(popcount_rows(rows[None])[0]), int(popcount_rows(positives[None])[0]))


def check_binary(X, name: str = "X") -> np.ndarray:
    """``X`` as a 2-d array whose entries are all 0/1 (bool, int or float)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-d binary matrix; got shape {X.shape}")
    kind = X.dtype.kind  # the numpy types' kinds (_NUMBER_KINDS), read without issubdtype
    if kind == "b" or X.size == 0:
        return X
    if kind not in _NUMBER_KINDS:
        raise TypeError(f"{name} must be numeric 0/1 or boolean; got dtype {X.dtype}")
    in_range = X.max() <= 1 and (kind == "u" or X.min() >= 0)
    if in_range and kind in _INTEGER_KINDS:
        return X  # one pass each for max and min, no temporaries: cheap on 100,000 x 2,000
    bad = (X != 0) & (X != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be binary (0/1); found {X[row, col]!r} at row {row}, "
                         f"column {col}. Binarise it first (e.g. QuantileBinarizer).")
    return X


# The dtype kinds of np.number's subtypes and of np.integer's (timedelta64 is a signed
# integer type to numpy; bool is neither), so that ``kind in _NUMBER_KINDS`` is
# ``np.issubdtype(dtype, np.number)`` and likewise for integers; "u" is np.unsignedinteger.
_NUMBER_KINDS = frozenset("iufcm")
_INTEGER_KINDS = frozenset("ium")


def _all_zero_one(y: np.ndarray) -> bool:
    """``np.isin(y, (0, 1)).all()`` for a non-empty 1-D ``y``: for a bool dtype always; for
    an integer dtype exactly when its least value is >= 0 and its largest <= 1 (integers
    in [0, 1] are 0 and 1), two reductions instead of ``isin``'s sort-based test; for any
    other dtype by ``isin`` itself."""
    if y.dtype.kind == "b":
        return True
    if y.dtype.kind in "iu":
        return (y.dtype.kind == "u" or bool(y.min() >= 0)) and bool(y.max() <= 1)
    return bool(np.isin(y, (0, 1)).all())


def _check_labels(y, n_rows: int) -> np.ndarray:
    y = np.asarray(y).ravel()
    if len(y) != n_rows:
        raise ValueError(f"y has {len(y)} entries; X has {n_rows} rows")
    if len(y) and not _all_zero_one(y):
        raise ValueError(f"y must hold 0/1 labels (1 = the positive class); got values "
                         f"{np.unique(y)[:5].tolist()}")
    return y.astype(bool)


def _check_weight(sample_weight, n_rows: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    weight = np.asarray(sample_weight, dtype=np.float64).ravel()
    if weight.shape != (n_rows,):
        raise ValueError(f"sample_weight has {weight.size} entries; X has {n_rows} rows")
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    return weight


@lru_cache(maxsize=64)
def _every_row(n_rows: int) -> np.ndarray:
    """``pack_vector`` of ``n_rows`` ones, made once per row count (read-only: callers take
    a copy, which the compiled kernels type as the writable arrays they are compiled for)."""
    packed = pack_vector(np.ones(n_rows, dtype=bool))
    packed.flags.writeable = False
    return packed


def prepare(X, y, min_conjunction: int = 1, max_conjunction: int = 1, min_support: int = 1,
            conditions=None, feature_names=None, sample_weight=None) -> SearchProblem:
    """Pack binary ``X`` (n, d) and 0/1 ``y``; conditions have ``min_conjunction`` to
    ``max_conjunction`` literals (or are the explicit ``conditions``, tuples of feature
    indices).

    ``sample_weight``: non-negative weight per row, or None; ``min_support`` is then a total
    weight."""
    X = check_binary(X)
    y = _check_labels(y, X.shape[0])
    weight = _check_weight(sample_weight, X.shape[0])
    if isinstance(min_support, bool) or not isinstance(min_support, (int, np.integer)) \
            or min_support < 1:
        raise ValueError(f"min_support must be an int >= 1; got {min_support!r}")
    n_rows, n_features = X.shape
    names = tuple(map(str, feature_names)) if feature_names is not None else ()
    if names and len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names; X has {n_features} columns")
    if conditions is None:
        check_sizes(min_conjunction, max_conjunction, n_features)
    else:
        conditions = check_conditions(conditions, n_features)
    all_rows = _every_row(n_rows).copy()
    positives = pack_vector(y)
    space = {"min_conjunction": int(min_conjunction), "max_conjunction": int(max_conjunction),
             "min_support": min_support, "conditions": conditions}
    if weight is not None:
        return SearchProblem(float(weight.sum()), float(weight[y].sum()), all_rows, positives,
                             pack_columns(X), n_features, names, **space, weight=weight)
    # the positives packed are y's true entries
    return SearchProblem(n_rows, int(np.count_nonzero(y)), all_rows, positives,
                         pack_columns(X), n_features, names, **space)
