"""Smallest decision tree with at most e training errors, by branch and bound over row sets.

The same question as ``error_budget.find_minimum_tree_with_errors`` (MaxSAT), answered by a
memoised search in the style of MurTree / STreeD, on the recursion

    best(S, b) = 1                                        if err(S) <= b
    best(S, b) = min over features j, budgets bL + bR = b of best(S0, bL) + best(S1, bR)

where best(S, b) is the fewest leaves of a tree on the row set S with at most b errors,
err(S) = |S| - (commonest class count) is the errors of one leaf (it predicts the majority),
and S0 / S1 are the rows of S with x_j = 0 / 1 (a size is 2 * leaves - 1 nodes). Rows are
grouped by identical pattern first: a tree sends all rows of a pattern to one leaf, so a row
set is a set of patterns and errors count rows with their multiplicity. Row sets are Python
integers used as bitsets over the rows sorted by pattern and class, so that class counts and
the errors forced by conflicting rows inside S are popcounts.

**Search.** ``solve(S, b, ub)`` returns best(S, b) when it is <= ub, else a proven lower
bound > ub (the DL8.5 / MurTree scheme of the pure search in ``branch_and_bound``). For a
split j the budget of the left child ranges over [max(forced(S0), b - err(S1)),
min(b - forced(S1), err(S0))]: a child never needs more budget than one leaf's errors and
never gets less than its own conflicts (proof: a tree with child errors e0, e1 can be taken
with e0 <= err(S0), e1 <= err(S1) - else a leaf is as good - and then bL = max(e0, b - err(S1))
lies in the range and leaves both children at least their errors; if the range is empty,
b > err(S0) + err(S1) and two leaves fit). Every (split, bL) is a candidate; candidates
are tried in increasing order of their lower bound LB(S0, bL) + LB(S1, b - bL) and the loop
stops when the next bound reaches the best found. The fronts spare most budget splits: once
the left child's best tree within bL is known to make e' < bL errors, the candidates with a
left budget above max(e', lowest) are dominated by that one (same left tree, more budget on
the right) and skipped.

**Front per row set.** Each row set keeps, lazily, both sides of its (errors, leaves) front:
``ach[v]`` the fewest errors of a tree with v leaves found so far (with the split and the
children's leaf counts, so the tree can be rebuilt; the rebuilt tree has at most those
errors because a child's entry only ever improves), and ``lo[b]`` proven lower bounds on
best(S, b). best(S, .) is non-increasing in the budget, so a bound proven for budget b holds
for every smaller budget, and a tree with v leaves and e' errors answers every budget >= e';
best(S, b) is known exactly when the largest bound for b meets min{v : ach[v] <= b}. The
found errors are what is stored, not the budget asked for, so one solve answers a whole
interval of budgets. A greedy tree's subtrees seed the fronts (upper bounds everywhere).

**Lower bounds** on best(S, b) (each with its proof):

* 1 leaf; infeasible (infinite) when b < forced(S), the errors of conflicting rows in S;
* classes: a tree with l leaves predicts at most l classes, so it misclassifies at least the
  rows outside its l largest classes: best(S, b) >= min{l : |S| - top_l(S) <= b};
* b-incompatibility (``error_budget_bnb_kernels``): take items = (pattern, class) groups of S
  and call two items a, c of class k b-incompatible when the rows of other classes in S
  lying in the smallest subcube containing both patterns weigh more than b. A leaf is the set
  of rows of S satisfying the tests on its path; a leaf holding a and c holds that subcube
  (every test on the path is passed by a and c, so it tests a feature on which they agree).
  So two correctly classified items share a leaf only if they have the same class k (the
  leaf's label) and are not b-incompatible (else the leaf alone makes > b errors). For a set
  Q of items pairwise b-incompatible within each class, the correctly classified items of Q
  need one leaf each; at most t items of Q are misclassified, t = the most items of Q whose
  weights fit in b together. Hence best(S, b) >= |Q| - t. (The pure search's bound is the
  case b = 0; its bounds do not transfer to b > 0 without this correction.)
* at most three leaves, exactly (``small_trees``, compiled): with E_S(l) the fewest errors of
  a tree with at most l leaves, best(S, b) >= l + 1 when E_S(l) > b, for l = 2, 3; computed
  once per row set that gets a memo entry, whose fronts also get the trees behind E_S(2) and
  E_S(3) (it settles the two levels above the leaves that the search otherwise enumerates
  in Python);
* one-step look-ahead: a failed call stores min over candidates of their proven bounds.

The root loop is iterative deepening on the proven lower bound, after the incumbent: the
smallest pruning of a greedy information-gain tree that fits the budget (a min-plus dynamic
programme over the greedy tree's (leaves, errors) fronts; the unpruned greedy tree makes only
the forced errors, so it always fits). The ``deadline`` (whole call, including the kernel
compile) is polled every 16 calls; then, on Ctrl-C
(``stats["interrupted"]``) or when the memo reaches its memory cap (``stats["memory_full"]``;
it is never evicted, since rebuilding trees follows its entries), the best tree so far is
returned as "feasible" with the proven lower bound. The cyclic garbage collector is off during
the search (the memo has no cycles; its passes cost two thirds of the time).

**Weights.** With ``sample_weight`` an error costs its row's weight and ``max_errors`` is a
weight: every count above (err, forced, class weights, the items' weights in the
incompatibility bound) becomes a sum of weights, in the integer units of
``trees.weights.integer_weights`` (weights that are ratios of integers, as integer weights
and balanced class weights are; others are refused); nothing in the proofs uses that a row
weighs one.
"""

