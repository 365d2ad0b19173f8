"""DT(max) by MaxSAT: the encoding of Hu, Siala, Hebrard and Huguet (IJCAI 2020) solved.

DT(max) is the depth-2/3/4 baseline of the MaxSAT paper (Alós, Ansótegui and Torres, Sec. 3
and end of Sec. 9.2): among all trees of depth <= ``max_depth`` over the binary features, one
that misclassifies the fewest training rows, proven optimal. ``method="maxsat"`` is the
paper's and Hu et al.'s route: 0/1 matrix -> ``encode_dtmax`` (complete tree, one soft clause
per distinct row and label, weighted by its count) -> MaxSAT back-end ``solver`` -> compact
tree. It is kept as the independent check of the searches (tests compare them) and for
formulas one wants to hand to other solvers; it is 10-1000x slower
(``benchmarks/results/dtmax_runtime.md``). ``maxsat_search`` starts from the greedy tree the
entry passes, which stays the answer ("feasible") if the solver proves nothing in time.
"""

from __future__ import annotations

import numpy as np

from occamlearn.maxsat.backends import make_backend
from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.dtmax.data import OrderedData, ThresholdMatrix
from occamlearn.trees.dtmax.maxsat.encoding import effective_depth, encode_dtmax
from occamlearn.trees.exact.data import group_examples, reduce_columns

__all__ = ["BACKEND_AUTO", "maxsat_search"]

BACKEND_AUTO = "auto"   # LSU, or RC2 when duplicated rows make the weights large
# prefer_small's MaxSAT size call bounds the errors with a totalizer over each group's
# literal repeated by its (integer) weight; beyond this many the call is skipped and the
# size is left unproven ("feasible") rather than building a formula of that size.
SIZE_TOTALIZER_LITERALS = 1_000_000


