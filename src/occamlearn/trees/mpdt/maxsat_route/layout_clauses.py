"""Tree-layout hard clauses of the MPDT encoding: node usage, children, parents, pruning.

Implements eqs. 1-9 and 19-23 of Alós, Ansótegui and Torres, Sec. 4, with p_{j,i} and r_{i,j+1}
substituted by l_{i,j}, plus the constraint missing from the paper:
a used node's children are used, l_{i,j} -> eta(j). Without it a used decision node may point
at an unused node that is neither a leaf nor a decision node, and the examples routed there
are never checked (mux6 collapses to "size 3").
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.mpdt.maxsat_route.variables import MPDTVariables, left_candidates

__all__ = ["layout_clauses", "leaf_count_clauses", "sibling_leaf_clauses",
           "unused_discrimination_clauses"]


def _at_most_one(lits: list[int]) -> np.ndarray:
    first, second = np.triu_indices(len(lits), 1)
    lits = np.asarray(lits, dtype=np.int64)
    return np.stack([-lits[first], -lits[second]], axis=1)


def _usage_clauses(var: MPDTVariables, lower_bound: int) -> list[list[int]]:
    n, v, eta = var.n, var.leaf, var.eta
    out = []
    for i in range(3, n + 1, 2):
        out.append([int(eta[i]), -int(v[i])])  # (1)
        out.append([int(eta[i]), -int(v[i - 1])])
        out.append([-int(eta[i]), int(eta[i - 2])])  # (2)
    out.append([int(eta[lower_bound])])  # (3)
    out.append([-int(v[1])])  # (4)
    return out


def _children_clauses(var: MPDTVariables) -> list:
    n, v, eta = var.n, var.leaf, var.eta
    out, pairs = [], []
    for i in range(1, n + 1):
        lefts = [var.left[(i, j)] for j in left_candidates(i, n)]
        if not lefts:
            out.append([-int(eta[i]), int(v[i])])  # (5ii)
            continue
        for j, lit in zip(left_candidates(i, n), lefts):
            out.append([-int(v[i]), -lit])  # (5i)
            out.append([-lit, int(eta[j])])  # gap: a used node's children are used
        out.append([int(v[i]), -int(eta[i])] + lefts)  # (7) at least one
        pairs.append(_at_most_one(lefts))  # (7) at most one
    for j in range(2, n + 1):
        parents = [lit for _, lit in var.parents(j)]
        out.append([-int(eta[j])] + parents)  # (9) at least one
        pairs.append(_at_most_one(parents))  # (9) at most one
    return [out, np.concatenate(pairs)]


def _counter_ids(var: MPDTVariables, kind: str, true: int) -> np.ndarray:
    """ids[t, i] of lam_{t,i} (tau_{t,i}); the constant true for t = 0, false beyond range."""
    n = var.n
    top = (n + 1) // 2 if kind == "lam" else n
    ids = np.full((top + 2, n + 1), -true, dtype=np.int64)
    ids[0, :] = true
    for i in range(1, n + 1):
        for t in range(1, ((i + 1) // 2 if kind == "lam" else i) + 1):
            ids[t, i] = var.pool.id((kind, t, i))
    return ids


def _counter_clauses(var: MPDTVariables, ids: np.ndarray, kind: str, true: int) -> np.ndarray:
    """Eqs. 19-21: lam_{t,i} (tau_{t,i}) iff at least t used leaves (decision nodes) in 1..i,
    i.e. x_{t,i} <-> x_{t,i-1} or (x_{t-1,i-1} and step_i); clauses satisfied by the
    constant true are dropped."""
    t, i = np.nonzero(ids[1:, 1:] > 0)
    t, i = t + 1, i + 1
    x, keep, grow = ids[t, i], ids[t, i - 1], ids[t - 1, i - 1]
    if kind == "lam":  # a leaf (v_i implies eta(i), eq. 1)
        steps = [var.leaf[i]]
    else:  # a used decision node
        steps = [-var.leaf[i], var.eta[i]]
    rows = [np.stack([-keep, x], 1), np.stack([-x, keep, grow], 1),
            np.stack([x, -grow] + [-step for step in steps], 1)]
    rows += [np.stack([-x, keep, step], 1) for step in steps]
    return [block[~(block == true).any(axis=1)] for block in rows]


def _pruning_clauses(var: MPDTVariables, lam: np.ndarray, tau: np.ndarray) -> list[list[int]]:
    """Eqs. 22-23: the left child of node i is 2 * (decision nodes among 1..i)."""
    n = var.n
    out = []
    for i in range(1, n + 1):
        lefts = set(left_candidates(i, n))
        for t in range(1, (i + 1) // 2 + 1):
            j = 2 * (i - t + 1)
            if j in lefts:
                out.append([-int(lam[t, i]), -var.left[(i, j)]])
        for t in range(max(1, (i + 1) // 2), i + 1):
            j = 2 * (t - 1)
            if j in lefts:
                out.append([-int(tau[t, i]), -var.left[(i, j)]])
    return out


def layout_clauses(var: MPDTVariables, lower_bound: int, *, pruning: bool = True) -> list:
    """All layout hard clauses for the node range 1..var.n (lists and clause matrices).

    pruning=False leaves out eqs. 19-23 (MinDT's additional constraints, which also make the
    breadth-first numbering, hence the model of each tree, unique): for measurements only.
    """
    true = var.pool.id(("true",))
    blocks = [[[true]], _usage_clauses(var, lower_bound), *_children_clauses(var)]
    if not pruning:
        return blocks
    lam, tau = _counter_ids(var, "lam", true), _counter_ids(var, "tau", true)
    return (blocks + _counter_clauses(var, lam, "lam", true)
            + _counter_clauses(var, tau, "tau", true) + [_pruning_clauses(var, lam, tau)])


def sibling_leaf_clauses(var: MPDTVariables) -> list[list[int]]:
    """Dominance: two sibling leaves (2k, 2k+1) predict different classes. A decision node
    whose children are leaves of one class can be replaced by that leaf, so no minimum tree
    (with or without errors) has such siblings; every minimum tree keeps its one model."""
    out = []
    for j in range(2, var.n, 2):
        both = [-int(var.leaf[j]), -int(var.leaf[j + 1])]
        for k in range(var.n_classes):
            a, b = int(var.label[k, j]), int(var.label[k, j + 1])
            out.append(both + [-a, -b])  # (two classes: label[0] is the literal -c_j)
    return out


def unused_discrimination_clauses(var: MPDTVariables) -> np.ndarray:
    """Symmetry breaking: d^v_{r,j} is false on unused nodes (otherwise free: an unused node
    has no parent, so eqs. 10-11 say nothing about it)."""
    d = var.disc[:, :, 1:]  # (2, F, n)
    eta = np.broadcast_to(var.eta[1:][None, None, :], d.shape)
    return np.stack([eta.ravel(), -d.ravel()], axis=1)


def leaf_count_clauses(var: MPDTVariables) -> list[list[int]]:
    """Redundant: a tree with t decision nodes has t + 1 leaves, tau_{t,n} <-> lam_{t+1,n}
    (the counters of eqs. 19-21 over all n nodes)."""
    n, pool, out = var.n, var.pool, []
    for t in range(1, (n + 1) // 2):
        lam = pool.obj2id.get(("lam", t + 1, n))
        tau = pool.obj2id.get(("tau", t, n))
        if lam is None or tau is None:
            continue
        out += [[-tau, lam], [-lam, tau]]
    return out
