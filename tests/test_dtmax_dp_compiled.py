"""The compiled DT(max) engine (trees.dtmax.dp_compiled / dp_kernels): exact against brute
force with weights, on row sets large enough to reach its memo, similarity bound and
difference counting; its similarity bound against its definition; stopping, resuming and a
memo that grows or fills up leave the answer unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dtmax_encoding import best_bounded_tree

from occamlearn.trees.data_reduction import group_examples
from occamlearn.trees.dtmax import dp_compiled
from occamlearn.trees.dtmax import dp_kernels as kernels
from occamlearn.trees.dtmax.dynamic_programme import best_tree_within_depth


@st.composite
def weighted_data(draw):
    """(X, y, weight, n_classes, depth): up to 12 rows over 1-5 features, 2-3 classes,
    integer weights 0-3 (at least one positive), depth 1-4."""
    n_classes = draw(st.integers(2, 3))
    rows, features = draw(st.integers(1, 12)), draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=rows * features,
                               max_size=rows * features))).reshape(rows, features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows)))
    weight = np.array(draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)))
    if not weight.any():
        weight[0] = 1
    return X, y, weight, n_classes, draw(st.integers(1, 4))


@pytest.mark.parametrize("prefer_small", [True, False])
@settings(max_examples=120, deadline=None)
@given(weighted_data())
def test_weights_act_as_repeated_rows_against_brute_force(prefer_small, data):
    X, y, weight, n_classes, depth = data
    result = best_tree_within_depth(group_examples(X, y, weight), n_classes, depth,
                                    prefer_small=prefer_small, engine="compiled")
    repeated_X, repeated_y = np.repeat(X, weight, axis=0), np.repeat(y, weight)
    correct, splits = best_bounded_tree(repeated_X, repeated_y, n_classes, depth)
    tree = result.tree
    assert result.status == "optimal" and tree.depth <= depth
    assert result.errors == weight.sum() - correct
    assert result.errors == int(((tree.predict(X) != y) * weight).sum())
    if prefer_small:
        assert result.decisions == splits == tree.n_nodes - tree.n_leaves


@pytest.mark.parametrize("seed", range(6))
def test_larger_row_sets_match_brute_force(seed):
    """40-70 weighted rows, 6 features, depth 3-4: many subproblems, memo hits, pruned tests
    and similarity bounds between siblings (the tiny examples above rarely reach them)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 70))
    X = rng.integers(0, 2, (n, 6))
    y = ((X[:, 0] & X[:, 1]) ^ X[:, 2] ^ (rng.random(n) < 0.2)).astype(np.int64)
    if seed % 2:
        y = np.where(rng.random(n) < 0.2, 2, y)
    n_classes = int(y.max()) + 1
    weight = rng.integers(1, 4, n)
    repeated_X, repeated_y = np.repeat(X, weight, axis=0), np.repeat(y, weight)
    for depth in (3, 4):
        correct, splits = best_bounded_tree(repeated_X, repeated_y, n_classes, depth)
        for prefer_small in (True, False):
            result = best_tree_within_depth(group_examples(X, y, weight), n_classes, depth,
                                            prefer_small=prefer_small, engine="compiled")
            assert result.errors == weight.sum() - correct
            assert result.errors == int(((result.tree.predict(X) != y) * weight).sum())
            if prefer_small:
                assert result.decisions == splits
            assert result.stats["subproblems"] > 1


@settings(max_examples=150, deadline=None)
@given(weighted_data(), st.data())
def test_similarity_bound_never_exceeds_the_optimum(data, draw):
    """best(B) >= best(A) - scale * weight(A minus B), for any row sets A, B (the bound the
    search uses between the same child of consecutive tests); checked by brute force."""
    X, y, weight, n_classes, depth = data
    n = len(y)
    before = np.array(sorted(draw.draw(st.sets(st.integers(0, n - 1), min_size=1))))
    after = np.array(sorted(draw.draw(st.sets(st.integers(0, n - 1), min_size=1))))
    scale = 1 << depth

    def best(rows):                         # errors * scale + decisions, brute force
        correct, splits = best_bounded_tree(np.repeat(X[rows], weight[rows], axis=0),
                                            np.repeat(y[rows], weight[rows]), n_classes,
                                            depth)
        return (weight[rows].sum() - correct) * scale + splits

    bound = kernels._similarity_bound(before, len(before), best(before), after, len(after),
                                      weight.astype(np.int64), scale)
    assert bound <= best(after)


@pytest.mark.parametrize("prefer_small", [True, False])
def test_slices_a_growing_memo_and_a_full_memo_give_the_same_tree_cost(monkeypatch,
                                                                      prefer_small):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (120, 12))
    y = (X[:, 0] ^ X[:, 4] ^ (rng.random(120) < 0.25)).astype(np.int64)
    groups = group_examples(X, y)

    def solve():
        return best_tree_within_depth(groups, 2, 4, prefer_small=prefer_small,
                                      engine="compiled")

    plain = solve()
    reference = best_tree_within_depth(groups, 2, 4, prefer_small=prefer_small,
                                       engine="numpy")
    monkeypatch.setattr(dp_compiled, "POLL_WORK", 300)        # many slices, resumed
    sliced = solve()
    monkeypatch.setattr(dp_compiled, "MEMO_ROWS", 16)         # grows 16 -> 64 -> 256
    words = (len(groups.label) + 63) // 64 + 3
    monkeypatch.setattr(dp_compiled, "MEMO_BYTES", 256 * words * 8)     # then full
    full = solve()
    for result in (plain, sliced, full):
        assert (result.errors, result.decisions if prefer_small else 0) == (
            reference.errors, reference.decisions if prefer_small else 0)
        assert result.status == "optimal"
    assert 64 * 0.7 < full.stats["memo_entries"] <= 256 * 0.7 + 1 < plain.stats["memo_entries"]


def test_a_deadline_returns_the_best_top_test_so_far():
    from occamlearn.stopping import Deadline

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (400, 40))
    y = rng.integers(0, 3, 400)
    result = best_tree_within_depth(group_examples(X, y), 3, 5, engine="compiled",
                                    deadline=Deadline.after(0.3))
    assert result.status == "feasible"
    assert result.errors == int((result.tree.predict(X) != y).sum())
    assert result.tree.depth <= 5