def _errors(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> int:
    """The total (integer) weight of the misclassified rows."""
    return int(weight[tree.predict(X) != y].sum())


def _decisions(tree: Tree) -> int:
    return tree.n_nodes - tree.n_leaves


class _Search:
    """The incumbent tree, its trace, and MaxSAT calls sharing one deadline; each better tree
    is reported to ``progress`` as ``(errors, None, seconds, tree)``."""

    def __init__(self, X, y, solver, sat_solver, deadline: Deadline,
                 progress: ProgressSink, weight, scale: int, as_nested):
        """solver: the MaxSAT back-end name, or ``BACKEND_AUTO``; weight: integer row
        weights (errors are their sum); progress hears errors in the caller's units (the
        integer weights divided by ``scale``) with the tree as ``as_nested`` makes it."""
        self.start = CLOCK()
        self.X, self.y, self.weight, self.scale = X, y, weight, scale
        self.as_nested = as_nested
        self.solver, self.sat_solver = solver, sat_solver
        self.deadline, self.progress = deadline, progress
        self.best, self.best_key, self.trace = None, None, []
        self.stats = {"encode_seconds": 0.0, "solve_seconds": 0.0, "sat_calls": 0}

    def offer(self, tree: Tree) -> None:
        """Keep ``tree`` if it has fewer errors, or as many and fewer decisions. (Always both:
        a key without decisions would let an equally accurate but larger tree from the
        errors-only MaxSAT call replace a smaller incumbent, and then the size call's answer
        would no longer count as an improvement.)"""
        key = (_errors(tree, self.X, self.y, self.weight), _decisions(tree))
        if self.best_key is None or key < self.best_key:
            self.best, self.best_key = tree, key
            self.trace.append((self.deadline.elapsed(), key[0]))
            self.progress.report(key[0] / self.scale, None, self.trace[-1][0],
                                 self.as_nested(tree))

    def backend_for(self, wcnf) -> str:
        """``solver``, or for ``BACKEND_AUTO``: LSU unless weights are large. LSU counts a weight w
        as w copies of a literal, so heavily duplicated rows (titanic: 1408 rows, 14 distinct) make
        its totalizer huge, while RC2's stratification handles weights natively."""
        if self.solver != BACKEND_AUTO:
            return self.solver
        return "rc2" if sum(wcnf.wght) > 2 * len(wcnf.wght) else "lsu"

    def solve(self, wcnf, decode):
        """One MaxSAT call; improving models are offered. None if no time is left."""
        if self.deadline.expired():
            return None
        name = self.backend_for(wcnf)
        self.stats.setdefault("backends", []).append(name)
        improved = ProgressSink(lambda cost, lower, seconds, model: self.offer(decode(model)))
        with make_backend(name, sat_solver=self.sat_solver) as backend:
            answer = backend.solve(wcnf, deadline=self.deadline, progress=improved)
        if answer.model is not None:
            self.offer(decode(answer.model))
        self.stats["solve_seconds"] += answer.stats.get("seconds", 0.0)
        self.stats["sat_calls"] += answer.stats.get("sat_calls", 0)
        return answer




def maxsat_search(tests: ThresholdMatrix, data: OrderedData, max_depth: int, *,
                  incumbent: Tree, scale: int, prefer_small: bool = True,
                  solver: str = BACKEND_AUTO, sat_solver: str = "cadical195",
                  deadline: Deadline | None = None,
                  progress: ProgressSink | None = None) -> tuple:
    """The most accurate tree of depth <= ``max_depth`` over the 0/1 columns ``tests.X`` of
    ``data`` (whole weights, ``scale`` units to the caller's one), from ``incumbent`` (a
    ``Tree`` over those columns); with ``prefer_small`` a second call proves the smallest
    among the most accurate. Returns (best ``Tree``, errors, errors lower bound, errors
    proven, size proven, stats), errors in weight units."""
    if solver != BACKEND_AUTO:
        make_backend(solver, sat_solver=sat_solver).close()       # validate names first
    X, y, weight = tests.X, data.y, data.weight.astype(np.int64)
    search = _Search(X, y, solver, sat_solver, Deadline.coerce(deadline),
                     ProgressSink.coerce(progress), weight, scale, tests.nested)
    groups = group_examples(X, y, weight)
    depth = effective_depth(max_depth, groups, reduce_columns(groups.patterns))
    forced = groups.forced_errors()
    stats = search.stats
    stats.update(depth_encoded=depth, n_patterns=groups.n_patterns, forced_errors=forced)
    search.offer(incumbent)
    errors_proven = search.best_key[0] == forced
    size_proven = not prefer_small or _decisions(search.best) == 0
    lower = forced
    if not (errors_proven and size_proven):
        began = CLOCK()
        encoding = encode_dtmax(X, y, data.n_classes, max_depth, prefer_small=prefer_small,
                                sample_weight=weight)
        stats.update(encode_seconds=CLOCK() - began,
                     n_columns=encoding.columns.n_kept, n_vars=encoding.wcnf.nv,
                     n_hard=len(encoding.wcnf.hard), n_soft=len(encoding.wcnf.soft))
        if not errors_proven:
            answer = search.solve(encoding.wcnf, encoding.decode)
            if answer is not None:
                proven = answer.cost if answer.status == "optimal" else answer.lower_bound
                lower = max(lower, proven or 0)
                stats["solver_status"] = answer.status
            errors_proven = lower >= search.best_key[0]
        repeated = int(groups.count[groups.count <= search.best_key[0]].sum())
        if errors_proven and not size_proven and repeated > SIZE_TOTALIZER_LITERALS:
            # the size call's error bound repeats each literal by its weight
            stats["size_solver_status"] = (f"skipped: the error bound would count {repeated} "
                                           "weight units")
        elif errors_proven and not size_proven:
            wcnf = encoding.smallest_within(search.best_key[0])
            answer = search.solve(wcnf, encoding.decode)
            size_proven = answer is not None and answer.status == "optimal"
            stats["size_solver_status"] = None if answer is None else answer.status
    stats["seconds"] = CLOCK() - search.start
    errors = search.best_key[0]
    return (search.best, errors, errors if errors_proven else lower, errors_proven,
            size_proven, stats)
