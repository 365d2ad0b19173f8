"""Partial MaxSAT encoding of minimum pure decision trees (MPDT): Alós, Ansótegui and Torres,
Sec. 4-4.2.

``encode_mpdt`` turns a binary matrix and class indices into the WCNF of Proposition 1:
soft clauses (not eta_i, 1) for the odd nodes i (SoftN) and hard clauses eqs. 1-26 with the
missing "a used node's children are used" constraint (``layout_clauses``; without it mux6's
optimum collapses to 3 nodes against a certified minimum of 15). Its optimal cost is
ceil(|MPDT| / 2), the number of used odd nodes; ``MPDTEncoding.decode`` turns a model back
into a ``Tree``.

Identical rows are encoded once (their clauses would be identical). Identical rows with
different labels admit no pure tree: they raise ``ValueError`` rather than yield an UNSAT
formula. Constant columns are left out of the encoding: no minimum tree tests them (one
child would receive no example and the test could be removed), so every minimum tree is
kept; decoded trees use the original column indices.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

import numpy as np
from pysat.formula import WCNF, IDPool

from occamlearn.model.tree import LEAF, Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.data import distinct_rows, validate_binary_data
from occamlearn.trees.mpdt.maxsat_route.discrimination import discrimination_clauses, leaf_clauses
from occamlearn.trees.mpdt.maxsat_route.layout_clauses import (
    layout_clauses,
    leaf_count_clauses,
    sibling_leaf_clauses,
    unused_discrimination_clauses,
)
from occamlearn.trees.mpdt.maxsat_route.variables import MPDTVariables

__all__ = ["EXTRAS", "KNOWN_EXTRAS", "MPDTEncoding", "encode_mpdt", "unique_rows",
           "validate_binary_data"]

# Optional clause families beyond eqs. 1-26 (each keeps every minimum tree and its single
# model over the a_{r,j}; A/B of CPU seconds to the proof with LSU in
# benchmarks/results/maxsat_bounds.md, 15 instances):
#   "sibling"    two sibling leaves predict different classes (dominance);
#   "unused-d"   d^v_{r,j} false on unused nodes (fixes otherwise free variables);
#   "leaf-count" t decision nodes <-> t + 1 leaves over the counters of eqs. 19-21;
#   "no-pruning" leave out eqs. 19-23 (MinDT's additional constraints) -- measurement only:
#                without them a tree may have several layouts (enumeration needs one).
KNOWN_EXTRAS = frozenset({"sibling", "unused-d", "leaf-count", "no-pruning"})
# What encode_mpdt adds when called without ``extras``: "unused-d", the one variant that
# shortened the proofs over the benchmark; "sibling" and "leaf-count" did not and are
# dropped; eqs. 19-23 stay (without them the proofs were slower, and a tree may have several
# layouts). The A/B runs: benchmarks/results/maxsat_bounds.md.
EXTRAS: frozenset = frozenset({"unused-d"})


def check_size_bounds(upper_bound, lower_bound, n_classes: int) -> None:
    """Bounds of an MPDT query: odd tree sizes >= 3 with lb <= ub, and at least 2 classes."""
    for name, value in (("upper_bound", upper_bound), ("lower_bound", lower_bound)):
        if not isinstance(value, (int, np.integer)) or value < 3 or value % 2 == 0:
            raise ValueError(f"{name} must be an odd int >= 3 (a tree size); got {value!r}.")
    if lower_bound > upper_bound:
        raise ValueError(f"lower_bound ({lower_bound}) exceeds upper_bound ({upper_bound}).")
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2 for a MaxSAT query; got {n_classes}.")


def unique_rows(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of X (in ``np.unique``'s order) with the label of each one's first row;
    ValueError naming rows that conflict. Rows are compared packed into bytes
    (``distinct_rows``: 100,000 x 320 in a fraction of ``np.unique(axis=0)``'s seconds)."""
    X = np.asarray(X)
    patterns, inverse = distinct_rows(X)
    Xu = patterns.astype(X.dtype, copy=False)
    first = np.full(len(Xu), len(inverse), dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(len(inverse)))
    yu = y[first]
    bad = np.flatnonzero(yu[inverse] != y)
    if len(bad):
        row = int(bad[0])
        twins = np.flatnonzero(inverse == inverse[row]).tolist()
        raise ValueError(
            f"X has {len(bad)} rows identical to a row with another label (e.g. rows "
            f"{twins[:6]} have labels {y[twins[:6]].tolist()}); no pure tree exists. "
            "Resolve conflicts first (occamlearn.binarize.resolve_conflicts).")
    return Xu, yu


