"""The pair bound of Witty (Staus, Komusiewicz, Sommer and Sorge): leaves from row pairs.

Claim. Let S be a row set of 0/1 rows, P a set of pairs (a, b) of rows of S with different
classes, and y >= 0 a weight per pair such that, for every column c, the pairs that c
separates (a and b differ on c) weigh at most 1 together. Then every pure tree on S over
these columns has at least ceil(sum y) + 1 leaves.

Proof. In a pure tree the two rows of a pair reach different leaves, so they part at one
inner node v, whose column separates them. Mapping each pair to that node and grouping:
sum_P y = sum_v sum_{p -> v} y_p <= sum_v sum_{p separated by col(v)} y_p <= #inner nodes,
an integer, so #inner >= ceil(sum y); a binary tree has one leaf more than inner nodes.

* The best y is the linear program max sum y subject to (for each column) the pairs it
  separates weighing <= 1 (the dual of the fractional hitting set of the pairs by columns),
  solved by HiGHS (``scipy.optimize.linprog``).
* Greedy first: a set H of columns separating every pair bounds the program, sum y <=
  sum_p y_p * |{c in H separating p}| = sum_{c in H} (weight c separates) <= |H|. When
  |H| + 1 leaves already fit the budget the program cannot rule the budget out: no solve.
* Children for free: for S' inside S, the weights of the pairs inside S' still satisfy every
  column's constraint (terms are only dropped), so their sum bounds S' with no solve
  (``restricted``).
* Fewer pairs only drop variables, so a sample of the pairs (``MAX_PAIRS``) gives a valid,
  weaker bound; columns separating the same pairs share one constraint (they are the same
  constraint).
* Floating point: the solver's y is scaled down by its largest column load when that exceeds
  1, and ``TOLERANCE`` is taken off the sum before the ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

__all__ = ["MAX_PAIRS", "SEED_SECONDS", "SEED_SHARE", "PairBound", "greedy_hitting_set",
           "pair_bound", "restricted", "seed_root_sides"]

MAX_PAIRS = 1500  # pairs per program (an even sample of all): a solve of ~0.1 s on 200 columns
# seeding the root's sides (``seed_root_sides``, run by ``branch_and_bound``): at most this
# share of the time left, and at most this many seconds (0: off). Off by default: in
# same-run A/Bs on a loaded machine it reached back's >= 19 nodes sooner in two runs of
# three, but cost about its 5 s on paper-bit hepa and mushr and did not raise breast_cancer's
# or haber's 60 s bound (benchmarks/results/mpdt_bounds_ablation_round3_final.md).
SEED_SHARE, SEED_SECONDS = 0.1, 0.0
TOLERANCE = 1e-6


@dataclass(frozen=True)
class PairBound:
    """A proven leaf bound of a row set and the weights that prove it (rows as indices)."""

    leaves: int
    first: np.ndarray  # (pairs,) row index of each pair's first row
    second: np.ndarray  # (pairs,) and of its second row
    weights: np.ndarray  # (pairs,) y >= 0 with every column's load <= 1


def _pairs(labels: np.ndarray, max_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """An even sample of at most ``max_pairs`` pairs with different labels, each pair once
    (the row of the smaller label first)."""
    first, second = np.nonzero(labels[:, None] < labels[None, :])
    if len(first) > max_pairs:
        keep = np.linspace(0, len(first) - 1, max_pairs).astype(np.int64)
        first, second = first[keep], second[keep]
    return first, second


def greedy_hitting_set(separates: np.ndarray) -> int:
    """Columns a greedy choice takes until every pair (row of ``separates``) is separated:
    an upper bound on the program's value (module docstring)."""
    left = np.ones(separates.shape[0], dtype=bool)
    taken = 0
    while left.any():
        counts = separates[left].sum(axis=0)
        column = int(counts.argmax())
        if counts[column] == 0:  # a pair no column separates: identical rows, no pure tree
            raise ValueError("two rows of different classes agree on every column")
        left &= ~separates[:, column]
        taken += 1
    return taken


