"""The search for smaller trees beside the deepening (``bnb.neighbourhoods``), against brute force.

Every tree it yields must be pure and smaller than the best before it, and run to its end (its
caps double) it must reach the minimum, for both engines. Caps of one call force the
"unknown" path (splits opened level by level) on tiny data. The branch and bound with the
two searches taking turns every few dozen calls must still prove the brute-force minimum.
(A slice must let the deepening finish a subtree: a compiled solve stopped after one call
restarts from the root having stored nothing, so slices of one call would never end.)
"""

from __future__ import annotations

import numpy as np
from bruteforce import minimum_tree_size, tiny_data
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.model.tree import Tree
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch, prepare_rows
from occamlearn.trees.mpdt.bnb.neighbourhoods import smaller_trees

ENGINES = {"python": RowSetSearch, "compiled": CompiledRowSetSearch}


def _leaves(nested) -> int:
    return 1 if nested[0] == "leaf" else _leaves(nested[1]) + _leaves(nested[2])


@settings(max_examples=150, deadline=None)
@given(tiny_data(), st.sampled_from([1, 3, 500]), st.integers(0, 3))
def test_smaller_trees_are_pure_smaller_and_end_at_the_minimum(data, first_cap, depth):
    X, y, n_classes = data
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    minimum = minimum_tree_size(X, y)
    for name, engine in ENGINES.items():
        search = engine(rows, labels, n_classes, kept)
        root = (1 << search.n_rows) - 1
        best = [_leaves(search.greedy(root)) + 1]  # above the greedy tree: always a first find
        for found in smaller_trees(search, root, lambda: best[0], first_cap=first_cap,
                                   depth=depth):
            if found is None:
                continue
            leaves, nested = found
            assert leaves < best[0] and leaves == _leaves(nested), name
            tree = Tree.from_nested(nested, X.shape[1], n_classes)
            assert np.array_equal(tree.predict(X), y), name
            best[0] = leaves
        assert 2 * best[0] - 1 == minimum, name


@settings(max_examples=150, deadline=None)
@given(tiny_data(), st.sampled_from([30, 200]), st.sampled_from([0.5, 2.0]))
def test_turns_with_the_deepening_keep_the_brute_force_minimum(data, slice_calls, share):
    X, y, n_classes = data
    minimum = minimum_tree_size(X, y)
    turns = {"after_calls": 0, "slice_calls": slice_calls, "share": share}
    for engine in ENGINES:
        result = find_minimum_tree_branch_and_bound(X, y, n_classes, engine=engine, quick_calls=0,
                                               improve_calls=0, neighbourhood=turns)
        assert result.status == "optimal" and result.tree.n_nodes == minimum, engine
        assert np.array_equal(result.tree.predict(X), y), engine
        assert result.lower_bound == result.upper_bound == minimum, engine
