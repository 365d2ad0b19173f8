"""``MaxAccuracyTreeClassifier``'s table as the DT(max) searches read it, and their tree back.

The searches (``trees.dtmax.entry``) see ordered columns: a test is "code of column f >= c".
How a table becomes such columns decides what "optimal" is over (``TableColumns.over``):

* ``binarizer="readable"`` (the default), or a ``ThresholdBinarizer(max_thresholds=None)``:
  **every threshold** of the table as given.
  The readable binariser is asked only what each column is (its kinds, identifiers, category
  caps); then each numeric column (integers, floats, dates) is one ordered column of its
  distinct training values, so every threshold between adjacent values is a candidate, and
  it prints as the readable binariser prints its cuts (``threshold_condition``: the
  shortest-printing number between the two values; dates as the roundest instant). A numeric
  column with missing values gives two ordered columns, one with missing below every value
  (its tests are ``x is missing`` and ``x >= t``, whose other branch reads ``x < t or
  missing``) and one with missing joined to the highest value (``x >= t or missing``), so
  the search sends missing values to whichever side serves each test. Flags and categories
  are the binariser's own tests (``col == 1``, ``col == v``, ``col is missing``), each a
  two-valued column.
* any other binariser, passed by name or as a transformer: **exactly its features**. Its 0/1
  columns are read as chains (``column_chains``: columns of one source column and operator
  whose rows are nested, ``x >= t2`` inside ``x >= t1``, make one ordered column whose code
  counts the cuts a row passes), so the search is exact over the same partitions as on the
  0/1 matrix, and faster.
* ``binarizer=None``: the 0/1 columns as given.

The tree comes back over the conditions it tests (every-threshold mode: the fitted
``binarizer_`` is a ``ConditionBinarizer`` over exactly those conditions, so ``predict``
evaluates what is printed) or over the binariser's features. Rows of weight 0 are dropped
before anything is read, so they place no threshold either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from occamlearn.binarize import (
    ThresholdBinarizer,
    clean_column,
    date_between,
    read_columns,
    restriction_text,
)
from occamlearn.binarize.conditions import ConditionBinarizer
from occamlearn.binarize.sorted_columns import transposed
from occamlearn.binarize.threshold import threshold_condition
from occamlearn.estimators._base import (
    _fit_binarizer,
    _take_rows,
    binarizer_to_fit,
    binarizer_within,
    restriction_of,
    row_weights,
)
from occamlearn.estimators._inputs import check_binary_matrix, encode_labels, validate_table
from occamlearn.model.conditions import Condition
from occamlearn.model.tree import Tree
from occamlearn.trees.dtmax.data import OrderedData

__all__ = ["TableColumns", "column_chains", "stacked_columns", "table_columns"]

NUMERIC = ("continuous", "discrete")


@dataclass(frozen=True)
class TableColumns:
    """The training table for the searches: ``data`` (codes as ranks, class indices,
    weights); ``tests[f][c]`` what "code of f >= c" tests, as ``(meaning, swapped)`` -- a
    ``Condition`` (every-threshold mode) or a binary feature index, and whether the condition holds
    on the *low* side (``test`` reads it for a search's rank threshold); ``X`` the kept rows of the
    table, ``weight`` theirs (None unweighted); ``binarizer`` the fitted binariser whose features
    the tree tests (None in every-threshold mode and for 0/1 input), ``X_bin`` its 0/1 matrix and
    ``feature_names`` its feature names; ``over``: None when an optimum is over every threshold and
    category of the table, else what it is over, in words."""

    data: OrderedData
    tests: tuple
    classes: np.ndarray
    X: object
    weight: np.ndarray | None
    binarizer: object
    X_bin: np.ndarray | None
    feature_names: tuple
    specs: tuple
    handle_unknown: str
    over: str | None


def column_chains(X_bin: np.ndarray, conditions) -> tuple[np.ndarray, tuple]:
    """(codes: rows x chains; chains: per ordered column the 0/1 columns it stands for, the
    one with most rows first). Row r's code in a chain is how many of its columns hold r, so
    column ``chain[j - 1]`` holds r exactly when the code is >= j. Chains are read off the
    matrix: columns of one source column, operator and missing rule (or one column, without
    conditions) form a chain only when each holds a subset of the previous one's rows.

    The matrix is read a window of columns at a time, each window copied transposed
    (``_ColumnWindows``): a group's columns are then contiguous rows of the copy, where read
    from a row-major matrix each of them would touch one cache line per row (6,000 x 48,000
    bytes of thresholds: 2.9 s of CPU in this function so, 0.3 s by windows). The windows hold
    the same values, so every test and sum is the same."""
    X_bin = np.asarray(X_bin)
    ones = X_bin.sum(axis=0, dtype=np.int64)
    windows = _ColumnWindows(X_bin)
    chains, codes = [], []
    for members in chain_groups(X_bin.shape[1], conditions):
        members = sorted(members, key=lambda j: -ones[j])
        columns = windows.rows(members)  # members x rows, each row one column
        block = columns.astype(bool)
        nested = len(members) > 1 and not np.any(block[1:] & ~block[:-1])
        for part in ([range(len(members))] if nested else [[i] for i in range(len(members))]):
            chains.append(tuple(members[i] for i in part))
            codes.append(columns[list(part)].sum(axis=0))
    return stacked_columns(codes, X_bin.shape[0]), tuple(chains)


def chain_groups(n_columns: int, conditions) -> list[list[int]]:
    """The 0/1 columns that may form one chain, in order of their first column: those of one
    source column, operator and missing rule (each column alone without ``conditions``)."""
    groups: dict = {}
    for j in range(n_columns):
        condition = conditions[j] if conditions is not None else None
        key = tuple(getattr(condition, name, None) for name in ("column", "op", "missing"))
        groups.setdefault(key if key[0] is not None else ("", j), []).append(j)
    return list(groups.values())


# Bytes of one transposed window of ``column_chains`` (the matrix is read in these pieces,
# so the copy never costs more than this beside it).
WINDOW_BYTES = 16 << 20


class _ColumnWindows:
    """Columns of a row-major matrix as rows of transposed copies of windows of consecutive
    columns, a window moved forward as later columns are asked for (``column_chains`` asks
    in order of each group's first column; a group reaching past the window gets a window
    from its first column that holds it, or its columns gathered alone)."""

    def __init__(self, X: np.ndarray):
        self.X = X
        self.width = max(1, WINDOW_BYTES // max(1, X.shape[0] * X.itemsize))
        self.start, self.copy = 0, X[:, :0].T

    def rows(self, members: list) -> np.ndarray:
        low, high = min(members), max(members)
        if high - low + 1 > self.width:  # wider than any window: gathered
            return np.ascontiguousarray(self.X[:, members].T)
        if low < self.start or high >= self.start + self.copy.shape[0]:
            end = min(self.X.shape[1], low + self.width)
            self.start, self.copy = low, transposed(self.X[:, low:end], self.X.dtype,
                                                    TILE_ROWS)
        return self.copy[[j - self.start for j in members]]


# Rows of a window transposed at a time (``sorted_columns.transposed``): numpy's strided copy
# of a whole byte window is about ten times slower than of tiles of these rows (6,000 x 2,796
# bytes: 0.10 s whole, 0.016 s in tiles of 256 rows, 0.009 s in tiles of 1,024).
TILE_ROWS = 1024


def stacked_columns(codes: list, n_rows: int) -> np.ndarray:
    """``np.column_stack(codes)`` as float64, filled column by column while ``codes`` is
    emptied, so each column is held once (not the list, the stack and its float copy: 24
    bytes a cell of a wide table), and Fortran-ordered: ``OrderedData.from_matrix`` reads
    each column's values contiguous, so its transpose is no copy either."""
    matrix = np.empty((n_rows, len(codes)), dtype=np.float64, order="F")
    for j in range(len(codes)):
        matrix[:, j] = codes[j]
        codes[j] = None
    return matrix


@dataclass(frozen=True)
class _Cuts:
    """The tests of one numeric column read as ordered codes: code ``c`` >= 1 is the cut
    ``col >= t`` between ``distinct[c - 1 - shift]`` and ``distinct[c - shift]``, printed as
    the readable binariser prints its cuts, with ``missing`` its value on a missing row;
    with ``shift`` 1 code 0 holds the missing rows and code 1 tests ``col is missing`` (on
    the low side). Conditions are made only for the tests a tree uses: printing a cut costs
    exact decimal arithmetic, far too much for every threshold of a table."""

    spec: object
    distinct: np.ndarray
    integral: bool
    missing: bool | None
    shift: int = 0

    def __getitem__(self, code: int) -> tuple:
        spec = self.spec
        if self.shift and code == 1:
            return Condition(spec.name, "missing", None, spec.index), True
        below, above = self.distinct[code - 1 - self.shift], self.distinct[code - self.shift]
        if spec.dates:
            return Condition(spec.name, ">=", date_between(below, above), spec.index,
                             missing=self.missing, dates=True), False
        cut = threshold_condition(spec.name, spec.index, below, above, integral=self.integral)
        if self.missing is not None:
            cut = Condition(cut.column, cut.op, cut.value, cut.index, missing=self.missing)
        return cut, False


def _numeric_columns(spec, values: np.ndarray) -> list[tuple[np.ndarray, _Cuts]]:
    """One or two ordered columns of a numeric column (module doc): (codes, their tests)."""
    absent = np.isnan(values)
    distinct, rank = np.unique(values[~absent], return_inverse=True)
    integral = bool(np.all(distinct == np.round(distinct)))
    if not absent.any():
        return [(rank.astype(np.float64), _Cuts(spec, distinct, integral, None))]
    low = np.zeros(len(values))
    low[~absent] = rank + 1
    columns = [(low, _Cuts(spec, distinct, integral, False, shift=1))]
    if len(distinct) > 1:
        high = np.full(len(values), len(distinct) - 1, dtype=np.float64)
        high[~absent] = rank
        columns.append((high, _Cuts(spec, distinct, integral, True)))
    return columns


# The part of the time left that reading the columns may take before ``_every_threshold``
# ranks every value of each column read and the search starts with a greedy tree over them:
# that work took about ten times the reading per column (6,000 x 3,000 floats with half the
# time given to the binariser: a 3 s limit read 2,792 columns and the fit took 7.7 CPU-s),
# so a quarter of the share that would just fit leaves room for a loaded machine.
EVERY_THRESHOLD_SHARE = 0.025


def _every_threshold(binarizer, X, deadline=None) -> tuple[list, list, tuple, str, str | None]:
    """(codes per column, tests per column, column specs, handle_unknown, what is left out
    -- rare categories folded into "other", or None) of the table read as the readable
    binariser reads its columns, over every threshold. ``deadline`` (the fit's, or None)
    bounds the reading (``binarizer_within``): columns it leaves unread are left out, and
    said so in what is left out."""
    fitted = binarizer_within(clone(binarizer).set_params(max_thresholds=1, sides="upper"),
                              deadline, EVERY_THRESHOLD_SHARE).fit(X)
    _, raw = read_columns(fitted, X, reset=False)
    raw = dict(zip((spec.name for spec in fitted.columns_), raw))
    codes, tests, frame = [], [], {}
    for spec in fitted.columns_:
        if spec.kind in ("constant", "identifier", "unread"):
            continue
        values = clean_column(spec, raw[spec.name], handle_unknown="ignore")
        if spec.kind in NUMERIC:
            for column, column_tests in _numeric_columns(spec, values.astype(np.float64)):
                codes.append(column)
                tests.append(column_tests)
        else:
            frame[spec.name] = values
    frame = pd.DataFrame(frame, copy=False)
    for condition in fitted.conditions_:
        if condition.column in frame:
            codes.append(np.asarray(condition.evaluate(frame), dtype=np.float64))
            tests.append({1: (condition, False)})       # a two-valued column
    folded = restriction_text({}, getattr(fitted, "folded_columns_", {}),
                              fitted.max_categories, fitted.unread_columns_)
    return codes, tests, tuple(fitted.columns_), fitted.handle_unknown, folded


def reads_every_threshold(binarizer) -> bool:
    """Whether ``binarizer`` asks for every threshold: "readable" (the default), or a
    ``ThresholdBinarizer`` that keeps every cut and offers both sides to missing values
    (``max_thresholds=None``), whose column settings are then honoured."""
    if isinstance(binarizer, str):
        return binarizer == "readable"
    return (isinstance(binarizer, ThresholdBinarizer) and binarizer.max_thresholds is None
            and binarizer.missing_sides == "both")


def _feature_names(estimator, n_columns: int) -> tuple:
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(n_columns)]
    return tuple(str(n) for n in names)