def pair_bound(rows: np.ndarray, labels: np.ndarray, budget: int | None = None, *,
               max_pairs: int = MAX_PAIRS, seconds: float | None = None) -> PairBound | None:
    """The pair bound of the 0/1 ``rows`` (one per row of the set) with ``labels``; None when
    the greedy hitting set shows it cannot exceed ``budget`` leaves (no solve), or when the
    program is not solved within ``seconds`` (HiGHS's own time limit; None: no limit), since
    an unfinished solve proves nothing."""
    rows = np.asarray(rows, dtype=bool)
    labels = np.asarray(labels)
    first, second = _pairs(labels, max_pairs)
    if len(first) == 0:
        return PairBound(1, first, second, np.zeros(0))
    separates = rows[first] != rows[second]
    if budget is not None and greedy_hitting_set(separates) + 1 <= budget:
        return None
    columns = np.unique(separates, axis=1)  # one constraint per distinct set of pairs
    options = {} if seconds is None else {"time_limit": max(float(seconds), 1e-3)}
    answer = linprog(-np.ones(len(first)), A_ub=columns.T.astype(np.float64),
                     b_ub=np.ones(columns.shape[1]), bounds=(0, None), method="highs",
                     options=options)
    if answer.status == 1:  # HiGHS stopped at its time (or iteration) limit
        return None
    if answer.status != 0:  # never expected (y = 0 is feasible, sum y <= |pairs|)
        raise RuntimeError(f"the pair program failed: {answer.message}")
    weights = np.maximum(answer.x, 0.0)
    load = float((columns.T.astype(np.float64) @ weights).max())
    if load > 1.0:
        weights = weights / load
    return PairBound(_leaves(weights.sum()), first, second, weights)


def restricted(bound: PairBound, inside: np.ndarray) -> int:
    """The leaf bound the weights of ``bound`` give a subset of its rows (``inside``: a bool
    per row of the parent set), with no solve (module docstring)."""
    keep = inside[bound.first] & inside[bound.second]
    return _leaves(bound.weights[keep].sum())


def _leaves(total: float) -> int:
    return int(np.ceil(max(total - TOLERANCE, 0.0))) + 1


def seed_root_sides(search, root: int, stop) -> dict:
    """Store in the compiled ``search``'s memo, for each side of each split of ``root``, the
    pair bound where it beats the bound stored (or the static one), until ``stop`` (a
    ``Deadline``) expires. The root's own weights, restricted to a side, come first (free);
    a side's program runs only where its greedy hitting set leaves room above that.
    Every value stored is a proven lower bound (module docstring), flagged as one.
    Returns what was done, for the stats."""
    kernels = search.kernels
    columns = search._rows[:, search.features].astype(bool)
    labels = search.labels
    whole = _mask(root, search.n_rows)
    done = {"pair_root_leaves": 0, "pair_sides": 0, "pair_solves": 0, "pair_raised": 0}
    if stop.expired():
        return done
    parent = pair_bound(columns[whole], labels[whole], seconds=stop.remaining())
    if parent is None:
        return done
    done["pair_root_leaves"] = parent.leaves
    keys, values = [], []
    seen = set()
    for column in search.columns:
        for side in (root & column, root & ~column):
            if side in seen or side == root or search.classes_in(side) < 2:
                continue
            if stop.expired():
                break
            seen.add(side)
            done["pair_sides"] += 1
            before = search.solve(side, 0)  # its stored or static bound (budget 0 fails)
            inside = _mask(side, search.n_rows)
            bound = max(before, restricted(parent, inside[whole]))
            found = pair_bound(columns[inside], labels[inside], budget=bound,
                               seconds=stop.remaining())
            if found is not None:
                done["pair_solves"] += 1
                bound = max(bound, found.leaves)
            if bound > before:
                keys.append(search.to_words(side))
                values.append(bound)
    if keys:
        count = len(keys)
        kernels.insert(search.table, search.counters, np.stack(keys),
                       np.asarray(values, dtype=np.int64), np.full(count, -1, dtype=np.int64),
                       np.full(count, kernels.BOUNDED, dtype=np.uint64))
        if search.counters[kernels.FLAG] == kernels.FLAG_FULL:  # room for what comes
            search.grow()
        search.counters[kernels.FLAG] = 0
        done["pair_raised"] = count
    return done


def _mask(rows: int, n_rows: int) -> np.ndarray:
    """A bool per row of the bitset ``rows``."""
    return np.unpackbits(np.frombuffer(rows.to_bytes((n_rows + 7) // 8, "little"),
                                       dtype=np.uint8), bitorder="little")[:n_rows].astype(bool)
