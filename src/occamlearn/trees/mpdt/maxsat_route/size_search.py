"""One size-search driver for every MaxSAT/SAT route to a smallest tree (Alg. 1 and 3).

The pure search (``search.MinimumTreeSearch``), the error-budget search
(``error_budget.ErrorBudgetSearch``) and MinDT (``mindt``) share one skeleton: start from a
tree in hand (the greedy one), ask a formula for a strictly smaller tree, decode what the
solver finds, and stop when the solver proves that nothing smaller exists or the deadline
comes. What differs is only the *query* -- how a formula for "a tree of ``lower`` .. ``n``
nodes" is built, how long it would take, how the incumbent becomes phase hints -- and the
*back-end* that answers it. ``SizeQuery`` is that family-specific part; ``SizeSearch`` is the
loop, written once:

* it skips an encoding predicted to end after the deadline (or over a memory budget), and
  abandons one that is still being built when the deadline passes (``TimeoutError``);
* it gives the back-end the incumbent as phase hints when the back-end uses them
  (``MaxSATBackend.uses_phases``);
* when the back-end finds a tree of at most ``reencode_ratio`` x n nodes it re-encodes with
  n = that size - 2: the formula grows with n x examples x features, and unused nodes only
  slow the solver down. MinDT is the ratio 1: every tree found re-encodes the next size down;
* the proven lower bound is the largest of the caller's, the back-end's (2 cost - 1 nodes) and
  "no tree of ``lower`` .. n nodes" (n + 2) after an UNSAT answer.

The back-end's live solver after the last query is what the enumeration of optima reuses
(``search.MinimumTreeSearch.optimal_solver``, ``error_budget.ErrorBudgetSearch.formula``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult
from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

__all__ = ["REENCODE_RATIO", "SizeOutcome", "SizeQuery", "SizeSearch"]

# Re-encode with fewer nodes once a tree this much smaller than the encoded n is found.
REENCODE_RATIO = 0.85


class SizeQuery(Protocol):
    """The family-specific part of a size search.

    ``encode(n, lower, deadline)`` returns an encoding (``.wcnf``, ``.decode(model) -> Tree``,
    ``.tree_literals(tree)``) whose optima are the smallest trees of ``lower`` .. ``n`` nodes,
    raising ``TimeoutError`` if the deadline passes while it is built;
    ``skip_reason(n, deadline)`` says why an encoding of ``n`` nodes should not be started
    (predicted to end after the deadline, or too large), or returns None.
    """

    def encode(self, n_nodes: int, lower: int, deadline: Deadline): ...

    def skip_reason(self, n_nodes: int, deadline: Deadline) -> str | None: ...


@dataclass
class SizeOutcome:
    """Where a size search stopped: the best tree, its status and the proven lower bound."""

    tree: Tree
    status: str                 # "optimal" | "feasible"
    lower_bound: int
    backend_holds_best: bool    # the back-end's live solver has a model of ``tree``
    backend_proved: bool        # ... and proved it optimal (its last query's optimum)


class SizeSearch:
    """The loop of every size search; ``run`` returns a ``SizeOutcome``.

    ``stats`` (a dict the caller owns) collects encode and solve seconds, SAT calls, the
    encoding sizes and why an encoding was skipped; ``trace`` gets (seconds, size) for each
    better tree, and ``progress`` a report of each (``report(size, None, seconds, tree)``).
    Each query runs under ``deadline.inner()``: a tree small enough to re-encode stops that
    query (its stop is requested from the back-end's progress sink) and nothing else.
    """

    def __init__(self, query: SizeQuery, backend: MaxSATBackend, *, deadline: Deadline,
                 stats: dict, trace: list, progress: ProgressSink | None = None,
                 reencode_ratio: float = REENCODE_RATIO):
        self.query, self.backend = query, backend
        self.deadline = deadline
        self.stats, self.trace = stats, trace
        self.progress = ProgressSink.coerce(progress)
        self.reencode_ratio = reencode_ratio
        self.encoding = None
        for key in ("encode_seconds", "solve_seconds"):
            stats.setdefault(key, 0.0)
        stats.setdefault("sat_calls", 0)
        stats.setdefault("encodings", 0)

    def run(self, best: Tree, lower: int, first_query: int | None = None) -> SizeOutcome:
        """Improve ``best`` (already reported by the caller) down to ``lower`` nodes.

        ``first_query`` is the n of the first formula (default ``best.n_nodes - 2``, "a
        strictly smaller tree"; a caller that knows a bound without its tree may ask for it).
        """
        n_nodes = best.n_nodes - 2 if first_query is None else first_query
        holds_best = False
        while n_nodes >= lower:
            answer, stopped = self._at_most(n_nodes, lower, best)
            if answer.model is not None:
                found = self.encoding.decode(answer.model)
                if found.n_nodes <= best.n_nodes:
                    best, holds_best = found, True
            if answer.status == "optimal":
                return SizeOutcome(best, "optimal", best.n_nodes, holds_best, True)
            if answer.status == "unsatisfiable":  # no tree of lower .. n_nodes nodes
                status = "optimal" if n_nodes + 2 >= best.n_nodes else "feasible"
                return SizeOutcome(best, status, n_nodes + 2, holds_best, False)
            lower = max(lower, 2 * answer.lower_bound - 1)
            if not stopped:  # the deadline, Ctrl-C, an encoding skipped, or the lowest size
                status = "optimal" if lower >= best.n_nodes else "feasible"
                return SizeOutcome(best, status, min(lower, best.n_nodes), holds_best, False)
            n_nodes = best.n_nodes - 2
        # the loop ends below ``lower``: proven only if it walked down from the best tree
        # (a first query the caller placed below the lower bound proves nothing about it)
        if best.n_nodes - 2 < lower:
            return SizeOutcome(best, "optimal", best.n_nodes, holds_best, False)
        return SizeOutcome(best, "feasible", lower, holds_best, False)

    def _at_most(self, n_nodes: int, lower: int, incumbent: Tree) -> tuple[MaxSATResult, bool]:
        """One query "a tree of ``lower`` .. ``n_nodes`` nodes"; ``stopped`` is True when the
        back-end stopped early on a tree small enough to re-encode."""
        stats = self.stats
        nothing = MaxSATResult("unknown", None, None, 0)
        if self.deadline.expired():  # its time, or a stop requested (Ctrl-C, a partner)
            stats["encoding_skipped"] = f"the deadline passed before {n_nodes} nodes, 0 s left"
            return nothing, False
        reason = self.query.skip_reason(n_nodes, self.deadline)
        if reason is not None:
            stats["encoding_skipped"] = reason
            return nothing, False
        began = CLOCK()
        try:
            self.encoding = self.query.encode(n_nodes, lower, self.deadline)
        except TimeoutError:
            stats["encode_seconds"] += CLOCK() - began
            stats["encoding_abandoned"] = n_nodes
            return nothing, False
        stats["encode_seconds"] += CLOCK() - began
        stats["encodings"] += 1
        wcnf = self.encoding.wcnf
        stats.update(n_vars=wcnf.nv, n_hard=len(wcnf.hard), n_nodes_encoded=n_nodes)
        stopped = []
        encoding = self.encoding
        query = self.deadline.inner()

        def improved(cost, lower_cost, seconds, model) -> None:
            tree = encoding.decode(model)
            self.trace.append((seconds, tree.n_nodes))
            self.progress.report(tree.n_nodes, None, seconds, tree)
            if lower <= tree.n_nodes - 2 <= self.reencode_ratio * n_nodes:
                stopped.append(tree.n_nodes)
                query.request_stop()  # re-encode: this query only, never the search

        if query.expired():
            return nothing, False
        phases = encoding.tree_literals(incumbent) if self.backend.uses_phases else None
        answer = self.backend.solve(wcnf, deadline=query, progress=ProgressSink(improved),
                                    phases=phases)
        stats["solve_seconds"] += answer.stats.get("seconds", 0.0)
        stats["sat_calls"] += answer.stats.get("sat_calls", 0)
        stats["backend"] = answer.stats
        if answer.stats.get("interrupted"):
            stats["interrupted"] = True
        return answer, bool(stopped)