@dataclass
class MPDTEncoding:
    """The WCNF of one MPDT query and what decoding its models needs."""

    wcnf: WCNF
    pool: IDPool
    variables: MPDTVariables
    n: int
    lower_bound: int
    X: np.ndarray  # the data as given (used for Tree.counts)
    y: np.ndarray
    n_classes: int
    columns: np.ndarray  # encoded feature r is column columns[r] of X

    def target_variables(self) -> list[int]:
        """The a_{r,j} variable ids: Alg. 2's diversity targets."""
        return [int(x) for x in self.variables.feature[:, 1:].ravel()]

    def cost_of_size(self, size: int) -> int:
        """Proposition 1: the cost of a tree with ``size`` nodes."""
        return (size + 1) // 2

    def decode(self, model) -> Tree:
        """The tree of a model (a list of literals); used nodes renumbered root=0 (BFS)."""
        true = np.zeros(self.pool.top + 1, dtype=bool)
        lits = np.asarray(model, dtype=np.int64)
        lits = lits[(lits > 0) & (lits <= self.pool.top)]
        true[lits] = True
        var = self.variables
        used = [j for j in range(1, self.n + 1) if true[var.eta[j]]]
        size = len(used)
        feature = np.full(size, LEAF)
        left = np.full(size, -1)
        right = np.full(size, -1)
        label = np.full(size, -1)
        for j in used:
            if true[var.leaf[j]]:
                classes = [k for k in range(self.n_classes) if self._holds(true, var.label[k, j])]
                label[j - 1] = classes[0]
                continue
            feature[j - 1] = self.columns[int(np.flatnonzero(true[var.feature[:, j]])[0])]
            child = next(c for (i, c) in var.left if i == j and true[var.left[(i, c)]])
            left[j - 1], right[j - 1] = child - 1, child
        counts = np.zeros((size, self.n_classes), dtype=np.int64)
        tree = Tree(feature, left, right, label, counts, self.X.shape[1])
        tree = tree.with_counts(self.X, self.y)
        if not tree.is_pure_on(self.X, self.y):
            raise RuntimeError("decoded tree is not pure on the encoded data (encoding bug)")
        return tree

    def tree_literals(self, tree: Tree) -> list[int]:
        """Literals (eta, v, l, a, c) that put ``tree`` at encoding nodes 1.. in BFS order,
        truncated to the first n nodes: phase hints that steer the solver towards the tree.
        """
        var, n = self.variables, self.n
        encoded = {int(c): r for r, c in enumerate(self.columns)}
        order, slot, decisions = [0], {0: 1}, 0
        for node in order:  # BFS; the k-th decision node's children are 2k and 2k+1
            if tree.feature[node] >= 0:
                decisions += 1
                for side, child in ((0, tree.left[node]), (1, tree.right[node])):
                    slot[int(child)] = 2 * decisions + side
                    order.append(int(child))
        true = set()
        for node, j in slot.items():
            if j > n:
                continue
            true.add(int(var.eta[j]))
            feature = int(tree.feature[node])
            if feature < 0:
                true.add(int(var.leaf[j]))
                true.add(int(var.label[int(tree.label[node]), j]))
            elif feature in encoded:
                true.add(int(var.feature[encoded[feature], j]))
                child = slot[int(tree.left[node])]
                if (j, child) in var.left:
                    true.add(var.left[(j, child)])
        primary = ([int(x) for x in var.eta[1::2]] + [int(x) for x in var.leaf[1:]]
                   + list(var.left.values()) + [int(x) for x in var.feature[:, 1:].ravel()])
        phases = [x if x in true else -x for x in primary]
        return phases + [lit for lit in true if abs(lit) not in set(primary)]

    @staticmethod
    def _holds(true: np.ndarray, literal: int) -> bool:
        return bool(true[literal]) if literal > 0 else not true[-literal]

    @property
    def n_clauses(self) -> int:
        return len(self.wcnf.hard) + len(self.wcnf.soft)

    @property
    def n_literals(self) -> int:
        return sum(map(len, self.wcnf.hard)) + sum(map(len, self.wcnf.soft))


