"""Conflicting examples: identical feature vectors with different labels.

No pure decision tree exists for such data. The MaxSAT paper's row counts (Table 4: spect
251, monks-3 548, hayes-r 120 on the 132 UCI training rows) come from keeping, for every
feature vector, only the rows of its majority label (``resolve_conflicts``). Conflicts can
also appear only after binarisation (values binned together), so run these on the matrix the
learner will see.

Rows are compared exactly: each column is factorised to integer codes, each row's codes are
read as one opaque byte string (0/1 rows packed to bits first) and the rows are grouped with
one ``np.unique(..., return_inverse=True)`` over those strings -- a byte comparison per pair,
where ``np.unique(axis=0)`` compared column by column (6 s instead of 0.2 s on 20,000 x 128).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["STRATEGIES", "conflict_message", "find_conflicts", "kept_rows", "resolve_conflicts"]


def _codes(X) -> np.ndarray:
    """Integer matrix with equal rows exactly where ``X`` has equal rows."""
    if isinstance(X, pd.DataFrame):
        columns = [X.iloc[:, j] for j in range(X.shape[1])]
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (rows x features), got shape {X.shape}")
        if X.dtype.kind in "biu":
            return X
        columns = [X[:, j] for j in range(X.shape[1])]
    codes = np.empty((X.shape[0], len(columns)), dtype=np.int64)  # also with no columns
    for j, column in enumerate(columns):
        codes[:, j] = pd.factorize(column, use_na_sentinel=False)[0]
    return codes


def _groups_and_labels(X, y) -> tuple[np.ndarray, np.ndarray]:
    codes = _codes(X)
    labels = np.asarray(y).ravel()
    if labels.shape[0] != codes.shape[0]:
        raise ValueError(f"X has {codes.shape[0]} rows but y has {labels.shape[0]} labels")
    if codes.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if codes.shape[1] == 0:
        groups = np.zeros(codes.shape[0], dtype=np.int64)
    else:
        groups = _row_groups(codes)
    return groups, pd.factorize(labels, sort=True, use_na_sentinel=False)[0]


def _row_groups(codes: np.ndarray) -> np.ndarray:
    """Group id of each row (equal ids exactly for equal rows; ids in no particular order)."""
    if codes.dtype.kind in "bu" and codes.max(initial=0) <= 1:
        codes = np.packbits(codes.astype(bool), axis=1)
    rows = np.ascontiguousarray(codes)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    return np.unique(keys, return_inverse=True)[1].ravel().astype(np.int64)


def find_conflicts(X, y) -> list[np.ndarray]:
    """Groups of row positions (0-based) that share a feature vector but not a label.

    Each group is a sorted int array; groups are ordered by their first row. An empty list
    means a pure classifier (e.g. a pure tree) exists.
    """
    groups, labels = _groups_and_labels(X, y)
    if groups.size == 0:
        return []
    pairs = np.unique(np.column_stack([groups, labels]), axis=0)
    labels_per_group = np.bincount(pairs[:, 0], minlength=groups.max() + 1)
    rows = np.flatnonzero(labels_per_group[groups] > 1)
    if rows.size == 0:
        return []
    order = rows[np.argsort(groups[rows], kind="stable")]
    starts = np.flatnonzero(np.diff(groups[order], prepend=-1))
    found = np.split(order, starts[1:])
    return sorted(found, key=lambda rows: rows[0])


def _majority_rows(groups: np.ndarray, labels: np.ndarray,
                   weight: np.ndarray | None = None) -> np.ndarray:
    """Mask of rows whose label is their group's most frequent; ties -> the smallest label.

    With ``weight`` (one non-negative number per row) "most frequent" is "largest total
    weight", so integer weights act as repeated rows.

    Labels are codes in sorted label order, so the tie-break does not depend on row order
    (a shuffled table keeps the same rows). It is also the tie-break under which the
    certified minimum sizes of the benchmark (monks-3 29, iris 15, hayes-r 39 on the 64 %
    split, certified by STreeD and by our own searches) are reproduced; "first label seen" gives 41,
    19 and 37 there.
    """
    pairs, pair_of_row, counts = np.unique(
        np.column_stack([groups, labels]),
        axis=0,
        return_inverse=True,
        return_counts=True,
    )
    if weight is not None:
        counts = np.bincount(pair_of_row.ravel(), weights=weight, minlength=len(pairs))
    # best pair per group: most rows, then the smallest label code
    order = np.lexsort((pairs[:, 1], -counts, pairs[:, 0]))
    is_best = np.zeros(len(pairs), dtype=bool)
    best = order[np.flatnonzero(np.diff(pairs[order, 0], prepend=-1))]
    is_best[best] = True
    return is_best[pair_of_row.ravel()]


def _conflict_free_rows(groups: np.ndarray, labels: np.ndarray, weight=None) -> np.ndarray:
    """Mask of rows whose feature vector has one label only."""
    pairs = np.unique(np.column_stack([groups, labels]), axis=0)
    return np.bincount(pairs[:, 0], minlength=groups.max() + 1)[groups] == 1


STRATEGIES = {
    "majority": _majority_rows,  # the paper's filter
    "drop": _conflict_free_rows,  # remove every conflicting row
}


def resolve_conflicts(X, y, strategy: str = "majority", sample_weight=None):
    """Return ``(X, y)`` without conflicting labels.

    ``strategy="majority"`` keeps, for each feature vector, only the rows of its most frequent
    label; on a tie the smallest label (in sorted order) wins, whatever the row order. With
    ``sample_weight`` the label kept is the one of largest total weight (ties as before).
    ``"drop"`` removes every row of a conflicting group. Rows keep their order; DataFrames
    and Series keep their index.
    """
    keep = kept_rows(X, y, strategy, sample_weight)
    return (X, y) if keep is None else (_take(X, keep), _take(y, keep))


def kept_rows(X, y, strategy: str = "majority", sample_weight=None) -> np.ndarray | None:
    """The mask of the rows ``resolve_conflicts`` keeps (None for no rows at all)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {sorted(STRATEGIES)}, got {strategy!r}")
    groups, labels = _groups_and_labels(X, y)
    if groups.size == 0:
        return None
    weight = None
    if sample_weight is not None:
        weight = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weight.shape != groups.shape:
            raise ValueError(f"sample_weight has {weight.size} entries; X has "
                             f"{groups.size} rows.")
    return STRATEGIES[strategy](groups, labels, weight)


def _take(data, keep: np.ndarray):
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.iloc[np.flatnonzero(keep)]
    return np.asarray(data)[keep]


def conflict_message(groups: list[np.ndarray], y, index=None, limit: int = 3) -> str:
    """One line naming conflicting rows, e.g. for "no pure tree exists" errors.

    ``index`` (e.g. a DataFrame's index) turns row positions into row labels.
    """
    labels = np.asarray(y).ravel()
    names = np.asarray(index) if index is not None else None
    parts = []
    for rows in groups[:limit]:
        shown = rows if names is None else names[rows]
        row_text = ", ".join(str(r) for r in shown)
        label_text = ", ".join(str(v) for v in pd.unique(labels[rows]))
        parts.append(f"rows {row_text} have identical features and labels {label_text}")
    more = len(groups) - limit
    tail = f"; and {more} more group{'s' if more > 1 else ''}" if more > 0 else ""
    total = sum(len(g) for g in groups)
    return (
        f"{len(groups)} group{'s' if len(groups) != 1 else ''} of conflicting rows "
        f"({total} rows): "
        + "; ".join(parts)
        + tail
        + " (resolve_conflicts(X, y) keeps each group's majority label)"
    )
