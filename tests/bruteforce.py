"""Independent brute force for minimum pure decision trees on tiny data (tests only).

Recursion over feature splits with memoisation on the row subset (a bitmask): the minimum
size of a pure tree on rows S is 1 if S has one class, else
min over features r that split S into two non-empty parts of 1 + size(S0) + size(S1).
(A split with an empty side is never in a minimum tree: removing it gives a smaller tree.)
``count_minimum_trees`` counts the distinct minimum trees (tests on features, leaf labels):
the product of the children's counts, summed over the features that reach the minimum.
Shares no code with the encoder; usable for <= ~12 rows and <= ~6 features.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import strategies as st

INFEASIBLE = float("inf")


def _solver(X: np.ndarray, y: np.ndarray):
    X = np.asarray(X, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n_rows, n_features = X.shape
    columns = [sum(1 << q for q in range(n_rows) if X[q, r]) for r in range(n_features)]
    labels = [sum(1 << q for q in range(n_rows) if y[q] == k) for k in set(y.tolist())]

    @cache
    def best(rows: int) -> tuple[float, int]:
        """(minimum size, number of minimum trees) of a pure tree on the row set ``rows``."""
        if any((rows & ~mask) == 0 for mask in labels):
            return 1, 1
        size, count = INFEASIBLE, 0
        for col in columns:
            ones, zeros = rows & col, rows & ~col
            if not ones or not zeros:
                continue
            (s0, c0), (s1, c1) = best(zeros), best(ones)
            total = 1 + s0 + s1
            if total < size:
                size, count = total, c0 * c1
            elif total == size and total < INFEASIBLE:
                count += c0 * c1
        return size, count

    return best((1 << n_rows) - 1)


def minimum_tree_size(X: np.ndarray, y: np.ndarray) -> float:
    """Nodes of a minimum pure tree on (X, y); ``inf`` if identical rows disagree."""
    return _solver(X, y)[0]


def count_minimum_trees(X: np.ndarray, y: np.ndarray) -> int:
    """How many distinct minimum pure trees (features at nodes, leaf labels) exist."""
    size, count = _solver(X, y)
    return count if size < INFEASIBLE else 0


@st.composite
def tiny_data(draw):
    """Hypothesis strategy: (X, y, n_classes) with 2-10 rows, 1-5 binary features, 2 or 3
    classes, and no conflicts (identical rows get the label of the first of them)."""
    n_classes = draw(st.sampled_from([2, 3]))
    rows, features = draw(st.integers(2, 10)), draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=rows * features,
                               max_size=rows * features))).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    return X, y[first][inverse.ravel()], n_classes
