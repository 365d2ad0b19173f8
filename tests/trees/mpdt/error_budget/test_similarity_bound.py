"""The similarity bound of the error-budget search (``bnb_candidates.similar_lowers``):
best(B, b) >= best(A, b + w(A \\ B)), against brute force on tiny weighted tables."""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.trees.exact.data import group_examples
from occamlearn.trees.mpdt.error_budget.bnb_candidates import (
    ERR1,
    FORCED,
    INF,
    _lowers,
    similar_lowers,
)
from occamlearn.trees.mpdt.error_budget.bnb_engine import BudgetRowSetSearch


@st.composite
def two_row_sets(draw):
    """(X, y, weight, n_classes, A, B): 4-10 rows over 2-4 features from a few patterns
    (conflicts common), integer weights (some large, so that a group is one bit weighing
    many units), and two masks of pattern indices."""
    n_classes = draw(st.sampled_from([2, 3]))
    n_rows, n_features = draw(st.integers(4, 10)), draw(st.integers(2, 4))
    n_patterns = draw(st.integers(2, n_rows))
    cells = draw(st.lists(st.integers(0, 1), min_size=n_patterns * n_features,
                          max_size=n_patterns * n_features))
    patterns = np.array(cells).reshape(n_patterns, n_features)
    which = draw(st.lists(st.integers(0, n_patterns - 1), min_size=n_rows, max_size=n_rows))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    weight = np.array(draw(st.lists(st.sampled_from([1, 1, 2, 3, 7, 20]), min_size=n_rows,
                                    max_size=n_rows)))
    pick = st.integers(1, (1 << n_rows) - 1)
    return patterns[which], y, weight, n_classes, draw(pick), draw(pick)


def _brute_leaves(view):
    """best(P, b) over sets P of the view's patterns (a bitmask of pattern indices): the
    fewest leaves of a tree making at most b units of errors, INF if none fits."""
    patterns = view.groups.patterns
    weights = view.weights
    n_features = patterns.shape[1]

    @cache
    def best(chosen: int, budget: int) -> int:
        members = [p for p in range(len(weights)) if chosen >> p & 1]
        per_class = weights[members].sum(axis=0)
        if per_class.sum() - per_class.max() <= budget:
            return 1
        found = INF
        for feature in range(n_features):
            ones = sum(1 << p for p in members if patterns[p, feature])
            zeros = chosen ^ ones
            if ones and zeros:
                for left in range(budget + 1):
                    found = min(found, best(zeros, left) + best(ones, budget - left))
        return found

    return best


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_row_sets())
def test_similarity_bound_never_passes_brute_force(data):
    X, y, weight, n_classes, in_a, in_b = data
    groups = group_examples(X, y, weight)
    search = BudgetRowSetSearch(groups, n_classes, use_incompatibility=False)
    view = search.view
    end = np.append(view.start, view.n_bits)
    # a row set holds every group of its patterns: the masks drawn pick patterns
    every = (1 << len(view.start)) - 1
    chosen_a, chosen_b = in_a & every, in_b & every
    if not chosen_a or not chosen_b:
        return

    def bits(chosen: int) -> int:
        return sum(((1 << int(end[p + 1] - end[p])) - 1) << int(end[p])
                   for p in range(len(view.start)) if chosen >> p & 1)

    rows_a, rows_b = bits(chosen_a), bits(chosen_b)
    near = search.entry(rows_a)
    for budget in range(near[FORCED], near[ERR1]):  # A's bounds, exact (no limit on leaves)
        search.solve(rows_a, budget, len(view.start) + 1)
    entry = search.memo.get(rows_b) or search.static(rows_b)
    high = entry[ERR1] + 2
    values = similar_lowers(search, rows_b, entry, None, 0, high, rows_a, near)
    if values is None:
        values = _lowers(entry, 0, high)
    brute = _brute_leaves(view)
    for budget, value in enumerate(values):
        assert value <= brute(chosen_b, budget), (budget, values)
    # and the bound is the searched set's own, shifted by the units of A outside B
    missing = sum(int(view.weights[p].sum()) for p in range(len(view.start))
                  if chosen_a >> p & 1 and not chosen_b >> p & 1)
    for budget, value in enumerate(values):
        if budget + missing < near[ERR1]:
            assert value >= brute(chosen_a, budget + missing)
