"""Every minimum pure tree of a data set, from the branch and bound's exact leaf counts:
counted exactly, ranked, enumerated lazily, sampled uniformly and drawn diverse, with no SAT call.

Why it works. Let L(S) be the fewest leaves of a pure tree of the row set S (what the branch
and bound over row sets proves, memoised per row set). A tree of S with L(S) leaves is either
the leaf (when S has one class, L(S) = 1) or a test on some feature f whose sides S0, S1 are
both non-empty and carry minimum trees with L(S0) + L(S1) = L(S): a side with more leaves than
its own minimum could be replaced by a smaller tree, and an empty side is never in a minimum
tree (its parent could be replaced by the other side). Hence the minimum trees of S are exactly

    T(S) = {leaf}                                      if S has one class,
    T(S) = U over "minimum splits" f of {(f, a, b) : a in T(S0), b in T(S1)}   otherwise,

and |T(S)| = sum over minimum splits of |T(S0)| x |T(S1)|: a product of big integers that the
memo of row sets turns into a walk over a DAG (the same S is reached by many paths). A split f
is minimum iff ``solve(S0, L - lb(S1)) = v0 <= L - lb(S1)`` and ``solve(S1, L - v0) = L - v0``;
both are the branch and bound's budgeted solves, which return an exact value within budget and
a proven lower bound above it, so the test is exact. Features are the original columns: two
identical columns, or a column and its complement (children swapped), give distinct trees,
as the MaxSAT encoding's a_{r,j} variables see them.

With the counts, the i-th tree (in a fixed order of splits, then left index, then right index)
is computed directly by mixed-radix decoding (``tree``): enumeration is ``tree(0..count-1)``,
uniform sampling is ``tree(randrange(count))``, and nothing is held per tree.

Diversity (``diverse``) is MDSOL's (Alós, Ansótegui and Torres, Alg. 2): each next tree
minimises the number of times its (BFS position, feature) pairs -- the true a_{r,j} -- were
already chosen. Every minimum tree has the same number d of decision nodes, so that minimises
sum over chosen trees of |A ∩ B|, i.e. maximises the summed Hamming distance over the a_{r,j}
to the trees already chosen. The step is exact over a candidate pool: all trees when there are
at most ``pool`` of them (then it is MDSOL's greedy itself, up to ties), else a uniform sample.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.mpdt.bnb.engines import (
    CompiledRowSetSearch,
    RowSetSearch,
    prepare_rows,
)

__all__ = ["MinimumTreeSpace", "SpaceCut", "column_groups", "proper_splits"]

DEFAULT_POOL = 5_000  # candidates the diverse draw scores exactly


def column_groups(column_bits, root: int) -> list[tuple[tuple[int, ...], int]]:
    """Identical columns grouped: ``(columns, bitset)`` for each distinct bitset of
    ``column_bits`` (column j's rows) that is neither empty nor ``root`` (every row), sorted."""
    found: dict[int, list[int]] = {}
    for j, bits in enumerate(column_bits):
        if bits and bits != root:
            found.setdefault(bits, []).append(j)
    return sorted((tuple(f), bits) for bits, f in found.items())


def proper_splits(rows: int, groups):
    """``(columns, left, right)`` for each group of ``column_groups`` that splits the row
    set ``rows`` into two non-empty sides (right: the rows where the columns are 1)."""
    for features, bits in groups:
        right = rows & bits
        if right and right != rows:
            yield features, rows ^ right, right


class SpaceCut(Exception):
    """The deadline passed while the space was being counted."""


@dataclass(frozen=True)
class _Split:
    features: tuple  # original columns inducing this (ordered) partition of S
    left: int  # rows with the feature 0
    right: int  # rows with the feature 1
    left_leaves: int
    right_leaves: int


class MinimumTreeSpace:
    """The set of minimum pure trees of the 0/1 matrix ``X`` and class indices ``y``.

    ``leaves`` is the proven minimum number of leaves if known (else it is proven here).
    ``count`` is the exact number of minimum trees, or, when the deadline cut the count,
    ``None`` with ``count_lower_bound`` the trees counted so far: those under the root's
    minimum splits counted in full, which ``nested``, ``sample`` and ``diverse`` still draw
    from (``available``), a subset of the space rather than all of it. The search engine is
    the branch and bound (memoised exact leaf counts per row set), compiled when its kernels
    are; ``engine`` may pass a prepared ``RowSetSearch``-like object.
    """

    def __init__(self, X, y, n_classes: int | None = None, *, leaves: int | None = None,
                 deadline: Deadline | None = None, feature_names=(), engine=None):
        X = np.asarray(X)
        self.n_features = X.shape[1] if X.ndim == 2 else 0
        rows, labels, self.n_classes, kept = prepare_rows(X, y, n_classes)
        self.feature_names = tuple(feature_names)
        self.deadline = Deadline.coerce(deadline)
        self._engine = engine or _engine(rows, labels, self.n_classes, kept, self.deadline)
        self._root = (1 << len(labels)) - 1
        self._class_of = {}
        self._class_sets = [s for s in self._engine.class_sets]
        # every original column as a bitset over the distinct rows, identical ones grouped
        self._groups = column_groups(
            (int.from_bytes(np.packbits(rows[:, j] != 0, bitorder="little").tobytes(), "little")
             for j in range(rows.shape[1])), self._root)
        self._splits: dict[int, tuple[_Split, ...]] = {}
        self._counts: dict[int, int] = {}
        self.count_lower_bound = 0
        try:
            self.leaves = self._minimum_leaves(self._root) if leaves is None else int(leaves)
        except Stop:
            raise SpaceCut("the minimum size was not proven before the deadline: no set of "
                           "minimum trees to draw from.") from None
        try:
            self.count = self._count(self._root, self.leaves)
            self.count_lower_bound = self.count
        except Stop:
            self.count = None

    # -- sizes and counts --------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return 2 * self.leaves - 1

    @property
    def available(self) -> int:
        """How many trees can be drawn: all of them (``count``), or after a cut the
        ``count_lower_bound`` trees under the root splits counted in full."""
        return self.count if self.count is not None else self.count_lower_bound

    @property
    def complete(self) -> bool:
        """True when ``count`` is exact (the deadline did not cut the counting)."""
        return self.count is not None

    def _minimum_leaves(self, rows: int) -> int:
        if self.deadline.expired():
            raise Stop
        budget = self._engine.classes_in(rows)
        while (value := self._engine.solve(rows, budget)) > budget:
            budget = value
        return value

    def _minimum_splits(self, rows: int, leaves: int) -> tuple[_Split, ...]:
        found = self._splits.get(rows)
        if found is not None:
            return found
        if self.deadline.expired():  # the engines poll every few thousand calls; this, per set
            raise Stop
        engine, result = self._engine, []
        for features, left, right in proper_splits(rows, self._groups):
            room = leaves - engine.quick_bound(right)
            left_leaves = engine.solve(left, room)
            if left_leaves > room:
                continue
            right_leaves = engine.solve(right, leaves - left_leaves)
            if right_leaves > leaves - left_leaves:
                continue
            result.append(_Split(features, left, right, left_leaves, right_leaves))
        found = self._splits[rows] = tuple(result)
        return found

    def _count(self, rows: int, leaves: int, *, root: bool = True) -> int:
        if leaves == 1:
            return 1
        known = self._counts.get(rows)
        if known is not None:
            return known
        total = 0
        for split in self._minimum_splits(rows, leaves):
            total += len(split.features) * self._count(split.left, split.left_leaves,
                                                       root=False) * self._count(
                split.right, split.right_leaves, root=False)
            if root:
                self.count_lower_bound = total
        self._counts[rows] = total
        return total

    # -- trees -------------------------------------------------------------------------------
    def _label(self, rows: int) -> int:
        engine = self._engine
        for s in engine.class_sets:
            if rows & s:
                return engine.class_of_set[s]
        raise ValueError("empty row set")

    def nested(self, index: int):
        """The ``index``-th minimum tree as a nested tuple ``("leaf", k)`` /
        ``(feature, zero_side, one_side)`` over the original columns."""
        self._require_count()
        if not 0 <= index < self.available:
            raise IndexError(f"tree index {index} is outside [0, {self.available}).")
        return self._nested(self._root, self.leaves, index)

    def _nested(self, rows: int, leaves: int, index: int):
        if leaves == 1:
            return ("leaf", self._label(rows))
        for split in self._splits[rows]:
            left = self._counts.get(split.left, 1)
            right = self._counts.get(split.right, 1)
            per_feature = left * right
            block = len(split.features) * per_feature
            if index < block:
                which, rest = divmod(index, per_feature)
                left_index, right_index = divmod(rest, right)
                return (split.features[which],
                        self._nested(split.left, split.left_leaves, left_index),
                        self._nested(split.right, split.right_leaves, right_index))
            index -= block
        raise AssertionError("index beyond the counted trees")  # unreachable: count checked

    def tree(self, index: int) -> Tree:
        """The ``index``-th minimum tree (0 <= index < count), as a ``Tree``."""
        return Tree.from_nested(self.nested(index), self.n_features, self.n_classes,
                                self.feature_names)

    def __len__(self) -> int:
        self._require_count()
        return self.available

    def __iter__(self) -> Iterator[Tree]:
        """Every minimum tree, lazily, in rank order."""
        self._require_count()
        index = 0
        while index < self.available:
            yield self.tree(index)
            index += 1

    def sample(self, k: int, random_state=None) -> list[Tree]:
        """``min(k, count)`` distinct minimum trees drawn uniformly at random."""
        return [self.tree(i) for i in self.sample_indices(k, random_state)]

    def sample_indices(self, k: int, random_state=None) -> list[int]:
        self._require_count()
        k = min(int(k), self.available)
        if k == self.available:
            return list(range(self.available))
        rng = _python_random(random_state)
        chosen, seen = [], set()
        while len(chosen) < k:
            index = rng.randrange(self.available)
            if index not in seen:
                seen.add(index)
                chosen.append(index)
        return chosen

    def diverse(self, k: int, *, pool: int = DEFAULT_POOL, random_state=None) -> list[Tree]:
        """``min(k, count)`` distinct minimum trees chosen greedily as MDSOL does: each next
        one reuses the fewest (BFS position, feature) pairs of the trees already chosen."""
        return [self.tree(i) for i in self.diverse_indices(k, pool=pool,
                                                           random_state=random_state)]

    def diverse_indices(self, k: int, *, pool: int = DEFAULT_POOL, random_state=None):
        self._require_count()
        candidates = self.sample_indices(min(self.available, max(int(pool), int(k))), random_state)
        k = min(int(k), len(candidates))
        if k == 0:
            return []
        pair_ids: dict[tuple[int, int], int] = {}
        targets = np.array([[pair_ids.setdefault(pair, len(pair_ids))
                             for pair in _targets(self.nested(i))] for i in candidates],
                           dtype=np.int64).reshape(len(candidates), -1)
        # which candidates hold each pair (a candidate holds a pair at most once)
        flat = targets.ravel()
        order = np.argsort(flat, kind="stable")
        holders = order // max(targets.shape[1], 1)
        starts = np.searchsorted(flat[order], np.arange(len(pair_ids) + 1))
        score = np.zeros(len(candidates), dtype=np.int64)  # reuse of each candidate's pairs
        taken = np.zeros(len(candidates), dtype=bool)
        chosen = []
        for _ in range(k):
            at = int(np.argmin(np.where(taken, np.iinfo(np.int64).max, score)))
            taken[at] = True
            chosen.append(candidates[at])
            for pair in targets[at]:  # every holder of a pair of the new tree reuses it once more
                score[holders[starts[pair]:starts[pair + 1]]] += 1
        return chosen

    def _require_count(self) -> None:
        if not self.available:
            raise RuntimeError(
                "the deadline passed before any minimum tree was counted; give a longer time "
                "limit to enumerate them.")


def _engine(rows, labels, n_classes, kept, deadline: Deadline):
    """The compiled branch and bound when its kernels are compiled already (several times
    faster), else the Python one: counting never waits for a compile
    (``kernel_cache`` then compiles them in the background for the next search)."""
    options = {"deadline": deadline}
    from occamlearn.trees.compiling import kernel_cache

    if kernel_cache.kernels_ready("bnb"):
        try:
            kernel_cache.load("bnb")
            return CompiledRowSetSearch(rows, labels, n_classes, kept, **options)
        except kernel_cache.KernelsUnavailable:  # a broken cache, now reset
            pass
    kernel_cache.start_background_compile("bnb")
    return RowSetSearch(rows, labels, n_classes, kept, use_incompatibility=False, **options)


def _targets(nested) -> list[tuple[int, int]]:
    """The (BFS position, feature) pairs of the decision nodes of a nested tree (the true
    a_{r,j} of the MaxSAT encoding, whose node numbers are BFS over used nodes)."""
    pairs, queue, position = [], [nested], 0
    while position < len(queue):
        node = queue[position]
        if node[0] != "leaf":
            pairs.append((position, int(node[0])))
            queue.extend(node[1:])
        position += 1
    return pairs


def _python_random(random_state) -> random.Random:
    """A ``random.Random`` (big-integer ranges) seeded from an int, None or a numpy RNG."""
    if isinstance(random_state, random.Random):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return random.Random(int(random_state.integers(2**63)))
    if isinstance(random_state, np.random.RandomState):
        return random.Random(int(random_state.randint(2**31)))
    return random.Random(random_state)
