"""The greedy first tree on the 0/1 route with ``prefer_small``: made only when the search
does not end in its first slice of work (or stops), then used as its upper bound from the
next slice on, and kept when a stopped search found nothing better."""

from __future__ import annotations

import numpy as np
import pytest
from bruteforce import best_bounded_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.dtmax import entry
from occamlearn.trees.dtmax.binary import search as binary_kernels_search
from occamlearn.trees.dtmax.binary.solve import binary_search
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.entry import find_most_accurate_tree, greedy_tree
from occamlearn.trees.dtmax.result import nested_errors, nested_tests


def data_of(X, y, n_classes) -> OrderedData:
    return OrderedData.from_matrix(np.asarray(X, dtype=float), np.asarray(y), n_classes)


@st.composite
def binary_tables(draw):
    n_classes = draw(st.integers(2, 3))
    n_rows, n_features = draw(st.integers(8, 30)), draw(st.integers(2, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n_rows * n_features,
                               max_size=n_rows * n_features))).reshape(n_rows, n_features)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    return X, y, n_classes, draw(st.integers(2, 4))


class Counted:
    """``greedy_tree`` that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return greedy_tree(*args, **kwargs)


@settings(max_examples=60, deadline=None)
@given(binary_tables(), st.booleans(), st.sampled_from([1, 50, 10 ** 9]))
def test_an_incumbent_asked_for_between_slices_keeps_the_search_exact(data, prefer_small,
                                                                        poll_work):
    """Slices of 1 or 50 units of work (the incumbent's bound then lowers every later slice's
    budget) or one slice (never asked): the brute force's optimum, the incumbent asked for at
    most once, and only when the first slice did not end the search."""
    X, y, n_classes, depth = data
    d = data_of(X, y, n_classes)
    asked = []

    def incumbent():
        asked.append(1)
        tree = greedy_tree(d, depth)
        return tree, nested_errors(tree, d.rank, d.y, d.weight)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(binary_kernels_search, "POLL_WORK", poll_work)
        result = binary_search(d, depth, prefer_small=prefer_small, incumbent=incumbent)
    correct, splits = best_bounded_tree(X, y, n_classes, depth)
    assert result.status == "optimal"
    assert result.errors == len(y) - correct
    assert nested_errors(result.tree, d.rank, d.y, d.weight) == result.errors
    if prefer_small:
        assert nested_tests(result.tree) == splits
    assert len(asked) <= 1
    if poll_work == 10 ** 9:
        assert not asked


def test_a_slow_search_asks_for_the_greedy_tree_once_and_reports_it_first(monkeypatch):
    rng = np.random.default_rng(3)
    d = data_of(rng.integers(0, 2, (120, 12)), rng.integers(0, 3, 120), 3)
    whole = find_most_accurate_tree(d, max_depth=3)
    counted = Counted()
    monkeypatch.setattr(entry, "greedy_tree", counted)
    monkeypatch.setattr(binary_kernels_search, "POLL_WORK", 1000)
    sink = ProgressSink()
    sliced = find_most_accurate_tree(d, max_depth=3, progress=sink)
    assert counted.calls == 1 and sliced.status == "optimal"
    greedy = greedy_tree(d, 3)
    assert sink.trace[0][1] == nested_errors(greedy, d.rank, d.y, d.weight)
    assert (sliced.errors, nested_tests(sliced.tree)) == (whole.errors,
                                                          nested_tests(whole.tree))


@pytest.mark.parametrize("prefer_small", [True, False])
def test_the_greedy_tree_is_made_on_the_0_1_route_only_when_it_could_count(monkeypatch,
                                                                            prefer_small):
    """A search ending in its first slice never makes it with ``prefer_small`` (its optimum
    cannot be worse); without, a tree of as many errors and fewer tests may replace the
    search's, so it is made at once."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (60, 6))
    d = data_of(X, X[:, 0] ^ X[:, 1] | (rng.random(60) < 0.1), 2)
    counted = Counted()
    monkeypatch.setattr(entry, "greedy_tree", counted)
    result = find_most_accurate_tree(d, max_depth=3, prefer_small=prefer_small)
    assert result.status == "optimal" and result.search == "binary"
    assert counted.calls == (0 if prefer_small else 1)


def test_a_listener_hears_the_greedy_tree_first_even_when_the_search_is_fast(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (60, 6))
    d = data_of(X, X[:, 0] ^ X[:, 1] | (rng.random(60) < 0.1), 2)
    counted, heard = Counted(), []
    monkeypatch.setattr(entry, "greedy_tree", counted)
    sink = ProgressSink(callback=lambda upper, lower, seconds, model: heard.append(model))
    result = find_most_accurate_tree(d, max_depth=3, progress=sink)
    assert counted.calls == 1 and result.status == "optimal"
    assert heard[0] == greedy_tree(d, 3)


def test_a_0_1_search_stopped_in_its_first_slice_keeps_the_greedy_tree_if_better():
    """A deadline already past: the search stops at once, and the answer is no worse than
    the greedy tree, made after the search."""
    rng = np.random.default_rng(2)
    d = data_of(rng.integers(0, 2, (400, 40)), rng.integers(0, 3, 400), 3)
    assert entry.kernels_ready(entry.BINARY_KERNELS, Deadline.after(600))
    result = find_most_accurate_tree(d, max_depth=4, deadline=Deadline.after(0.0))
    greedy = greedy_tree(d, 4)
    assert result.status == "feasible" and result.search == "binary"
    assert nested_errors(result.tree, d.rank, d.y, d.weight) == result.errors
    assert (result.errors, nested_tests(result.tree)) <= (
        nested_errors(greedy, d.rank, d.y, d.weight), nested_tests(greedy))
