"""The error-budget search's smallest budgets answered by the compiled pure-tree search.

At a row set S with budget b below forced(S) + m (m the smallest positive margin of any
pattern, forced(S) the errors of S's conflicting rows), a tree within the budget must classify
every non-tie pattern of S as its heaviest class: this is the margin filter of
``trees.size_error.pure_tail`` (proof there; a pattern's groups are all in S or none, so its margin
is the same in S as in the whole data). So

    best(S, b) >= pure(F ∩ S),   F = the non-tie patterns, each labelled by its heaviest class,

and with two classes the two are equal: the minimum pure tree of F ∩ S, each leaf labelled by
the heavier class of the rows of S reaching it, makes exactly forced(S) errors (its leaf holds
non-tie patterns of one class c, each erring by its forced weight under c, and tie patterns,
which err by their forced weight under either class; the heavier class can only do better,
and no tree does better than forced). Where the search would otherwise enumerate budget
splits down to pure subtrees in Python, one compiled search (``mpdt.bnb.engines.
CompiledRowSetSearch`` on the patterns of F, its memo shared by all row sets) returns
pure(F ∩ S) within the caller's bound, or a proven bound above it.
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.exact.data import bitset, reduce_columns

__all__ = ["PureOracle", "as_search_node", "decided_patterns", "pure_oracle"]


class PureOracle:
    """``leaves(S, ub)``: pure(F ∩ S) if it is <= ub, else a proven bound > ub (module
    docstring), for bit row sets S of the error-budget search ``search``; ``exact`` says the
    value is best(S, b) itself (two classes); ``node(S)`` the minimum pure tree of F ∩ S as
    the search's greedy-tree nodes over S (after ``leaves`` returned its exact value)."""

    def __init__(self, search, margin: int, patterns: np.ndarray, labels: np.ndarray,
                 deadline):
        from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch

        view = search.view
        self.search = search
        self.margin = margin
        self.exact = search.n_classes == 2
        rows = view.groups.patterns[patterns].astype(np.int64)
        kept = reduce_columns(rows).column.tolist()
        self.pure = CompiledRowSetSearch(rows, labels, search.n_classes, kept,
                                         deadline=deadline)
        index = np.full(view.groups.n_patterns, -1, dtype=np.int64)
        index[patterns] = np.arange(len(patterns))
        self.index = index
        self.calls = 0
        self.pattern_bits = view.groups.patterns[view.groups.pattern[view.group_of_bit]]

    def pure_rows(self, rows: int) -> int:
        """The pure search's row set of F ∩ S."""
        found = self.index[self.search.view.patterns_in(rows)]
        mask = np.zeros(len(self.pure.labels), dtype=bool)
        mask[found[found >= 0]] = True
        return bitset(mask)

    def leaves(self, rows: int, ub: int) -> int:
        self.calls += 1
        pure_rows = self.pure_rows(rows)
        if not pure_rows:
            return 1
        return self.pure.solve(pure_rows, max(ub, 1))

    def node(self, rows: int):
        return as_search_node(self.search, self.pattern_bits,
                              self.pure.nested(self.pure_rows(rows)), rows)


def as_search_node(search, pattern_bits: np.ndarray, nested, rows: int):
    """A nested tree ("leaf", k) / (feature, left, right) over pattern columns (0 goes left)
    as the greedy-tree nodes ``(rows,)`` / ``(rows, column index, zero side, one side)`` of
    the error-budget search ``search`` on its bit row set ``rows`` (``pattern_bits``: the
    pattern of each bit). A column the search dropped as equivalent is replaced by its kept
    representative (sides swapped for a complement); a test that does not split ``rows``
    (it only separates rows the search does not hold) becomes a leaf."""
    if nested[0] == "leaf":
        return (rows,)
    feature, left, right = nested
    one = rows & bitset(pattern_bits[:, feature] == 1)
    zero = rows ^ one
    if not one or not zero:
        return (rows,)
    for index, column in enumerate(search.columns):
        side = rows & column
        if side == one:
            return (rows, index, as_search_node(search, pattern_bits, left, zero),
                    as_search_node(search, pattern_bits, right, one))
        if side == zero:
            return (rows, index, as_search_node(search, pattern_bits, right, one),
                    as_search_node(search, pattern_bits, left, zero))
    raise RuntimeError(f"no kept column splits as pattern column {feature} does (a bug)")


def pure_oracle(search, deadline) -> PureOracle | None:
    """The oracle for ``search``, or None when the compiled pure-tree kernels are not in the
    disk cache (they are not compiled here) or F holds one class only."""
    if not _search_kernels_loaded():
        return None
    patterns, labels, margins = decided_patterns(search.view.weights)
    if len(np.unique(labels)) < 2:
        return None
    return PureOracle(search, int(margins.min()), patterns, labels, deadline)


_LOADED: list = []  # True once the pure-tree search kernels are loaded in this process


def _search_kernels_loaded() -> bool:
    """Load the compiled pure-tree search from the disk cache, once a process: after the
    first load the kernels are in memory, and the cache's index files (read by
    ``kernels_ready``, a few pickles a call) need not be read again."""
    from occamlearn.trees.compiling import kernel_cache

    if _LOADED:
        return True
    if not kernel_cache.kernels_ready("bnb"):
        return False
    try:
        kernel_cache.load("bnb", search=True)
    except kernel_cache.KernelsUnavailable:
        return False
    _LOADED.append(True)
    return True


def decided_patterns(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The patterns with a positive margin (their heaviest class outweighs the next by
    margin(p) > 0; ``weights[p, k]``: the weight of pattern p's rows of class k), their
    heaviest classes and their margins: F and its labels in the module docstring."""
    ordered = np.sort(weights, axis=1)[:, ::-1]
    margin = ordered[:, 0] - (ordered[:, 1] if weights.shape[1] > 1 else 0)
    patterns = np.flatnonzero(margin > 0)
    return patterns, weights.argmax(axis=1)[patterns], margin[patterns]
