"""Nested split sides (``trees.exact.nesting``) and the branch and bound that uses them.

The rule: a lower bound proven for a side holds for every side containing it (the fewest
leaves of a pure tree is monotone under adding rows). Checked here: the containment diagram
against all pairs, the one-pass propagation against the maximum over every contained side,
and the compiled search (which propagates at every node) against brute force on tiny data
with threshold columns cut from small numeric columns and one-hot columns.
"""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import minimum_tree_size
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.trees.exact.data import reduce_columns
from occamlearn.trees.exact.nesting import propagate, side_nesting


@st.composite
def mixed_columns(draw, min_rows=4, max_rows=14):
    """Rows of threshold columns (x >= t of small numeric columns), one-hot columns of a small
    categorical column and plain random bits; distinct and non-complementary columns only."""
    rows = draw(st.integers(min_rows, max_rows))
    parts = []
    for _ in range(draw(st.integers(0, 2))):  # numeric columns cut at every threshold
        values = np.array(draw(st.lists(st.integers(0, 4), min_size=rows, max_size=rows)))
        parts += [(values >= t).astype(np.int64) for t in range(1, 5)]
    if draw(st.booleans()):  # one-hot categorical column
        values = np.array(draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)))
        parts += [(values == v).astype(np.int64) for v in range(4)]
    for _ in range(draw(st.integers(0 if parts else 1, 3))):
        parts.append(np.array(draw(st.lists(st.integers(0, 1), min_size=rows,
                                            max_size=rows))))
    return np.stack(parts, axis=1)


def _sides(matrix):
    matrix = matrix != 0
    return [side for j in range(matrix.shape[1]) for side in (~matrix[:, j], matrix[:, j])]


@settings(max_examples=300, deadline=None)
@given(mixed_columns())
def test_diagram_edges_are_immediate_containments(matrix):
    kept = reduce_columns(matrix).column
    if len(kept) == 0:
        return
    sub = matrix[:, kept]
    sides = _sides(sub)
    nesting = side_nesting(sub)
    n = len(sides)
    contains = [[a != b and not (sides[a] & ~sides[b]).any() for b in range(n)] for a in range(n)]
    for b in range(n):
        preds = set(nesting.pred[nesting.pred_start[b]:nesting.pred_start[b + 1]].tolist())
        immediate = {a for a in range(n) if contains[a][b] and not any(
            contains[a][u] and contains[u][b] for u in range(n))}
        assert preds == immediate
        for a in preds:
            assert b in nesting.succ[nesting.succ_start[a]:nesting.succ_start[a + 1]]
    position = np.argsort(nesting.order)
    for a in range(n):
        for b in range(n):
            if contains[a][b]:
                assert position[a] < position[b]


@settings(max_examples=300, deadline=None)
@given(mixed_columns(), st.data())
def test_one_pass_gives_the_largest_bound_of_any_contained_side(matrix, data):
    kept = reduce_columns(matrix).column
    if len(kept) == 0:
        return
    sub = matrix[:, kept]
    sides = _sides(sub)
    n = len(sides)
    bound = np.array(data.draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)))
    raised = propagate(side_nesting(sub), bound)
    for b in range(n):
        expected = max([bound[b]] + [bound[a] for a in range(n)
                                     if a != b and not (sides[a] & ~sides[b]).any()])
        assert raised[b] == expected


def test_thresholds_of_one_column_form_a_chain():
    values = np.array([0, 1, 2, 3, 4, 5])
    matrix = np.stack([(values >= t).astype(int) for t in (1, 2, 3, 4, 5)], axis=1)
    nesting = side_nesting(matrix)
    # right side of x >= 5 inside x >= 4 inside ... ; left side of x >= 1 inside x >= 2 ...
    assert nesting.n_edges == 2 * (5 - 1)


def test_the_diagram_is_given_up_when_it_would_not_fit_in_the_time_left():
    """300 thresholds of one column: the (600 x 600) product is predicted at about 0.02 s;
    with 0.1 s left (a tenth of it is its share) no diagram is built, with a minute it is,
    and a passed deadline stops it too."""
    from occamlearn.stopping import Deadline

    values = np.arange(301)
    matrix = np.stack([(values >= t).astype(int) for t in range(1, 301)], axis=1)
    assert side_nesting(matrix, Deadline.after(60)).n_edges == 2 * (300 - 1)
    assert side_nesting(matrix).n_edges == 2 * (300 - 1)
    assert side_nesting(matrix, Deadline.after(0.1)).n_edges == 0
    many = np.repeat(matrix, 40, axis=0)  # 12,040 rows: more than one chunk of rows
    assert side_nesting(many, Deadline.after(0)).n_edges == 0


@pytest.mark.parametrize("matrix", [[[0, 0], [1, 1], [1, 1]], [[0, 1], [1, 0], [1, 0]]])
def test_repeated_or_complementary_columns_are_refused(matrix):
    with pytest.raises(ValueError, match="distinct"):
        side_nesting(np.array(matrix))


@settings(max_examples=300, deadline=None)
@given(mixed_columns(min_rows=6, max_rows=12), st.data())
def test_searches_with_nesting_equal_brute_force(matrix, data):
    from occamlearn.trees.mpdt.bnb.branch_and_bound import _run

    n_classes = data.draw(st.sampled_from([2, 3]))
    y = np.array(data.draw(st.lists(st.integers(0, n_classes - 1), min_size=matrix.shape[0],
                                    max_size=matrix.shape[0])))
    _, first, inverse = np.unique(matrix, axis=0, return_index=True, return_inverse=True)
    y = y[first][inverse.ravel()]  # identical rows get one class: a pure tree exists
    minimum = minimum_tree_size(matrix, y)
    for engine, options in (("python", {}), ("compiled", {"child_bounds": False}),
                            ("compiled", {"child_bounds": True})):
        result = _run(matrix, y, n_classes, engine=engine, quick_calls=0, improve_calls=0,
                      **options)
        assert result.stats["engine"] == engine
        assert result.status == "optimal" and result.tree.n_nodes == minimum
        assert np.array_equal(result.tree.predict(matrix), y)
