"""``shortest_between_many`` against the exact definition on many gaps at once: gaps of every
magnitude in one call (the first steps are taken as one block for all gaps), and gaps with
whole-number ends whose middles fall halfway between two candidates (settled in floats)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import occamlearn.binarize.printed_numbers as printed
from occamlearn.binarize.printed_numbers import shortest_between, shortest_between_many


def _gaps(values):
    distinct = np.unique(np.asarray(values, dtype=np.float64))
    return distinct[:-1], distinct[1:]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-10**15, 10**15), st.integers(-300, 300),
                          st.floats(-1e16, 1e16, allow_nan=False),
                          st.floats(-1e-3, 1e-3, allow_nan=False)),
                min_size=2, max_size=40))
def test_many_gaps_in_one_call_equal_the_exact_definition(values):
    low, high = _gaps(values)
    got = shortest_between_many(low, high)
    assert got.tolist() == [shortest_between(a, b) for a, b in zip(low, high)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-200, 200), st.integers(-10**6, 10**6)), min_size=2,
                max_size=40),
       st.sampled_from([1, 2, 5, 10, 1000]))
def test_whole_number_ties_are_settled_in_floats_as_the_definition(values, spread):
    """Gaps between whole numbers (scaled apart so that ties fall at steps 1, 10, 100, ...)
    need no decimal arithmetic, and give the definition's numbers."""
    low, high = _gaps(np.asarray(values, dtype=np.int64) * spread)
    exact = printed.shortest_between
    calls = []
    printed.shortest_between = lambda *a, **k: calls.append(a) or exact(*a, **k)
    try:
        got = shortest_between_many(low, high)
    finally:
        printed.shortest_between = exact
    assert got.tolist() == [exact(a, b) for a, b in zip(low, high)]
    assert calls == []


def test_ties_round_half_to_even_as_the_definition():
    low = np.array([40.0, 41.0, 10.0, -44.0, 150.0])
    high = np.array([43.0, 44.0, 40.0, -41.0, 350.0])
    assert shortest_between_many(low, high).tolist() == [42.0, 42.0, 20.0, -42.0, 200.0]
    assert [shortest_between(a, b) for a, b in zip(low, high)] == [42.0, 42.0, 20.0, -42.0,
                                                                   200.0]


def test_powers_of_ten_are_exact_where_doubles_hold_them():
    assert all(printed._POWERS_OF_TEN[j] == float(10 ** j) for j in range(23))
