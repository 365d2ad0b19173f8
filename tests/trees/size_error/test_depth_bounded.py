"""The depth-two pair weights of ``trees.size_error.depth_bounded`` in blocks of root features
and tiles of float columns over 0/1 bytes: the same points and trees as one float64 count
over every pair (the einsum they replace), and a stop between blocks keeps true trees, marked
not proven; memory is checked before the patterns are copied."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn import memory
from occamlearn.trees.exact.stop import Poll
from occamlearn.trees.size_error import depth_bounded
from occamlearn.trees.size_error.depth_bounded import (
    DepthBoundedFront,
    FloatColumns,
    depth_bounded_front,
    pair_block,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _leaf_errors(weights):
    return weights.sum(axis=0) - weights.max(axis=0)


def einsum_depth_two(P, W, cap):
    """The 3- and 4-leaf points of depth two from every pair at once (the reference):
    leaves -> (errors, (root, zero-side split, one-side split)) over the columns of P."""
    n, c = W.sum(axis=0), (P.T @ W).T
    err_one, err_zero = _leaf_errors(c), _leaf_errors(n[:, None] - c)
    C = np.einsum("rf,rg,rk->kfg", P, P, W)
    both = _leaf_errors(C) + _leaf_errors(c[:, :, None] - C)
    split_one, arg_one = both.min(axis=1), both.argmin(axis=1)
    both = _leaf_errors(c[:, None, :] - C) + _leaf_errors(
        n[:, None, None] - c[:, :, None] - c[:, None, :] + C)
    split_zero, arg_zero = both.min(axis=1), both.argmin(axis=1)
    three = np.minimum(split_zero + err_one, err_zero + split_one)
    g = int(np.argmin(three))
    plan3 = ((g, int(arg_zero[g]), None) if split_zero[g] + err_one[g]
             <= err_zero[g] + split_one[g] else (g, None, int(arg_one[g])))
    four = split_zero + split_one
    h = int(np.argmin(four))
    points = {3: (float(three[g]), plan3), 4: (float(four[h]), (h, int(arg_zero[h]),
                                                                int(arg_one[h])))}
    return {k: v for k, v in points.items() if cap is None or k <= cap}


@st.composite
def patterns_and_weights(draw):
    rows = draw(st.integers(2, 12))
    features = draw(st.integers(1, 7))
    classes = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 2, (rows, features)).astype(np.float64)
    W = rng.integers(0, 4, (rows, classes)).astype(np.float64)
    return P, W


@SETTINGS
@given(patterns_and_weights(), st.integers(1, 8), st.integers(1, 8))
def test_blocks_give_the_einsum_points(data, block, tile):
    """Every split of the root features into blocks, over 0/1 bytes read as float tiles of
    ``tile`` columns, gives the float64 einsum's errors and its first minimising plan, and
    the tiles' class weights are the float64 product's."""
    P, W = data
    columns = FloatColumns(P.astype(np.uint8), 8 * len(P) * tile)
    assert columns.width == min(tile, P.shape[1])
    assert (columns.whole is None) == (tile < P.shape[1])
    n, c = W.sum(axis=0), columns.class_weights(W)
    assert np.array_equal(c, (P.T @ W).T)
    err_one, err_zero = _leaf_errors(c), _leaf_errors(n[:, None] - c)
    best: dict = {}
    for start in range(0, P.shape[1], block):
        part = depth_bounded._depth_two_block(columns, W, n, c, err_one, err_zero,
                                              slice(start, start + block))
        for leaves, point in part.items():
            if leaves not in best or point[0] < best[leaves][0]:
                best[leaves] = point
    assert best == einsum_depth_two(P, W, None)


@SETTINGS
@given(patterns_and_weights(), st.integers(1, 4), st.sampled_from([None, 2, 3, 4]),
       st.integers(2, 3), st.booleans())
def test_front_in_blocks_equals_one_block(data, block, cap, depth, on_one_side):
    """The whole front (depth two, or three: its depth-two nodes are row subsets) with
    blocks of ``block`` features and float tiles of one column equals the front of one
    block over one float copy (trees included)."""
    P, W = data
    if on_one_side:  # a constant column: the nodes copy their varying columns
        P = np.hstack([P, np.ones((len(P), 1))])
    mask = np.ones(len(P), dtype=bool)
    whole = DepthBoundedFront(P.astype(np.uint8), W, cap, Poll()).front(mask, depth)
    original = depth_bounded.pair_block, depth_bounded.FLOAT_COPY_BYTES
    depth_bounded.pair_block = lambda *_: block
    depth_bounded.FLOAT_COPY_BYTES = 8 * len(P)
    try:
        blocked = DepthBoundedFront(P.astype(np.uint8), W, cap, Poll()).front(mask, depth)
    finally:
        depth_bounded.pair_block, depth_bounded.FLOAT_COPY_BYTES = original
    assert blocked == whole


def _errors(tree, P, W) -> float:
    """Weighted errors of a nested tree whose leaves predict their stored label."""
    total = 0.0
    for row, weights in zip(P, W, strict=True):
        node = tree
        while node[0] != "leaf":
            node = node[2] if row[node[0]] else node[1]
        total += weights.sum() - weights[node[1]]
    return total


@pytest.mark.parametrize("stop_at", [1, 2, 3])
def test_stop_between_blocks_keeps_true_trees(monkeypatch, stop_at):
    """A stop after ``stop_at`` blocks of a root search of depth two: stopped, every point
    a tree with at most its leaves making exactly its errors, none better than the full
    front's (not proven: the caller marks them bounds)."""
    rng = np.random.default_rng(stop_at)
    P = rng.integers(0, 2, (60, 9)).astype(np.uint8)
    W = rng.integers(0, 3, (60, 2)).astype(np.float64)
    full, stopped, _ = depth_bounded_front(P, W, 4, 2, Poll())
    assert not stopped
    monkeypatch.setattr(depth_bounded, "pair_block", lambda *_: 2)
    checks = iter(range(10**6))
    poll = Poll(stop_when=lambda: next(checks) >= stop_at - 1)
    front, stopped, interrupted = depth_bounded_front(P, W, 4, 2, poll)
    assert stopped and not interrupted
    assert 1 in front and front[1] == full[1]
    if stop_at > 1:
        assert 3 in front  # the blocks done gave their three- and four-leaf trees
    for leaves, (errors, tree) in front.items():
        assert _errors(tree, P, W) == errors
        assert errors >= min(e for count, (e, _) in full.items() if count <= leaves)


