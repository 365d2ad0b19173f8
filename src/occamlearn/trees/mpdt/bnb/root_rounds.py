"""The root of a deepening step, searched in rounds over its splits (finds trees sooner).

A deepening step ``solve(root, b)`` of the branch and bound either finds a tree of at most b
leaves or proves that none exists. The engines search the root's splits one after another,
each to the end: a split whose subtrees are hard to refute delays every split behind it, even
when one of those has a tree of b leaves that is quick to find. On the last step (b is the
minimum) that is where the time goes: measured on back at the paper's bits, the bound of 25
nodes is proven at 27-33 CPU s and the 25-node tree found 21 s later.

``solve_root_in_rounds`` gives each split a share of calls in turn, doubling the share each
round (Luby-style restarts without the loss: the memo keeps everything a capped attempt
proved, so the next attempt resumes almost where it stopped). It changes only the order of
the work, never what is concluded:

* a split (left L, right R) is tried as the engines do: ``v_L = solve(L, b - LB(R))``, then,
  if ``v_L`` is L's exact minimum within that budget, ``v_R = solve(R, b - v_L)``. ``LB(R)``
  is R's proven bound (memo, else its class count, raised as the engines do through nested
  sides: the bound of every side of another column that R contains, ``trees.exact.nesting``),
  so any tree of this split within b leaves has at most ``b - LB(R)`` leaves on the left: if
  ``v_L`` exceeds that, or R then needs more than ``b - v_L``, the split has no tree within b
  (``v_L`` is L's minimum) and is dropped. Otherwise ``v_L + v_R <= b`` leaves are found,
  with both sides' minimum trees in the memo. Every value a solve returns bounds its side
  (exactly or from below) and is passed on to the sides containing it, so a failed
  threshold prunes its neighbours before their turn, as in the engines;
* when every split is dropped, no tree of at most b leaves exists, and the engine's own
  ``solve(root, b)`` computes the root's proven bound from the memo (each child is stored
  with the bound that failed it, so this is memo look-ups, not a search).

A capped attempt that runs out of calls raises ``OutOfCalls`` out of the engine; every memo
entry already written is a proven value or bound, so stopping there loses nothing but the
partial path.
"""

from __future__ import annotations

from occamlearn.trees.exact.nesting import propagate
from occamlearn.trees.exact.splits import distinct_splits
from occamlearn.trees.exact.stop import OutOfCalls

__all__ = ["FIRST_SHARE", "solve_root_in_rounds"]

FIRST_SHARE = 4000  # calls each open split gets in the first round (doubling each round)


def solve_root_in_rounds(search, root: int, budget: int, first_share: int = FIRST_SHARE):
    """``(value, nested)``: a tree of ``value <= budget`` leaves on ``root`` as a nested
    tuple, or ``(bound, None)`` with a proven bound above ``budget`` (see the module
    docstring). ``search`` is a ``RowSetSearch`` or ``CompiledRowSetSearch``; its poll must
    carry no call cap of its own (the caller's cap would be mistaken for a round's end)."""
    if search.poll.call_cap is not None:
        raise ValueError("solve_root_in_rounds needs a search without a call cap")
    if search.classes_in(root) == 1:
        return 1, search.nested(root)
    splits = list(distinct_splits(root, search.columns))
    side_bounds = _side_bounds(search, splits)
    open_splits = splits
    share = first_share
    try:
        while open_splits:
            open_splits = sorted(
                (split for split in open_splits if _split_bound(side_bounds, split[0])
                 <= budget), key=lambda split: _split_bound(side_bounds, split[0]))
            still_open = []
            for split in open_splits:
                search.poll.call_cap = search.calls + share
                try:
                    outcome = _attempt(search, side_bounds, split, budget)
                except OutOfCalls:
                    _refresh(search, side_bounds, split)
                    still_open.append(split)
                    continue
                if outcome is not None:
                    search.poll.call_cap = None
                    index, left, right = split
                    return outcome, (search.features[index], search.nested(left),
                                     search.nested(right))
            open_splits, share = still_open, 2 * share
    finally:
        search.poll.call_cap = None
    value = search.solve(root, budget)  # every split failed: the bound, from the memo
    if value <= budget:  # a split dropped wrongly: a bug, never a silent answer
        raise RuntimeError(f"root rounds dropped every split, yet the root has a tree of "
                           f"{value} <= {budget} leaves")
    return value, None


def _side_bounds(search, splits) -> list:
    """Per side (2j: x_j = 0, 2j + 1: x_j = 1) of the root, its stored bound (else class
    count) raised to the bound of every side it contains (``trees.exact.nesting``); 0 for a
    column that does not split the root (always valid)."""
    side_bounds = [0] * (2 * len(search.columns))
    for index, left, right in splits:
        side_bounds[2 * index] = search.quick_bound(left)
        side_bounds[2 * index + 1] = search.quick_bound(right)
    return propagate(search.nesting, side_bounds).tolist()


def _split_bound(side_bounds, index: int) -> int:
    return side_bounds[2 * index] + side_bounds[2 * index + 1]


def _refresh(search, side_bounds, split) -> None:
    """Raise both sides of ``split`` to what the memo now holds, and pass it on."""
    index, left, right = split
    search._raise_side(side_bounds, 2 * index, search.quick_bound(left))
    search._raise_side(side_bounds, 2 * index + 1, search.quick_bound(right))


def _attempt(search, side_bounds, split, budget: int) -> int | None:
    """Leaves of the best tree of this split within ``budget``, or None if it has none.
    Every value a solve returns is a proven bound of that side (exact when within its
    budget) and is passed on to the sides containing it."""
    index, left, right = split
    _refresh(search, side_bounds, split)
    right_bound = side_bounds[2 * index + 1]
    if side_bounds[2 * index] + right_bound > budget:
        return None
    left_value = search.solve(left, budget - right_bound)
    search._raise_side(side_bounds, 2 * index, left_value)
    if left_value > budget - right_bound:
        return None
    right_value = search.solve(right, budget - left_value)
    search._raise_side(side_bounds, 2 * index + 1, right_value)
    if right_value > budget - left_value:
        return None
    return left_value + right_value
