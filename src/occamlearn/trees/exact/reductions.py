"""Column reductions that keep the size of a minimum pure tree, applied before its search.

A rule here may drop a column only if some minimum pure tree of the data avoids it: then the
minimum over the kept columns equals the minimum over all, every tree found over the kept
columns is a tree over the original ones (``ColumnReduction.tree_in_original`` re-indexes its
tests; the printed conditions are the original columns' own), and a size proven minimum over
the kept columns is proven minimum over all. Size is nodes; "a pure tree" classifies every
training row correctly, so these rules are for pure trees only (not for error budgets, and
not for enumerating *every* minimum tree: a minimum tree that tests a dropped column is no
longer found).

Rules applied (each with its proof on the function that applies it):

* **Equivalent columns** -- constant columns, and of each class of equal or complementary
  columns all but the first: ``data.reduce_columns``, the package's one such dedup.
* **Twin-covered columns** (``twin_covered_columns``) -- column j is dropped when some other
  kept column (or its complement, or a constant) agrees with j on every row that has no
  *twin across j*: a row of the same class equal to it on every kept column but j. On
  threshold columns of one numeric column this is the provable form of the boundary-point
  idea below: the cut between adjacent values a < b may go when every row at b has a twin
  at a (same class, same everything else), or every row at a one at b.

Rules considered and *not* applied:

* **Columns that never separate two rows of different classes.** Vacuous: if a column split
  the rows into two non-empty sides and no pair across it had different classes, every row
  would share the class of any row on the other side, so the data would be one class and
  the minimum one leaf. The only such columns are the constant ones, dropped already.
* **Dominated columns** (a separates a subset of the different-class pairs b separates).
  A split's worth depends on the rows reaching its node, not on the pairs over the whole
  data; no proof, so not used.
* **Boundary thresholds** (Fayyad and Irani's boundary points: drop the cut between adjacent
  values a < b of a numeric column when every row at a or b has one and the same class).
  *False for minimum pure trees.* Brute force finds 7 rows over two numeric columns and two
  binary ones where dropping such a cut raises the minimum from 7 nodes to 9
  (``tests/trees/exact/test_reductions.py::test_boundary_threshold_rule_is_false``): the
  optimal tree sends the rows at a left and those at b right, where different other columns
  classify them; moving the cut drags one group into the other side's leaves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.trees.exact.data import distinct_rows, reduce_columns

__all__ = ["ColumnReduction", "reduce_for_pure_tree", "twin_covered_columns", "twin_pairs"]


# Rows hashed / looked up at a time in ``twin_pairs``: bounds its temporaries to about
# 24 bytes x this x columns (100 MB at 2,000 columns).
TWIN_BLOCK_ROWS = 2048


def twin_pairs(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of *twins* among the distinct rows of ``X``: same class, different on
    exactly one column. Returns ``(first, second, column)`` arrays, one entry per pair,
    ``first`` the row with 0 on ``column`` (the one column they differ on).

    By hashing, in O(rows x columns): a row's key is a random 64-bit weight per column
    summed over its ones, plus one per class (wrapping mod 2**64), so the row q with column
    j set to 1 has key(q) + weight[j]. Each (q, j) with q_j = 0 looks that key up among the
    sorted keys, and each hit is checked exactly (a hash collision can only hide a twin,
    which drops fewer columns: never a wrong drop)."""
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.int64)
    n_rows, n_columns = X.shape
    rng = np.random.default_rng(0x7717)
    weight = rng.integers(0, 2**63, size=n_columns, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    class_weight = rng.integers(0, 2**63, size=int(y.max(initial=0)) + 1, dtype=np.uint64)
    blocks = range(0, n_rows, TWIN_BLOCK_ROWS)
    with np.errstate(over="ignore"):
        key = np.concatenate([X[b:b + TWIN_BLOCK_ROWS].astype(np.uint64) @ weight
                              for b in blocks] or [np.zeros(0, dtype=np.uint64)])
        key += class_weight[y]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    found = []
    for b in blocks:
        row, column = np.nonzero(X[b:b + TWIN_BLOCK_ROWS] == 0)
        row += b
        with np.errstate(over="ignore"):
            wanted = key[row] + weight[column]
        at = np.minimum(np.searchsorted(sorted_key, wanted), n_rows - 1)
        hit = sorted_key[at] == wanted
        first, second, column = row[hit], order[at[hit]], column[hit]
        differ = X[first] != X[second]
        exact = (differ.sum(axis=1) == 1) & differ[np.arange(len(first)), column] \
            & (y[first] == y[second])
        found.append((first[exact], second[exact], column[exact]))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return tuple(np.concatenate([part[i] for part in found]).astype(np.int64)
                 for i in range(3))


def _replacement(patterns: np.ndarray, columns: np.ndarray, where: int, rows: np.ndarray,
                 kept: np.ndarray) -> int | None:
    """A column still ``kept`` (other than ``columns[where]``) equal, or complementary, to
    ``columns[where]`` on ``rows``; -1 if that column is constant on ``rows``; None if
    there is none. ``patterns`` has one column per entry of ``columns``."""
    values = patterns[rows, where]
    if len(rows) == 0 or values.min() == values.max():
        return -1
    candidates = np.flatnonzero(np.isin(columns, kept) & (np.arange(len(columns)) != where))
    block = patterns[np.ix_(rows, candidates)]
    same = (block == values[:, None]).all(axis=0) | (block != values[:, None]).all(axis=0)
    hits = np.flatnonzero(same)
    return int(columns[candidates[hits[0]]]) if len(hits) else None


def twin_covered_columns(X: np.ndarray, y: np.ndarray, kept) -> tuple[list[int], list[tuple]]:
    """Drop twin-covered columns from ``kept`` (indices into ``X``) until none is left.

    Returns the columns still kept and, per dropped column, ``(dropped, replacement)``
    (``replacement`` -1 for a constant).

    **Rule.** Let j be a kept column and U the rows with no *twin across j*: no row of the
    same class equal to it on every kept column but j (``twin_pairs`` over the kept
    columns). If a kept column k != j agrees with j on every row of U, or with its
    complement, or j is constant on U, then j can be dropped: the minimum pure tree size
    over the kept columns without j equals the one with j.

    **Proof.** Dropping a column never makes a minimum smaller, so it suffices to turn any
    pure tree T over the kept columns into a pure tree T' of at most its size without j.
    Build T' by replacing each test of j by a test of k (children swapped for the complement
    of k); for a constant on U, replace the test by its child on that constant's side
    (fewer nodes). A row whose value of j equals that of the replacement takes, at every
    such node, the same branch as before, so it follows its old path to its old leaf. Every
    other row q is, by the choice of the replacement, outside U: it has a twin p (same class
    as q, equal to q on every kept column except j, p_j != q_j). Then p_j equals the
    replacement's value on q, which is the replacement's value on p (the replacement is not
    j), so p follows its old path in T' to a leaf of p's class; and T' tests no j, so q and
    p, equal on every column T' tests, reach the same leaf, of p's class = q's class. T' is
    pure. (If T' is not minimum its size still bounds the minimum from above.)

    **Dropping several.** Applied one column at a time, each drop keeps the minimum of the
    data as it then is (columns dropped so far removed), so the chain keeps the minimum of
    the original. Twins are computed once per pass: dropping a column only adds twins (rows
    equal on every kept column but j stay equal when fewer columns are kept), so a row
    without a twin now was without one at the start of the pass, and a replacement chosen
    on the pass's (larger) U agrees with j on the current U. A replacement is always a
    column still kept when j is dropped. Passes repeat until one drops nothing.
    """
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y)
    kept = np.asarray(kept, dtype=np.int64)
    dropped: list[tuple] = []
    while len(kept) > 1:
        patterns, pattern_of_row = distinct_rows(X[:, kept])
        labels = np.empty(len(patterns), dtype=y.dtype)
        labels[pattern_of_row] = y  # one class per pattern: conflicts are the caller's
        first, second, position = twin_pairs(patterns, labels)
        before = len(kept)
        columns_at_start = kept.copy()
        for where in np.unique(position):
            column = int(columns_at_start[where])
            across = position == where
            twinned = np.zeros(len(patterns), dtype=bool)
            twinned[first[across]] = twinned[second[across]] = True
            # a column with no twins across it has U = every row: only an equal, complement
            # or constant column could replace it, and reduce_columns has dropped those
            untwinned = np.flatnonzero(~twinned)
            replacement = _replacement(patterns, columns_at_start, where, untwinned, kept)
            if replacement is not None:
                kept = kept[kept != column]
                dropped.append((column, replacement))
        if len(kept) == before:
            break
    return kept.tolist(), dropped


