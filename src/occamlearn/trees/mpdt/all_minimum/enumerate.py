"""Many minimum pure trees from one optimal MaxSAT solve: plain enumeration and MDSOL (Sec. 6).

Once the Linear MaxSAT loop has proven the optimum, the SAT instance "cost <= optimum" holds
every minimum tree. ``OptimalFormula`` is that instance: either the live solver the loop left
behind (its last satisfiable instance, learnt clauses included, with the bound held by
assumptions -- Sec. 6) or a fresh solver over the hard clauses plus one unit, "node size+2
is unused" (eq. 2 makes the used nodes a prefix 1..size, so that unit *is* cost <= optimum).

* ``enumerate_plain`` (mpdt-nd): solve, decode, block, repeat.
* ``enumerate_diverse`` (MDSOL, Alg. 2): each next solution minimises the number of times
  its target literals were already seen, subject to blocking every tree seen so far.

What a distinct tree is. The targets are the a_{r,j} (feature r tested at node j). The
encoding numbers used nodes breadth-first with no freedom (eqs. 22-23 put the left child of
node i at 2 x the decision nodes among 1..i), forces features off unused nodes, and a leaf of
a minimum pure tree is never empty (else its parent could be replaced by the sibling subtree),
so its label is fixed by the data. Hence a_{r,j} determine the tree and two trees are the
same iff their decoded ``Tree.structure_key()`` (shape, tests, labels in BFS order) agree:
the blocking clause over a_{r,j} excludes exactly one tree, and decoded trees are also
deduplicated by ``canonical_key`` (the same identity, independent of node numbering) as
a guard. Since exactly one a_{r,j} is true per decision node and
an optimal tree has a fixed number d of them, blocking needs only the d true literals.

Trees within an error budget (``trees.mpdt.error_budget.encoding``). The shape still follows from
the a_{r,j}, but a leaf's label does not: a leaf may predict a class its rows do not have when
the budget pays for the errors. ``OptimalFormula(block_labels=True)`` then adds the label
literal of every leaf to the blocking clause (the a_{r,j} and the leaf labels determine the
tree), and never the relaxation variables: the many models of one tree (which rows count
as errors) are blocked by one clause. MDSOL still counts reuse on the a_{r,j} only, so two
trees differing only in labels are as alike as it gets and the second comes late.

MDSOL's objective. Alg. 2 adds soft units (not l, 1) for every target literal l of every
solution, false ones included. With d true targets in every optimum, that cost equals a
constant plus 2 x sum over the true targets x of cnt(x), the number of earlier solutions
that tested the same feature at the same node. We therefore minimise sum cnt(x) [x], exactly
Alg. 2's optimum, with one soft unit (not x) per seen literal x
whose weight grows by one each time x is chosen (``RC2.add_clause`` on an existing unit adds
to its weight). The inner MaxSAT is PySAT's RC2 (core-guided, CaDiCaL), kept alive across
solutions, blocking clauses and weights added on the fly (a fresh selector per reuse, or
hermax's incremental UWrMaxSAT, drew trees about ten times slower), with its default options
on Glucose 4, which answers many small incremental calls under assumptions faster than
CaDiCaL (``benchmarks/results/enumeration_throughput.md``). The deadline (a ``stopping.Deadline``)
is checked between solutions (PySAT's CaDiCaL cannot be interrupted inside RC2), so the last
solution may overrun it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from pysat.formula import WCNF

from occamlearn.maxsat.oracle import SearchTimeout, add_clauses, limited_solve
from occamlearn.maxsat.pysat_adapter import route_oracle_calls
from occamlearn.maxsat.solvers import new_rc2, new_sat_solver
from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline

__all__ = [
    "ENUMERATORS",
    "EnumerationResult",
    "OptimalFormula",
    "bfs_order",
    "canonical_key",
    "collect_trees",
    "enumerate_diverse",
    "enumerate_plain",
    "mean_pairwise_hamming",
    "seen_counts",
    "tree_targets",
]


@dataclass
class OptimalFormula:
    """The SAT instance whose models are the minimum trees of ``encoding`` (Sec. 6).

    encoding : the ``MPDTEncoding`` that was solved; size : the proven minimum size;
    solver, assumptions : a live incremental solver that already holds the instance under
    ``assumptions`` (the Linear MaxSAT solver after its last satisfiable call), or None to
    build one from ``hard_clauses()``. ``first_tree`` (optional) is the minimum tree the
    MaxSAT run returned; the enumerations without extra assumptions yield it first.
    ``block_labels``: leaf labels are not fixed by the tests (error-budget encodings), so a
    tree is blocked on its a_{r,j} and its leaves' label literals. ``phases``: preferred
    literals (e.g. ``encoding.tree_literals(first_tree)``) for a solver built here, so that
    its search starts next to a known tree.
    """

    encoding: object
    size: int
    solver: object = None
    assumptions: Sequence[int] = ()
    first_tree: Tree | None = None
    sat_solver: str = "cadical195"
    block_labels: bool = False
    phases: Sequence[int] = ()
    owned: bool = field(default=False, init=False)

    def bound_clauses(self) -> list[list[int]]:
        """Units that restrict the encoding to trees of ``size`` nodes (cost <= optimum)."""
        n, eta = self.encoding.n, self.encoding.variables.eta
        return [[-int(eta[self.size + 2])]] if self.size + 2 <= n else []

    def hard_clauses(self) -> list[list[int]]:
        return list(self.encoding.wcnf.hard) + self.bound_clauses()

    def live_solver(self):
        """The incremental solver holding the instance (built on first use if none given)."""
        if self.solver is None:
            self.solver = new_sat_solver(self.sat_solver, self.hard_clauses())
            self.owned = True
            if self.phases:
                self.solver.set_phases(list(self.phases))
        return self.solver

    def targets(self) -> np.ndarray:
        return np.asarray(self.encoding.target_variables(), dtype=np.int64)

    def tree_literals(self, tree: Tree) -> list[int]:
        """The true a_{r,j} of ``tree``: its j-th node in BFS order is encoding node j, and
        feature column c is the encoded feature r with ``encoding.columns[r] == c``."""
        encoded = {int(c): r for r, c in enumerate(self.encoding.columns)}
        feature = self.encoding.variables.feature
        return [int(feature[encoded[int(tree.feature[node])], j])
                for j, node in enumerate(bfs_order(tree), 1) if tree.feature[node] >= 0]

    def tree_blocking_clause(self, tree: Tree) -> list[int]:
        """The clause that excludes ``tree`` (and only it) from the models."""
        clause = [-x for x in self.tree_literals(tree)]
        if self.block_labels:
            label = self.encoding.variables.label
            clause += [-int(label[int(tree.label[node]), j])
                       for j, node in enumerate(bfs_order(tree), 1) if tree.feature[node] < 0]
        return clause

    def model_blocking_clause(self, model, chosen: Sequence[int]) -> list[int]:
        """The clause that excludes the tree of ``model``, whose true a_{r,j} are ``chosen``."""
        clause = [-x for x in chosen]
        if self.block_labels:
            var, true = self.encoding.variables, set(model)
            for j in range(1, self.encoding.n + 1):
                if int(var.eta[j]) in true and int(var.leaf[j]) in true:  # a used leaf
                    clause.append(-next(int(x) for x in var.label[:, j] if int(x) in true))
        return clause

    def close(self) -> None:
        if self.owned and self.solver is not None:
            self.solver.delete()
            self.solver, self.owned = None, False


def _true_targets(model, targets: np.ndarray) -> list[int]:
    truth = np.zeros(max(int(targets.max()), int(np.abs(model).max())) + 1, dtype=bool)
    lits = np.asarray(model, dtype=np.int64)
    truth[lits[lits > 0]] = True
    return [int(x) for x in targets[truth[targets]]]


def bfs_order(tree: Tree) -> list[int]:
    """Node indices of ``tree`` in breadth-first order, left child before right."""
    order, at = [0], 0
    while at < len(order):
        node = order[at]
        if tree.feature[node] >= 0:
            order.extend((int(tree.left[node]), int(tree.right[node])))
        at += 1
    return order


def canonical_key(tree: Tree) -> tuple:
    """Identity of a tree independent of how its nodes are numbered: the (feature, label)
    of each node in BFS order (the shape follows from which nodes are leaves)."""
    return tuple((int(tree.feature[n]), int(tree.label[n]) if tree.feature[n] < 0 else -1)
                 for n in bfs_order(tree))


def _decode_new(formula: OptimalFormula, model, seen: set):
    tree = formula.encoding.decode(model)
    key = canonical_key(tree)
    if key in seen:
        return None
    seen.add(key)
    return tree


def _first(formula: OptimalFormula, assumptions, k, seen: set):
    """The search's own tree, if it leads this enumeration (no extra assumptions)."""
    first = formula.first_tree if not assumptions else None
    if first is None or (k is not None and k < 1):
        return None
    seen.add(canonical_key(first))
    return first


