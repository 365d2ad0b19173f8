"""The helper kernels ``kernels.solve`` calls, with the exact types it calls them with, split
between the two compile children (``trees.kernel_cache``).

Why. Compiling ``solve`` on an empty cache compiles every helper it calls first (typing,
lowering, machine code, saved to the disk cache), one after the other in the order ``solve``
reaches them; ``solve`` itself is now a short loop (``kernels``: why), so the helpers are
most of the work. The two children split them: the main child compiles the node expansion
(``_expand`` and what it calls, ``MAIN_PART``) and then ``solve``, while the side child
compiles the node's set-up and close-out (``SIDE_PART``); when ``solve``'s typing reaches
those, the main child loads them from the disk cache (milliseconds). Measured with both
children started together on an empty cache (``benchmarks/results/cold_typing.md``): the
expansion is the larger half, and a side child that compiled it too (the reverse of the
main child's order) finished it after the main child had started its own copy.

The signatures must be the ones ``solve`` uses (C-contiguous arrays, int64/uint64 scalars),
or a child compiles a specialisation nobody calls; ``tests/test_kernel_cache.py`` checks
that each is among the signatures a ``warm_up`` compiles, and that every compiled helper is
listed.
"""

from __future__ import annotations

from numba import types

from occamlearn.trees.exact import nesting_kernels, row_set_table
from occamlearn.trees.mpdt.bnb import (
    kernels,
    memo_table,
    node_bounds,
    split_reductions,
    subset_trie,
)

__all__ = ["CALLEES", "MAIN_PART", "SIDE_PART", "callee", "warm_up_callees", "warm_up_main_part"]

_U1 = types.Array(types.uint64, 1, "C")
_U2 = types.Array(types.uint64, 2, "C")
_I1 = types.Array(types.int64, 1, "C")
_T2 = types.Array(types.int32, 2, "C")  # the subset trie's nodes
_I8, _U8 = types.int64, types.uint64

# where the helpers live
MODULES = {"kernels": kernels, "memo_table": memo_table, "node_bounds": node_bounds,
           "nesting_kernels": nesting_kernels, "row_set_table": row_set_table,
           "split_reductions": split_reductions, "subset_trie": subset_trie}

# (module.kernel, argument types) of every compiled helper of ``solve``
CALLEES = (
    ("kernels._two_leaves", (_U1, _U2, _U2, _U2, _I1, _I8)),
    ("node_bounds.raised_bound", (_I1, _U2, _U2, _I1, _U1, _I8)),
    ("subset_trie._insert", (_T2, _I1, _U1, _I8, _I8)),
    ("subset_trie.remember", (_T2, _I1, _U1, _I8)),
    ("subset_trie.set_of", (_T2, _I8, _U1)),
    ("subset_trie._judge_window", (_I1,)),
    ("subset_trie.subset_bound", (_T2, _I1, _U1, _I8)),
    ("subset_trie.remember_small", (_T2, _I1, _U1, _I8)),
    ("kernels._settle", (_U1, _I8, _U2, _U2, _U2, _I1, _U2, _I1, _T2)),
    ("kernels._close", (_U1, _I8, _I8, _I8, _I8, _I1, _I1, _U2, _I1, _T2)),
    ("nesting_kernels.raise_side", (_I1, _I8, _I8, _I1, _I1, _I1)),
    ("row_set_table.find_slot", (_U2, _U1, _U8, _U8, _U8)),
    ("node_bounds.classes_in", (_U2, _U1)),
    ("memo_table.store", (_U2, _I1, _I8, _U1, _I8, _I8, _U8)),
    ("node_bounds.static_bound", (_U2, _I1, _U2, _U2, _I1, _U1)),
    ("node_bounds.known_bound", (_U2, _U2, _U1, _U8)),
    ("nesting_kernels.nested_side_bounds", (_I1, _I1, _I1, _I1)),
    ("split_reductions.drop_dominated", (_U1, _U2, _U2, _I1, _I1, _I1, _I1, _I1)),
    ("kernels._expand", (_U1, _I8, _U2, _U2, _U2, _I1, _U2, _I1, _I1, _I1, _I1, _I1, _I1)),
)
# each child's share, in its order (compiling one compiles what it calls first)
SIDE_PART = ("kernels._two_leaves", "node_bounds.raised_bound", "subset_trie.subset_bound",
             "subset_trie.remember_small", "kernels._settle", "kernels._close",
             "nesting_kernels.raise_side")
MAIN_PART = ("split_reductions.drop_dominated", "kernels._expand")


def callee(name: str):
    """The dispatcher of ``module.kernel`` (a name of ``CALLEES``)."""
    module, function = name.split(".")
    return getattr(MODULES[module], function)


def _compile(names) -> None:
    signatures = dict(CALLEES)
    for name in names:
        callee(name).compile(signatures[name])


def warm_up_callees() -> None:
    """The side child's share: compile (or load) the helpers of ``SIDE_PART``."""
    _compile(SIDE_PART)


def warm_up_main_part() -> None:
    """The main child's share before ``solve``: compile (or load) ``MAIN_PART``."""
    _compile(MAIN_PART)
