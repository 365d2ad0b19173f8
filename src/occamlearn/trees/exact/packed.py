"""Distinct rows packed into uint64 words, and the subcube test of the leaf-incompatibility
bounds (numba, cached on disk).

Both branch and bounds bound the leaves of a row set by rows that cannot share a leaf: a leaf
holding rows a and c holds every row that agrees with both wherever they agree (it lies in
their smallest common subcube), so what decides is which other rows lie there. The pure
search asks whether one of another class does; the error-budget search, how much they
weigh. ``in_subcube`` is that test, inlined into both kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["in_subcube", "pack_rows"]


def pack_rows(X: np.ndarray) -> np.ndarray:
    """The rows of a 0/1 matrix as bitsets: (n_rows, ceil(n_features / 64)) uint64."""
    n_rows, n_features = X.shape
    words = max(1, (n_features + 63) // 64)
    packed = np.zeros((n_rows, words), dtype=np.uint64)
    for j in range(n_features):
        packed[:, j // 64] |= X[:, j].astype(np.uint64) << np.uint64(j % 64)
    return packed


@njit(cache=True, inline="always")
def in_subcube(packed, q, a, c):
    """True if row q agrees with rows a and c wherever a and c agree."""
    for w in range(packed.shape[1]):
        if (packed[q, w] ^ packed[a, w]) & ~(packed[a, w] ^ packed[c, w]):
            return False
    return True