def test_pair_block_plans_memory_and_work():
    """Blocks fit the budget (at least one feature), are bounded by the work per poll and
    by the number of features."""
    assert pair_block(100, 10, 2, 1 << 30) == 10
    per_feature = 8 * (12 * 20_000 + 3 * 6_000)
    assert pair_block(6_000, 20_000, 2, 64 << 20) == max(1, min(
        (64 << 20) // per_feature, depth_bounded.MIN_PAIR_BLOCK))
    assert pair_block(6_000, 20_000, 2, 0) == 1
    assert pair_block(2_000, 698, 2, 64 << 20) * 2_000 * 698 * 2 <= depth_bounded.PAIR_BLOCK_WORK


def test_patterns_stay_bytes_and_memory_is_checked_first(monkeypatch):
    """The patterns are read as 0/1 bytes, not copied when every column is kept; a copy
    that does not fit the room is a MemoryError naming its size before anything is
    allocated; a node's copy that does not fit stops the search as at the memory limit,
    with the one-leaf point."""
    rng = np.random.default_rng(0)
    P = rng.integers(0, 2, (40, 6)).astype(np.uint8)
    W = rng.integers(0, 3, (40, 2)).astype(np.float64)
    assert DepthBoundedFront(P, W, None, Poll()).P is P
    with_copies = np.hstack([P, P])  # duplicate columns: the kept ones are copied
    assert DepthBoundedFront(with_copies, W, None, Poll()).P.dtype == np.uint8
    with memory.limited(10), \
            pytest.raises(MemoryError, match="MiB for the 40 x 6 0/1 patterns"):
        DepthBoundedFront(with_copies, W, None, Poll())
    with memory.limited(10):  # no room: the root reads the patterns in place, its
        at_root, stopped, _ = depth_bounded_front(P, W, None, 2, Poll())  # children copy
        assert not stopped and set(at_root) >= {1, 2}
        front, stopped, _ = depth_bounded_front(P, W, None, 3, Poll())
        assert not stopped  # copies below ROOM_CHECK_BYTES are not weighed
        monkeypatch.setattr(depth_bounded, "ROOM_CHECK_BYTES", 0)
        poll = Poll()
        front, stopped, _ = depth_bounded_front(P, W, None, 3, poll)
    assert stopped and front[1] == at_root[1] and set(front) == {1}
    assert poll.memory_full  # the stop says why