def table_columns(estimator, X, y, sample_weight=None, class_weight=None,
                  deadline=None) -> TableColumns:
    """Read ``X, y`` for ``MaxAccuracyTreeClassifier.fit`` (module doc): validated once,
    weights from ``row_weights``, rows of weight 0 dropped first; the fit's ``deadline``
    bounds the readable binariser's reading (``binarizer_within``)."""
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target "
                         "y is None.")
    X, y = validate_table(estimator, X, y, reset=True)
    weight = row_weights(X, y, sample_weight, class_weight)
    if weight is not None and not weight.all():
        kept = np.flatnonzero(weight)
        X, y, weight = _take_rows(X, kept), y[kept], weight[kept]
    classes, y_index = encode_labels(y)
    binarizer, fitted, specs, handle_unknown = estimator.binarizer, None, (), "error"
    X_bin = None
    if reads_every_threshold(binarizer):
        codes, tests, specs, handle_unknown, over = _every_threshold(
            binarizer_to_fit(binarizer), X, deadline)
        names = ()
    else:
        if binarizer is None:
            X_bin = check_binary_matrix(X, getattr(estimator, "feature_names_in_", None))
            names, over = _feature_names(estimator, X_bin.shape[1]), "the 0/1 columns given"
        else:                             # fitted with the labels, as the other trees do
            fitted = binarizer_within(clone(binarizer_to_fit(binarizer)), deadline)
            X_bin = np.asarray(_fit_binarizer(fitted, X, y_index, weight), dtype=np.uint8)
            names = tuple(str(n) for n in fitted.get_feature_names_out())
            over = restriction_of(fitted) if isinstance(fitted, ThresholdBinarizer) else (
                f"the binariser's {X_bin.shape[1]} features")
        if fitted is None:                # 0/1 columns as given: each its own test
            matrix, tests = X_bin, tuple({1: (j, False)} for j in range(X_bin.shape[1]))
        else:
            matrix, chains = column_chains(X_bin, getattr(fitted, "conditions_", None))
            tests = [{c: (int(chain[c - 1]), False) for c in range(1, len(chain) + 1)}
                     for chain in chains]
    if X_bin is None:
        matrix = stacked_columns(codes, len(y_index))
    data = OrderedData.from_matrix(matrix, y_index, len(classes), weight)
    return TableColumns(data, tuple(tests), classes, X, weight, fitted, X_bin, names, specs,
                        handle_unknown, over)


