"""The subset trie of the compiled branch and bound: answers against a brute force over the
stored sets (random insertion orders, evictions, capped queries), and minimum trees with the
trie, the split reductions and their switches against the brute-force minimum."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from bruteforce import minimum_tree_size
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from occamlearn.trees.mpdt.bnb import engines, kernels, memo_table, subset_trie
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.bnb.engines import prepare_rows


@njit
def _remember(trie, counters, rows, value):
    subset_trie.remember(trie, counters, rows, value)


@njit
def _subset_bound(trie, counters, rows, limit):
    return subset_trie.subset_bound(trie, counters, rows, limit)


def _words(members, n_words):
    words = np.zeros(n_words, dtype=np.uint64)
    for row in members:
        words[row >> 6] |= np.uint64(1) << np.uint64(row & 63)
    return words


def _fresh(capacity, work=1 << 30):
    counters = kernels.new_counters()
    counters[memo_table.TRIE_WORK] = work
    return subset_trie.new_trie(capacity), counters


def _store(trie, counters, stored, n_words):
    """Store each (set, value) of ``stored`` in turn; return (set, value, evictions when it
    was stored) for each."""
    kept = []
    for members, value in stored:
        _remember(trie, counters, _words(members, n_words), value)
        kept.append((members, value, counters[memo_table.TRIE_EVICTIONS]))
    return kept


@st.composite
def stored_sets(draw):
    """(universe size, [(set, value)] in insertion order, [(query set, limit)])."""
    n = draw(st.integers(1, 130))  # up to three words
    members = st.frozensets(st.integers(0, n - 1), min_size=1, max_size=min(n, 12))
    stored = draw(st.lists(st.tuples(members, st.integers(1, 9)), min_size=1, max_size=40))
    queries = draw(st.lists(st.tuples(st.frozensets(st.integers(0, n - 1), max_size=n),
                                      st.integers(0, 9)), min_size=1, max_size=20))
    return n, stored, queries


def _best_below(stored, query, limit):
    """The brute force: the largest value above ``limit`` of a stored subset of ``query``."""
    return max([value for members, value in stored if members <= query and value > limit],
               default=0)


@settings(max_examples=200, deadline=None)
@given(stored_sets())
def test_queries_find_a_stored_subset_above_the_limit_iff_one_exists(data):
    """Without eviction or a visit cap: a query answers a value above its limit exactly when
    some stored subset of the query has one, and that value is a stored subset's (the walk
    stops at the first such value, so not necessarily the largest)."""
    n, stored, queries = data
    words = (n + 63) // 64
    trie, counters = _fresh(4 * 13 * len(stored) + 8)  # room for every set: no eviction
    for members, value in stored:
        _remember(trie, counters, _words(members, words), value)
    for query, limit in queries:
        found = _subset_bound(trie, counters, _words(query, words), limit)
        best = _best_below(stored, query, limit)
        assert (found > limit) == (best > limit) and found <= best
        assert found == 0 or any(members <= query and value == found
                                 for members, value in stored)
    assert counters[memo_table.TRIE_EVICTIONS] == 0


@settings(max_examples=200, deadline=None)
@given(stored_sets(), st.integers(28, 80), st.integers(1, 64))
def test_evicting_and_capped_queries_stay_sound(data, capacity, work):
    """With a trie too small for every set, and queries cut short: an answer is always the
    value of a stored subset above the limit (never more than the brute force over every set
    ever stored); with queries not cut short, a query with a set above its limit stored since
    the second-to-last eviction (its pool was not emptied since) always finds a value."""
    n, stored, queries = data
    words = (n + 63) // 64
    for capped in (False, True):
        trie, counters = _fresh(capacity, work if capped else 1 << 30)
        kept = _store(trie, counters, stored, words)
        for query, limit in queries:
            evictions = counters[memo_table.TRIE_EVICTIONS]
            found = _subset_bound(trie, counters, _words(query, words), limit)
            everything = [(members, value) for members, value, _ in kept]
            assert found == 0 or found > limit
            assert found <= _best_below(everything, query, limit)
            assert found == 0 or any(members <= query and value == found
                                     for members, value in everything)
            if not capped:
                present = [(members, value) for members, value, at in kept
                           if at + 1 >= evictions]
                assert (found > limit) or _best_below(present, query, limit) == 0


@settings(max_examples=150, deadline=None)
@given(stored_sets(), st.integers(28, 200), st.randoms())
def test_a_query_answers_alike_whatever_the_insertion_order(data, capacity, rng):
    """The same sets stored in two random orders into tries that may evict: each answer is
    0 or a stored subset's value above the limit, and both tries answer a value above the
    limit whenever a set above it was stored since their second-to-last eviction (which sets
    survive depends on the order; the early stop never hides a surviving one)."""
    n, stored, queries = data
    words = (n + 63) // 64
    shuffled = list(stored)
    rng.shuffle(shuffled)
    for order in (stored, shuffled):
        trie, counters = _fresh(capacity)
        kept = _store(trie, counters, order, words)
        for query, limit in queries:
            evictions = counters[memo_table.TRIE_EVICTIONS]
            found = _subset_bound(trie, counters, _words(query, words), limit)
            assert found == 0 or any(members <= query and value == found > limit
                                     for members, value in order)
            present = [(members, value) for members, value, at in kept
                       if at + 1 >= evictions]
            assert found > limit or _best_below(present, query, limit) == 0


def test_an_older_pool_hit_is_copied_into_the_active_pool():
    trie, counters = _fresh(4 * 4)  # pools of 7 and 8 nodes: three sets of 3 rows evict
    first = _words({1, 2, 3}, 1)
    _remember(trie, counters, first, 5)
    _remember(trie, counters, _words({4, 5, 6}, 1), 4)
    _remember(trie, counters, _words({7, 8, 9}, 1), 4)  # evicts: {1, 2, 3} is in the old pool
    assert counters[memo_table.TRIE_EVICTIONS] == 1
    assert _subset_bound(trie, counters, _words(range(10), 1), 4) == 5  # found, copied
    _remember(trie, counters, _words({10, 11, 12}, 1), 4)  # evicts the old pool again
    assert counters[memo_table.TRIE_EVICTIONS] == 2
    assert _subset_bound(trie, counters, _words({1, 2, 3}, 1), 0) == 5  # it survived


@contextmanager
def _trie_settings(max_rows, min_budget, nodes, work, reductions):
    """The compiled search's trie and reduction settings, for the duration of a block."""
    search = engines.CompiledRowSetSearch
    settings_now = {"SUBSET_MAX_ROWS": max_rows, "SUBSET_MIN_BUDGET": min_budget,
                    "SUBSET_BYTES": nodes * kernels.TRIE_BYTES_PER_NODE, "SUBSET_WORK": work,
                    "SUBSET_HIT_WORTH": 0,  # never paused: every query is asked
                    **dict(zip(("PRUNE_BY_CLASSES", "DROP_DOMINATED", "ONE_LEAF_BY_CLASSES"),
                               reductions))}
    before = {name: getattr(search, name) for name in settings_now}
    try:
        for name, value in settings_now.items():
            setattr(search, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(search, name, value)


@st.composite
def threshold_data(draw):
    """(X, y, n_classes): 8-30 distinct rows of 2-4 small integer features cut at every
    threshold (nested sides: what the dominance rule reads), 2 or 3 classes."""
    n_classes = draw(st.sampled_from([2, 2, 3]))
    n_rows, n_features = draw(st.integers(8, 30)), draw(st.integers(2, 4))
    values = np.array(draw(st.lists(st.integers(0, 4), min_size=n_rows * n_features,
                                    max_size=n_rows * n_features))).reshape(n_rows, n_features)
    X = np.concatenate([(values[:, [f]] > t) for f in range(n_features) for t in range(4)],
                       axis=1).astype(np.int64)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                               max_size=n_rows)))
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    return X, y[first][inverse.ravel()], n_classes


