"""The one interface every MaxSAT back-end implements, and its result.

A back-end takes a PySAT ``WCNF`` (never mutated) and returns a ``MaxSATResult``:
``status`` is "optimal" (cost proven minimum), "feasible" (a model, no proof: time limit or
Ctrl-C), "unsatisfiable" (the hard clauses have no model) or "unknown" (stopped before any
model). ``trace`` lists (seconds, cost) each time the incumbent improves, and the same moments
go to ``progress.report(cost, None, seconds, model)`` (a ``stopping.ProgressSink``; seconds
are ``deadline.elapsed()``). ``deadline`` (a ``stopping.Deadline``) ends the solve, through
its time or its stop flag: a caller that wants the back-end to stop after a model (to
re-encode a smaller query) gives it ``deadline.inner()`` and requests that one's stop from
its sink callback; the back-end then returns that model with status "feasible".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from pysat.formula import WCNF
from pysat.solvers import SolverNames

from occamlearn.stopping import Deadline, ProgressSink

__all__ = [
    "STATUSES",
    "MaxSATBackend",
    "MaxSATResult",
    "check_sat_solver",
]

STATUSES = ("optimal", "feasible", "unsatisfiable", "unknown")



@dataclass
class MaxSATResult:
    """Outcome of one MaxSAT solve."""

    status: str
    cost: int | None
    model: list | None
    lower_bound: int
    trace: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {self.status!r}.")


def check_sat_solver(name: str, *, incremental: bool) -> str:
    """Validate a PySAT solver name; incremental loops refuse kissat."""
    if not isinstance(name, str):
        raise TypeError(f"sat_solver must be a PySAT solver name (str); got {type(name).__name__}.")
    known = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
    aliases = {alias for k in known for alias in getattr(SolverNames, k)}
    if name not in aliases:
        raise ValueError(f"Unknown sat_solver {name!r}. Valid PySAT names: {', '.join(known)}.")
    if incremental and name in SolverNames.kissat404:
        raise ValueError(
            f"sat_solver {name!r} cannot be used: kissat is not incremental (it ignores "
            "assumptions and aborts when a clause is added after solve()). "
            "Use cadical195 (default), glucose4 or minisat22.")
    return name


class MaxSATBackend(ABC):
    """Base class: ``solve(wcnf, deadline=None, progress=None, phases=None) -> MaxSATResult``.

    Two capabilities are declared here, not discovered by ``isinstance``: ``uses_phases``
    (``solve`` starts its SAT solver from the ``phases`` given, e.g. an incumbent solution;
    others accept and ignore them) and ``keeps_solver`` (after ``solve`` the back-end holds a
    live incremental SAT solver, and ``solver_for_cost`` gives it with assumptions whose models
    are exactly the solutions of a cost -- what the enumeration of optima reuses, Sec. 6).
    """

    name = "base"
    uses_phases = False
    keeps_solver = False

    def __init__(self, sat_solver: str = "cadical195"):
        self.sat_solver = check_sat_solver(sat_solver, incremental=True)

    @abstractmethod
    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        """Minimise the weight of falsified soft clauses of ``wcnf`` subject to its hard ones."""

    def solver_for_cost(self, cost: int):
        """(live SAT solver, assumptions) whose models are the solutions of cost ``cost``;
        only for back-ends with ``keeps_solver``."""
        raise ValueError(f"the {self.name} back-end keeps no live solver (keeps_solver=False)")

    def close(self) -> None:
        """Release the live SAT solver (if the back-end keeps one)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