class EncodingDeadline(TimeoutError):
    """The deadline passed while the formula was being built; nothing usable was made."""


def _check_deadline(deadline: Deadline | None) -> None:
    if deadline is not None and deadline.expired():
        raise EncodingDeadline("the deadline passed while encoding")


def encode_mpdt(X: np.ndarray, y: np.ndarray, n_classes: int, upper_bound: int,
                lower_bound: int = 3, *, deadline: Deadline | None = None,
                extras: frozenset | None = None) -> MPDTEncoding:
    """Partial MaxSAT formula whose optima are the minimum pure trees of size <= upper_bound.

    X : (rows, features) 0/1 matrix; y : class indices 0..n_classes-1.
    upper_bound : n, the number of nodes (odd, >= 3); lower_bound : the size forced used
    (eq. 3), odd, 3 <= lower_bound <= upper_bound.
    deadline : a ``stopping.Deadline``; the clause families are built and converted
    one after the other, and ``EncodingDeadline`` is raised between two of them once it has
    passed (so an encoding overruns it by at most one family).
    extras : optional clause families (``KNOWN_EXTRAS``); None means the module's ``EXTRAS``.
    """
    X, y = validate_binary_data(X, y, n_classes)
    check_size_bounds(upper_bound, lower_bound, n_classes)
    extras = EXTRAS if extras is None else frozenset(extras)
    if not extras <= KNOWN_EXTRAS:
        raise ValueError(f"unknown extras {sorted(extras - KNOWN_EXTRAS)}; known: "
                         f"{sorted(KNOWN_EXTRAS)}.")
    # Millions of small clause lists trigger Python's cyclic garbage collector over and over
    # (measured: 4x slower encoding); none of them form cycles, so pause it meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        encoding = _encode(X, y, n_classes, int(upper_bound), int(lower_bound), deadline,
                           extras)
    finally:
        if collecting:
            gc.enable()
    return encoding


def _encode(X, y, n_classes, n, lower_bound, deadline=None, extras=frozenset()
            ) -> MPDTEncoding:
    Xu, yu = unique_rows(X, y)
    columns = np.flatnonzero(Xu.min(axis=0) != Xu.max(axis=0)) if len(Xu) else np.arange(0)
    Xe = Xu[:, columns]
    var = MPDTVariables.allocate(n, len(columns), n_classes)
    blocks = layout_clauses(var, lower_bound, pruning="no-pruning" not in extras)
    if "sibling" in extras:
        blocks.append(sibling_leaf_clauses(var))
    if "unused-d" in extras:
        blocks.append(unused_discrimination_clauses(var))
    if "leaf-count" in extras and "no-pruning" not in extras:
        blocks.append(leaf_count_clauses(var))
    _check_deadline(deadline)
    blocks += discrimination_clauses(var)
    _check_deadline(deadline)
    blocks += leaf_clauses(var, Xe, yu)
    wcnf = WCNF()
    hard = []
    for block in blocks:
        _check_deadline(deadline)
        hard.extend(block.tolist() if isinstance(block, np.ndarray) else block)
    wcnf.hard = hard
    wcnf.soft = [[-int(var.eta[i])] for i in range(1, n + 1, 2)]
    wcnf.wght = [1] * len(wcnf.soft)
    wcnf.topw = len(wcnf.soft) + 1
    wcnf.nv = var.pool.top
    return MPDTEncoding(wcnf, var.pool, var, n, lower_bound, X, y, n_classes, columns)
