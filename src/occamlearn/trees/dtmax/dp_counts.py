"""Class counts of rows sharing one, two or three binary features, and what they say about
the best trees of depth <= 2 -- the counting core of the ``dtmax_dp`` search.

The depth-2 idea is MurTree's (Demirović et al., JMLR 2022; also STreeD's depth-2 solver): the
errors of *every* tree of depth <= 2 follow from the class counts of each feature pair, so the
best one costs one pass over the counts instead of one search per tree. Here the counts are
matrix products (BLAS) of the 0/1 rows with the rows weighted by their class counts:

* ``single[k, f]``      = rows of class k with x_f = 1,
* ``pair[k, f, g]``     = rows of class k with x_f = x_g = 1,
* ``triple[k, f, g, h]`` = rows of class k with x_f = x_g = x_h = 1,

and, by inclusion-exclusion, the counts of every other combination of values. ``pair`` and
``triple`` are symmetric in their feature indices. With the triple counts, the best depth-2
subtrees below every root test f are one batched evaluation: the best tree of depth 3.

Class is the leading axis, so "errors of a leaf" (total minus the largest class count) is a
few element-wise operations over contiguous blocks. Counts are summed in float32 (exact below
2**24 rows) and kept as int32. Costs are ``errors * scale + decisions`` (int64) with ``scale``
larger than the decision nodes of any tree considered, so comparing costs compares errors
first and then tree size. A split is only taken when it makes strictly fewer errors than a
leaf, so no chosen test sends all rows one way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Counts", "Depth2", "depth2_costs", "depth2_costs_of_roots", "leaf_errors",
           "pair_counts_of", "subset_counts", "triple_counts", "triple_counts_bytes",
           "triple_counts_of"]

# Largest (classes x batch x features x features) block evaluated at once (elements).
BLOCK_ELEMENTS = 1 << 22


def leaf_errors(counts: np.ndarray) -> np.ndarray:
    """Errors of a leaf predicting the majority class; ``counts`` has classes first."""
    if counts.shape[0] == 2:
        return np.minimum(counts[0], counts[1])
    return counts.sum(axis=0) - counts.max(axis=0)


@dataclass(frozen=True)
class Counts:
    """Class counts of one set of rows: ``total[k]``, ``single[k, f]``, ``pair[k, f, g]``."""

    total: np.ndarray
    single: np.ndarray
    pair: np.ndarray


def _as_counts(values: np.ndarray) -> np.ndarray:
    """int32 copy of float32 sums (int64 of float64 ones, for weights above 2**24); C order,
    classes first, which the element-wise depth-2 evaluation needs to run at full speed
    (measured 3x slower on strided views)."""
    kind = np.int32 if values.dtype == np.float32 else np.int64
    return np.ascontiguousarray(np.rint(values).astype(kind))


def subset_counts(X: np.ndarray, C: np.ndarray) -> Counts:
    """Counts of the rows of ``X`` (0/1 float32, rows x features) weighted by ``C`` (rows x
    classes, float32)."""
    n_features, n_classes = X.shape[1], C.shape[1]
    weighted = (C[:, :, None] * X[:, None, :]).reshape(X.shape[0], -1)
    pair = _as_counts(weighted.T @ X).reshape(n_classes, n_features, n_features)
    return Counts(_as_counts(C.sum(axis=0)), np.ascontiguousarray(_as_counts(C.T @ X)),
                  np.ascontiguousarray(pair))


def triple_counts(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``triple[k, f, g, h]`` of the rows of ``X`` weighted by ``C`` (see the module doc).

    By symmetry only the pairs f <= g are multiplied (half the work); the rest is copied."""
    n_rows, n_features = X.shape
    first, second = np.triu_indices(n_features)
    weighted = (C[:, :, None] * X[:, None, :]).reshape(n_rows, -1)
    half = _as_counts(weighted.T @ (X[:, first] * X[:, second]))      # [(k, h), f <= g]
    position = np.empty((n_features, n_features), dtype=np.intp)
    position[first, second] = position[second, first] = np.arange(len(first))
    # [k, h, f, g] equals triple[k, f, g, h] by symmetry
    return np.ascontiguousarray(half.reshape(C.shape[1], n_features, -1)[:, :, position])


def triple_counts_bytes(n_rows: int, n_features: int, n_classes: int) -> int:
    """Peak bytes of ``triple_counts`` on ``n_rows`` x ``n_features``: the pair products
    (rows x pairs), the half counts as float32, rounded and as int32, and the result.
    (200 rows x 600 features, 2 classes: 3.6 GB; 2,000 features: 130 GB.)"""
    pairs = n_features * (n_features + 1) // 2
    return 4 * (n_rows * pairs + 3 * n_classes * n_features * pairs
                + n_classes * n_features ** 3)


