"""DT(max): the decision tree of depth at most d with the highest training accuracy, as MaxSAT.

This is the problem of Hu, Siala, Hebrard and Huguet (IJCAI 2020), which the MaxSAT paper
(Alós, Ansótegui and Torres, Sec. 3 and the end of Sec. 9.2) compares against at depths 2, 3 and 4.

Encoding: a complete binary tree of depth d in heap order (node t has children 2t+1, 2t+2;
internal nodes 0..T-1 with T = 2^d - 1, then 2^d leaves), as in Hu et al. A complete topology
is the natural choice for a depth bound: it needs no size variables and no parent/child
choice, every tree of depth <= d embeds in it (a leaf above depth d becomes a subtree whose
leaves all carry its label), and a depth-d tree is never less accurate than a shallower one.

Variables (all named in the ``IDPool``):

* ``("feature", t, j)`` -- internal node t tests kept column j; exactly one per node.
* ``("right", p, h)`` -- pattern p (a distinct training row) takes the right branch (column
  value 1) at depth h. One per depth is enough: a pattern is at exactly one node per depth.
* ``("reach", p, t)`` -- pattern p reaches internal node t (t > 0; the root is always reached).
  Only the direction "reached parent and took the branch => reached child" is encoded: it is
  all the constraints need, and extra ``reach`` values only add obligations.
* ``("class", l)`` (two classes: true = class 1) or ``("class", l, k)`` (exactly one per leaf).
* ``("correct", g)`` -- every row of group g (a pattern and one of its labels) is classified
  correctly; the soft unit clause ``[correct_g]`` weighs the group's row count. Maximising
  correctly classified rows is minimising the weight of the violated soft clauses.

Routing (pattern p at internal node t of depth h, columns oriented to have few ones):
``reach ∧ ¬right → ¬feature_{t,j}`` for every j with x_{p,j} = 1 (or, when shorter, the one
clause ``reach ∧ ¬right → ∨_{x_{p,j}=0} feature_{t,j}``), and
``reach ∧ right → ∨_{x_{p,j}=1} feature_{t,j}``. With exactly one feature per node these say
"right iff the tested column is 1"; their size grows with the ones of p, not with all columns.

``prefer_small``: fewest decision nodes among the most accurate trees, lexicographically.
Variable ``("split", t)`` must be true unless the leaves below t all carry one class; the
number of true ``split`` variables is exactly the number of decision nodes left after
``decode`` merges single-class subtrees. ``smallest_within(e)`` turns the encoding into a
second formula: hard "at most e training errors" (a totalizer over the ``correct`` literals,
each repeated by its group's count) and one soft clause ``[¬split_t]`` per internal node. The
two optima in sequence (errors, then size with e = the minimum errors) are the lexicographic
optimum. Two solves replace the weighting "example weight > sum of node weights" because the
Linear SAT-UNSAT back-end counts a weight w as w copies of a literal: with weights T + 1 its
totalizer would be T + 1 times larger.

The big clause families are built with numpy; no solver is touched (see ``solve/``).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import WCNF, IDPool

from occamlearn.model.tree import Tree
from occamlearn.trees.dtmax.maxsat.decode import decode_complete_tree
from occamlearn.trees.exact.data import (
    ExampleGroups,
    ReducedColumns,
    group_examples,
    reduce_columns,
)
from occamlearn.trees.weights import whole_weights

__all__ = ["DTmaxEncoding", "effective_depth", "encode_dtmax"]


@dataclass(frozen=True)
class DTmaxEncoding:
    """A DT(max) formula with what is needed to read a model back as a ``Tree``.

    ``wcnf``'s cost is the number of misclassified training rows.
    """

    wcnf: WCNF
    pool: IDPool
    depth: int
    n_classes: int
    n_features: int
    groups: ExampleGroups
    columns: ReducedColumns
    correct: np.ndarray            # ("correct", g) ids, one per group
    split: np.ndarray              # ("split", t) ids (empty unless prefer_small)

    def smallest_within(self, max_errors: int) -> WCNF:
        """Formula whose optima are the smallest trees with at most ``max_errors`` errors."""
        if len(self.split) == 0 and self.depth > 0:
            raise ValueError("smallest_within needs an encoding built with prefer_small=True.")
        if not isinstance(max_errors, (int, np.integer)) or max_errors < 0:
            raise ValueError(f"max_errors must be a non-negative int; got {max_errors!r}.")
        bound = _error_bound(self.correct, self.groups.count, int(max_errors), self.wcnf.nv)
        top = max([self.wcnf.nv] + [abs(lit) for clause in bound for lit in clause])
        soft = [[-int(v)] for v in self.split]
        return _make_wcnf(self.wcnf.hard + bound, soft, [1] * len(soft), top)

    def decode(self, model, feature_names=()) -> Tree:
        """The pruned tree of a model (list of signed literals) of ``wcnf``."""
        true = np.zeros(self.pool.top + 2, dtype=bool)
        lits = np.asarray(model, dtype=np.int64)
        lits = lits[(lits > 0) & (lits <= self.pool.top)]
        true[lits] = True
        n_internal = 2 ** self.depth - 1
        chosen = np.array([_true_index(true, self._feature_ids(t)) for t in range(n_internal)],
                          dtype=np.int64)
        leaf_class = np.array([self._leaf_class(true, leaf) for leaf in range(2 ** self.depth)],
                              dtype=np.int64)
        return decode_complete_tree(
            depth=self.depth, column=self.columns.column[chosen] if n_internal else chosen,
            flipped=self.columns.flipped[chosen] if n_internal else chosen.astype(bool),
            leaf_class=leaf_class, groups=self.groups, n_classes=self.n_classes,
            n_features=self.n_features, feature_names=feature_names)

    # -- reading variables back -------------------------------------------------------------
    def _feature_ids(self, node: int) -> list[int]:
        return [self.pool.obj2id[("feature", node, j)] for j in range(self.columns.n_kept)]

    def _leaf_class(self, true: np.ndarray, leaf: int) -> int:
        if self.n_classes <= 2:                    # one variable per leaf: true = class 1
            return int(true[self.pool.obj2id[("class", leaf)]])
        return _true_index(true, [self.pool.obj2id[("class", leaf, k)]
                                  for k in range(self.n_classes)])


def _true_index(true: np.ndarray, ids: list[int]) -> int:
    hits = np.flatnonzero(true[np.asarray(ids, dtype=np.int64)])
    if len(hits) != 1:
        raise ValueError(f"model sets {len(hits)} of an exactly-one group to true; "
                         "it is not a model of this encoding")
    return int(hits[0])


def _block(pool: IDPool, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Allocate one named variable per index of ``shape``; return their ids as an array."""
    ids = np.zeros(shape, dtype=np.int64)
    for index in np.ndindex(*shape):
        ids[index] = pool.id((name, *index))
    return ids