def enumerate_plain(formula: OptimalFormula, k: int | None = None, *,
                    deadline: Deadline | None = None,
                    assumptions: Sequence[int] = ()) -> Iterator[tuple[Tree, list[int]]]:
    """mpdt-nd: minimum trees by blocking clauses on the live solver, as (tree, targets).

    ``targets`` are the true a_{r,j} of the tree. Stops after ``k`` trees, when
    ``deadline`` expires, or when every minimum tree (under the extra
    ``assumptions``, e.g. a layout) has been produced.
    """
    solver = formula.live_solver()
    targets = formula.targets()
    assume = list(formula.assumptions) + list(assumptions)
    seen, produced = set(), 0
    first = _first(formula, assumptions, k, seen)
    if first is not None:
        chosen = formula.tree_literals(first)
        solver.add_clause(formula.tree_blocking_clause(first))
        produced += 1
        yield first, chosen
    while k is None or produced < k:
        if not limited_solve(solver, formula.sat_solver, assume, deadline):
            return  # False: no further minimum tree; None: time is up
        model = solver.get_model()
        chosen = _true_targets(model, targets)
        solver.add_clause(formula.model_blocking_clause(model, chosen))
        tree = _decode_new(formula, model, seen)
        if tree is not None:
            produced += 1
            yield tree, chosen


