"""Registry of MaxSAT back-ends: ``BACKENDS`` maps a name to its class; ``make_backend``
builds one by name and rejects unknown names and non-incremental SAT solvers."""

from __future__ import annotations

from occamlearn.maxsat.base import MaxSATBackend, check_sat_solver
from occamlearn.maxsat.external import ExternalBackend
from occamlearn.maxsat.hermax_backend import BACKEND_CLASSES as HERMAX_BACKENDS
from occamlearn.maxsat.lsu import LinearSatUnsat
from occamlearn.maxsat.rc2 import RC2Backend

__all__ = ["BACKENDS", "make_backend"]

BACKENDS: dict[str, type[MaxSATBackend]] = {
    "lsu": LinearSatUnsat,
    "rc2": RC2Backend,
    "external": ExternalBackend,  # a solver program (OCCAMLEARN_MAXSAT_COMMAND)
    **HERMAX_BACKENDS,  # uwrmaxsat, evalmaxsat, loandra, ... (pip install occamlearn[solvers])
}


def make_backend(name: str, sat_solver: str = "cadical195") -> MaxSATBackend:
    """A fresh back-end ``name`` ("lsu" or "rc2") over the PySAT solver ``sat_solver``."""
    if name not in BACKENDS:
        raise ValueError(f"Unknown MaxSAT solver {name!r}. Valid names: "
                         f"{', '.join(sorted(BACKENDS))}.")
    check_sat_solver(sat_solver, incremental=True)
    return BACKENDS[name](sat_solver=sat_solver)
