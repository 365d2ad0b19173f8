"""The data view of every exact tree search: distinct rows, their weights, useful columns.

Every exact search of ``trees/`` (the minimum pure tree's branch and bound, the smallest tree
within an error budget, the most accurate tree of depth <= d, and their MaxSAT encodings)
sees the training data through this module, so that each reduction is written once:

* **Rows.** Identical binary rows reach the same leaf of every tree, so they are kept once (a
  *pattern*). The examples of a pattern are grouped by label; a group's ``count`` is its
  total integer weight (``trees.weights.integer_weights`` makes sample weights whole units
  of 1/scale; without weights, its rows). Rows of weight 0 are dropped before grouping, so a
  zero weight is a dropped row, and a weight w is w repeated rows: every search only ever
  sums counts. Conflicting rows (same pattern, different labels) are separate groups of one
  pattern: at most one of them can be classified correctly.
* **Columns.** A constant column never separates anything; a column equal to another, or to
  its complement, separates exactly the same examples (the complement with the children
  swapped). Only one representative of each such class is kept (``reduce_columns``, the one
  column dedup of the package).
* **Orientation.** Kept columns whose mean is above one half are complemented, so every kept
  column has at most as many ones as zeros (the DT(max) routing clauses grow with the ones
  of a pattern); ``original_columns`` maps a tree over kept columns back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["ExampleGroups", "ReducedColumns", "bitset", "check_shapes", "distinct_rows",
           "group_examples", "original_columns", "reduce_columns", "validate_binary_data"]

def _zero_one(X: np.ndarray) -> bool:
    """Whether ``X`` holds only 0 and 1 (min/max where the dtype allows: no temporaries)."""
    if X.dtype == bool:
        return True
    if np.issubdtype(X.dtype, np.integer):
        return bool(X.min() >= 0 and X.max() <= 1)
    return bool(np.isin(X, (0, 1)).all())


def check_shapes(X: np.ndarray, y: np.ndarray, what: str) -> None:
    """Raise unless ``X`` is 2-D (``what`` names what it must be) and ``y`` holds one class
    index per row of it: the shape check every search's input validation starts with."""
    if X.ndim != 2:
        raise ValueError(f"X must be {what}; got an array of shape {X.shape}.")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must hold one class index per row of X ({X.shape[0]}); "
                         f"got shape {y.shape}.")