def enumerate_diverse(formula: OptimalFormula, k: int | None = None, *,
                      deadline: Deadline | None = None,
                      assumptions: Sequence[int] = (), solver_name: str = "glucose4"
                      ) -> Iterator[tuple[Tree, list[int]]]:
    """MDSOL (Alg. 2): each tree minimises reuse of earlier (node, feature) choices.

    The inner MaxSAT is RC2 over ``formula.hard_clauses()`` plus the extra ``assumptions``
    as units; it is kept across solutions. Yields (tree, targets); same stopping rules as
    ``enumerate_plain``. With a deadline the clauses are loaded and every SAT call of
    RC2 runs under it (``limited_solve``), so a call cannot outlast it.
    """
    targets = formula.targets()
    deadline = Deadline.coerce(deadline)
    seen, produced = set(), 0
    hard = formula.hard_clauses() + [[int(lit)] for lit in assumptions]
    wcnf = WCNF()
    if not deadline.limited:  # (RC2's own loading is faster; Ctrl-C still reaches it)
        wcnf.extend(hard)
        rc2 = new_rc2(wcnf, solver_name)
    else:
        wcnf.nv = max([formula.encoding.wcnf.nv] + [abs(int(lit)) for lit in assumptions])
        rc2 = new_rc2(wcnf, solver_name)

        def limited_call(assumptions=(), expect_interrupt=False):
            answer = limited_solve(rc2.oracle, solver_name, list(assumptions), deadline)
            if answer is None:
                raise SearchTimeout
            return answer

        route_oracle_calls(rc2, limited_call)
        if not add_clauses(rc2.oracle, hard, deadline):
            rc2.delete()
            return

    def record(chosen, blocking_clause):
        """Block the tree; raise the weight of the soft unit (not x) of each literal by 1."""
        rc2.add_clause(blocking_clause)
        for x in chosen:
            rc2.add_clause([-x], weight=1)

    try:
        first = _first(formula, assumptions, k, seen)
        if first is not None:
            chosen = formula.tree_literals(first)
            record(chosen, formula.tree_blocking_clause(first))
            produced += 1
            yield first, chosen
        while (k is None or produced < k) and not deadline.expired():
            try:
                model = rc2.compute()
            except SearchTimeout:
                return
            if model is None:
                return
            chosen = _true_targets(model, targets)
            record(chosen, formula.model_blocking_clause(model, chosen))
            tree = _decode_new(formula, model, seen)
            if tree is not None:
                produced += 1
                yield tree, chosen
    finally:
        rc2.delete()


ENUMERATORS = {"plain": enumerate_plain, "diverse": enumerate_diverse}


@dataclass
class EnumerationResult:
    """Trees from one enumeration and whether it ran out of minimum trees (``complete``)."""

    trees: list
    targets: list
    complete: bool
    seconds: float


def collect_trees(formula: OptimalFormula, k: int | None, *, diverse: bool = False,
                  deadline: Deadline | None = None,
                  assumptions: Sequence[int] = ()) -> EnumerationResult:
    """Run one enumeration to its end (or ``deadline``) and gather its trees."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"k must be a positive int or None; got {k!r}")
    start = CLOCK()
    deadline = Deadline.coerce(deadline)
    enumerate_ = ENUMERATORS["diverse" if diverse else "plain"]
    trees, targets = [], []
    for tree, chosen in enumerate_(formula, k, deadline=deadline, assumptions=assumptions):
        trees.append(tree)
        targets.append(chosen)
    seconds = CLOCK() - start
    complete = (k is None or len(trees) < k) and not deadline.expired()
    return EnumerationResult(trees, targets, complete, seconds)


def tree_targets(tree: Tree) -> frozenset:
    """The true a_{r,j} of a tree as (BFS position, feature) pairs."""
    return frozenset((j, int(tree.feature[node])) for j, node in enumerate(bfs_order(tree))
                     if tree.feature[node] >= 0)


def mean_pairwise_hamming(trees: Sequence[Tree]) -> float:
    """Average Hamming distance over the a_{r,j} between all pairs of trees (0 for < 2)."""
    sets = [tree_targets(t) for t in trees]
    if len(sets) < 2:
        return 0.0
    total = sum(len(a ^ b) for i, a in enumerate(sets) for b in sets[i + 1:])
    return total / (len(sets) * (len(sets) - 1) / 2)


def seen_counts(trees: Sequence[Tree]) -> Counter:
    """How often each (node, feature) target appeared among ``trees`` (MDSOL's weights)."""
    return Counter(pair for t in trees for pair in tree_targets(t))
