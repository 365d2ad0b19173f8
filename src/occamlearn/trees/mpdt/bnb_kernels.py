"""Compiled kernels of the branch-and-bound search for minimum pure trees (numba, cached).

``incompatibility_lower_bound`` is the leaf lower bound that makes the search strong (see
``branch_and_bound``): two rows of one class can share a leaf only if every row of the node
lying in the smallest subcube that contains both has their class. A greedy set of pairwise
incompatible rows therefore needs one leaf each. The test is O(|S|^2 * q * words), too slow
in Python at every node and cheap compiled; ``cache=True`` keeps the compile on disk, and
``warm_up`` compiles on a tiny input so that the first real call is not charged the compile
inside a time limit.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

__all__ = ["incompatibility_lower_bound", "pack_rows", "warm_up"]


def pack_rows(X: np.ndarray) -> np.ndarray:
    """The rows of a 0/1 matrix as bitsets: (n_rows, ceil(n_features / 64)) uint64."""
    n_rows, n_features = X.shape
    words = max(1, (n_features + 63) // 64)
    packed = np.zeros((n_rows, words), dtype=np.uint64)
    for j in range(n_features):
        packed[:, j // 64] |= X[:, j].astype(np.uint64) << np.uint64(j % 64)
    return packed


@njit(cache=True)
def _spans_other_class(packed, labels, rows, a, b):
    """True if some row of ``rows`` with a class other than a's agrees with a and b on every
    feature where a and b agree (it lies in their smallest common subcube)."""
    words = packed.shape[1]
    for c in rows:
        if labels[c] == labels[a]:
            continue
        inside = True
        for w in range(words):
            if (packed[c, w] ^ packed[a, w]) & ~(packed[a, w] ^ packed[b, w]):
                inside = False
                break
        if inside:
            return True
    return False


@njit(cache=True)
def incompatibility_lower_bound(packed, labels, rows, n_classes, limit):
    """Size of a greedy set of pairwise leaf-incompatible rows among ``rows``.

    Rows of different classes never share a leaf, so the bound is a sum over classes of a
    greedy clique inside each class. Stops counting at ``limit`` (the caller only needs to
    know whether the bound exceeds its budget).
    """
    total = 0
    chosen = np.empty(rows.shape[0], dtype=np.int64)
    for k in range(n_classes):
        n_chosen = 0
        for a in rows:
            if labels[a] != k:
                continue
            fits = True
            for i in range(n_chosen):
                if not _spans_other_class(packed, labels, rows, a, chosen[i]):
                    fits = False
                    break
            if fits:
                chosen[n_chosen] = a
                n_chosen += 1
                if total + n_chosen >= limit:
                    return total + n_chosen
        total += n_chosen
    return total


def warm_up() -> float:
    """Compile (or load from the on-disk cache) every kernel on a tiny input; seconds taken."""
    start = time.perf_counter()
    packed = pack_rows(np.array([[0, 1], [1, 0], [1, 1]], dtype=np.int64))
    incompatibility_lower_bound(packed, np.array([0, 1, 0], dtype=np.int64),
                                np.arange(3, dtype=np.int64), 2, 10)
    return time.perf_counter() - start
