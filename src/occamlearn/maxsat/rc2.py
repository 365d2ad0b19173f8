"""PySAT's RC2 (core-guided, OLL) as the second MaxSAT back-end.

``deadline`` covers loading and solving. Every SAT call RC2 makes goes through its
``_call_oracle`` (the core loop, and core trimming, minimisation and exhaustion when they are
switched on; they are off here), which is routed to ``maxsat.oracle.limited_solve``
(``pysat_adapter.route_oracle_calls``): PySAT's
CaDiCaL cannot be interrupted, so calls run in conflict-budget chunks, and the deadline
abandons ``compute``. RC2's other oracle work (adding totalizer clauses of a core, bound 1
and then one more each time) is small. The hard clauses are loaded by ``add_clauses`` in
slices, so loading stops at the deadline too (RC2 itself loads them in one uninterruptible
call).

Unweighted RC2 reports no model before the optimum, so ``trace`` has one entry (the
optimum) and ``progress`` gets one report. Weighted formulas use ``RC2Stratified``, which
finishes weight levels one by one with a model of all hard clauses at the end of each: these
models are reported as they improve, and one of them is the answer ("feasible") when time
runs out. On a timeout ``lower_bound`` is RC2's cost so far (a proven lower bound); the
status is "unknown" if no model was found. RC2 appends selector literals to non-unit soft
clauses, so it gets copies of the soft clauses; the caller's WCNF is never modified.
"""

from __future__ import annotations

from pysat.examples.rc2 import RC2, RC2Stratified
from pysat.formula import WCNF

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult
from occamlearn.maxsat.oracle import SearchTimeout, add_clauses, limited_solve
from occamlearn.maxsat.pysat_adapter import report_finished_levels, route_oracle_calls
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

__all__ = ["RC2Backend"]


class _StoppedByCallback(Exception):
    """The caller requested the deadline's stop on a model (at the end of a weight level)."""


class RC2Backend(MaxSATBackend):
    """RC2 with its default settings (``adapt``, ``exhaust`` and core minimisation off: the
    MPDT soft clauses are unit and unweighted)."""

    name = "rc2"

    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        deadline = Deadline.coerce(deadline)
        progress = ProgressSink.coerce(progress)
        start = CLOCK()
        weighted = len(set(wcnf.wght)) > 1
        algorithm = RC2Stratified if weighted else RC2
        stats = {"sat_calls": 0, "n_vars": wcnf.nv, "n_hard": len(wcnf.hard),
                 "n_soft": len(wcnf.soft)}
        status, model, cost, lower, trace = "unknown", None, None, 0, []
        incumbent: dict = {}

        def improved(found_cost: int, found_model: list) -> None:
            if "cost" in incumbent and found_cost >= incumbent["cost"]:
                return
            incumbent.update(cost=found_cost, model=found_model)
            trace.append((CLOCK() - start, found_cost))
            progress.report(found_cost, None, deadline.elapsed(), found_model)
            if deadline.stop_requested:
                raise _StoppedByCallback

        with algorithm(_soft_part(wcnf), solver=self.sat_solver) as rc2:
            loaded = add_clauses(rc2.oracle, wcnf.hard, deadline)
            stats["load_seconds"] = CLOCK() - start
            calls = [0]

            def limited_call(assumptions=(), expect_interrupt=False):
                calls[0] += 1
                answer = limited_solve(rc2.oracle, self.sat_solver, list(assumptions), deadline)
                if answer is None:
                    raise SearchTimeout
                return answer

            route_oracle_calls(rc2, limited_call)
            if weighted:
                _report_levels(rc2, wcnf, improved)
            found, stopped = None, True
            try:
                if loaded:
                    found, stopped = rc2.compute(), False
            except SearchTimeout:
                pass
            except KeyboardInterrupt:
                stats["interrupted"] = True  # the caller decides whether to re-raise
            except _StoppedByCallback:
                stats["stopped_by_callback"] = True
            stats["sat_calls"] = calls[0]
            lower = rc2.cost
            if found is not None:
                status, cost = "optimal", rc2.cost
                model = [lit for lit in found if abs(lit) <= wcnf.nv]
            elif not stopped:
                status = "unsatisfiable"
        seconds = CLOCK() - start
        stats["seconds"] = seconds
        if status == "optimal":
            if incumbent.get("cost") != cost:
                trace.append((seconds, cost))
                progress.report(cost, cost, deadline.elapsed(), model)
            return MaxSATResult(status, cost, model, cost, trace, stats)
        if "cost" in incumbent:
            return MaxSATResult("feasible", incumbent["cost"], incumbent["model"], lower,
                                trace, stats)
        return MaxSATResult(status, None, None, lower, trace, stats)


def _soft_part(wcnf: WCNF) -> WCNF:
    """The soft clauses of ``wcnf`` (copied: RC2 extends them) and its variable count; the
    hard clauses are loaded afterwards, under the deadline."""
    soft = WCNF()
    soft.nv = wcnf.nv
    soft.soft = [list(clause) for clause in wcnf.soft]
    soft.wght = list(wcnf.wght)
    soft.topw = wcnf.topw
    return soft


def _report_levels(rc2: RC2Stratified, wcnf: WCNF, improved) -> None:
    """Call ``improved(cost, model)`` with the model RC2Stratified holds when it finishes a
    weight level (a model of every hard clause; cost counted on ``wcnf``)."""

    def on_level(model: list) -> None:
        true = set(model)
        cost = sum(weight for clause, weight in zip(wcnf.soft, wcnf.wght)
                   if not any(lit in true for lit in clause))
        improved(cost, [lit for lit in model if abs(lit) <= wcnf.nv])

    report_finished_levels(rc2, on_level)
