"""Linear SAT-UNSAT MaxSAT (Alg. 1 of Alós, Ansótegui and Torres, with the Sec. 6 change).

One incremental SAT solver (CaDiCaL 1.9.5 by default) holds the hard clauses and, for every
soft clause, a blocking literal b that is true when the clause is falsified (a unit soft
clause (x) needs no new variable: b = -x). After the first model of cost c, an incremental
totalizer over the b's counts the cost; each further call asks for cost <= c - 1 *under an
assumption* (Sec. 6), and every model found makes its own bound cost <= c permanent. When the
call under assumption is UNSAT, c is optimal and the solver's clauses, without assumptions,
are exactly "the last satisfiable instance": its models are the optimal solutions.
``solver_for_cost(c)`` hands that solver out for enumeration (Alg. 2 / MDSOL).

The cost counter is PySAT's incremental totalizer, or a cardinality network when the
totalizer would be huge (``maxsat.counters``: a first model of cost 4,208 over 8,124 soft
clauses made a 25.4 M-clause totalizer). ``deadline`` covers everything: loading the
formula, building the counter (both stop at the deadline) and the SAT calls; when it passes
(or its stop is requested) after a model, the status is "feasible" with the best model.

The caller's WCNF is never modified. Weighted soft clauses are counted by repeating their
blocking literal w times in the counter (fine for small integer weights).

Lower bound: the linear search only ever refutes "cost < optimum", so on a stop it proves
nothing by itself (``lower_bound`` 0). With ``core_share`` > 0 and a time limit, a
core-guided phase comes first (core-boosted linear search, Berg et al. 2019): RC2 (OLL) runs
for that share of the time left (``deadline.within``); its cost when stopped is a proven lower
bound, reported on a stop and used to stop the linear search as soon as a model reaches it; if RC2
proves the optimum, its model is the linear search's phase hint and the search stops at that cost
(so the live solver still holds "the last satisfiable instance"). Off by default (``CORE_SHARE``):
see benchmarks/results/maxsat_bounds.md.
"""

from __future__ import annotations

from pysat.formula import WCNF
from pysat.solvers import Solver

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult
from occamlearn.maxsat.counters import add_counter
from occamlearn.maxsat.oracle import add_clauses, limited_solve
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

__all__ = ["CORE_SHARE", "LinearSatUnsat"]

CORE_SHARE = 0.0  # share of the time limit for the core-guided phase (0: none)


