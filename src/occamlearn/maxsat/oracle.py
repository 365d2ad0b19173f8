"""Time-limited SAT calls that work for every PySAT solver.

PySAT's CaDiCaL wrappers (1.5.3, 1.9.5) raise ``NotImplementedError`` on ``interrupt()``, so a
timer cannot stop them. For those, a call is split into chunks under a conflict budget
(``conf_budget`` + ``solve_limited``): CaDiCaL keeps its learnt clauses between chunks, and the
deadline is checked between chunks. The budget follows the measured conflict rate so that a
chunk takes about ``CHUNK_SECONDS`` (at least ``MIN_BUDGET`` conflicts, so that the restart
of every chunk does not dominate): the rate changes by orders of magnitude (on mushr's
DT(max) formula with a cardinality network, 2,000 conflicts took 21 s, 12 ms each, after
calls of a few ms per conflict), so it is re-measured after every chunk, including the last
chunk of a call, and remembered per solver. Near the deadline a chunk gets only the
conflicts the last rate predicts for the time left (down to ``LAST_CHUNK_BUDGET``), so a
call ends within about one chunk after the deadline. Solvers
with a working ``interrupt()`` (Glucose, MiniSat, ...) use a ``threading.Timer`` instead.

Loading is part of the time limit too: ``add_clauses`` adds a formula in slices and stops
when the deadline passes (the MaxSAT back-ends load formulas of millions of clauses, and
one ``append_formula`` call of 25 M clauses took 60 s on mushr).

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

import itertools
import threading
import weakref
from collections.abc import Iterable
from contextlib import contextmanager

from pysat import solvers as pysat_solvers
from pysat.solvers import Solver, SolverNames

from occamlearn.stopping import CLOCK, Deadline

__all__ = ["SearchTimeout", "add_clauses", "limited_solve", "python_handles_sigint"]

CHUNK_SECONDS = 0.25
FIRST_BUDGET = 500
MIN_BUDGET = 50
LAST_CHUNK_BUDGET = 10
CLAUSES_PER_CHECK = 20_000
# per live solver: (conflict budget of a chunk, conflicts per second in its last chunk)
_calibration: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
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
                  deadline: Deadline | None) -> bool | None:
    """``solver.solve(assumptions)``, or None if ``deadline`` expires first (its time, or a
    stop requested between two chunks)."""
    with python_handles_sigint():
        return _limited_solve(solver, name, assumptions, deadline)


def _limited_solve(solver: Solver, name: str, assumptions: list[int],
                   deadline: Deadline | None) -> bool | None:
    if (deadline is None or not deadline.limited) and name not in NO_INTERRUPT:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    deadline = Deadline.coerce(deadline)
    if deadline.expired():
        return None
    if name not in NO_INTERRUPT:
        timer = threading.Timer(deadline.remaining(), solver.interrupt)
        timer.start()
        try:
            return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            solver.clear_interrupt()
    budget, rate = _calibration.get(solver, (FIRST_BUDGET, None))
    while True:
        began = CLOCK()
        expected = (budget / CHUNK_SECONDS if rate is None else rate) * deadline.remaining()
        chunk = budget if budget <= expected else max(int(expected), LAST_CHUNK_BUDGET)
        conflicts = _conflicts(solver)
        solver.conf_budget(chunk)
        answer = solver.solve_limited(assumptions=assumptions)
        used = _conflicts(solver) - conflicts
        if used >= LAST_CHUNK_BUDGET:  # enough conflicts to measure their current rate
            rate = used / max(CLOCK() - began, 1e-3)
            budget = int(min(max(rate * CHUNK_SECONDS, MIN_BUDGET), 8 * budget))
            _calibration[solver] = budget, rate
        if answer is not None:
            return answer
        if deadline.expired():
            return None


def _conflicts(solver: Solver) -> int:
    return (solver.accum_stats() or {}).get("conflicts", 0)


def add_clauses(solver: Solver, clauses: Iterable, deadline: Deadline | None) -> bool:
    """Add ``clauses`` to ``solver``; False if ``deadline`` passed first (then only a prefix
    of them is in the solver)."""
    if deadline is None:
        solver.append_formula(clauses)
        return True
    clauses = iter(clauses)
    while True:
        if deadline.expired():
            return False
        chunk = list(itertools.islice(clauses, CLAUSES_PER_CHECK))
        if not chunk:
            return True
        solver.append_formula(chunk)
