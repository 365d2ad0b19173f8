"""The branch and bound's ``solve(S, b)`` with a budget far above the minimum, against brute force.

The deepening calls the root with tight budgets (its proven bound), where a node that stopped
at any tree within its budget would still look right. Called with a loose budget, ``solve``
must still return the exact minimum for both engines: a node that stops early with a tree
above its minimum, or stores such a tree as exact, shows here.
"""

from __future__ import annotations

from bruteforce import minimum_tree_size, tiny_data
from hypothesis import given, settings

from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch, prepare_rows

ENGINES = {"python": RowSetSearch, "compiled": CompiledRowSetSearch}


@settings(max_examples=300, deadline=None)
@given(tiny_data())
def test_a_loose_budget_still_gives_the_exact_minimum(data):
    X, y, n_classes = data
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    for name, engine in ENGINES.items():
        search = engine(rows, labels, n_classes, kept)
        root = (1 << search.n_rows) - 1
        assert 2 * search.solve(root, 64) - 1 == minimum_tree_size(X, y), name