def triple_counts_of(X: np.ndarray, C: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """``triple[k, f, g, h]`` for the ``roots`` f only: (classes, len(roots), features,
    features). Without the symmetry of ``triple_counts`` (twice the products), but its memory
    is proportional to ``len(roots)``: the chunks of a depth-3 pass over wide data."""
    n_rows, n_features = X.shape
    weighted = C[:, :, None] * X[:, None, roots]                       # rows, k, b
    stacked = (weighted[:, :, :, None] * X[:, None, None, :]).reshape(n_rows, -1)
    counts = _as_counts(stacked.T @ X)                                 # (k, b, g), h
    return counts.reshape(C.shape[1], len(roots), n_features, n_features)


def pair_counts_of(X: np.ndarray, C: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """``pair[k, f, g]`` for the ``roots`` f only: (classes, len(roots), features), so that
    the depth-2 pass over wide data holds memory proportional to ``len(roots)``."""
    n_rows, n_features = X.shape
    weighted = (C[:, :, None] * X[:, None, roots]).reshape(n_rows, -1)   # rows, (k, b)
    return _as_counts(weighted.T @ X).reshape(C.shape[1], len(roots), n_features)


@dataclass(frozen=True)
class Depth2:
    """Best trees of depth <= 2 for a batch of row sets (index b), every root test f.

    ``best[b]``: cost of the best tree (a leaf if ``root[b] == -1``, else a test of
    ``root[b]``); for a root test f, ``left[b, f]`` / ``right[b, f]`` are its child tests
    (-1: a leaf).
    """

    best: np.ndarray
    root: np.ndarray
    left: np.ndarray
    right: np.ndarray


def _depth1(split: np.ndarray, leaf: np.ndarray, scale: int, decision: int):
    """Best depth-1 subtree per (b, f) from ``split[b, f, g]``, the errors of testing g, and
    ``leaf[b, f]``, the errors of a leaf: (cost, child test or -1)."""
    choice = split.argmin(axis=-1)
    fewest = np.take_along_axis(split, choice[..., None], axis=-1)[..., 0]
    use_split = fewest < leaf
    cost = np.where(use_split, fewest, leaf).astype(np.int64) * scale + use_split * decision
    return cost, np.where(use_split, choice, -1)


def _depth2_block(pair, single, total, scale, decision):
    """``depth2_costs`` on one block of the batch.

    The errors of the four quadrants of a feature pair (f, g) -- x_f, x_g = 11, 10, 01, 00 --
    serve both the root test f (children test g) and the root test g; quadrant 01 of (f, g)
    is quadrant 10 of (g, f), so three error arrays cover all four."""
    sf = single[:, :, :, None]            # x_f = 1       (k, b, f, 1)
    sg = single[:, :, None, :]            # x_g = 1       (k, b, 1, g)
    both = leaf_errors(pair)                                    # 11
    only_f = leaf_errors(sf - pair)                             # 10
    neither = leaf_errors(total[:, :, None, None] - sf - sg + pair)   # 00
    only_g = only_f.transpose(0, 2, 1)                          # 01
    leaf_f = leaf_errors(single)                                # rows with x_f = 1
    leaf_not_f = leaf_errors(total[:, :, None] - single)        # rows with x_f = 0
    right_cost, right = _depth1(both + only_f, leaf_f, scale, decision)
    left_cost, left = _depth1(only_g + neither, leaf_not_f, scale, decision)
    cost = left_cost + right_cost + decision
    leaf = leaf_errors(total).astype(np.int64) * scale
    root = cost.argmin(axis=1)
    best_root = np.take_along_axis(cost, root[:, None], axis=1)[:, 0]
    use_root = best_root < leaf
    return np.where(use_root, best_root, leaf), np.where(use_root, root, -1), left, right


def depth2_costs(pair: np.ndarray, single: np.ndarray, total: np.ndarray, scale: int,
                 decision: int = 1) -> Depth2:
    """Best trees of depth <= 2 for a batch: ``pair`` (k, b, f, f), ``single`` (k, b, f),
    ``total`` (k, b); cost ``errors * scale + decisions * decision`` (``decision`` 0: errors
    only, a split still only when it makes fewer errors). Evaluated in blocks of at most
    ``BLOCK_ELEMENTS`` counts."""
    batch = pair.shape[1]
    step = max(1, BLOCK_ELEMENTS // max(1, pair[:, 0].size))
    parts = [_depth2_block(pair[:, i:i + step], single[:, i:i + step], total[:, i:i + step],
                           scale, decision)
             for i in range(0, batch, step)]
    return Depth2(*(np.concatenate(arrays) for arrays in zip(*parts)))


def depth2_costs_of_roots(pair: np.ndarray, single: np.ndarray, total: np.ndarray,
                          roots: np.ndarray, scale: int, decision: int = 1):
    """Cost of the best depth-2 tree under each root test of ``roots`` (one row set), with
    its zero-side and one-side child tests (-1: a leaf): ``depth2_costs`` restricted to some
    roots, from ``pair_counts_of`` (classes, roots, features) and the row set's ``single``
    (classes, features) and ``total`` (classes). The quadrant x_f = 0, x_g = 1 comes from
    ``single[g] - pair[f, g]`` instead of the transposed pair table, which a chunk lacks."""
    sf = single[:, roots, None]                                   # (k, b, 1)
    sg = single[:, None, :]                                       # (k, 1, g)
    both = leaf_errors(pair)                                      # 11
    only_f = leaf_errors(sf - pair)                               # 10
    only_g = leaf_errors(sg - pair)                               # 01
    neither = leaf_errors(total[:, None, None] - sf - sg + pair)  # 00
    right_cost, right = _depth1(both + only_f, leaf_errors(single[:, roots]), scale, decision)
    left_cost, left = _depth1(only_g + neither, leaf_errors(total[:, None] - single[:, roots]),
                              scale, decision)
    return left_cost + right_cost + decision, left, right
