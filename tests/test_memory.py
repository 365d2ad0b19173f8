"""The one memory limit (``occamlearn.memory``) and the structures sized from it: a MaxSAT
encoding predicted past it is not built, a memo stops at its share, a hash table stops
growing; each search then returns its best tree as at a time limit."""

from __future__ import annotations

import numpy as np
import pytest

from occamlearn import memory
from occamlearn.stopping import Deadline


def test_parse_bytes_takes_numbers_and_suffixes():
    assert memory.parse_bytes(1024) == 1024
    assert memory.parse_bytes("2G") == 2 * 2**30
    assert memory.parse_bytes("1.5g") == int(1.5 * 2**30)
    assert memory.parse_bytes("512MB") == 512 * 2**20
    for bad in (0, -1, "lots", True, None, "G"):
        with pytest.raises(ValueError, match="memory_limit"):
            memory.parse_bytes(bad)


def test_the_limit_in_force_nests_and_comes_back(monkeypatch):
    monkeypatch.delenv("OCCAMLEARN_MEMORY_LIMIT", raising=False)
    assert memory.limit_bytes() == memory.DEFAULT_LIMIT
    monkeypatch.setenv("OCCAMLEARN_MEMORY_LIMIT", "3G")
    assert memory.limit_bytes() == 3 * 2**30
    with memory.limited("1G"):
        assert memory.limit_bytes() == 2**30
        with memory.limited(None):  # None keeps the limit in force
            assert memory.limit_bytes() == 2**30
        with memory.limited(10):
            assert memory.limit_bytes() == 10 and memory.room() == 0
        assert memory.limit_bytes() == 2**30
    assert memory.limit_bytes() == 3 * 2**30


def test_room_is_the_limit_less_the_resident_memory():
    used = memory.process_bytes()
    assert 10 * 2**20 < used < 100 * 2**30  # a Python process with numpy loaded
    with memory.limited(used + 2**30):
        assert 0 < memory.room() <= 2**30
        assert memory.share(0.5) <= 2**29
        assert memory.share(0.5, cap=100) == 100


def test_a_table_grows_only_within_the_room():
    with memory.limited(memory.process_bytes() + 64 * 2**20):  # about 64 MB left
        capacity = memory.table_capacity(64, 1024, 1 << 40)
        assert capacity & (capacity - 1) == 0  # a power of two
        assert 64 * capacity <= 32 * 2**20 and capacity > 1024
        assert memory.table_capacity(64, 1024, 4096) == 4096  # the cap
    with memory.limited(10):
        assert memory.table_capacity(64, 1024, 1 << 40) == 1024  # full: no growth


def test_the_maxsat_route_skips_an_encoding_over_the_memory_left():
    """With (almost) no memory left the MaxSAT route keeps its greedy tree and says why."""
    from occamlearn.trees.mpdt.maxsat_route.search import find_minimum_tree_maxsat

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 8))
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2]).astype(int)
    with memory.limited(memory.process_bytes() + 2**10):
        result = find_minimum_tree_maxsat(X, y, 2, deadline=Deadline.after(30))
    assert result.status == "feasible"
    assert "under the memory limit" in result.stats["encoding_skipped"]
    assert result.tree.is_pure_on(X, y)
    free = find_minimum_tree_maxsat(X, y, 2, deadline=Deadline.after(30))
    assert free.status == "optimal" and free.upper_bound <= result.upper_bound


def test_the_error_budget_memo_stops_at_its_share():
    """A budget search with no memory left stops at once with its greedy tree, status
    feasible and stats["memory_full"]; with memory it proves the minimum."""
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(120, 12))
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] ^ (rng.random(120) < 0.1)).astype(int)
    with memory.limited(10):
        full = find_minimum_tree_with_errors_bnb(X, y, 2, 3, use_incompatibility=False)
    assert full.stats["memory_full"] and full.status == "feasible"
    assert full.stats["training_errors"] <= 3
    free = find_minimum_tree_with_errors_bnb(X, y, 2, 3, use_incompatibility=False)
    assert free.status == "optimal" and not free.stats["memory_full"]
    assert free.upper_bound <= full.upper_bound


def test_a_python_search_stops_at_the_memory_limit():
    """The pure branch and bound on the Python engine, with no memory left: it stops at a
    poll as at a time limit and returns its greedy tree, feasible; a search without a
    deadline (a rebuild that must finish) is not stopped."""
    from occamlearn.trees.exact.stop import MEMORY_LOOK_EVERY, POLL_EVERY, Poll, Stop
    from occamlearn.trees.mpdt.bnb import branch_and_bound

    rng = np.random.default_rng(1)
    X = np.unique(rng.integers(0, 2, size=(300, 14)), axis=0)
    y = rng.integers(0, 2, size=len(X))
    with memory.limited(10):
        found = branch_and_bound._run(X, y, 2, deadline=Deadline.after(None),
                                      engine="python-only")
        free = Poll(None)
        for _ in range(2 * POLL_EVERY * MEMORY_LOOK_EVERY):
            free.tick()
        stopped = Poll(Deadline.after(None))
        with pytest.raises(Stop):
            for _ in range(2 * POLL_EVERY * MEMORY_LOOK_EVERY):
                stopped.tick()
    assert stopped.memory_full and not free.memory_full
    assert found.status == "feasible" and found.stats["stopped"]
    assert found.tree.is_pure_on(X, y)
