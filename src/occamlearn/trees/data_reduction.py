"""The data side of the error-tolerant tree encodings: distinct examples and useful columns.

A MaxSAT encoding of trees grows with (examples × features), so both are shrunk first, without
changing which trees are optimal:

* **Rows.** Identical binary rows reach the same leaf of every tree, so they are encoded once
  (a *pattern*). The examples of a pattern are grouped by label; a group becomes one soft
  clause weighted by its size. Conflicting rows (same pattern, different labels) are separate
  groups of the same pattern: at most one of them can be classified correctly.
* **Columns.** A constant column never separates anything; a column equal to another, or to its
  complement, separates exactly the same examples (the complement with the children swapped).
  Only one representative of each such class is kept.
* **Orientation.** Kept columns whose mean is above one half are complemented, so every kept
  column has at most as many ones as zeros. The DT(max) routing clauses grow with the number of
  ones of a pattern (see ``dtmax.py``); decoding swaps the children of a node testing a
  complemented column, so the decoded tree tests the original column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ExampleGroups", "ReducedColumns", "distinct_rows", "group_examples",
           "reduce_columns"]


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
    X = np.asarray(X).astype(np.uint8)
    if X.shape[0] == 0 or X.shape[1] == 0:
        patterns, inverse = np.unique(X, axis=0, return_inverse=True)
        return patterns, inverse.reshape(-1)
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return X[first], inverse.reshape(-1)


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
    keys = np.stack([pattern_of_row, y], axis=1)
    if weight is None:
        pairs, count = np.unique(keys, axis=0, return_counts=True)
        return ExampleGroups(patterns=patterns, pattern=pairs[:, 0], label=pairs[:, 1],
                             count=count.astype(np.int64))
    pairs, group_of_row, n_rows = np.unique(keys, axis=0, return_inverse=True,
                                            return_counts=True)
    count = np.zeros(len(pairs), dtype=np.int64)
    np.add.at(count, group_of_row.ravel(), weight)
    return ExampleGroups(patterns=patterns, pattern=pairs[:, 0], label=pairs[:, 1],
                         count=count, n_rows=n_rows.astype(np.int64))


@dataclass(frozen=True)
class ReducedColumns:
    """Useful columns of a binary matrix, each oriented to have at most half ones.

    matrix : (n_rows, n_kept) uint8, the kept columns (complemented where ``flipped``)
    column : (n_kept,) index of each kept column in the original matrix
    flipped : (n_kept,) bool, True where the kept column is the complement of the original
    """

    matrix: np.ndarray
    column: np.ndarray
    flipped: np.ndarray

    @property
    def n_kept(self) -> int:
        return len(self.column)


def reduce_columns(X: np.ndarray) -> ReducedColumns:
    """Drop constant, duplicate and complementary columns of binary ``X``; orient the rest."""
    X = np.asarray(X).astype(np.uint8)
    n_rows = X.shape[0]
    ones = X.sum(axis=0)
    flip = 2 * ones > n_rows
    oriented = np.where(flip, 1 - X, X).astype(np.uint8)
    # After orientation a column and its complement coincide unless the column has exactly
    # half ones; canonicalise those by their first row so complements meet too.
    tie = 2 * ones == n_rows
    canon_flip = tie & (oriented[0] == 1) if n_rows else tie
    oriented[:, canon_flip] = 1 - oriented[:, canon_flip]
    flip = flip ^ canon_flip
    useful = (oriented.sum(axis=0) > 0) & (oriented.sum(axis=0) < n_rows)
    candidates = np.flatnonzero(useful)
    _, first = np.unique(oriented[:, candidates].T, axis=0, return_index=True)
    keep = np.sort(candidates[first])
    return ReducedColumns(matrix=oriented[:, keep], column=keep, flipped=flip[keep])