def validate_binary_data(X, y, n_classes: int, dtype=np.int64
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Check and convert (X, y): 0/1 matrix (a copy as ``dtype``: ``np.uint8`` for a search
    that only groups its rows, a byte a cell instead of eight), class indices in
    0..n_classes-1."""
    X = np.asarray(X)
    y = np.asarray(y)
    check_shapes(X, y, "a 2-D 0/1 matrix")
    if X.size and not _zero_one(X):
        raise ValueError("X must contain only 0/1 values; got "
                         f"{sorted(set(np.unique(X).tolist()) - {0, 1})[:5]}.")
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive int; got {n_classes!r}.")
    if y.size and (not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class indices in 0..{n_classes - 1}; got values "
                         f"{np.unique(y)[:10].tolist()}.")
    return X.astype(dtype), y.astype(np.int64)


def bitset(mask: np.ndarray) -> int:
    """The positions of the True entries of ``mask`` as the bits of a Python int."""
    return int.from_bytes(np.packbits(np.asarray(mask, dtype=np.uint8), bitorder="little")
                          .tobytes(), "little")


def column_bitsets(matrix: np.ndarray) -> list[int]:
    """``[bitset(matrix[:, j] != 0) for j in columns]``, packed in one pass."""
    packed = np.packbits(np.asarray(matrix).T != 0, axis=1, bitorder="little")
    return [int.from_bytes(column.tobytes(), "little") for column in packed]


@dataclass(frozen=True)
class ExampleGroups:
    """Training examples grouped by identical row (pattern) and label.

    patterns : (n_patterns, n_features) uint8 array of the distinct binary rows
    pattern : (n_groups,) pattern index of each group
    label : (n_groups,) class index of each group
    count : (n_groups,) number of training rows in each group -- with integer sample weights
        (``group_examples(weight=...)``), their total weight: what every search counts
    n_rows : (n_groups,) training rows in each group, or None when that is ``count``
    """

    patterns: np.ndarray
    pattern: np.ndarray
    label: np.ndarray
    count: np.ndarray
    n_rows: np.ndarray | None = None

    @property
    def n_patterns(self) -> int:
        return self.patterns.shape[0]

    @property
    def n_groups(self) -> int:
        return len(self.label)

    def class_weights(self, n_classes: int) -> np.ndarray:
        """(n_patterns, n_classes): the ``count`` (weight) of each pattern's rows of each
        class."""
        out = np.zeros((self.n_patterns, n_classes), dtype=np.int64)
        np.add.at(out, (self.pattern, self.label), self.count)
        return out

    def forced_errors(self) -> int:
        """Errors every classifier makes: per pattern, all rows but those of its biggest group."""
        biggest = np.zeros(self.n_patterns, dtype=np.int64)
        np.maximum.at(biggest, self.pattern, self.count)
        return int(self.count.sum() - biggest.sum())

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The training rows again (in group order): ``(X, y)`` with duplicates restored
        (each row once, whatever its weight)."""
        rows = self.count if self.n_rows is None else self.n_rows
        return (np.repeat(self.patterns[self.pattern], rows, axis=0),
                np.repeat(self.label, rows))


def distinct_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(X, axis=0, return_inverse=True)`` of a 0/1 matrix (as uint8), the same
    order, but on the rows packed into bytes (50,000 x 60: 1.5 s -> 0.05 s): packbits puts the
    first column in the highest bit, so byte order is the rows' lexicographic order."""
    X = np.asarray(X).astype(np.uint8, copy=False)  # read only: bytes are not copied
    if X.shape[0] == 0 or X.shape[1] == 0:
        patterns, inverse = np.unique(X, axis=0, return_inverse=True)
        return patterns, inverse.reshape(-1)
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    _, first, inverse = np.unique(_byte_keys(packed), return_index=True, return_inverse=True)
    return X[first], inverse.reshape(-1)


def _byte_keys(packed: np.ndarray) -> np.ndarray:
    """One key per row of ``packed`` (bytes) that orders as the rows' bytes do: rows of at
    most 8 bytes as unsigned 64-bit numbers (zero-padded on the right, big-endian: the first
    byte is the most significant, so numeric order is byte order), which sort much faster
    than the opaque byte strings (``np.void``) that longer rows become."""
    n_rows, width = packed.shape
    if width > 8:
        return packed.view(np.dtype((np.void, width))).reshape(-1)
    padded = np.zeros((n_rows, 8), dtype=np.uint8)
    padded[:, :width] = packed
    return padded.view(">u8").reshape(-1).astype(np.uint64)


def group_examples(X: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None
                   ) -> ExampleGroups:
    """Group the rows of binary ``X`` with class indices ``y`` into patterns and labels.

    ``weight``: non-negative integer weight per row (``trees.weights.integer_weights``); a
    group's ``count`` is then its total weight, exactly as if each row were repeated that
    many times, and rows of weight 0 are left out, exactly as if they were not there.
    """
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64)
    if X.ndim != 2 or len(y) != X.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label; got X {X.shape}, y {y.shape}.")
    if weight is not None:
        weight = np.asarray(weight, dtype=np.int64)
        if weight.shape != y.shape:
            raise ValueError(f"weight has shape {weight.shape}; y has {y.shape}.")
        X, y, weight = X[weight > 0], y[weight > 0], weight[weight > 0]
    if X.shape[0] == 0:
        raise ValueError("X has no rows (of positive weight): at least one training example "
                         "is needed.")
    patterns, pattern_of_row = distinct_rows(X)
    n_labels = int(y.max()) + 1
    keys = pattern_of_row.astype(np.int64) * n_labels + y     # (pattern, label) in order
    if weight is None:
        pairs, count = np.unique(keys, return_counts=True)
        return ExampleGroups(patterns=patterns, pattern=pairs // n_labels,
                             label=pairs % n_labels, count=count.astype(np.int64))
    pairs, group_of_row, n_rows = np.unique(keys, return_inverse=True, return_counts=True)
    count = np.zeros(len(pairs), dtype=np.int64)
    np.add.at(count, group_of_row.ravel(), weight)
    return ExampleGroups(patterns=patterns, pattern=pairs // n_labels,
                         label=pairs % n_labels, count=count,
                         n_rows=n_rows.astype(np.int64))


