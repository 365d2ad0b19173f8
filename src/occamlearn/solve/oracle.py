"""Time-limited SAT calls that work for every PySAT solver.

PySAT's CaDiCaL wrappers (1.5.3, 1.9.5) raise ``NotImplementedError`` on ``interrupt()``, so a
timer cannot stop them. For those, a call is split into chunks under a conflict budget
(``conf_budget`` + ``solve_limited``): CaDiCaL keeps its learnt clauses between chunks, and the
deadline is checked between chunks. The budget adapts so that a chunk takes about
``CHUNK_SECONDS``. Solvers with a working ``interrupt()`` (Glucose, MiniSat, ...) use a
``threading.Timer`` instead.
"""

from __future__ import annotations

import threading
import time

from pysat.solvers import Solver, SolverNames

__all__ = ["SearchTimeout", "limited_solve"]

CHUNK_SECONDS = 0.25
FIRST_BUDGET = 2000
NO_INTERRUPT = set(SolverNames.cadical103 + SolverNames.cadical153 + SolverNames.cadical195)


class SearchTimeout(Exception):
    """Raised inside a solver loop (RC2) to abandon it when the deadline passes."""


def limited_solve(solver: Solver, name: str, assumptions: list[int],
                  deadline: float | None) -> bool | None:
    """``solver.solve(assumptions)``, or None if ``deadline`` (perf_counter) passes first."""
    if deadline is None:
        return solver.solve(assumptions=assumptions)
    if time.perf_counter() >= deadline:
        return None
    if name not in NO_INTERRUPT:
        timer = threading.Timer(deadline - time.perf_counter(), solver.interrupt)
        timer.start()
        try:
            return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            solver.clear_interrupt()
    budget = FIRST_BUDGET
    while True:
        began = time.perf_counter()
        solver.conf_budget(budget)
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return answer
        now = time.perf_counter()
        if now >= deadline:
            return None
        took = max(now - began, 1e-3)
        budget = int(min(max(budget * CHUNK_SECONDS / took, 500), 8 * budget))
