"""Named propositional variables and node index ranges of the MPDT encoding (paper Sec. 4).

Nodes are numbered 1..n in breadth-first order, root 1 (Table 2). The index ranges follow
MinDT (Narodytska et al. 2018), which the MaxSAT paper builds on: the left-child candidates of
node i are the even j in [i+1, min(2i, n-1)], the right-child candidates the odd j in
[i+2, min(2i+1, n)], so the candidate parents of j are floor(j/2) .. j-1.

Variables (Table 3) are allocated in a PySAT ``IDPool`` under readable names:
``("v", i)`` leaf, ``("l", i, j)`` left child (r_{i,j+1} and p_{j,i} are substituted by
l_{i,j}, eqs. 6 and 8), ``("eta", i)`` for odd i (node usage), ``("a", r, j)`` feature r
at node j, ``("d0", r, j)`` / ``("d1", r, j)`` discrimination, ``("c", j)`` (two classes:
true iff the leaf predicts class 1) or ``("c", k, j)`` (three or more classes),
``("lam", t, i)`` and ``("tau", t, i)`` the pruning counters of eqs. 19-23. The u_{r,j}
variables of eqs. 13-14 are not needed: u_{r,i} = a_{r,i} or d0_{r,i} or d1_{r,i}, so
eq. 13 becomes a_{r,j} -> not d0_{r,j} and not d1_{r,j} (see ``discrimination``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pysat.formula import IDPool

__all__ = ["MPDTVariables", "left_candidates", "parent_candidates"]


def left_candidates(i: int, n: int) -> range:
    """lr(i): even j in [i+1, min(2i, n-1)]."""
    start = i + 1 + (i + 1) % 2
    return range(start, min(2 * i, n - 1) + 1, 2)


def parent_candidates(j: int) -> range:
    """Nodes i that may have j as a child: floor(j/2)..j-1 (even j), ..j-2 (odd j)."""
    return range(j // 2, j if j % 2 == 0 else j - 1)


@dataclass
class MPDTVariables:
    """Variable ids of one encoding, as dicts and numpy arrays for vectorised clauses."""

    pool: IDPool
    n: int
    n_features: int
    n_classes: int
    leaf: np.ndarray  # leaf[i] = v_i, index 0 unused
    eta: np.ndarray  # eta[i] = the id of eta(i) (eta_{i+1} for even i), index 0 unused
    left: dict  # (i, j) -> id of l_{i,j}
    feature: np.ndarray  # feature[r, j] = a_{r,j}
    disc: np.ndarray  # disc[v, r, j] = d^v_{r,j}
    label: np.ndarray  # label[k, j] = literal "leaf j predicts class k"

    @classmethod
    def allocate(cls, n: int, n_features: int, n_classes: int) -> MPDTVariables:
        pool = IDPool()
        nodes = range(1, n + 1)
        leaf = np.zeros(n + 1, dtype=np.int64)
        leaf[1:] = [pool.id(("v", i)) for i in nodes]
        eta = np.zeros(n + 1, dtype=np.int64)
        for i in range(1, n + 1, 2):
            eta[i] = pool.id(("eta", i))
        eta[2::2] = eta[3::2]
        left = {(i, j): pool.id(("l", i, j)) for i in nodes for j in left_candidates(i, n)}
        feature = np.zeros((n_features, n + 1), dtype=np.int64)
        disc = np.zeros((2, n_features, n + 1), dtype=np.int64)
        for j in nodes:
            for r in range(n_features):
                feature[r, j] = pool.id(("a", r, j))
        for v in (0, 1):
            for j in nodes:
                for r in range(n_features):
                    disc[v, r, j] = pool.id((f"d{v}", r, j))
        label = np.zeros((n_classes, n + 1), dtype=np.int64)
        if n_classes == 2:
            ids = [pool.id(("c", j)) for j in nodes]
            label[1, 1:] = ids
            label[0, 1:] = [-x for x in ids]
        else:
            for k in range(n_classes):
                label[k, 1:] = [pool.id(("c", k, j)) for j in nodes]
        return cls(pool, n, n_features, n_classes, leaf, eta, left, feature, disc, label)

    def parent_literal(self, i: int, j: int) -> int:
        """p_{j,i}: l_{i,j} for even j, r_{i,j} = l_{i,j-1} for odd j (eqs. 6 and 8)."""
        return self.left[(i, j if j % 2 == 0 else j - 1)]

    def parents(self, j: int) -> list[tuple[int, int]]:
        """(i, p_{j,i}) for every candidate parent i of node j."""
        return [(i, self.parent_literal(i, j)) for i in parent_candidates(j)]