def effective_depth(depth: int, groups: ExampleGroups, columns: ReducedColumns) -> int:
    """The depth bound actually encoded: deeper trees are never needed (see comment)."""
    # A root-to-leaf path never needs more tests than there are kept columns (a repeated test
    # sends everything one way) nor than distinct patterns minus one (each useful test
    # separates at least one pattern from the others on the path).
    return max(0, min(depth, columns.n_kept, groups.n_patterns - 1))


@contextmanager
def _no_gc_pauses():
    """Millions of small clause lists trigger the cyclic garbage collector again and again
    (they hold no cycles); pausing it makes encoding mushroom at depth 4 2.5x faster."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def encode_dtmax(X, y, n_classes: int, depth: int, *, prefer_small: bool = False,
                 sample_weight=None) -> DTmaxEncoding:
    """Encode "the most accurate tree of depth <= ``depth``" over binary ``X`` and labels ``y``.

    ``y`` holds class indices in ``range(n_classes)``. The result's ``wcnf`` has one soft clause
    per (distinct row, label) group weighted by its row count: its optimum cost is the minimum
    number of training errors. ``sample_weight`` (non-negative integers, one per row; see
    ``trees.weights.integer_weights`` for fractions) weighs each group by its rows' total
    weight instead, so the cost is the weighted errors. ``prefer_small`` adds the ``split``
    variables that ``smallest_within`` minimises (its error bound repeats each group's
    literal by that weight in the totalizer).
    """
    sample_weight = whole_weights(sample_weight, "encode_dtmax", "the soft clause weights")
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"depth must be a non-negative int; got {depth!r}.")
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive int; got {n_classes!r}.")
    with _no_gc_pauses():
        return _encode(np.asarray(X), y, int(n_classes), int(depth), prefer_small,
                       sample_weight)


def _encode(X, y, n_classes: int, depth: int, prefer_small: bool, weight) -> DTmaxEncoding:
    groups = group_examples(X, y, weight)
    if groups.label.min() < 0 or groups.label.max() >= n_classes:
        raise ValueError(f"y must hold class indices in [0, {n_classes}); "
                         f"got values from {groups.label.min()} to {groups.label.max()}.")
    columns = reduce_columns(groups.patterns)
    depth = effective_depth(depth, groups, columns)
    pool = IDPool()
    n_internal = 2 ** depth - 1
    feature = _block(pool, "feature", (n_internal, columns.n_kept))
    leaf_class = _class_variables(pool, depth, max(n_classes, 2))
    right = _block(pool, "right", (groups.n_patterns, depth))
    reach = _reach_variables(pool, groups.n_patterns, n_internal)
    correct = _block(pool, "correct", (groups.n_groups,))
    hard: list[list[int]] = []
    hard += _exactly_one_feature(feature, pool)
    hard += _exactly_one_class(leaf_class)
    hard += _routing(columns.matrix, feature, right, reach)
    hard += _correctness(groups, right, reach, leaf_class, correct, depth)
    split = np.zeros(0, dtype=np.int64)
    if prefer_small and n_internal:
        split = _block(pool, "split", (n_internal,))
        hard += _split_definition(split, leaf_class, depth)
    soft = [[int(v)] for v in correct]
    wcnf = _make_wcnf(hard, soft, groups.count.tolist(), pool.top)
    return DTmaxEncoding(wcnf=wcnf, pool=pool, depth=depth, n_classes=int(n_classes),
                         n_features=X.shape[1], groups=groups, columns=columns,
                         correct=correct, split=split)


def _error_bound(correct: np.ndarray, count: np.ndarray, max_errors: int,
                 top: int) -> list[list[int]]:
    """sum_g count_g * [not correct_g] <= max_errors: groups above the budget are correct,
    the others feed a totalizer with their literal repeated count_g times."""
    too_big = count > max_errors
    clauses = [[int(v)] for v in correct[too_big]]
    wrong = np.repeat(-correct[~too_big], count[~too_big]).tolist()
    if len(wrong) > max_errors:
        clauses += CardEnc.atmost(wrong, bound=max_errors, top_id=top,
                                  encoding=EncType.totalizer).clauses
    return clauses


def _make_wcnf(hard, soft, weights, n_vars) -> WCNF:
    wcnf = WCNF()
    wcnf.hard = hard
    wcnf.soft = soft
    wcnf.wght = weights
    wcnf.topw = sum(weights) + 1
    wcnf.nv = n_vars
    return wcnf


def _class_variables(pool: IDPool, depth: int, n_classes: int) -> np.ndarray:
    """(n_leaves, n_classes) literals: entry [l, k] is true iff leaf l predicts class k."""
    n_leaves = 2 ** depth
    if n_classes == 2:
        one = _block(pool, "class", (n_leaves,))
        return np.stack([-one, one], axis=1)
    return _block(pool, "class", (n_leaves, n_classes))


def _reach_variables(pool: IDPool, n_patterns: int, n_internal: int) -> np.ndarray:
    """(n_patterns, n_internal) ids of ("reach", p, t); column 0 (the root) holds 0."""
    reach = np.zeros((n_patterns, n_internal), dtype=np.int64)
    for p in range(n_patterns):
        for t in range(1, n_internal):
            reach[p, t] = pool.id(("reach", p, t))
    return reach


def _exactly_one_feature(feature: np.ndarray, pool: IDPool) -> list[list[int]]:
    clauses: list[list[int]] = []
    for lits in feature.tolist():
        clauses.append(lits)
        if len(lits) > 1:
            clauses += CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses
    return clauses


def _exactly_one_class(leaf_class: np.ndarray) -> list[list[int]]:
    if leaf_class.shape[1] == 2 and np.array_equal(leaf_class[:, 0], -leaf_class[:, 1]):
        return []
    clauses: list[list[int]] = []
    for lits in leaf_class.tolist():
        clauses.append(lits)
        clauses += [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]
    return clauses


def _node_depth(node: int) -> int:
    return int(np.floor(np.log2(node + 1)))


def _routing(matrix: np.ndarray, feature: np.ndarray, right: np.ndarray,
             reach: np.ndarray) -> list[list[int]]:
    """Clauses sending each pattern down the branch its tested column value says."""
    n_patterns, n_internal = reach.shape
    ones = matrix.astype(bool)
    n_ones = ones.sum(axis=1)
    short_left = 3 * n_ones <= (matrix.shape[1] - n_ones) + 2
    one_cols = [np.flatnonzero(row) for row in ones]
    zero_cols = [np.flatnonzero(~row) for row in ones]
    clauses: list[list[int]] = []
    for t in range(n_internal):
        h = _node_depth(t)
        here = -reach[:, t]                       # 0 at the root: dropped below
        go = right[:, h]
        # reach propagation to internal children
        for child, branch in ((2 * t + 1, go), (2 * t + 2, -go)):
            if child < n_internal:
                block = np.stack([here, branch, reach[:, child]], axis=1)
                clauses += _drop_zeros(block)
        # left branch, short form: reach ∧ ¬right → ¬feature_{t,j} for x_{p,j} = 1
        rows, cols = np.nonzero(ones & short_left[:, None])
        block = np.stack([here[rows], go[rows], -feature[t, cols]], axis=1)
        clauses += _drop_zeros(block)
        f_t = feature[t]
        for p in range(n_patterns):
            prefix = [int(here[p])] if here[p] else []
            if not short_left[p]:
                clauses.append(prefix + [int(go[p])] + f_t[zero_cols[p]].tolist())
            clauses.append(prefix + [-int(go[p])] + f_t[one_cols[p]].tolist())
    return clauses


def _drop_zeros(block: np.ndarray) -> list[list[int]]:
    """Rows of a literal block as clauses, without the 0 placeholders (always-false lits)."""
    if block.size == 0:
        return []
    if (block[:, 0] == 0).all():
        block = block[:, 1:]
    return block.tolist()


def _correctness(groups: ExampleGroups, right: np.ndarray, reach: np.ndarray,
                 leaf_class: np.ndarray, correct: np.ndarray, depth: int) -> list[list[int]]:
    """correct_g → (group g's pattern reaches leaf l → leaf l predicts g's label), every l."""
    n_internal = 2 ** depth - 1
    p, k = groups.pattern, groups.label
    if depth == 0:
        return np.stack([-correct, leaf_class[0, k]], axis=1).tolist()
    clauses: list[list[int]] = []
    for leaf in range(2 ** depth):
        node = n_internal + leaf
        parent = (node - 1) // 2
        went_right = node == 2 * parent + 2
        off_path = -right[p, depth - 1] if went_right else right[p, depth - 1]
        block = np.stack([-correct, -reach[p, parent], off_path, leaf_class[leaf, k]], axis=1)
        clauses += [[lit for lit in row if lit] for row in block.tolist()]
    return clauses


def _split_definition(split: np.ndarray, leaf_class: np.ndarray,
                      depth: int) -> list[list[int]]:
    """¬split_t → both children are non-splits with the same class (leftmost leaves agree)."""
    n_internal = 2 ** depth - 1

    def leftmost_leaf(node: int) -> int:
        while node < n_internal:
            node = 2 * node + 1
        return node - n_internal

    clauses: list[list[int]] = []
    for t in range(n_internal):
        s = int(split[t])
        for child in (2 * t + 1, 2 * t + 2):
            if child < n_internal:
                clauses.append([s, -int(split[child])])
        a, b = leaf_class[leftmost_leaf(2 * t + 1)], leaf_class[leftmost_leaf(2 * t + 2)]
        for k in range(len(a)):
            clauses.append([s, -int(a[k]), int(b[k])])
    return clauses