@settings(max_examples=150, deadline=None)
@given(threshold_data(), st.integers(2, 16), st.sampled_from([2, 3]),
       st.sampled_from([24, 64, 4096]), st.sampled_from([1, 8, 4096]),
       st.tuples(st.booleans(), st.booleans(), st.booleans()), st.randoms())
def test_compiled_search_with_the_trie_is_exact(data, max_rows, min_budget, nodes, work,
                                                reductions, rng):
    """Tiny tries (evicting all the time), capped queries, rows in a random order (so sets
    enter the trie in another order), every switch of the split reductions: still the
    brute-force minimum, and a pure tree of that size."""
    X, y, n_classes = data
    order = list(range(len(y)))
    rng.shuffle(order)
    X, y = X[order], y[order]
    searches = []
    with _trie_settings(max_rows, min_budget, nodes, work, reductions):
        result = find_minimum_tree_branch_and_bound(X, y, n_classes, engine="compiled",
                                               quick_calls=0, improve_calls=0,
                                               on_search=searches.append)
    assert result.status == "optimal"
    assert result.tree.n_nodes == minimum_tree_size(X, y)
    assert np.array_equal(result.tree.predict(X), y)
    _check_what_the_search_stored(searches[0], X, y, n_classes)


def _members(words):
    return [64 * w + bit for w, word in enumerate(words) for bit in range(64)
            if int(word) >> bit & 1]


