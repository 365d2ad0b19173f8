"""Feature, discrimination and leaf-label hard clauses of the MPDT encoding.

Implements eqs. 10-18 and 24-26 of Alós, Ansótegui and Torres, Sec. 4 (with the typos of eqs. 16, 24
and 26 corrected: eq. 16 sums a_{r,j}, not a_{r,i}; eq. 24 ranges r over the features F, not
the classes K; eq. 26 has the summand c_{k,j}), vectorised with numpy: the big families are
nodes x parents x features (eqs. 10-11) and nodes x examples x features (eqs. 17/18/24), so
they are built as integer matrices, one clause per row, never literal by literal.

Since every used node has exactly one parent (eq. 9), the equivalences of eqs. 10-11 are
written per candidate parent: p_{j,i} -> (d^v_{r,j} <-> a_{r,i} or d^v_{r,i}) for the value
v that the edge i -> j discriminates, p_{j,i} -> (d^v_{r,j} <-> d^v_{r,i}) for the other.
u_{r,i} (eq. 14) equals a_{r,i} or d0_{r,i} or d1_{r,i}, so eq. 13 ("a feature tested above
node j is not tested at j") becomes a_{r,j} -> not d0_{r,j} and not d1_{r,j}.
Features are also forced off unused nodes (a_{r,j} -> eta(j)), so that every tree has exactly
one model over the a_{r,j} variables (what the enumeration of optima blocks on).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from occamlearn.trees.mpdt.maxsat_route.variables import MPDTVariables

__all__ = ["discrimination_clauses", "leaf_clauses"]

PAIRWISE_LIMIT = 24  # at-most-one over more literals uses a sequential counter


def _rows(*columns) -> np.ndarray:
    """Stack broadcastable literal arrays as the columns of a clause matrix."""
    arrays = np.broadcast_arrays(*columns)
    return np.stack([a.ravel() for a in arrays], axis=1)


def _at_most_one(lits: list[int], var: MPDTVariables, name: tuple) -> list[list[int]]:
    if len(lits) <= PAIRWISE_LIMIT:
        return [[-a, -b] for a, b in combinations(lits, 2)]
    aux = [var.pool.id(name + (k,)) for k in range(len(lits) - 1)]
    out = [[-lits[0], aux[0]]]
    for k in range(1, len(lits) - 1):
        out += [[-lits[k], aux[k]], [-aux[k - 1], aux[k]], [-lits[k], -aux[k - 1]]]
    out.append([-lits[-1], -aux[-1]])
    return out


def discrimination_clauses(var: MPDTVariables) -> list[np.ndarray | list]:
    """Eqs. 10-16: feature assignment and the discrimination variables d^0, d^1."""
    n, a, d, F = var.n, var.feature, var.disc, var.n_features
    R = np.arange(F)[None, :]
    pairs = [(j, i, lit) for j in range(2, n + 1) for i, lit in var.parents(j)]
    J = np.array([p[0] for p in pairs])[:, None]
    I = np.array([p[1] for p in pairs])[:, None]
    P = -np.array([p[2] for p in pairs])[:, None]  # the negated parent literal
    S = (J % 2 == 0).astype(np.int64)  # left child (even j) discriminates value 1
    O = 1 - S
    blocks: list = [
        _rows(-d[0, R, 1]), _rows(-d[1, R, 1]),  # (12)
        _rows(P, -d[S, R, I], d[S, R, J]),  # (10/11) inherited, tested value
        _rows(P, -d[O, R, I], d[O, R, J]),  # inherited, other value
        _rows(P, -a[R, I], d[S, R, J]),  # the parent's test discriminates
        _rows(P, -d[S, R, J], a[R, I], d[S, R, I]),  # only if
        _rows(P, -d[O, R, J], d[O, R, I]),
    ]
    nodes = np.arange(1, n + 1)[None, :]
    A = a[:, 1:]
    blocks += [
        _rows(-A, -d[0, :, 1:]), _rows(-A, -d[1, :, 1:]),  # (13)
        _rows(-A, -var.leaf[nodes]),  # (16)
        _rows(-A, var.eta[nodes]),  # no feature on unused nodes
    ]
    extra = []
    for j in range(1, n + 1):  # (15)
        lits = [int(x) for x in a[:, j]]
        extra.append([int(var.leaf[j]), -int(var.eta[j])] + lits)
        extra += _at_most_one(lits, var, ("amo_a", j))
    blocks.append(extra)
    return blocks


def leaf_clauses(var: MPDTVariables, X: np.ndarray, y: np.ndarray) -> list[np.ndarray | list]:
    """Eqs. 17/18/24-26: a leaf's label matches every example that reaches it.

    For leaf j and example q of class k: (v_j and not c_{k,j}) -> some feature is
    discriminated at j with q's value (q cannot reach j). Eq. 24 as printed has c_{k,j}
    un-negated, which would forbid exactly the correct leaves; eqs. 17-18 (two classes,
    c_{1,j} = c_j, c_{0,j} = not c_j) have the right polarity.
    """
    n, K = var.n, var.n_classes
    F = var.n_features
    nodes = np.arange(2, n + 1)
    # disc[X[q, r], r, j] for every example q, feature r, node j >= 2: (q, r, j)
    D = var.disc[X[:, :, None], np.arange(F)[None, :, None], nodes[None, None, :]]
    D = np.transpose(D, (2, 0, 1))  # (j, q, r)
    V = -np.broadcast_to(var.leaf[nodes][:, None, None], (len(nodes), len(y), 1))
    C = var.label[y[None, :], nodes[:, None]][:, :, None]
    blocks: list = [np.concatenate([V, C, D], axis=2).reshape(-1, F + 2)]
    extra = []
    if K == 2:
        extra += [[int(var.leaf[j]), -int(var.label[1, j])] for j in range(1, n + 1)]
    else:
        for j in range(1, n + 1):
            lits = [int(x) for x in var.label[:, j]]
            extra += [[int(var.leaf[j]), -c] for c in lits]  # (25)
            extra.append([-int(var.leaf[j])] + lits)  # (26)
            extra += _at_most_one(lits, var, ("amo_c", j))
    blocks.append(extra)
    return blocks