def _test(columns: TableColumns, feature: int, rank: int) -> tuple:
    """(meaning, swapped) of a search's test "rank of ``feature`` >= ``rank``"."""
    return columns.tests[feature][int(columns.data.values[feature][rank])]


def tree_of(nested: tuple, columns: TableColumns, matrix: bool = True):
    """(``Tree`` over the features it tests, without counts; the fitted binariser that
    computes those features; the feature names; with ``matrix`` the kept rows' 0/1 matrix
    of those features, else None) of a search's nested tree."""
    used: dict = {}

    def walk(node: tuple) -> tuple:
        if node[0] == "leaf":
            return node
        meaning, swapped = _test(columns, node[1], node[2])
        low, high = walk(node[3]), walk(node[4])
        position = used.setdefault(meaning, len(used)) if isinstance(meaning, Condition) \
            else meaning
        return ("test", position, high, low) if swapped else ("test", position, low, high)

    tree = walk(nested)
    n_classes = len(columns.classes)
    if columns.X_bin is not None:                # a binariser's features, or 0/1 input
        return (Tree.from_nested(tree, len(columns.feature_names), n_classes,
                                 columns.feature_names), columns.binarizer,
                columns.feature_names, columns.X_bin)
    conditions = list(used)
    names = tuple(str(c) for c in conditions)
    specs = [spec for spec in columns.specs if any(c.column == spec.name for c in conditions)]
    tree = Tree.from_nested(tree, len(names), n_classes, names)
    if not matrix:
        return tree, None, names, None
    fitted = ConditionBinarizer(tuple(conditions), list(names), specs,
                                columns.handle_unknown).fit(columns.X)
    X_bin = fitted.transform(columns.X) if conditions else np.zeros(
        (columns.data.n_rows, 0), dtype=np.uint8)
    return tree, fitted, names, X_bin