@dataclass(frozen=True)
class ColumnReduction:
    """The columns a pure-tree search needs, and the way back to the original columns.

    column : (n_kept,) indices of the kept columns in the original matrix, in order
    n_features : columns of the original matrix
    dropped : ``(rule, column, replacement)`` per dropped column, for the record
    """

    column: np.ndarray
    n_features: int
    dropped: tuple = field(default=())

    @property
    def n_kept(self) -> int:
        return len(self.column)

    def reduce(self, X: np.ndarray) -> np.ndarray:
        """The kept columns of an original matrix."""
        return np.asarray(X)[:, self.column]

    def tree_in_original(self, tree: Tree, X=None, y=None) -> Tree:
        """``tree`` (over the kept columns) as a tree over the original columns: each test
        re-indexed, leaf counts recomputed on the original ``(X, y)`` when given."""
        feature = np.array(tree.feature, dtype=np.int64)
        tests = feature >= 0
        feature[tests] = self.column[feature[tests]]
        mapped = Tree(feature, tree.left, tree.right, tree.label, tree.counts,
                      self.n_features, ())
        return mapped if X is None else mapped.with_counts(np.asarray(X), np.asarray(y))

    def stats(self) -> dict:
        rules = [rule for rule, _, _ in self.dropped]
        return {"columns_before": self.n_features, "columns_after": self.n_kept,
                **{f"dropped_{rule}": rules.count(rule) for rule in sorted(set(rules))}}


def reduce_for_pure_tree(X, y) -> ColumnReduction:
    """The column reductions above on a binary matrix ``X`` with class indices ``y``.
    ValueError if identical rows have different classes (the rules assume a pure tree)."""
    X = np.asarray(X).astype(np.uint8)
    y = np.asarray(y, dtype=np.int64)
    n_features = X.shape[1]
    patterns, pattern = distinct_rows(X)
    if len(np.unique(np.column_stack([pattern, y]), axis=0)) != len(patterns):
        raise ValueError("identical rows of X have different classes: no pure tree exists, "
                         "so no column reduction for pure trees applies.")
    equivalent = reduce_columns(X).column
    kept, twin_dropped = twin_covered_columns(X, y, equivalent)
    dropped = [("equivalent", int(j), None) for j in sorted(set(range(n_features))
                                                             - set(equivalent.tolist()))]
    dropped += [("twin_covered", j, k) for j, k in twin_dropped]
    return ColumnReduction(np.asarray(kept, dtype=np.int64), n_features, tuple(dropped))
