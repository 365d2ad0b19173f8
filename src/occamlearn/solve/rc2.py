"""PySAT's RC2 (core-guided, OLL) as the second MaxSAT back-end.

RC2 reports no model before the optimum, so ``trace`` has one entry (the optimum) and
``on_improve`` is called once. ``time_limit`` is enforced on each call of RC2's SAT oracle
(``solve.oracle.limited_solve``: PySAT's CaDiCaL cannot be interrupted, so calls run in
conflict-budget chunks) and abandons ``compute`` when it passes. On a timeout the status is
"unknown" and ``lower_bound`` is RC2's cost so far (a proven lower bound). Weighted
formulas use ``RC2Stratified``. RC2 appends selector literals to
non-unit soft clauses, so such formulas are copied first; the caller's WCNF is never modified.
"""

from __future__ import annotations

import time

from pysat.examples.rc2 import RC2, RC2Stratified
from pysat.formula import WCNF

from occamlearn.solve.base import ImproveCallback, MaxSATBackend, MaxSATResult, check_time_limit
from occamlearn.solve.oracle import SearchTimeout, limited_solve

__all__ = ["RC2Backend"]


class RC2Backend(MaxSATBackend):
    """RC2 with its default settings (``adapt``, ``exhaust`` off: the MPDT soft clauses
    are unit and unweighted)."""

    name = "rc2"

    def solve(self, wcnf: WCNF, time_limit: float | None = None,
              on_improve: ImproveCallback | None = None) -> MaxSATResult:
        time_limit = check_time_limit(time_limit)
        start = time.perf_counter()
        weighted = len(set(wcnf.wght)) > 1
        algorithm = RC2Stratified if weighted else RC2
        stats = {"sat_calls": 0, "n_vars": wcnf.nv, "n_hard": len(wcnf.hard),
                 "n_soft": len(wcnf.soft)}
        status, model, cost, lower = "unknown", None, None, 0
        # RC2 appends selectors to non-unit soft clauses: give it a copy then
        formula = wcnf.copy() if any(len(c) > 1 for c in wcnf.soft) else wcnf
        with algorithm(formula, solver=self.sat_solver) as rc2:
            stats["load_seconds"] = time.perf_counter() - start
            calls = [0]
            deadline = None if time_limit is None else start + time_limit

            def limited_call(assumptions=(), expect_interrupt=False):
                calls[0] += 1
                answer = limited_solve(rc2.oracle, self.sat_solver, list(assumptions), deadline)
                if answer is None:
                    raise SearchTimeout
                return answer

            rc2._call_oracle = limited_call
            try:
                found, stopped = rc2.compute(), False
            except (SearchTimeout, KeyboardInterrupt):
                found, stopped = None, True
            stats["sat_calls"] = calls[0]
            lower = rc2.cost
            if found is not None:
                status, cost = "optimal", rc2.cost
                model = [lit for lit in found if abs(lit) <= wcnf.nv]
            elif not stopped:
                status = "unsatisfiable"
        seconds = time.perf_counter() - start
        stats["seconds"] = seconds
        trace = [(seconds, cost)] if cost is not None else []
        if cost is not None and on_improve is not None:
            on_improve(cost, model, seconds)
        return MaxSATResult(status, cost, model, lower if cost is None else cost, trace, stats)
