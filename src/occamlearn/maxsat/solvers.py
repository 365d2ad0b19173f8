"""Where PySAT's solvers are made: every SAT solver and RC2 instance of the package comes from
here, so that the choice of solver (and any change to how one is built) lives in ``maxsat/``.

``SAT_SOLVERS`` is every PySAT solver name and alias ``sat_solver=`` accepts.
"""

from __future__ import annotations

from pysat.examples.rc2 import RC2
from pysat.formula import WCNF
from pysat.solvers import Solver, SolverNames

__all__ = ["SAT_SOLVERS", "SATSolver", "new_rc2", "new_sat_solver"]

SATSolver = Solver  # what new_sat_solver returns, for annotations

SAT_SOLVERS = frozenset(alias for name, aliases in vars(SolverNames).items()
                        if not name.startswith("_") for alias in aliases)


def new_sat_solver(name: str, clauses=None) -> SATSolver:
    """A PySAT SAT solver ``name`` loaded with ``clauses`` (an iterable of clauses, or None);
    the caller deletes it (``delete()`` or a ``with`` block)."""
    return Solver(name=name, bootstrap_with=clauses)


def new_rc2(wcnf: WCNF, sat_solver: str) -> RC2:
    """PySAT's RC2 over ``wcnf`` on the SAT solver ``sat_solver``; the caller deletes it."""
    return RC2(wcnf, solver=sat_solver)
