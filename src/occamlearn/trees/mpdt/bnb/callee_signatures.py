"""The helper kernels ``kernels.solve`` calls, with the exact types it calls them with, for
the side compile child (``trees.kernel_cache``).

Why. Compiling ``solve`` on an empty cache is numba typing its body, and typing a call to a
helper compiles that helper first (typing, lowering, machine code, saved to the disk cache):
of the bnb kernels' ~6.5 CPU seconds, about half is ``solve`` itself and most of the rest its
helpers, one after the other in the order ``solve`` reaches them. The side child compiles the
same helpers, in the reverse order, at the same time: each one it has saved before the main
child reaches it is then loaded from the disk cache (milliseconds) instead of compiled. The
two children meet in the middle, so the helpers cost about half their time on the path to a
ready cache, on a machine with a core for each child.

The signatures must be the ones ``solve`` uses (C-contiguous arrays, int64/uint64 scalars,
and the literal 0 and 1 that ``_two_leaves`` passes to ``_pure_side``), or the side child
compiles a specialisation nobody calls; ``tests/test_kernel_cache.py`` checks that each is
among the signatures a ``warm_up`` compiles.
"""

from __future__ import annotations

from numba import types

from occamlearn.trees.mpdt.bnb import kernels

__all__ = ["CALLEES", "warm_up_callees"]

_U1 = types.Array(types.uint64, 1, "C")
_U2 = types.Array(types.uint64, 2, "C")
_I1 = types.Array(types.int64, 1, "C")
_I8, _U8 = types.int64, types.uint64

# (kernel name in ``kernels``, argument types), the last helper ``solve`` reaches first
CALLEES = (
    ("_raise_side", (_I1, _I8, _I8, _I1, _I1, _I1)),
    ("_order_within", (_I1, _I8)),
    ("_nested_side_bounds", (_I1, _I1, _I1, _I1)),
    ("_known_bound", (_U2, _U2, _U1, _U8)),
    ("_static_bound", (_U2, _I1, _U2, _U2, _I1, _U1)),
    ("_pure_side", (_U2, _U1, _U1, types.literal(0))),
    ("_pure_side", (_U2, _U1, _U1, types.literal(1))),
    ("_two_leaves", (_U1, _U2, _U2, _U2, _I1, _I8)),
    ("_raised_bound", (_I1, _U2, _U2, _I1, _U1, _I8)),
    ("_indices", (_U1, _I8)),
    ("_store", (_U2, _I1, _I8, _U1, _I8, _I8, _U8)),
    ("_classes_in", (_U2, _U1)),
    ("_slot_hashed", (_U2, _U1, _U8)),
    ("_slot", (_U2, _U1)),
)


def warm_up_callees() -> None:
    """Compile (or load) every helper of ``CALLEES`` with its signature, in that order."""
    for name, signature in CALLEES:
        getattr(kernels, name).compile(signature)
