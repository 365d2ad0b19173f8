"""The helper kernels ``kernels.solve`` calls, with the exact types it calls them with, for
the side compile child (``trees.kernel_cache``).

Why. Compiling ``solve`` on an empty cache compiles every helper it calls first (typing,
lowering, machine code, saved to the disk cache), one after the other in the order ``solve``
reaches them; ``solve`` itself is now a short loop (``kernels``: why), so the helpers are
most of the work. The side child compiles the same helpers at the same time, from the other
end: each one it has saved before the main child reaches it is then loaded from the disk
cache (milliseconds) instead of compiled. The main child reaches ``_settle`` (and what it
calls) first and ``_expand`` next; the side child starts with ``_close`` and the node
expansion, so the two meet in the middle, on a machine with a core for each child.

The signatures must be the ones ``solve`` uses (C-contiguous arrays, int64/uint64 scalars),
or the side child compiles a specialisation nobody calls; ``tests/test_kernel_cache.py``
checks that each is among the signatures a ``warm_up`` compiles, and that every compiled
helper is listed.
"""

from __future__ import annotations

from numba import types

from occamlearn.trees.exact import nesting_kernels, row_set_table
from occamlearn.trees.mpdt.bnb import kernels, memo_table, node_bounds

__all__ = ["CALLEES", "callee", "warm_up_callees"]

_U1 = types.Array(types.uint64, 1, "C")
_U2 = types.Array(types.uint64, 2, "C")
_I1 = types.Array(types.int64, 1, "C")
_I8, _U8 = types.int64, types.uint64

# where the helpers live
MODULES = {"kernels": kernels, "memo_table": memo_table, "node_bounds": node_bounds,
           "nesting_kernels": nesting_kernels, "row_set_table": row_set_table}

# (module.kernel, argument types), the last helper ``solve`` reaches first
CALLEES = (
    ("kernels._close", (_U1, _I8, _I8, _I8, _I8, _I1, _I1, _U2, _I1)),
    ("nesting_kernels.raise_side", (_I1, _I8, _I8, _I1, _I1, _I1)),
    ("node_bounds.known_bound", (_U2, _U2, _U1, _U8)),
    ("nesting_kernels.nested_side_bounds", (_I1, _I1, _I1, _I1)),
    ("node_bounds.static_bound", (_U2, _I1, _U2, _U2, _I1, _U1)),
    ("kernels._expand", (_U1, _I8, _U2, _U2, _U2, _I1, _U2, _I1, _I1, _I1, _I1)),
    ("kernels._two_leaves", (_U1, _U2, _U2, _U2, _I1, _I8)),
    ("node_bounds.raised_bound", (_I1, _U2, _U2, _I1, _U1, _I8)),
    ("memo_table.store", (_U2, _I1, _I8, _U1, _I8, _I8, _U8)),
    ("node_bounds.classes_in", (_U2, _U1)),
    ("row_set_table.find_slot", (_U2, _U1, _U8, _U8, _U8)),
    ("kernels._settle", (_U1, _I8, _U2, _U2, _U2, _I1, _U2, _I1)),
)


def callee(name: str):
    """The dispatcher of ``module.kernel`` (a name of ``CALLEES``)."""
    module, function = name.split(".")
    return getattr(MODULES[module], function)


def warm_up_callees() -> None:
    """Compile (or load) every helper of ``CALLEES`` with its signature, in that order."""
    for name, signature in CALLEES:
        callee(name).compile(signature)
