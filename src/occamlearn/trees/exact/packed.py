"""Distinct rows packed into uint64 words, and the subcube test of the leaf-incompatibility
bounds (numba, cached on disk).

Both branch and bounds bound the leaves of a row set by rows that cannot share a leaf: a leaf
holding rows a and c holds every row that agrees with both wherever they agree (it lies in
their smallest common subcube), so what decides is which other rows lie there. The pure
search asks whether one of another class does; the error-budget search, how much they
weigh. ``in_subcube`` is that test, inlined into the error-budget kernels; the pure search's
bound (``mpdt.bnb.node_bounds``) runs the same test over a contiguous copy of the rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["in_subcube", "pack_rows"]


def pack_rows(X: np.ndarray) -> np.ndarray:
    """The rows of a 0/1 matrix as bitsets: (n_rows, ceil(n_features / 64)) uint64."""
    n_rows, n_features = X.shape
    words = max(1, (n_features + 63) // 64)
    # column j is bit j % 8 of byte j // 8 (little bit order), and eight bytes read as a
    # little-endian word put it at bit j % 64 of word j // 64
    packed = np.zeros((n_rows, 8 * words), dtype=np.uint8)
    packed[:, :(n_features + 7) // 8] = np.packbits(np.asarray(X) != 0, axis=1,
                                                     bitorder="little")
    return packed.view("<u8").astype(np.uint64, copy=False)


@njit(cache=True, inline="always")
def in_subcube(packed, q, a, c):
    """True if row q agrees with rows a and c wherever a and c agree."""
    for w in range(packed.shape[1]):
        if (packed[q, w] ^ packed[a, w]) & ~(packed[a, w] ^ packed[c, w]):
            return False
    return True