class LinearSatUnsat(MaxSATBackend):
    """Alg. 1 (LMS). After ``solve``, ``solver`` stays alive until ``close()``."""

    name = "lsu"
    uses_phases = True
    keeps_solver = True

    def __init__(self, sat_solver: str = "cadical195", core_share: float | None = None):
        super().__init__(sat_solver)
        if core_share is not None and not 0 <= core_share < 1:
            raise ValueError(f"core_share must be in [0, 1); got {core_share!r}.")
        self.core_share = core_share  # None: the module's CORE_SHARE at solve time
        self.solver: Solver | None = None
        self._counts: list[int] = []  # _counts[k] implied by >= k+1 true blocking literals
        self._proven_bound: int | None = None  # models of self.solver cost <= this
        self._optimum: int | None = None

    # -- the loop ---------------------------------------------------------------------------
    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        """Alg. 1; ``phases`` are optional preferred literals (e.g. an incumbent solution)."""
        deadline = Deadline.coerce(deadline)
        progress = ProgressSink.coerce(progress)
        self.close()
        start = CLOCK()
        stats = {"sat_calls": 0, "load_seconds": 0.0, "sat_seconds": 0.0, "unsat_seconds": 0.0,
                 "n_vars": wcnf.nv, "n_hard": len(wcnf.hard), "n_soft": len(wcnf.soft)}
        core_lower, core_model = self._core_phase(wcnf, deadline, stats)
        if core_model is not None:
            phases = core_model
        solver = Solver(name=self.sat_solver)
        self.solver = solver
        top, blocking, relaxed = _blocking_literals(wcnf)
        loaded = add_clauses(solver, wcnf.hard, deadline) and add_clauses(solver, relaxed,
                                                                           deadline)
        if phases:
            solver.set_phases(phases)
        stats["load_seconds"] = CLOCK() - start - stats.get("core_seconds", 0.0)
        trace: list = []
        best_cost, best_model, status = None, None, "unknown"
        assumptions: list[int] = []
        try:
            while loaded:
                answer, seconds = self._call(solver, assumptions, deadline)
                stats["sat_calls"] += 1
                if answer is None:
                    status = "feasible" if best_model is not None else "unknown"
                    break
                if answer is False:
                    stats["unsat_seconds"] += seconds
                    status = "optimal" if best_model is not None else "unsatisfiable"
                    break
                stats["sat_seconds"] += seconds
                model = solver.get_model()
                true_lits = set(model)
                best_cost = sum(1 for b in blocking if b in true_lits)
                best_model = [lit for lit in model if abs(lit) <= wcnf.nv]
                trace.append((CLOCK() - start, best_cost))
                progress.report(best_cost, None, deadline.elapsed(), best_model)
                if deadline.stop_requested:  # e.g. the caller re-encodes a smaller query
                    status, stats["stopped_by_callback"] = "feasible", True
                    break
                if best_cost == 0:
                    status = "optimal"
                    break
                top = self._tighten(solver, blocking, best_cost, top, deadline, stats)
                if top is None:  # the deadline passed while the counter was built
                    status = "feasible"
                    break
                if best_cost <= core_lower:  # the core phase proved this cost optimal
                    status = "optimal"
                    break
                assumptions = [-self._counts[best_cost - 1]]
        except KeyboardInterrupt:
            status = "feasible" if best_model is not None else "unknown"
            stats["interrupted"] = True  # the caller decides whether to re-raise
        self._optimum = best_cost if status == "optimal" else None
        stats["seconds"] = CLOCK() - start
        lower = best_cost if status == "optimal" else core_lower
        return MaxSATResult(status, best_cost, best_model, lower, trace, stats)

    def _core_phase(self, wcnf: WCNF, deadline: Deadline, stats: dict):
        """(proven lower bound on the cost, optimal model or None) of RC2 run for
        ``core_share`` of the time left; (0, None) when off or without a time limit."""
        share = CORE_SHARE if self.core_share is None else self.core_share
        if not share or not deadline.limited:
            return 0, None
        from occamlearn.maxsat.rc2 import RC2Backend

        began = CLOCK()
        core = RC2Backend(self.sat_solver)
        try:
            answer = core.solve(wcnf, deadline=deadline.within(share * deadline.remaining()))
        finally:
            core.close()
        stats.update(core_seconds=CLOCK() - began, core_lower=answer.lower_bound,
                     core_status=answer.status)
        if answer.status == "optimal":
            return answer.cost, answer.model
        return int(answer.lower_bound or 0), None

    def _tighten(self, solver: Solver, blocking: list[int], cost: int, top: int,
                 deadline: Deadline, stats: dict) -> int | None:
        """Make "cost <= ``cost``" permanent (building the counter on first use); the new
        top variable, or None if the deadline passed while the counter was built."""
        if not self._counts:
            began = CLOCK()
            counter = add_counter(solver, blocking, cost, top, deadline)
            stats["counter_seconds"] = CLOCK() - began
            if counter is None:
                return None
            stats.update(counter=counter.kind, counter_clauses=counter.n_clauses,
                         counter_vars=counter.top - top)
            self._counts, top = counter.outputs, counter.top
        if cost < len(self._counts):
            solver.add_clause([-self._counts[cost]])
        self._proven_bound = cost
        return top

    def _call(self, solver: Solver, assumptions: list[int], deadline: Deadline):
        began = CLOCK()
        answer = limited_solve(solver, self.sat_solver, assumptions, deadline)
        return answer, CLOCK() - began

    # -- what enumeration needs ------------------------------------------------------------
    def solver_for_cost(self, cost: int) -> tuple[Solver, list[int]]:
        """(live solver, assumptions) whose models are exactly the solutions of ``cost``.

        ``cost`` must be at most the best cost found (the solver holds cost <= best
        permanently). With the optimum, the assumptions are empty: the solver's clauses are
        the last satisfiable instance of Sec. 6. Blocking clauses added by the caller stay
        in the solver.
        """
        if self.solver is None or self._proven_bound is None:
            raise ValueError("solver_for_cost needs a solve() that found a model and bounded "
                             "its cost (not stopped by the time limit before that).")
        if not isinstance(cost, int) or not 0 <= cost <= self._proven_bound:
            raise ValueError(f"cost must be an int in [0, {self._proven_bound}] (the best cost "
                             f"found); got {cost!r}.")
        if cost == self._optimum:
            return self.solver, []
        assumptions = []
        if cost < self._proven_bound:
            assumptions.append(-self._counts[cost])
        if cost > 0:
            assumptions.append(self._counts[cost - 1])
        return self.solver, assumptions

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
        self.solver, self._counts, self._proven_bound, self._optimum = None, [], None, None


def _blocking_literals(wcnf: WCNF) -> tuple[int, list[int], list[list[int]]]:
    """(top variable, blocking literal of each soft clause repeated by its weight, the
    non-unit soft clauses extended by their new blocking variable)."""
    top, blocking, relaxed = wcnf.nv, [], []
    for clause, weight in zip(wcnf.soft, wcnf.wght):
        if len(clause) == 1:
            b = -clause[0]
        else:
            top += 1
            b = top
            relaxed.append([*clause, b])
        blocking.extend([b] * int(weight))
    return top, blocking, relaxed
