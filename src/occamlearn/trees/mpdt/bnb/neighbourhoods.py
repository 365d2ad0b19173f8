"""Smaller pure trees found fast: a large-neighbourhood search run beside the deepening.

The branch and bound's deepening proves lower bounds; its incumbent only improves when a whole
deepening step succeeds, and the last step -- the search for a tree at the minimum -- costs as
much as all the steps before it. On back at the paper's bits the bound reached the minimum (25
nodes) at about half the time, while the incumbent stayed at 31 until the very end. This module
looks for smaller trees on the upper side, with the same search object (so its memo helps the
proof and the proof's memo prunes it), a few thousand calls at a time.

``smaller_trees`` is a generator of probes for a tree with at most ``k - 1`` leaves when the
best known has ``k``. One probe of a row set S under a leaf budget b (``_probe``):

1. S's stored or static lower bound above b: no such tree (proven, nothing spent);
2. ``solve(S, b)`` limited to ``cap`` calls: a tree, a proof that there is none, or "unknown";
3. if unknown and ``depth`` allows: every split of S (one per partition), in increasing order of
   its sides' known bounds (then of its larger side's rows), while that bound is at most b. The
   smaller side is probed first (it is cheap: often a few rows), then the larger one with the
   budget the smaller left. The first split whose two sides both fit gives the tree.

This is a limited-discrepancy search: step 2 is the exact search where it is cheap, step 3
gives up exactness one level at a time where it is not (an "unknown" side just skips the
split). A round probes the root under ``best - 1`` leaves; a round that finds nothing is
repeated with twice the cap, a round that finds a tree is repeated under its size minus one.

Why it is sound. Every tree returned is assembled from the search's memo: a side solved within
its budget has an exact entry with a minimum split, rebuilt by ``search.nested``, and a split
joins two such trees, each pure on its rows; the rows of a split's sides partition S, so the
joined tree is pure on S. The caller checks purity again (``branch_and_bound._check_pure``).
Nothing here claims optimality: the proof is still the deepening's bound meeting the tree. The
memo is shared with the deepening, which is sound because every entry is budget-free (an exact
minimum, or a proven lower bound) whatever budget the call that stored it had.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from occamlearn.trees.exact.splits import distinct_splits
from occamlearn.trees.exact.stop import OutOfCalls

__all__ = ["FIRST_CAP", "PROBE_DEPTH", "smaller_trees"]

FIRST_CAP = 500  # calls allowed to a row set's exact solve in the first round
# Levels of splits a probe opens before giving up (measured on back at the paper's bits, calls
# until the 25-node tree: depth 1 found none within 60 s, depth 2 took 0.9-3.1 M calls from
# caps 500-8000, depth 3 3.8 M; the deepening alone proves the bound 25 in 7.9 M calls).
PROBE_DEPTH = 2
STEP_CALLS = 20_000  # calls between two yields (the caller's slices are counted in calls)
UNKNOWN = -1


def smaller_trees(search, root: int, best_leaves: Callable[[], int], *,
                  first_cap: int = FIRST_CAP, depth: int = PROBE_DEPTH) -> Generator:
    """Yield ``None`` after each limited solve, or ``(leaves, nested)`` for a tree of ``root``
    with fewer leaves than ``best_leaves()`` (read at the start of each round, so trees found
    elsewhere count). Ends when the memo proves that no smaller tree exists (the root's
    limited solve, its cap doubling each round, ends in a tree or in that proof)."""
    cap = first_cap
    while True:
        target = best_leaves() - 1
        if _bound(search, root) > target:
            return  # the memo proves there is no smaller tree
        found = yield from _probe(search, root, target, cap, depth)
        if found is not None:
            yield found
        else:  # the root's own limited solve ran: with caps doubling, it ends in a proof
            cap *= 2


def _bound(search, rows: int) -> int:
    """The memo's value for ``rows`` (exact, or a proven lower bound), else its static bound;
    stored, one call."""
    return search.solve(rows, 0)


def _limited(search, rows: int, budget: int, cap: int) -> Generator:
    """``search.solve(rows, budget)`` within ``cap`` calls, or UNKNOWN; in pieces of at most
    ``STEP_CALLS`` calls with a yield between them (a stopped solve resumes from its memo)."""
    spent = 0
    while True:
        before = search.calls
        search.poll.call_cap = before + min(cap - spent, STEP_CALLS)
        try:
            return search.solve(rows, budget)
        except OutOfCalls:
            spent += search.calls - before
        finally:
            search.poll.call_cap = None
        if spent >= cap:
            return UNKNOWN
        yield None


def _probe(search, rows: int, budget: int, cap: int, depth: int) -> Generator:
    """A tree of ``rows`` with at most ``budget`` leaves, as ``(leaves, nested)``, or None
    (none exists, or none was found within the caps); yields after each limited solve."""
    if _bound(search, rows) > budget:
        return None
    value = yield from _limited(search, rows, budget, cap)
    yield None
    if value != UNKNOWN:
        return (value, search.nested(rows)) if value <= budget else None
    if depth == 0:
        return None
    for split_bound, _, index, small, large, small_is_one in _splits_by_bound(search, rows):
        if split_bound > budget:
            break  # and every later split (they are in increasing order)
        large_bound = _bound(search, large)
        if _bound(search, small) + large_bound > budget:
            continue  # raised since the splits were ordered
        small_tree = yield from _probe(search, small, budget - large_bound, cap, depth - 1)
        if small_tree is None:
            continue
        large_tree = yield from _probe(search, large, budget - small_tree[0], cap, depth - 1)
        if large_tree is None:
            continue
        one, zero = (small_tree, large_tree) if small_is_one else (large_tree, small_tree)
        return (small_tree[0] + large_tree[0],
                (search.features[index], zero[1], one[1]))
    return None


def _splits_by_bound(search, rows: int) -> list:
    """One split per partition of ``rows``: (bound, larger side's rows, column index, smaller
    side, larger side, whether the smaller side is the x = 1 side), by increasing bound."""
    splits = []
    for index, zero, one in distinct_splits(rows, search.columns):
        small_is_one = one.bit_count() <= zero.bit_count()
        small, large = (one, zero) if small_is_one else (zero, one)
        splits.append((_bound(search, small) + _bound(search, large), large.bit_count(),
                       index, small, large, small_is_one))
    splits.sort(key=lambda split: split[:3])
    return splits
