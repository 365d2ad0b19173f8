"""Time-limited SAT calls that work for every PySAT solver.

PySAT's CaDiCaL wrappers (1.5.3, 1.9.5) raise ``NotImplementedError`` on ``interrupt()``, so a
timer cannot stop them. For those, a call is split into chunks under a conflict budget
(``conf_budget`` + ``solve_limited``): CaDiCaL keeps its learnt clauses between chunks, and the
deadline is checked between chunks. The budget adapts so that a chunk takes about
``CHUNK_SECONDS``. Solvers with a working ``interrupt()`` (Glucose, MiniSat, ...) use a
``threading.Timer`` instead.

Ctrl-C. Called from the main thread, PySAT's C solvers replace Python's SIGINT handler by one
that ``longjmp``s out of the running solver: the solver is left in an undefined state and the
handler is not restored, so a later Ctrl-C jumps into a dead stack frame (seen here as
``free(): invalid pointer`` aborts and hangs). Every call made here therefore tells PySAT it is
not on the main thread (``python_handles_sigint``): Python's own handler stays in place, and
Ctrl-C raises ``KeyboardInterrupt`` as soon as the SAT call returns, with the solver intact.
CaDiCaL calls always run in budgeted chunks, so that happens within about ``CHUNK_SECONDS``;
with other oracles and no deadline, at the end of the current SAT call.
"""

from __future__ import annotations

import math
import threading
import time
from contextlib import contextmanager

from pysat import solvers as pysat_solvers
from pysat.solvers import Solver, SolverNames

__all__ = ["SearchTimeout", "limited_solve", "python_handles_sigint"]

CHUNK_SECONDS = 0.25
FIRST_BUDGET = 2000
NO_INTERRUPT = set(SolverNames.cadical103 + SolverNames.cadical153 + SolverNames.cadical195)


class SearchTimeout(Exception):
    """Raised inside a solver loop (RC2) to abandon it when the deadline passes."""


def _not_main_thread() -> bool:
    return False


@contextmanager
def python_handles_sigint():
    """Keep Python's SIGINT handler during PySAT calls (see the module docstring)."""
    checker = pysat_solvers.MainThread.check
    pysat_solvers.MainThread.check = staticmethod(_not_main_thread)
    try:
        yield
    finally:
        pysat_solvers.MainThread.check = checker


def limited_solve(solver: Solver, name: str, assumptions: list[int],
                  deadline: float | None) -> bool | None:
    """``solver.solve(assumptions)``, or None if ``deadline`` (perf_counter) passes first."""
    with python_handles_sigint():
        return _limited_solve(solver, name, assumptions, deadline)


def _limited_solve(solver: Solver, name: str, assumptions: list[int],
                   deadline: float | None) -> bool | None:
    if deadline is None and name not in NO_INTERRUPT:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    if deadline is None:
        deadline = math.inf
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
