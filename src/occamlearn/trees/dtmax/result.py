"""The one answer of every DT(max) search: a tree over (feature, threshold) and what is proven.

A tree is a nested tuple, ``("leaf", k)`` or ``("test", f, t, low, high)``: rows whose rank
of feature f (``data.OrderedData``) is >= t go to ``high``. ``errors`` and
``errors_lower_bound`` are weighted errors in the caller's units (row counts without
weights). ``status`` is "optimal" when no tree within the bounds makes fewer errors (and,
with ``prefer_small``, none with as few errors has fewer tests); otherwise "feasible", and
``unproven`` says what is open: "errors" (the bound is below the tree's errors) or "size"
(the errors are proven, the size is not). ``optimal_over`` is None when the search was over
every threshold of the data, else the restriction in words (the size-error frontier thins
the thresholds of a large table to weighted quantiles to fit its memory plan).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DtmaxResult", "nested_errors", "nested_tests"]


@dataclass(frozen=True)
class DtmaxResult:
    """The best tree found and what is proven of it (module doc)."""

    tree: tuple
    errors: float
    errors_lower_bound: float
    status: str                      # "optimal" | "feasible"
    unproven: str | None             # None | "errors" | "size"
    search: str                      # which search answered: "ordered", "binary", ...
    stats: dict = field(default_factory=dict)
    optimal_over: str | None = None  # None: every threshold of the data; else what, in words


def nested_tests(tree: tuple) -> int:
    """Decision nodes of a nested tree."""
    return 0 if tree[0] == "leaf" else 1 + nested_tests(tree[3]) + nested_tests(tree[4])


def nested_leaves(rank: np.ndarray, tree: tuple) -> np.ndarray:
    """Leaf number (in preorder) each row of ``rank`` (features x rows) reaches."""
    out = np.zeros(rank.shape[1], dtype=np.int64)
    counter = [0]

    def walk(node: tuple, rows: np.ndarray) -> None:
        if node[0] == "leaf":
            out[rows] = counter[0]
            counter[0] += 1
            return
        high = rank[node[1], rows] >= node[2]
        walk(node[3], rows[~high])
        walk(node[4], rows[high])

    walk(tree, np.arange(rank.shape[1]))
    return out


def nested_errors(tree: tuple, rank: np.ndarray, y: np.ndarray, weight: np.ndarray) -> float:
    """Weighted errors of a nested tree on rows ``rank`` (features x rows), ``y``."""
    labels = []

    def collect(node: tuple) -> None:
        if node[0] == "leaf":
            labels.append(node[1])
        else:
            collect(node[3])
            collect(node[4])

    collect(tree)
    predicted = np.asarray(labels, dtype=np.int64)[nested_leaves(rank, tree)]
    return float(weight[predicted != y].sum())