from __future__ import annotations

import gc

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.exact.anytime import Anytime
from occamlearn.trees.exact.data import group_examples, validate_binary_data
from occamlearn.trees.mpdt.error_budget.bnb_engine import BOUNDED, BudgetRowSetSearch
from occamlearn.trees.mpdt.error_budget.maxsat_search import check_max_errors
from occamlearn.trees.mpdt.error_budget.one_error import settle_one_deletion
from occamlearn.trees.mpdt.error_budget.small_trees import load_kernels
from occamlearn.trees.mpdt.result import MinimumTreeResult
from occamlearn.trees.recursion import deep_recursion
from occamlearn.trees.weights import integer_weights

__all__ = ["find_minimum_tree_with_errors_bnb"]


def _check_weighted_budget(max_errors) -> float:
    if isinstance(max_errors, bool) or not isinstance(max_errors, (int, float, np.integer,
                                                                   np.floating)) \
            or not max_errors >= 0:
        raise ValueError(f"max_errors must be a non-negative number; got {max_errors!r}.")
    return float(max_errors)


@deep_recursion()
def find_minimum_tree_with_errors_bnb(X, y, n_classes: int, max_errors, *,
                                      deadline: Deadline | None = None,
                                      progress: ProgressSink | None = None,
                                      sample_weight=None,
                                      use_incompatibility: bool = True) -> MinimumTreeResult:
    """Smallest tree over 0/1 matrix ``X`` misclassifying at most ``max_errors`` rows of ``y``,
    by branch and bound (see the module docstring); same meaning and result as
    ``error_budget.find_minimum_tree_with_errors``.

    ``y`` holds class indices; identical rows with different labels are allowed (they use up
    budget; a budget below the errors they force is a ValueError). ``sample_weight`` (per
    row): an error costs its row's weight, and ``max_errors`` is then a weight (a number, not
    only an int). Status "optimal" means proven minimum; "feasible" (the ``deadline``
    expired or was asked to stop, or Ctrl-C) comes with the proven ``lower_bound``.
    ``progress.report(size, lower, seconds, tree)`` receives each smaller tree and each higher
    bound (in nodes). ``use_incompatibility=False`` drops the compiled bound (slower; for
    tests). ``stats["training_errors"]`` is the returned tree's (weighted) error count.
    """
    X, y = validate_binary_data(X, y, n_classes)
    if X.shape[0] == 0:
        raise ValueError("X has no rows: at least one training example is needed.")
    n_classes = int(n_classes)
    max_errors = (check_max_errors(max_errors) if sample_weight is None
                  else _check_weighted_budget(max_errors))
    state = Anytime(deadline, progress)
    weight, scale = (None, 1) if sample_weight is None else integer_weights(sample_weight,
                                                                             X.shape[0])
    groups = group_examples(X, y, weight)
    forced = groups.forced_errors() / scale if scale != 1 else groups.forced_errors()
    if max_errors * scale < groups.forced_errors():
        raise ValueError(f"max_errors={max_errors} is below the {forced} errors that "
                         "identical rows with different labels force; no tree fits that "
                         "budget.")
    # the kernels are loaded after the greedy start has offered its tree (``_search_root``)
    search = BudgetRowSetSearch(groups, n_classes, deadline=state.deadline,
                                use_incompatibility=False, use_small_trees=False)
    # The memo holds millions of small lists and dicts without cycles: the cyclic garbage
    # collector's passes over them find nothing and cost most of the search's time, so it is
    # off during the search (and restored after).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _search_root(search, state, groups, n_classes, max_errors, forced, scale,
                            use_incompatibility)
    finally:
        if collecting:
            gc.enable()


