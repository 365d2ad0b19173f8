"""A depth-2 side that must be error-free, of a depth-3 node of more than 64 rows, from the
words of its memo key alone.

Under ``prefer_small`` a depth-3 node whose budget is at most ``scale`` only gains from
error-free trees, so every side of every test it tries must be error-free too (the sides'
budgets are below the node's). The side of test f with x_f = v is then ``key & columns[f]``
(v = 1) or ``key & ~columns[f]`` (v = 0) over the node's memo key ``key``: its memo key is made in
one pass over the key's words, not by a split of the node's rows, a count of the side's leaf
and a pass over its rows. The side is answered as ``depth_two.solve_depth3_child`` answers one
that must be error-free: the memo, a witness, then its fewest error-free tests
(``witnesses.fewest_error_free_tests`` on its own rows if at most 64, else
``error_free.fewest_error_free_tests`` on the words), a cost (its tests) when one exists, else
a bound: ``scale`` (no depth-2 tree is error-free, so every tree errs) or more tests than the
budget allows. A side with one class has the leaf (0 tests); one whose rows conflict has no
error-free tree. Every value is the side's best cost if below the budget and a lower bound at
or above it otherwise, as ``solve_depth3_child``'s are; so the node's search takes the same
tests and the same tree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from occamlearn.kernel_sources import key_cache_to_sources
from occamlearn.trees.dtmax.binary.error_free import NO_TREE
from occamlearn.trees.dtmax.binary.error_free import fewest_error_free_tests as fewest_words
from occamlearn.trees.dtmax.binary.memo import (
    ABORTED,
    BOUND,
    EXACT,
    NO_TEST,
    WITNESSED,
    WORK,
    _lookup,
    _out_of_work,
    _store,
)
from occamlearn.trees.dtmax.binary.witnesses import _lowest, fewest_error_free_tests
from occamlearn.trees.dtmax.binary.witnesses import bound as witness_bound
from occamlearn.trees.dtmax.binary.witnesses import learn as learn_witness

__all__ = ["error_free_on_words", "error_free_side"]


@njit(cache=True)
def _rows_of(key, items):
    """The items of ``key`` into ``items``, in increasing order; how many."""
    n = 0
    for w in range(key.shape[0]):
        word = key[w]
        while word:
            items[n] = w * 64 + _lowest(word)
            n += 1
            word &= word - np.uint64(1)
    return n


@njit(cache=True)
def error_free_side(node_key, f, one, key, items, ub, data, witnesses, error_free, scale,
                    decision, slots, counters):
    """The side x_f = ``one`` of the node with memo key ``node_key``, whose budget ``ub`` is
    at most ``scale`` (module doc): its best cost if below ``ub``, else a lower bound >= ub;
    ``ABORTED`` when out of work. ``key``, ``items``: scratch for its key and rows."""
    columns = error_free[0]
    n_words = 0
    for w in range(key.shape[0]):
        key[w] = node_key[w] & (columns[f, w] if one else ~columns[f, w])
        n_words += key[w] != 0
    two = np.int64(2)
    _, value, exact, _ = _lookup(slots, key, two, counters)
    if value >= 0 and (exact or value >= ub):
        return value
    counters[WORK] += key.shape[0]
    if _out_of_work(counters):
        return ABORTED
    witnessed = witness_bound(key, ub, witnesses, counters)
    if witnessed == 0:
        n = 0                           # its rows, up to 65
        for w in range(key.shape[0]):
            word = key[w]
            while word and n <= 64:
                n += 1
                word &= word - np.uint64(1)
        if n <= 64:
            _rows_of(key, items)
            tests = fewest_error_free_tests(items, n, data, witnesses)
            if tests >= 0:
                _store(slots, counters, key, two, tests * decision, EXACT, witnesses[6][0])
                return tests * decision
        else:
            return error_free_on_words(key, items, -1, 64 * n_words, ub, data, witnesses,
                                       error_free, scale, decision, slots, counters)
        witnessed = scale
    _store(slots, counters, key, two, witnessed, BOUND, NO_TEST)
    return witnessed


@njit(cache=True)
def error_free_on_words(key, items, n, work, ub, data, witnesses, error_free, scale, decision,
                        slots, counters):
    """A side with memo key ``key`` whose budget ``ub`` is at most ``scale`` and that no
    stored witness bounds, answered on its key's words (``error_free.
    fewest_error_free_tests``, ``work`` units): its fewest error-free tests if at most
    ``most`` (exact), more (a bound >= ub) or none (``scale``, a bound: every tree errs;
    a witness is then learnt from its rows: ``items[:n]``, or found from the key if ``n`` <
    0); the value stored and returned. ``depth_two.solve_depth3_child`` and
    ``error_free_side`` share it."""
    two = np.int64(2)
    most = min(3, (ub - 1) // decision) if decision > 0 else 3
    tests = fewest_words(key, most, error_free)
    counters[WORK] += work
    if tests != NO_TREE:                # its fewest tests, or more than ``most``: >= ub
        if tests <= most:
            _store(slots, counters, key, two, tests * decision, EXACT, error_free[4][0])
        else:
            _store(slots, counters, key, two, tests * decision, BOUND, NO_TEST)
        return tests * decision
    if witnesses[3][0] <= 2 * counters[WITNESSED] + 8:
        learn_witness(items, n if n >= 0 else _rows_of(key, items), key, scale, data,
                      witnesses, counters)
    _store(slots, counters, key, two, scale, BOUND, NO_TEST)
    return scale


key_cache_to_sources(__name__)  # its kernel calls memo's, witnesses' and error_free's
