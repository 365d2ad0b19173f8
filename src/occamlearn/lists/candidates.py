"""Candidate conditions for the greedy search: primitive binary features and their conjunctions.

The paper's conditions (Sec. II) are primitive binary features ("attribute = value") or
conjunctions of several of them. Conjunctions of size k are built level by level from the
conjunctions of size k - 1 that cover at least ``min_support`` training rows (an Apriori-style
prune: a conjunction never covers more rows than any of its parts), each new column being the
bitwise AND of two packed columns -- vectorised over all pairs of a block at once.

``min_conjunction`` leaves the smaller sizes out of the candidate set: the tic-tac-toe example needs
conjunctions of 2-3 cells *without* the single cells (with them the positive climb takes ``t5 == x``
first and stops at 90.4 % training accuracy). An explicit list of conditions can be given instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from occamlearn.lists.bits import popcount_rows, weighted_support

__all__ = ["Candidates", "build_candidates", "check_conditions", "check_sizes", "conjoin"]

MAX_CANDIDATE_BYTES = 4 << 30  # refuse candidate sets whose packed columns exceed 4 GiB
_BLOCK_BYTES = 1 << 22


class ConditionIndex(Sequence):
    """The enumerated conditions as blocks of feature-index rows (one block per size), read as
    a sequence of tuples: no Python object per condition until one is asked for (a 2,000-column
    table has two million pairs; their tuples alone took seconds)."""

    def __init__(self, blocks):
        self._blocks = [np.asarray(block, dtype=np.int64) for block in blocks if len(block)]
        self._starts = np.cumsum([0] + [len(block) for block in self._blocks])

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, item):
        if isinstance(item, slice):
            return tuple(self[i] for i in range(*item.indices(len(self))))
        item = int(item)
        if item < 0:
            item += len(self)
        if not 0 <= item < len(self):
            raise IndexError(item)
        block = int(np.searchsorted(self._starts, item, side="right")) - 1
        return tuple(self._blocks[block][item - self._starts[block]].tolist())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None

    def sizes(self) -> np.ndarray:
        return np.concatenate([np.full(len(block), block.shape[1], np.int64)
                               for block in self._blocks] or [np.empty(0, np.int64)])


@dataclass(frozen=True, eq=False)
class Candidates:
    """Candidate conditions and their packed columns.

    conditions : sequence of tuples of primitive feature indices (sorted within each
        condition): a tuple, or a ``ConditionIndex`` for enumerated ones
    columns : (n_candidates, n_words) uint64, the rows each condition covers
    """

    conditions: Sequence
    columns: np.ndarray

    def __len__(self) -> int:
        return len(self.conditions)

    @cached_property
    def sizes(self) -> np.ndarray:
        """Number of literals in each condition."""
        if isinstance(self.conditions, ConditionIndex):
            return self.conditions.sizes()
        return np.fromiter((len(c) for c in self.conditions), dtype=np.int64,
                           count=len(self.conditions))


def conjoin(primitives: np.ndarray, conditions) -> np.ndarray:
    """Packed columns of the given conjunctions (each a sequence of primitive indices)."""
    conditions = [tuple(c) for c in conditions]
    columns = np.empty((len(conditions), primitives.shape[1]), dtype=np.uint64)
    by_size: dict = {}
    for position, condition in enumerate(conditions):
        by_size.setdefault(len(condition), []).append(position)
    for size, positions in by_size.items():
        index = np.array([conditions[p] for p in positions], dtype=np.int64).reshape(-1, size)
        block = primitives[index[:, 0]].copy()
        for j in range(1, size):
            block &= primitives[index[:, j]]
        columns[positions] = block
    return columns


def check_sizes(min_conjunction, max_conjunction, n_features) -> None:
    """ValueError unless 1 <= min_conjunction <= max_conjunction <= max(1, n_features)."""
    for name, value in (("min_conjunction", min_conjunction), ("max_conjunction", max_conjunction)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an int >= 1; got {value!r}")
    if min_conjunction > max_conjunction:
        raise ValueError(f"min_conjunction ({min_conjunction}) must not exceed max_conjunction "
                         f"({max_conjunction})")
    if max_conjunction > max(1, n_features):
        raise ValueError(f"max_conjunction ({max_conjunction}) exceeds the number of binary "
                         f"features ({n_features})")


def check_conditions(conditions, n_features: int) -> tuple:
    """Explicit conditions as sorted tuples of feature indices, or a ValueError naming one."""
    conditions = tuple(tuple(sorted(int(f) for f in c)) for c in conditions)
    for c in conditions:
        if not c or c[0] < 0 or c[-1] >= n_features:
            raise ValueError(f"conditions: {c} is not a non-empty tuple of feature indices "
                             f"in [0, {n_features})")
    return conditions


def _extend(level_index, level_columns, primitives, min_support, support, deadline=None):
    """Conjunctions one primitive larger than those of ``level_index`` (last index grows).
    A ``deadline`` that passes ends the level after the current block: the conjunctions of
    the blocks done (the first parents' extensions, in order)."""
    d, w = primitives.shape
    last = level_index[:, -1]
    new_index, new_columns = [], []
    per_parent = max(1, d - 1)
    step = max(1, _BLOCK_BYTES // (8 * w * per_parent))
    for start in range(0, len(level_index), step):
        parents = np.arange(start, min(start + step, len(level_index)))
        parent, extra = np.nonzero(np.arange(d)[None, :] > last[parents, None])
        parent = parents[parent]
        block = level_columns[parent] & primitives[extra]
        keep = support(block) >= min_support
        new_index.append(np.column_stack([level_index[parent[keep]], extra[keep]]))
        new_columns.append(block[keep])
        _check_memory(sum(len(c) for c in new_columns), w)
        if deadline is not None and deadline.expired():
            break
    width = level_index.shape[1] + 1
    if not new_index:
        return np.empty((0, width), np.int64), np.empty((0, w), np.uint64)
    return np.concatenate(new_index), np.concatenate(new_columns)


def _check_memory(n_candidates: int, n_words: int) -> None:
    if n_candidates * n_words * 8 > MAX_CANDIDATE_BYTES:
        raise ValueError(
            f"the candidate conditions need more than {MAX_CANDIDATE_BYTES >> 30} GiB "
            f"({n_candidates} conjunctions so far): lower max_conjunction or raise min_support"
        )


def build_candidates(primitives: np.ndarray, min_conjunction: int = 1, max_conjunction: int = 1,
                     min_support: int = 1, conditions=None, weight=None,
                     deadline=None) -> Candidates:
    """Candidate conditions over the packed primitive columns ``primitives`` (d, n_words).

    Conditions of ``min_conjunction``..``max_conjunction`` primitives that cover at least
    ``min_support`` rows, ordered by size, then lexicographically by feature index (the search
    breaks ties by this order, so smaller conditions win ties). With ``conditions`` (a sequence
    of feature-index tuples) exactly those are used, in the given order. With ``weight``
    (one per row) support is the total weight of the rows covered. A ``deadline`` that
    passes while the conjunctions are built ends the building after the current block (every
    condition of the levels done, a prefix of the level under way, none larger): the search
    then picks its rules among those, and stops for its time limit.
    """
    d = primitives.shape[0]
    if conditions is not None:
        conditions = check_conditions(conditions, d)
        return Candidates(conditions, conjoin(primitives, conditions))
    check_sizes(min_conjunction, max_conjunction, d)

    def support(columns):
        return popcount_rows(columns) if weight is None else weighted_support(columns, weight)

    index = np.flatnonzero(support(primitives) >= min_support)[:, None]
    columns = primitives[index[:, 0]]
    kept_index, kept_columns = [], []
    for size in range(1, max_conjunction + 1):
        if size > 1:
            if deadline is not None and deadline.expired():
                break
            index, columns = _extend(index, columns, primitives, min_support, support, deadline)
        if size >= min_conjunction:
            kept_index.append(index)
            kept_columns.append(columns)
    conditions = ConditionIndex(kept_index)
    return Candidates(conditions, np.concatenate(kept_columns) if kept_columns
                      else np.empty((0, primitives.shape[1]), np.uint64))
