"""The size-error frontier: for every number of leaves L, the fewest weighted training errors
of a tree with at most L leaves, each point certified or bounded.

E(L) = min {errors(T) : T has at most L leaves} is non-increasing in L; it starts at E(1), the
errors of one leaf, and reaches the errors that conflicting rows force. Its inverse is the
question of the error-budget search: best(b) = the fewest leaves of a tree with at most b
errors, and E(L) = min {b : best(b) <= L}. So the curve is a staircase that the error-budget
branch and bound (``mpdt.error_budget``) walks downwards:

    b = E(1) - 1;  while b >= forced:  l = best(b) (a tree T with l leaves, e <= b errors);
                                       b = e - 1

Each answer is a point (l, e) on or above the curve. Correctness: for l_i <= L < l_j (l_j the
next different leaf count) E(L) = e_last(l_i), the fewest errors found with l_i leaves, since
best(e_last - 1) = l_j > L proves no tree with at most L leaves makes fewer. One search object
serves every query, so its memo of per-row-set (errors, leaves) fronts and proven bounds
carries over from budget to budget (a lower bound for budget b holds for every smaller one).

**Bounds at any time.** The curve is read off the root's memo entry, whatever the search
reached: upper(L) = the fewest errors of a tree found with at most L leaves (the greedy tree's
prunings seed every L), lower(L) = 1 + the largest budget b whose proven bound best(b) > L
(at least the forced errors). A point is proven when they meet; a time limit leaves the
remaining points unproven with both bounds honest. With ``max_leaves`` the walk stops at the
first budget proven to need more leaves.

**Pure-tree phases** (without ``max_leaves``). The small budgets are the walk's slowest, and
there the question is nearly a pure-tree one, which the compiled pure-tree branch and bound
answers fast. So first ``trees.size_error.pure_tail`` proves best(forced) (and best(b) below each
larger margin) as a pure minimum and seeds the fronts with that tree's prunings; inside the
walk, ``mpdt.error_budget.pure_oracle`` answers every row set at its forced budget the same
way; when the walk reaches the budgets just above the forced errors and does not settle them
at once, the compiled one-deletion search (``mpdt.error_budget.one_error``) settles the
first of them, where exactly one pattern may be misclassified, sharing the tail's pure-tree
memo; if it could not,
``trees.size_error.core_budgets`` proves those budgets by pure-tree cores (an implicit hitting set)
within a share of the time left; then the walk resumes. Each rule's proof is in its module;
what the phases buy is measured in ``benchmarks/results/size_error_path_one_error.md``.

**Depth bound.** With ``max_depth`` the same curve under depth <= d comes from
``trees.size_error.depth_bounded``: a (leaves -> errors) front per row set and depth, capped at
``max_leaves``, with depth two in closed form; exhaustive, so every point is proven, or, at a
time limit, only the one-leaf point (the others keep the best trees found so far, with the
forced errors as their lower bound).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.data import group_examples, validate_binary_data
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.mpdt.error_budget.bnb_engine import (
    ACH,
    BOUNDED,
    ERR1,
    FORCED,
    BudgetRowSetSearch,
)
from occamlearn.trees.mpdt.error_budget.one_error import settle_one_deletion
from occamlearn.trees.mpdt.error_budget.pure_oracle import pure_oracle
from occamlearn.trees.mpdt.error_budget.small_trees import load_kernels
from occamlearn.trees.size_error.core_budgets import core_budgets, prove_small_budgets
from occamlearn.trees.size_error.pure_tail import pure_tail
from occamlearn.trees.weights import integer_weights

__all__ = ["Frontier", "find_size_error_frontier"]

# shares of the time left when each pure phase starts (``_walk``)
TAIL_SHARE = 0.3  # the pure-tree searches of the tail
CORE_SHARE = 0.25  # the core proofs of the smallest budgets, once the walk reaches them
# the walk's own try at those budgets first, small: where the walk settles them at once the
# core proofs would spend their whole share, and a larger share is taken from the proofs
SMALL_WALK_SHARE = 0.05
# then the compiled one-deletion search at the first budget above the forced errors
# (``one_error.settle_one_deletion``), where the walk in Python is slowest
ONE_ERROR_SHARE = 0.9


@dataclass(frozen=True)
class Frontier:
    """The curve for L = 1 .. len(errors): ``errors[i]`` / ``lower[i]`` bound the fewest
    weighted errors with at most i + 1 leaves (equal where ``proven``); ``trees[i]`` makes
    ``errors[i]`` errors with at most i + 1 leaves (the same object while the errors stay);
    ``status`` "optimal" when every point is proven, else "feasible"; ``stats`` as the
    searches report them. Errors are row counts, or weights with ``sample_weight``."""

    errors: np.ndarray
    lower: np.ndarray
    trees: tuple
    status: str
    stats: dict

    @property
    def proven(self) -> np.ndarray:
        return self.lower >= self.errors

    @property
    def n_leaves(self) -> np.ndarray:
        return np.arange(1, len(self.errors) + 1)


def _check_leaves(max_leaves) -> int | None:
    if max_leaves is None:
        return None
    if isinstance(max_leaves, bool) or not isinstance(max_leaves, (int, np.integer)) \
            or max_leaves < 1:
        raise ValueError(f"max_leaves must be an int >= 1 or None; got {max_leaves!r}.")
    return int(max_leaves)


def find_size_error_frontier(X, y, n_classes: int, *, max_leaves: int | None = None,
                             max_depth: int | None = None, sample_weight=None,
                             deadline: Deadline | None = None,
                             use_incompatibility: bool = True,
                             use_pure_tail: bool = True) -> Frontier:
    """The size-error curve of 0/1 matrix ``X`` with class indices ``y`` (see the module
    docstring): L = 1 .. ``max_leaves``, or up to the smallest tree with the fewest errors
    (the forced ones) when ``max_leaves`` is None. ``max_depth`` bounds the depth too
    (``trees.size_error.depth_bounded``). ``sample_weight``: ratios of integers (``trees.weights``);
    errors are then weights. A ``deadline`` or Ctrl-C ends the search early: the curve found
    so far comes back "feasible" (``stats["interrupted"]`` after a Ctrl-C). ``use_pure_tail``:
    bound and seed the small budgets by the pure-tree branch and bound first
    (``trees.size_error.pure_tail``; without ``max_leaves`` only)."""
    X, y = validate_binary_data(X, y, n_classes, np.uint8)  # only its rows are grouped
    if X.shape[0] == 0:
        raise ValueError("X has no rows: at least one training example is needed.")
    max_leaves = _check_leaves(max_leaves)
    if max_depth is not None:
        from occamlearn.trees.size_error.depth_bounded import depth_bounded_frontier

        return depth_bounded_frontier(X, y, int(n_classes), max_leaves, int(max_depth),
                                      sample_weight, deadline)
    weight, scale = (None, 1) if sample_weight is None else integer_weights(sample_weight,
                                                                             X.shape[0])
    groups = group_examples(X, y, weight)
    compile_seconds, use_incompatibility, small_trees = load_kernels(use_incompatibility,
                                                                     deadline)
    search = BudgetRowSetSearch(groups, int(n_classes), deadline=deadline,
                                use_incompatibility=use_incompatibility,
                                use_small_trees=small_trees)
    if use_pure_tail:
        search.pure = pure_oracle(search, deadline)
    collecting = gc.isenabled()
    gc.disable()  # as in error_budget.bnb: the memo has no cycles, the collector costs 2/3
    try:
        # the phases need a Deadline's shares; a stand-in with only ``expired`` walks alone
        phased = Deadline.coerce(deadline) if use_pure_tail and max_leaves is None and (
            deadline is None or isinstance(deadline, Deadline)) else None
        queries, stopped, interrupted, tail_stats = _walk(search, max_leaves, phased)
    finally:
        if collecting:
            gc.enable()
    to_errors = (lambda units: units * search.unit / scale) if sample_weight is not None \
        else (lambda units: int(units * search.unit))
    entry = search.entry(search.view.root)
    upper, lower, leaves = _read_curve(search, entry, max_leaves)
    trees, errors = _trees_and_errors(search, X.shape[1], int(n_classes), groups, leaves,
                                      upper, to_errors)
    bounds = np.array([to_errors(u) for u in lower])
    status = "optimal" if (bounds >= errors).all() else "feasible"
    stats = {"queries": queries, "stopped": stopped, "interrupted": interrupted,
             "kernel_compile_seconds": compile_seconds,
             "distinct_rows": groups.n_patterns, **tail_stats,
             "pure_oracle_calls": search.pure.calls if search.pure is not None else 0,
             **search.stats()}
    return Frontier(errors, bounds, tuple(trees), status, stats)


def _trees_and_errors(search, n_features, n_classes, groups, leaves, upper, to_errors):
    """The tree behind each point, rebuilt from the memo, and its errors counted on the data
    (a rebuilt tree makes at most the errors its entry recorded: children entries only
    improve), carried forward while a smaller tree is at least as good."""
    X_rows, y_rows = groups.rows()
    units = search.group_units
    patterns = groups.patterns[groups.pattern]
    built: dict = {}
    trees, errors = [], []
    for count, stored in zip(leaves, upper, strict=True):
        if count not in built:
            tree = Tree.from_nested(search.nested(search.view.root, count), n_features,
                                    n_classes).with_counts(X_rows, y_rows)
            made = int(units[tree.predict(patterns) != groups.label].sum())
            if made > stored:
                raise RuntimeError(f"rebuilt tree makes {made} > {stored} units (a bug)")
            built[count] = (tree, made)
        tree, made = built[count]
        if errors and errors[-1][1] <= made:
            tree, made = errors[-1]
        trees.append(tree)
        errors.append((tree, made))
    return tuple(trees), np.array([to_errors(made) for _, made in errors])


def _smallest_within(search, entry, budget: int, cap: int | None) -> int:
    """best(root, budget) by iterative deepening on its proven bound, as the error-budget
    driver does; stops early (returning a bound > cap) once more than ``cap`` leaves are
    proven necessary."""
    root = search.view.root
    bound = search.lower(entry, budget)
    if bound < search.upper(entry, budget) and search.use_incompatibility \
            and budget not in entry[BOUNDED]:
        entry[BOUNDED].add(budget)
        bound = max(bound, search.incompatibility_bound(root, budget))
        search.store_lower(entry, budget, bound)
    while bound < search.upper(entry, budget):
        if cap is not None and bound > cap:
            return bound
        value = search.solve(root, budget, bound)
        if value <= bound:
            return value
        bound = value
    return search.upper(entry, budget)


def _walk(search, max_leaves: int | None, deadline: Deadline | None
          ) -> tuple[int, bool, bool, dict]:
    """The staircase walk of the module docstring; (queries made, stopped early, by Ctrl-C,
    the pure phases' stats). With ``deadline`` (the pure phases on) the pure-tree tail runs
    first, then the walk down to the budgets of the core proofs (``core_budgets``), then
    the walk alone on those budgets within a small share (``SMALL_WALK_SHARE``: where it
    settles them in a second, the core proofs would spend their whole share), then the
    one-deletion phase at the first budget above the forced errors, then (unless that phase
    finished) the core proofs within a share of the time left, then the walk again, from the
    top: the budgets it settled before are answered from the memo at once. Once the
    one-deletion phase settled its budget, the core proofs are skipped: they would start at
    the next budget, two deletions, where their hitting sets grow fast, while the walk
    settles those budgets anyway.

    Why the core proofs wait for the walk: they settle only the smallest budgets, and a
    bound proven at budget b holds for budgets <= b only, so they cannot shorten any query
    of a larger budget, while every larger budget must be settled by the walk anyway for
    the path to be certified (and its bounds carry down to the small budgets). Run at a
    fixed share of the time instead, they would take time from the walk on paths whose walk
    never reaches those budgets within the limit."""
    queries, stats = [0], {}
    try:
        search.seed_fronts(search.greedy(search.view.root))
        if deadline is None:
            _staircase(search, max_leaves, queries)
            return queries[0], False, False, stats
        stats = pure_tail(search, deadline.inner(deadline.remaining() * TAIL_SHARE))
        cores = core_budgets(search)
        if _staircase(search, max_leaves, queries, until=cores.stop - 1 if cores else None):
            return queries[0], False, False, stats
        if _within(search, deadline, SMALL_WALK_SHARE,
                   lambda: _staircase(search, max_leaves, queries)):
            return queries[0], False, False, stats
        if not (_within(search, deadline, ONE_ERROR_SHARE,
                        lambda: settle_one_deletion(search, search.poll.deadline, stats))
                and stats.get("one_error_budget") is not None):
            _within(search, deadline, CORE_SHARE,
                    lambda: stats.update(prove_small_budgets(search, search.poll.deadline)))
        _staircase(search, max_leaves, queries)
    except Stop:
        return queries[0], True, False, stats
    except KeyboardInterrupt:
        return queries[0], True, True, stats
    return queries[0], False, False, stats


def _within(search, deadline: Deadline, share: float, phase) -> bool:
    """Run ``phase`` with the search's poll on a deadline ``share`` of the time left; True
    if it finished. A stop of its own share is swallowed; the caller's is raised."""
    search.poll.deadline = deadline.inner(deadline.remaining() * share)
    try:
        phase()
        return True
    except Stop:
        if deadline.expired():
            raise
        return False
    finally:
        search.poll.deadline = deadline


def _staircase(search, max_leaves: int | None, queries: list, until: int | None = None
               ) -> bool:
    """Walk the staircase down; True when it is done, False when it stopped at the first
    budget <= ``until`` it did not settle before (the memo answers a settled one at once)."""
    entry = search.entry(search.view.root)
    budget = entry[ERR1] - 1
    while budget >= entry[FORCED]:
        if until is not None and budget <= until \
                and search.lower(entry, budget) < search.upper(entry, budget):
            return False
        leaves = _smallest_within(search, entry, budget, max_leaves)
        queries[0] += 1
        if max_leaves is not None and leaves > max_leaves:
            break
        budget = entry[ACH][leaves][0] - 1
    return True


def _read_curve(search, entry, max_leaves):
    """(upper, lower, leaves of the tree behind each upper) in units, for L = 1 .. end."""
    forced = entry[FORCED]
    found = sorted(entry[ACH].items())
    if max_leaves is None:  # up to the first tree making only the forced errors
        last = next(v for v, point in found if point[0] <= forced)
    else:
        last = max_leaves
    upper, leaves, best, best_leaves = [], [], None, None
    points = dict(found)
    for count in range(1, last + 1):
        point = points.get(count)
        if point is not None and (best is None or point[0] < best):
            best, best_leaves = point[0], count
        upper.append(best)
        leaves.append(best_leaves)
    lower = [max(forced, _first_budget_within(search, entry, count, upper[count - 1]))
             for count in range(1, last + 1)]
    return upper, lower, leaves


def _first_budget_within(search, entry, count: int, high: int) -> int:
    """The smallest budget b <= ``high`` not proven to need more than ``count`` leaves (the
    bound is non-increasing in b, so a binary search finds it)."""
    low = entry[FORCED]
    while low < high:
        middle = (low + high) // 2
        if search.lower(entry, middle) > count:
            low = middle + 1
        else:
            high = middle
    return low
