"""The two search engines of the branch and bound over row sets (``branch_and_bound``).

``RowSetSearch`` is the search in Python, over row sets as Python integers used as bitsets;
``CompiledRowSetSearch`` runs the same recursion in numba kernels (``bnb_kernels``) over word
bitsets with a one-array hash-table memo, and returns control every few milliseconds so the
deadline is polled. ``solve(S, budget)`` returns the exact minimum number of leaves of a pure
tree of S if it is at most ``budget``, else a proven lower bound above it; the bounds used and
why they hold are in ``branch_and_bound``'s docstring. The data view (distinct rows, useful
columns), the split enumeration, the poll, the greedy start and the tree rebuild are the
exact-search core's (``trees.exact``); ``prepare_rows`` adds what this objective needs: one
class per distinct row. Both engines raise the bound of a split's side to the bounds of the
sides of other columns it contains (``trees.exact.nesting``; the proof is there), built once
per fit from the prepared columns.

This module gathers them: the rows (``prepared_rows``), the Python engine
(``python_engine``) and the compiled one (``compiled_engine``).
"""

from __future__ import annotations

from occamlearn.trees.exact.anytime import NO_TREE
from occamlearn.trees.exact.stop import OutOfCalls
from occamlearn.trees.mpdt.bnb.compiled_engine import CompiledRowSetSearch
from occamlearn.trees.mpdt.bnb.prepared_rows import greedy_start, prepare_rows
from occamlearn.trees.mpdt.bnb.python_engine import RowSetSearch

__all__ = ["NO_TREE", "CompiledRowSetSearch", "OutOfCalls", "RowSetSearch", "greedy_start",
           "prepare_rows"]
