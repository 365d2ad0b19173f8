"""The small-budget end of the size-error path, from the pure-tree branch and bound.

The path's last points need the error-budget search at its smallest budgets, where it is
slowest; at those budgets the question is almost a pure-tree question, which the compiled
pure-tree branch and bound (``mpdt.bnb``) answers fast. This module turns its answers into
proven bounds and trees for the error-budget search's memo (``trees.size_error.frontier``).

**Margin filter.** For a weighted row set S and a pattern p (a distinct row) let w(p, k) be
the weight of its rows of class k, maj(p) its heaviest class, margin(p) = w(p, maj(p)) -
max_{k != maj(p)} w(p, k) (0 for a tie), and forced = sum_p (w(p) - w(p, maj(p))), the errors
every tree makes. For a budget b >= forced let F_b be the patterns with margin(p) > b - forced,
each labelled maj(p). Then

    best(S, b) >= pure(F_b),

best(S, b) the fewest leaves of a tree with at most b weighted errors on S and pure(F) the
fewest leaves of a tree classifying every pattern of F as labelled. Proof: a tree T sends all
rows of a pattern p to one leaf, of label c_p; so errors(T) = sum_p (w(p) - w(p, c_p)) =
forced + sum_{p : c_p != maj(p)} (w(p, maj(p)) - w(p, c_p)), and each term of the last sum is
at least margin(p) >= 0. If T made at most b errors and labelled some p of F_b with
c_p != maj(p), then errors(T) >= forced + margin(p) > b, a contradiction; so T classifies all
of F_b as labelled and has at least pure(F_b) leaves. F_b only shrinks as b grows, and it is
the same set {margin >= m} for every b in [forced + m' , forced + m - 1] (m' < m consecutive
distinct margins, m' = 0 for the smallest), so one pure minimum per distinct margin m bounds
best(S, b) for every budget b <= forced + m - 1.

**Trees.** The minimum pure tree of F_forced (all patterns but ties), with each leaf
relabelled by the heaviest class of the rows of S reaching it, makes at most forced errors on
S when there are two classes (a leaf's label is then the majority of each non-tie pattern in
it, and a tie pattern errs by exactly its forced weight whatever the label), and every
pruning of it is a tree of the path's kind; its (leaves -> errors) front is seeded into the
memo (``BudgetRowSetSearch.seed_fronts``), so it is an upper bound at every leaf count, the
walk's incumbent at the small budgets. With more classes it is only an incumbent: its errors
are counted, not assumed.
"""

from __future__ import annotations

import numpy as np

from occamlearn.stopping import Deadline
from occamlearn.trees.exact.stop import Stop
from occamlearn.trees.mpdt.error_budget.pure_oracle import as_search_node

__all__ = ["margin_levels", "pure_tail"]

MAX_LEVELS = 6  # distinct margins solved at most (the first, all non-tie patterns, matters most)


def margin_levels(weights: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``(m, patterns)`` for each distinct positive margin m, increasing: the patterns with
    margin >= m (``weights[p, k]``: weight of pattern p's rows of class k). Their pure minimum
    bounds best(S, b) for every b <= forced + m - 1 (module docstring). Levels whose patterns
    hold one class only are left out (they bound nothing above one leaf)."""
    ordered = np.sort(weights, axis=1)[:, ::-1]
    margin = ordered[:, 0] - (ordered[:, 1] if weights.shape[1] > 1 else 0)
    label = weights.argmax(axis=1)
    levels = []
    for m in np.unique(margin[margin > 0]):
        patterns = np.flatnonzero(margin >= m)
        if len(np.unique(label[patterns])) > 1:
            levels.append((int(m), patterns))
    return levels


def _nested(tree, node: int = 0):
    """A fitted ``Tree`` as ("leaf", k) / (feature, left, right), 0 going left."""
    if tree.is_leaf[node]:
        return ("leaf", int(tree.label[node]))
    return (int(tree.feature[node]), _nested(tree, int(tree.left[node])),
            _nested(tree, int(tree.right[node])))


def pure_tail(search, deadline: Deadline, max_levels: int = MAX_LEVELS) -> dict:
    """Store in the root's memo entry the margin-filter bounds of the module docstring (one
    pure-tree search per margin level, within ``deadline``) and seed the fronts with the
    first level's tree. Returns what was done, for the stats. Raises ``Stop`` if the deadline
    is up before the first search starts, KeyboardInterrupt after a Ctrl-C inside one."""
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
    from occamlearn.trees.mpdt.error_budget.bnb_engine import FORCED

    view, root = search.view, search.view.root
    entry = search.entry(root)
    weights = view.weights  # in units, as the search counts
    label = weights.argmax(axis=1)
    pattern_bits = view.groups.patterns[view.groups.pattern[view.group_of_bit]]
    done = {"tail_levels": 0, "tail_bounds": []}
    for level, (margin, patterns) in enumerate(margin_levels(weights)[:max_levels]):
        if deadline.expired():
            if level == 0:
                raise Stop
            break
        engines = []
        result = find_minimum_tree_branch_and_bound(view.groups.patterns[patterns], label[patterns],
                                               search.n_classes, deadline=deadline,
                                               on_search=engines.append)
        if level == 0 and engines:
            _share_memo(search, engines[0])
        if result.stats.get("interrupted"):
            raise KeyboardInterrupt
        leaves = (result.lower_bound + 1) // 2  # nodes -> leaves (2 * leaves - 1 nodes)
        if result.status == "optimal":
            leaves = result.tree.n_leaves
        budget = entry[FORCED] + margin - 1
        search.store_lower(entry, budget, leaves)
        done["tail_levels"] += 1
        done["tail_bounds"].append((budget, leaves, result.status))
        if level == 0 and result.tree is not None:
            search.seed_fronts(as_search_node(search, pattern_bits, _nested(result.tree), root))
    return done


def _share_memo(search, engine) -> None:
    """Give the walk's pure oracle (``pure_oracle``) the first level's compiled search, memo
    and all, when both searched the same rows (the non-tie patterns, in the same order, over
    the same columns): what the tail proved about subsets then serves the oracle and the
    one-deletion phase (``mpdt.error_budget.one_error.settle_one_deletion``, which starts from
    every subset the pure search settled; ``benchmarks/results/one_error_search.md``)."""
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch

    oracle = search.pure
    if oracle is None or not isinstance(engine, CompiledRowSetSearch):
        return
    mine = oracle.pure
    if engine.n_rows != mine.n_rows or engine.features != mine.features \
            or engine.columns != mine.columns or not np.array_equal(engine.labels, mine.labels):
        return
    engine.poll.deadline, engine.poll.stop_when = mine.poll.deadline, mine.poll.stop_when
    engine.poll.call_cap = None
    oracle.pure = engine
