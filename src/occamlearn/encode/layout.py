"""Tree-layout hard clauses of the MPDT encoding: node usage, children, parents, pruning.

Implements eqs. 1-9 and 19-23 of Alcázar et al., Sec. 4, with p_{j,i} and r_{i,j+1}
substituted by l_{i,j}, plus the constraint missing from the paper (FINDINGS.md, "one gap"):
a used node's children are used, l_{i,j} -> eta(j). Without it a used decision node may point
at an unused node that is neither a leaf nor a decision node, and the examples routed there
are never checked (mux6 collapses to "size 3").
"""

from __future__ import annotations

from itertools import combinations

from occamlearn.encode.variables import MPDTVariables, left_candidates

__all__ = ["layout_clauses"]


def _at_most_one(lits: list[int]) -> list[list[int]]:
    return [[-a, -b] for a, b in combinations(lits, 2)]


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


def _children_clauses(var: MPDTVariables) -> list[list[int]]:
    n, v, eta = var.n, var.leaf, var.eta
    out = []
    for i in range(1, n + 1):
        lefts = [var.left[(i, j)] for j in left_candidates(i, n)]
        if not lefts:
            out.append([-int(eta[i]), int(v[i])])  # (5ii)
            continue
        for j, lit in zip(left_candidates(i, n), lefts):
            out.append([-int(v[i]), -lit])  # (5i)
            out.append([-lit, int(eta[j])])  # gap: a used node's children are used
        out.append([int(v[i]), -int(eta[i])] + lefts)  # (7) at least one
        out.extend(_at_most_one(lefts))  # (7) at most one
    for j in range(2, n + 1):
        parents = [lit for _, lit in var.parents(j)]
        out.append([-int(eta[j])] + parents)  # (9) at least one
        out.extend(_at_most_one(parents))  # (9) at most one
    return out


def _counter_clauses(var: MPDTVariables, kind: str) -> list[list[int]]:
    """Eqs. 19-21: lam_{t,i} (tau_{t,i}) iff at least t used leaves (decision nodes) in 1..i.

    Counter literals that are constant (t = 0: true; t above the range: false) are folded.
    """
    n, pool = var.n, var.pool
    top = (lambda i: (i + 1) // 2) if kind == "lam" else (lambda i: i)
    TRUE, FALSE = "T", "F"

    def counter(t, i):
        if t == 0:
            return TRUE
        if i == 0 or t > top(i):
            return FALSE
        return pool.id((kind, t, i))

    out = []
    for i in range(1, n + 1):
        # lam counts leaves (v_i, which implies eta(i)); tau counts used decision nodes.
        step = [int(var.leaf[i])] if kind == "lam" else [-int(var.leaf[i]), int(var.eta[i])]
        for t in range(1, top(i) + 1):
            x = pool.id((kind, t, i))
            keep, grow = counter(t, i - 1), counter(t - 1, i - 1)
            # x <-> keep or (grow and step)
            if keep == TRUE:
                out.append([x])
                continue
            keep_lits = [] if keep == FALSE else [keep]
            if keep != FALSE:
                out.append([-keep, x])
            if grow == FALSE:
                out.append([-x] + keep_lits)
                continue
            conj = step + ([] if grow == TRUE else [grow])
            out.append([x] + [-c for c in conj])
            out.extend([-x] + keep_lits + [c] for c in conj)
    return out


def _pruning_clauses(var: MPDTVariables) -> list[list[int]]:
    """Eqs. 22-23: the left child of node i is 2 * (decision nodes among 1..i)."""
    n, pool = var.n, var.pool
    out = []
    for i in range(1, n + 1):
        lefts = set(left_candidates(i, n))
        for t in range(1, (i + 1) // 2 + 1):
            j = 2 * (i - t + 1)
            if j in lefts:
                out.append([-pool.id(("lam", t, i)), -var.left[(i, j)]])
        for t in range((i + 1) // 2, i + 1):
            j = 2 * (t - 1)
            if t >= 1 and j in lefts:
                out.append([-pool.id(("tau", t, i)), -var.left[(i, j)]])
    return out


def layout_clauses(var: MPDTVariables, lower_bound: int) -> list[list[int]]:
    """All layout hard clauses for the node range 1..var.n."""
    return (_usage_clauses(var, lower_bound) + _children_clauses(var)
            + _counter_clauses(var, "lam") + _counter_clauses(var, "tau")
            + _pruning_clauses(var))