@dataclass(frozen=True)
class ReducedColumns:
    """Useful columns of a binary matrix, each oriented to have at most half ones.

    column : (n_kept,) index of each kept column in the original matrix
    flipped : (n_kept,) bool, True where the kept column is the complement of the original
    source : the original matrix (read by ``matrix`` only)
    matrix : (n_rows, n_kept) uint8, the kept columns (complemented where ``flipped``), made
        when first read (most searches read only ``column``)
    """

    column: np.ndarray
    flipped: np.ndarray
    source: np.ndarray = field(repr=False)

    @property
    def n_kept(self) -> int:
        return len(self.column)

    @cached_property
    def matrix(self) -> np.ndarray:
        kept = np.asarray(self.source)[:, self.column].astype(np.uint8, copy=False)
        kept ^= self.flipped.astype(np.uint8)       # 0/1 values: x ^ 1 = 1 - x
        return np.ascontiguousarray(kept)


def reduce_columns(X: np.ndarray) -> ReducedColumns:
    """Drop constant, duplicate and complementary columns of binary ``X``; orient the rest.
    Of each class of equivalent columns the first is kept; kept columns stay in order.
    Memory: one byte copy of ``X`` (transposed) and its packed bits."""
    columns = np.array(np.asarray(X).T, dtype=np.uint8, order="C")  # a column's rows
    n_rows = columns.shape[1]                                          # contiguous
    ones = np.count_nonzero(columns, axis=1)
    flip = 2 * ones > n_rows
    # After orientation a column and its complement coincide unless the column has exactly
    # half ones; canonicalise those by their first row so complements meet too.
    tie = 2 * ones == n_rows
    canon_flip = tie & (columns[:, 0] == 1) if n_rows else tie
    flip = flip ^ canon_flip
    columns ^= flip.astype(np.uint8)[:, None]   # 0/1 values: x ^ 1 = 1 - x, in place
    # a column is useful when it has both values (orientation keeps that)
    candidates = np.flatnonzero((ones > 0) & (ones < n_rows))
    # distinct columns as bytes (packed bits): np.unique(axis=0) on a column of 5,000 rows
    # builds a 5,000-field structured type (mushroom: 36 ms -> 1 ms)
    packed = np.ascontiguousarray(np.packbits(columns, axis=1)[candidates])
    del columns
    keys = packed.view(np.dtype((np.void, max(1, packed.shape[1])))).reshape(-1)
    _, first = np.unique(keys, return_index=True)        # stable: the first of equal ones
    keep = np.sort(candidates[first])
    return ReducedColumns(column=keep, flipped=flip[keep], source=X)


def original_columns(nested: tuple, columns: ReducedColumns) -> tuple:
    """A nested tree over kept columns (``("leaf", k)`` / ``("test", kept, zero, one)``)
    over the original columns: a test of a complemented kept column tests the original one
    with its children swapped (value 0 left, 1 right)."""
    if nested[0] == "leaf":
        return nested
    zero_side, one_side = (original_columns(side, columns) for side in nested[2:])
    if columns.flipped[nested[1]]:
        zero_side, one_side = one_side, zero_side
    return ("test", int(columns.column[nested[1]]), zero_side, one_side)
