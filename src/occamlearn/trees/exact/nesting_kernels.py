"""Compiled side-nesting steps (numba) for the searches over row sets (``nesting``).

Kept apart from ``nesting`` so that building the diagram needs no numba (the quick Python
phase of a search imports only numpy). A search kernel imports these under private names and
calls them at every node; they compile as part of that kernel (no CPython wrapper: Python
never calls them).
"""

from __future__ import annotations

from numba import njit

__all__ = ["nested_side_bounds", "raise_side"]


@njit(cache=True, no_cpython_wrapper=True)
def nested_side_bounds(side_bounds, order, pred_start, pred):
    """Raise each side's bound to the largest bound of a side it contains, in the topological
    ``order`` of the containment diagram (``trees.exact.nesting``: why one pass suffices)."""
    for i in range(order.shape[0]):
        t = order[i]
        for e in range(pred_start[t], pred_start[t + 1]):
            if side_bounds[pred[e]] > side_bounds[t]:
                side_bounds[t] = side_bounds[pred[e]]


@njit(cache=True, no_cpython_wrapper=True)
def raise_side(side_bounds, side, value, succ_start, succ, stack):
    """A bound ``value`` proven for ``side``, passed on to every side containing it."""
    if value <= side_bounds[side]:
        return
    side_bounds[side] = value
    top = 0
    stack[top] = side
    top += 1
    while top:
        top -= 1
        s = stack[top]
        for e in range(succ_start[s], succ_start[s + 1]):
            t = succ[e]
            if side_bounds[t] < value:
                side_bounds[t] = value
                stack[top] = t  # each side enters once per raise: the stack never overflows
                top += 1