def _search_root(search, state, groups, n_classes, max_errors, forced, scale,
                 use_incompatibility) -> MinimumTreeResult:
    X, y = groups.rows()
    budget = search.view.to_units(int(np.floor(max_errors * scale + 1e-9)))
    root = (1 << search.n_rows) - 1

    def as_tree(leaves: int) -> Tree:
        nested = search.nested(root, leaves)
        return Tree.from_nested(nested, X.shape[1], n_classes).with_counts(X, y)

    root_entry = search.entry(root)
    front = search.seed_fronts(search.greedy(root))  # never skipped: a stop returns a tree
    leaves = next(v for v in range(1, len(front)) if front[v] <= budget)
    greedy_size = 2 * leaves - 1
    state.offer(as_tree(leaves))
    # then the kernels (a first fit in a process imports numba and loads them from the disk
    # cache: about a second idle, tens on a loaded machine): the bound's loaded, or compiled
    # here in about 1.6 s; the small trees' only if cached (``small_trees.load_kernels``)
    compile_seconds, use_incompatibility, small_trees = load_kernels(use_incompatibility,
                                                                     state.deadline)
    search.use_kernels(use_incompatibility, small_trees)

    one_error = {}

    def body():
        search.poll.check()
        # one pattern may go wrong at this budget: the compiled one-deletion search settles it
        # (``one_error``; back, max_errors=1: 12 leaves proven, where this walk stopped at 14
        # with a bound of 10)
        settle_one_deletion(search, state.deadline, one_error, budget)
        bound = search.lower(root_entry, budget)
        if bound < leaves and search.use_incompatibility:
            root_entry[BOUNDED].add(budget)
            bound = max(bound, search.incompatibility_bound(root, budget))
            search.store_lower(root_entry, budget, bound)
        state.offer(lower=2 * bound - 1)
        while bound < search.upper(root_entry, budget):
            value = search.solve(root, budget, bound)
            if value <= bound:
                state.offer(as_tree(value), 2 * value - 1)
                break
            bound = value
            state.offer(lower=2 * bound - 1)
        else:  # settled without a search: the memo's tree (the root's small trees, say)
            known = search.upper(root_entry, budget)
            state.offer(as_tree(known), 2 * known - 1)

    state.run(body)
    tree = state.tree
    # the root's bounds hold also when a stop came before the driver offered them
    lower = min(max(state.lower, 2 * search.lower(root_entry, budget) - 1),
                2 * search.upper(root_entry, budget) - 1, tree.n_nodes)
    status = "optimal" if lower == tree.n_nodes else "feasible"
    wrong = tree.predict(groups.patterns[groups.pattern]) != groups.label
    error_units = int(search.group_units[wrong].sum())
    training_errors = int(groups.count[wrong].sum())
    if scale != 1 or groups.n_rows is not None:  # weighted: in the caller's weight units
        training_errors = training_errors / scale
    if error_units > budget:
        raise RuntimeError(f"branch and bound produced a tree with {training_errors} errors "
                           f"> max_errors={max_errors} (a bug)")
    stats = {"max_errors": max_errors, "forced_errors": forced, "greedy_size": greedy_size,
             "training_errors": training_errors, **search.stats(),
             "kernel_compile_seconds": compile_seconds, "distinct_rows": groups.n_patterns,
             **one_error,
             "informative_features": len(search.features), "stopped": state.stopped,
             "interrupted": state.interrupted, "seconds": state.duration()}
    return MinimumTreeResult(tree, status, int(lower), tree.n_nodes, stats,
                             tuple(state.improvements))

