"""The candidates of one node of the error-budget search (``bnb_engine``): every split of a
row set and division of its budget between the two sides, with the sum of the sides' lower
bounds, kept when they may beat the best tree so far, in the order the search tries them.

This is the search's hottest loop, written for CPython: the split list and the children's
memo entries are cached per row set, two-class bounds are counted inline, and a side's bounds
over many budgets come in one pass (``_lowers``). The memo-entry layout lives here too, so
that both modules read it without a cycle.
"""

from __future__ import annotations

from occamlearn.trees.exact.splits import distinct_splits

__all__ = ["ENTRY_FIELDS", "INF", "split_candidates"]

INF = 1 << 62
# A row set's memo entry is a list: (n, err1, forced errors, label, class_err, stored
# lower bounds, trees found, budgets bounded, split list); static entries the first six.
ENTRY_FIELDS = range(9)
N, ERR1, FORCED, LABEL, CLASS_ERR, LO, ACH, BOUNDED, SPLITS = ENTRY_FIELDS
FEW_BUDGETS = 3  # budget divisions of a split below which ``lower`` is called per budget


def _first(candidate):
    return candidate[0]


def _child_entry(search, splits: list, slot: int, rows: int) -> list:
    """The memo entry of the child row set ``rows``, cached in ``splits[slot]`` once it
    exists (memo entries are never replaced); without one, its static entry (not cached:
    the child may get a memo entry later)."""
    entry = search.memo.get(rows)
    if entry is None:
        return search.statics.get(rows) or search.static(rows)
    splits[slot] = entry
    return entry


def split_candidates(search, rows: int, entry: list, budget: int, best: int
                     ) -> tuple[list, int]:
    """The candidates of the error-budget search ``search`` on ``rows`` (memo ``entry``):
    one ``(bound, index, left budget, left, right, left entry, right entry, low)`` per split
    (``distinct_splits``' order) and division of ``budget`` between its sides (left budgets
    ``low`` upwards), ``bound`` the sides' lower bounds summed, sorted by ``bound`` (stable),
    keeping only those with ``bound < best``; and the least bound of the others (INF if
    none).

    Leaving out a candidate of bound >= ``best`` changes nothing in ``solve``: its loop
    stops at the first candidate whose bound reaches its current best (at most ``best``),
    taking that bound into ``failed``; in the full sorted list every left-out candidate
    comes at or after that point (their bounds are >= ``best`` >= the current best and
    the sort is stable), so the bound taken there is min(that first bound, the least
    left-out bound), as here; and if no kept candidate stops the loop the full list would
    stop at the first left-out one, whose bound is the least left out. The split order and
    the bounds are ``distinct_splits``' and ``lower``'s."""
    candidates, failed = [], INF
    append = candidates.append
    lower = search.lower
    two = search.n_classes == 2
    splits = entry[SPLITS]
    if splits is None:  # the first search of this row set: its distinct splits, once,
        # as (column index, left memo entry, right memo entry) flat, the entries filled
        # in once they exist (memo entries are never replaced; a child without one is
        # looked up again, in the memo, then in the static cache)
        splits = entry[SPLITS] = [item for index, _, _ in
                                  distinct_splits(rows, search.columns)
                                  for item in (index, None, None)]
    columns = search.columns
    for at in range(0, len(splits), 3):
        index, left_entry, right_entry = splits[at], splits[at + 1], splits[at + 2]
        right = rows & columns[index]
        left = rows ^ right
        if left_entry is None:
            left_entry = _child_entry(search, splits, at + 1, left)
        if right_entry is None:
            right_entry = _child_entry(search, splits, at + 2, right)
        low = max(left_entry[FORCED], budget - right_entry[ERR1])
        high = min(budget - right_entry[FORCED], left_entry[ERR1])
        if low > high:  # budget > err(left) + err(right): two leaves fit
            low = high = left_entry[ERR1]
        # with two classes, a side with no stored bound has bound 1 from its err1 up, then
        # 2, 3, 4 below its class_err[2], [3] (fewest errors with two, three leaves, once
        # ``small_trees`` filled them in; else 0) down to its forced errors: counted inline;
        # else from ``_lowers`` (``lower`` itself for a few budgets, ``_lowers`` is one pass
        # for many)
        left_err1, right_err1 = left_entry[ERR1], right_entry[ERR1]
        left_two, left_three = left_entry[CLASS_ERR][2], left_entry[CLASS_ERR][3]
        right_two, right_three = right_entry[CLASS_ERR][2], right_entry[CLASS_ERR][3]
        last = high - low
        if two and not left_entry[LO]:
            lefts = None
        elif last < FEW_BUDGETS:
            lefts = [lower(left_entry, b) for b in range(low, high + 1)]
        else:
            lefts = _lowers(left_entry, low, high)
        if two and not right_entry[LO]:
            rights = None
        elif last < FEW_BUDGETS:
            rights = [lower(right_entry, b) for b in range(budget - high, budget - low + 1)]
        else:
            rights = _lowers(right_entry, budget - high, budget - low)
        for offset in range(last + 1):
            left_budget = low + offset
            if lefts is not None:
                value = lefts[offset]
            elif left_budget >= left_err1:
                value = 1
            else:
                value = 2 if left_budget >= left_two else 3 if left_budget >= left_three else 4
            right_budget = budget - left_budget
            if rights is not None:
                value += rights[last - offset]
            elif right_budget >= right_err1:
                value += 1
            else:
                value += (2 if right_budget >= right_two else
                          3 if right_budget >= right_three else 4)
            if value < best:
                append((value, index, left_budget, left, right, left_entry, right_entry,
                        low))
            elif value < failed:
                failed = value
    candidates.sort(key=_first)
    return candidates, failed


def _lowers(entry, low: int, high: int) -> list[int]:
    """``[bnb_engine.BudgetRowSetSearch.lower(entry, b) for b in range(low, high + 1)]`` in one pass
    from ``high`` down: the class-count bound only grows as the budget falls, and the memo
    part is the largest stored bound at a budget >= b, a running maximum over the stored
    budgets taken in decreasing order."""
    err1, forced, class_err, lo = entry[1], entry[2], entry[4], entry[5]  # as in ``lower``
    values = [1] * (high - low + 1)
    top = high if high < err1 else err1 - 1  # budgets from err1 up: one leaf
    if top < low:
        return values
    floor = low
    if forced > low:  # budgets below forced: INF
        floor = forced
        values[:floor - low] = [INF] * (floor - low)
    if not lo:
        bound = 2
        for b in range(top, floor - 1, -1):
            while class_err[bound] > b:
                bound += 1
            values[b - low] = bound
        return values
    stored = sorted(lo.items(), reverse=True)
    count, at, running, bound = len(stored), 0, 0, 2
    for b in range(top, floor - 1, -1):
        while class_err[bound] > b:
            bound += 1
        while at < count and stored[at][0] >= b:
            if stored[at][1] > running:
                running = stored[at][1]
            at += 1
        values[b - low] = bound if bound > running else running
    return values
