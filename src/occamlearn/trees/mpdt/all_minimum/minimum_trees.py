"""Many minimum trees of one dataset: one MaxSAT solve, then enumeration (Alg. 3, l. 3-6).

``find_minimum_trees`` runs the minimum-tree search once (``MinimumTreeSearch``) and draws up
to k minimum trees from the optimal formula it leaves behind, by one of the Table 6 variants:

=============  ==============================================
``plain``      blocking clauses only (mpdt-nd)
``diverse``    MDSOL, Alg. 2 (mpdt)
layouts=True   the same per feasible layout (mpdt-lay-nd / mpdt-lay, Sec. 7)
=============  ==============================================

With the "auto" and "bnb" methods and no layouts, the trees come from the branch and bound's
tree space instead (``trees_from_space``, ``tree_space.MinimumTreeSpace``): every minimum tree
is counted exactly (``MinimumTrees.count``), the first k in rank order are the plain variant
and MDSOL's greedy step over the space is the diverse one -- no SAT call, and thousands of
trees a second. ``method="maxsat"`` keeps the SAT enumeration (blocking clauses, MDSOL).

``trees_from_search`` lets several variants share one solve (the Table 6 runner does): the
first plain enumeration reuses the Linear MaxSAT solver itself -- the last satisfiable
instance with its learnt clauses (Sec. 6) -- and every later variant gets a fresh solver
over the same optimal formula, because blocking clauses of one variant must not hide trees
from another. When the search stopped before proving the optimum, only its best tree is
returned (there is no optimal formula to enumerate).

With an error budget (``max_errors``, or ``relax_conflicts`` for ``on_conflict="relax"``)
``find_minimum_trees`` runs ``ErrorBudgetSearch`` instead and ``trees_from_error_search``
draws the trees of its size with at most that many training errors, by the same variants
(a tree counts once however its errors are chosen; trees that differ only in a leaf label
are distinct, see ``trees.mpdt.all_minimum.enumerate``). Unlike the pure case it also enumerates
after a deadline stopped the search, while time is left, the trees of the best size found (status
stays "feasible", ``complete`` False), and when the answer is a single leaf, the one-leaf trees
within the budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.mpdt.all_minimum.budget_tree_space import BudgetTreeSpace
from occamlearn.trees.mpdt.all_minimum.enumerate import ENUMERATORS, OptimalFormula, canonical_key
from occamlearn.trees.mpdt.all_minimum.layouts import enumerate_by_layout
from occamlearn.trees.mpdt.all_minimum.tree_space import MinimumTreeSpace, SpaceCut
from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb
from occamlearn.trees.mpdt.error_budget.maxsat_search import ErrorBudgetSearch, error_budget
from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch
from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["MinimumTrees", "find_minimum_trees", "optimal_formula", "trees_from_error_search",
           "trees_from_search", "trees_from_space"]


@dataclass
class MinimumTrees:
    """The search result, the minimum trees drawn and how the enumeration ended.

    complete : True iff every minimum tree was produced (the enumeration ran dry; with
    layouts, every feasible layout did);
    layouts : per tree, the layout it came from ("" without layouts);
    layout_report : per feasible layout visited, its quota, trees and whether it ran dry;
    count : the exact number of minimum trees when the tree space counted them (else None).
    """

    result: MinimumTreeResult
    trees: list
    complete: bool
    seconds: float
    layouts: list = field(default_factory=list)
    layout_report: list = field(default_factory=list)
    count: int | None = None


def optimal_formula(search: MinimumTreeSearch, *, live: bool,
                    deadline: Deadline | None = None) -> OptimalFormula:
    """The optimal formula of a finished search.

    ``live`` reuses its Linear MaxSAT solver (Sec. 6). Otherwise the data is encoded afresh
    with exactly ``size`` nodes, all used (n = lower bound = size): the same minimum trees
    from a formula smaller than the search's (which has n = upper bound - 2 nodes); a
    ``deadline`` passing while it is built raises ``EncodingDeadline`` (a ``TimeoutError``).
    """
    size = search.result.tree.n_nodes
    if live:
        held = search.optimal_solver()
        return OptimalFormula(held.encoding, size, held.solver, list(held.assumptions),
                              first_tree=search.result.tree, sat_solver=search.sat_solver)
    encoding = encode_mpdt(search.X, search.y, search.n_classes, size, size, deadline=deadline)
    return OptimalFormula(encoding, size, first_tree=search.result.tree,
                          sat_solver=search.sat_solver)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"n_solutions must be a positive int; got {k!r}")
    return k


def trees_from_search(search: MinimumTreeSearch, k: int, *, diverse: bool = False,
                      layouts: bool = False, layout_depth: int = 3,
                      deadline: Deadline | None = None, live: bool = True) -> MinimumTrees:
    """Up to ``k`` minimum trees of a search that has ``run()``, until ``deadline``; the
    search's own tree leads (except with layouts, whose trees all come from their layout's
    enumeration)."""
    k = _check_k(k)
    deadline = Deadline.coerce(deadline)
    result = search.result
    if k == 1 or result.status != "optimal" or result.tree.n_nodes == 1:
        single = result.status == "optimal" and result.tree.n_nodes == 1
        return MinimumTrees(result, [result.tree], single, 0.0, [""])
    if deadline.expired():
        return MinimumTrees(result, [result.tree], False, 0.0, [""])
    # MDSOL builds its own RC2 from the clauses: the smaller exact-size formula serves it best
    try:
        formula = optimal_formula(search, live=live and not diverse, deadline=deadline)
    except TimeoutError:                     # the deadline passed while re-encoding
        return MinimumTrees(result, [result.tree], False, 0.0, [""])
    return _draw(result, formula, k, diverse=diverse, layouts=layouts,
                 layout_depth=layout_depth, deadline=deadline)


def trees_from_space(result: MinimumTreeResult, X, y, n_classes: int, k: int, *,
                     diverse: bool = False, deadline: Deadline | None = None,
                     random_state=None, max_errors: int | None = None) -> MinimumTrees:
    """Up to ``k`` minimum trees of a proven ``result`` from the branch and bound's tree
    space (``max_errors``: the smallest trees within that budget, ``BudgetTreeSpace``): the
    first k in rank order, or (``diverse``) MDSOL's greedy draw. If the counting does not
    finish before ``deadline``, the trees under the root splits (or root error counts) counted
    so far are drawn from (``complete`` False, ``count`` None), or the search's own tree when
    none was."""
    k = _check_k(k)
    if result.status != "optimal" or (max_errors is None and result.tree.n_nodes == 1):
        single = result.status == "optimal"
        return MinimumTrees(result, [result.tree], single, 0.0, [""], count=1 if single else None)
    began = CLOCK()
    options = {"leaves": (result.tree.n_nodes + 1) // 2, "deadline": Deadline.coerce(deadline),
               "feature_names": result.tree.feature_names}
    try:
        space = (MinimumTreeSpace(X, y, n_classes, **options) if max_errors is None
                 else BudgetTreeSpace(X, y, n_classes, max_errors, **options))
    except SpaceCut:
        space = None
    if space is None or not space.available:
        return MinimumTrees(result, [result.tree], False, CLOCK() - began, [""])
    trees = (space.diverse(k, random_state=random_state) if diverse
             else [space.tree(i) for i in range(min(k, space.available))])
    return MinimumTrees(result, trees, space.complete and k >= space.count, CLOCK() - began,
                        [""] * len(trees), count=space.count)


def trees_from_error_search(search: ErrorBudgetSearch, k: int, *, diverse: bool = False,
                            layouts: bool = False, layout_depth: int = 3,
                            deadline: Deadline | None = None, live: bool = True
                            ) -> MinimumTrees:
    """Up to ``k`` trees of the size ``search`` found, each within its error budget, until
    ``deadline`` (None: the search's own deadline).

    Also draws when the search was stopped by its deadline, if the deadline given leaves
    time: the trees of the best size found (``complete`` is then False), by plain
    enumeration on the search's live solver whatever ``diverse`` and ``layouts`` say (MDSOL's
    RC2 and the layout checks cannot be stopped inside a SAT call, and on a formula the
    search could not finish one such call can take minutes). A search stopped without a time limit
    (Ctrl-C) gives its own tree only.
    """
    k = _check_k(k)
    result = search.result
    if result.tree.n_nodes == 1:
        leaves = search.leaf_trees()
        return MinimumTrees(result, leaves[:k], len(leaves) <= k, 0.0, [""] * min(k, len(leaves)))
    proven = result.status == "optimal"
    if not proven:
        diverse = layouts = False
    deadline = search.deadline if deadline is None else deadline
    if k == 1 or (not deadline.limited and not proven) or deadline.expired():
        return MinimumTrees(result, [result.tree], False, 0.0, [""])
    try:
        formula = search.formula(live=live and not diverse, deadline=deadline)
    except TimeoutError:                     # the deadline passed while re-encoding
        return MinimumTrees(result, [result.tree], False, 0.0, [""])
    drawn = _draw(result, formula, k, diverse=diverse, layouts=layouts,
                  layout_depth=layout_depth, deadline=deadline)
    drawn.complete = drawn.complete and proven
    return drawn


def _draw(result: MinimumTreeResult, formula, k: int, *, diverse: bool, layouts: bool,
          layout_depth: int, deadline: Deadline) -> MinimumTrees:
    """Up to ``k`` distinct trees of ``formula`` by the chosen variant, until ``deadline``;
    closes the formula. If the deadline left no tree drawn, the search's own tree is the
    answer."""
    start = CLOCK()
    trees, names, keys, report = [], [], set(), []
    try:
        if layouts:
            produced = enumerate_by_layout(formula, k, diverse=diverse, depth=layout_depth,
                                           deadline=deadline, report=report)
        else:
            enumerate_ = ENUMERATORS["diverse" if diverse else "plain"]
            produced = ((tree, model, None) for tree, model in
                        enumerate_(formula, k, deadline=deadline))
        for tree, _, layout in produced:
            if canonical_key(tree) not in keys:
                keys.add(canonical_key(tree))
                trees.append(tree)
                names.append(layout.describe() if layout is not None else "")
    finally:
        formula.close()  # deletes only a solver the formula built itself
    seconds = CLOCK() - start
    timed_out = deadline.expired()
    if layouts:
        complete = bool(report) and all(entry["exhausted"] for entry in report)
    else:
        complete = len(trees) < k and not timed_out
    if not trees:                               # the time limit passed before any tree
        trees, names, complete = [result.tree], [""], False
    return MinimumTrees(result, trees, complete, seconds, names, report)


def find_minimum_trees(X, y, n_classes: int, k: int = 1, *, diverse: bool = False,
                       layouts: bool = False, layout_depth: int = 3, solver: str = "lsu",
                       sat_solver: str = "cadical195", deadline: Deadline | None = None,
                       enumeration_time_limit: float | None = None,
                       progress: ProgressSink | None = None, max_errors: int | None = None,
                       relax_conflicts: bool = False, method: str = "maxsat",
                       n_jobs: int | None = None, random_state=None) -> MinimumTrees:
    """Minimum trees of the 0/1 matrix X and class indices y (Alg. 3, lines 3-6): pure, or
    with at most ``max_errors`` misclassified rows.

    ``deadline`` (a ``stopping.Deadline``) bounds the whole call: the search for the minimum,
    then the drawing of the further trees gets what is left of it; enumeration_time_limit
    (seconds) bounds the drawing alone (None: until k trees or no more, or the deadline).
    ``progress`` (a ``stopping.ProgressSink``) hears of each better tree of the search.
    ``relax_conflicts`` raises the budget (0 if ``max_errors`` is None) to the errors that identical
    rows with different labels force. ``method`` finds the minimum of a pure tree
    (``minimum.METHODS``; "auto": the portfolio); the trees are then drawn from the MPDT encoding
    with n = that size (``MinimumTreeSearch.adopt``), so no MaxSAT search repeats what another
    engine proved; without layouts, "auto" and "bnb" draw them from the tree space instead
    (``trees_from_space``, seeded by ``random_state``), and with an error budget from the
    budgeted branch and bound's space of the smallest trees within it; ``method="maxsat"`` and
    layouts use the MaxSAT search and SAT enumeration.
    """
    _check_k(k)
    deadline = Deadline.coerce(deadline)
    budget = error_budget(X, y, max_errors, relax_conflicts=relax_conflicts)
    options = {"solver": solver, "sat_solver": sat_solver, "deadline": deadline,
               "progress": progress}
    if method != "maxsat" and not layouts:
        if budget is None:
            from occamlearn.trees.mpdt.minimum import find_minimum_tree

            result = find_minimum_tree(X, y, n_classes, method=method, n_jobs=n_jobs,
                                       **options)
        else:
            result = find_minimum_tree_with_errors_bnb(X, y, n_classes, budget,
                                                       deadline=deadline, progress=progress)
        # one deadline for the search and the drawing
        return trees_from_space(result, X, y, n_classes, k, diverse=diverse,
                                deadline=deadline.within(enumeration_time_limit),
                                random_state=random_state, max_errors=budget)
    if budget is None:
        search, draw = MinimumTreeSearch(X, y, n_classes, **options), trees_from_search
        if method != "maxsat":
            from occamlearn.trees.mpdt.minimum import find_minimum_tree

            search.adopt(find_minimum_tree(X, y, n_classes, method=method, n_jobs=n_jobs,
                                           **options))
    else:
        search = ErrorBudgetSearch(X, y, n_classes, budget, **options)
        draw = trees_from_error_search
    try:
        if search.result is None:
            search.run()
        # one deadline for the search and the drawing
        drawing = deadline.within(enumeration_time_limit)
        return draw(search, k, diverse=diverse, layouts=layouts, layout_depth=layout_depth,
                    deadline=drawing, live=True)
    finally:
        search.close()
