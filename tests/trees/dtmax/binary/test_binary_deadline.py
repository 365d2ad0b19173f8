"""The 0/1 search keeps its deadline inside a slice of work and while it rebuilds its tree
(``trees.dtmax.binary.search``): a timer ends the compiled search at the deadline, and a node
the rebuild cannot recompute in time gets its best depth-2 tree, marked not proven."""

from __future__ import annotations

import time

import numpy as np
from conftest import within_time_limit

from occamlearn import MaxAccuracyTreeClassifier
from occamlearn.stopping import Deadline
from occamlearn.trees.dtmax.binary import memo
from occamlearn.trees.dtmax.binary import search as binary_search_module
from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch
from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.entry import find_most_accurate_tree
from occamlearn.trees.dtmax.result import nested_errors


def slow_matrix(rows=600, features=40, seed=3):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, (rows, features)), rng.integers(0, 3, rows)


def depth_of(tree) -> int:
    """Depth of a nested tree, over thresholds or (the search's own) over 0/1 columns."""
    return 0 if tree[0] == "leaf" else 1 + max(depth_of(tree[-2]), depth_of(tree[-1]))


def test_one_endless_slice_still_ends_at_the_deadline(monkeypatch):
    # with slices this large only the timer read inside the compiled search can stop it
    monkeypatch.setattr(binary_search_module, "POLL_WORK", 1 << 60)
    X, y = slow_matrix()
    data = OrderedData.from_matrix(np.asarray(X, dtype=float), y, 3)
    find_most_accurate_tree(data, max_depth=2)                  # kernels loaded
    limit = 0.5
    began = time.perf_counter()
    result = find_most_accurate_tree(data, max_depth=6, deadline=Deadline.after(limit))
    assert within_time_limit(limit, time.perf_counter() - began)
    assert result.search == "binary" and result.status == "feasible"
    assert depth_of(result.tree) <= 6
    assert nested_errors(result.tree, data.rank, data.y, data.weight) == result.errors


def test_a_fit_with_a_small_time_limit_keeps_it():
    X, y = slow_matrix()
    MaxAccuracyTreeClassifier(max_depth=2, binarizer=None).fit(X[:40], y[:40])   # warm
    limit = 1.0
    began = time.perf_counter()
    model = MaxAccuracyTreeClassifier(max_depth=6, binarizer=None, time_limit=limit).fit(X, y)
    assert within_time_limit(limit, time.perf_counter() - began)
    assert model.status_ == "feasible" and model.solve_stats_["search"] == "binary"


def test_a_rebuild_after_the_deadline_takes_the_depth_2_tree_and_is_not_proven():
    X, y = slow_matrix(rows=200, features=12)
    C = np.zeros((len(y), 3), dtype=np.int64)
    C[np.arange(len(y)), y] = 1
    search = CompiledDepthSearch(X.astype(np.uint8), C, 64, 1, None, 4)
    search.counters[memo.TIME_UP] = 1                # the deadline passed, the memo is empty
    items = np.arange(len(y), dtype=np.int64)
    tree = search.subtree(items, 4)
    assert search.stopped and depth_of(tree) <= 2
    shallow = CompiledDepthSearch(X.astype(np.uint8), C, 64, 1, None, 2).subtree(items, 2)
    assert tree == shallow