def _check_what_the_search_stored(search, X, y, n_classes, sample=30):
    """Every value the search stored -- in its memo (exact, or a lower bound) and in its
    trie (lower bounds) -- against the brute force on that row set."""
    if not isinstance(search, engines.CompiledRowSetSearch):
        return  # the greedy tree was proven minimum at once: no compiled search ran
    rows, labels, _, _ = prepare_rows(X, y, n_classes)

    def leaves(members):
        return (minimum_tree_size(rows[members], labels[members]) + 1) // 2

    table, words = search.table, search.words
    used = np.flatnonzero(table[:, words] & memo_table.USED)
    for at in used[np.linspace(0, len(used) - 1, min(sample, len(used))).astype(int)]:
        meta = int(table[at, words])
        value, exact = meta & int(memo_table.VALUE_MASK), bool(meta & int(memo_table.EXACT))
        members = _members(table[at, :words])
        assert (value == leaves(members)) if exact else (value <= leaves(members))
    trie, half = search.trie, search.trie.shape[0] // 2
    used = search.counters[memo_table.TRIE_USED:memo_table.TRIE_USED + 2]
    live = np.r_[1:1 + used[0], half:half + used[1]]  # past these: nodes of emptied pools
    ends = live[trie[live, subset_trie.VALUE] > 0]
    for node in ends[np.linspace(0, len(ends) - 1, min(sample, len(ends))).astype(int)]:
        members, at = [], int(node)
        while trie[at, subset_trie.PARENT]:
            members.append(int(trie[at, subset_trie.ELEM]))
            at = int(trie[at, subset_trie.PARENT])
        assert trie[node, subset_trie.VALUE] <= leaves(sorted(members))


@settings(max_examples=100, deadline=None)
@given(threshold_data())
def test_every_reduction_switch_gives_the_same_minimum(data):
    X, y, n_classes = data
    minimum = minimum_tree_size(X, y)
    for reductions in ((False, False, False), (True, True, True)):
        with _trie_settings(0, 3, 64, 4096, reductions):
            result = find_minimum_tree_branch_and_bound(X, y, n_classes, engine="compiled",
                                                   quick_calls=0, improve_calls=0)
        assert result.tree.n_nodes == minimum and result.status == "optimal"


def test_a_hard_search_evicts_and_still_proves_the_minimum():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 6, size=(40, 3))
    X = np.concatenate([(values[:, [f]] > t) for f in range(3) for t in range(5)],
                       axis=1).astype(np.int64)
    y = (values.sum(axis=1) + rng.integers(0, 3, size=40)) % 2
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    y = y[first][inverse.ravel()]
    with _trie_settings(12, 2, 64, 4096, (True, True, True)):
        result = find_minimum_tree_branch_and_bound(X, y, 2, engine="compiled", quick_calls=0,
                                               improve_calls=0)
    assert result.stats["subset_evictions"] > 0 and result.stats["subset_hits"] > 0
    assert result.status == "optimal"
    assert result.tree.n_nodes == minimum_tree_size(X, y)


@pytest.mark.parametrize("on", [False, True])
def test_the_trie_switch_is_honoured(on):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(30, 8))
    _, keep = np.unique(X, axis=0, return_index=True)
    X = X[keep]
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2]) | (X[:, 3] & X[:, 4])
    with _trie_settings(16 if on else 0, 2, 4096, 4096, (True, True, True)):
        result = find_minimum_tree_branch_and_bound(X, y, 2, engine="compiled", quick_calls=0,
                                               improve_calls=0)
    assert (result.stats["subset_queries"] > 0) == on
    assert result.tree.n_nodes == minimum_tree_size(X, y)
