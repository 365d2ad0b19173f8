"""MaxSAT solvers of the ``hermax`` package (optional extra ``occamlearn[solvers]``) as back-ends.

Table 5 of Alós, Ansótegui and Torres sets the MPDT encoding under incomplete solvers of the MaxSAT
Evaluation; ``hermax`` (PyPI, Apache-2.0) wraps several, plus exact IPAMIR solvers, behind
``add_clause`` / ``add_soft_unit`` / ``solve`` / ``get_model``. How each one honours a time
limit decides how it is run here (measured with hermax 1.2.10):

=================  =======================================  ===============================
name               hermax class                             time limit
=================  =======================================  ===============================
uwrmaxsat          ``incremental.UWrMaxSAT`` (exact)        terminate callback: stops with
                                                            its best model ("feasible"),
                                                            but polls it rarely (measured:
                                                            up to 50 s late on a 10 s
                                                            limit), so it runs in a child
                                                            process killed ``KILL_GRACE``
                                                            seconds after the limit
evalmaxsat         ``incremental.EvalMaxSAT`` (exact)       not interruptible: solved in a
                                                            child process, killed at the
                                                            limit (no model then)
loandra, nuwls,    ``non_incremental.incomplete.*``         hermax runs them in a worker
open-wbo-inc,      (Loandra, NuWLSCIBR, OpenWBOInc,         process and kills it at the
spb-maxsat,        SPBMaxSATCFPS, TTOpenWBOInc)             limit: the incumbent is lost
tt-open-wbo-inc                                             (no model then)
=================  =======================================  ===============================

None of them reports intermediate solutions through hermax, so ``trace`` and ``progress``
hold one point, the final model. The incomplete solvers' "OPTIMUM" only means that they
returned; it is not a proof, so their status is "feasible" (and "unknown" when they return
no model: for a local search that is no proof of UNSAT). Models are checked against the
hard clauses and their cost recomputed. ``hermax`` is imported only when a solve starts;
when it is missing the error names ``pip install occamlearn[solvers]``.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from importlib import import_module

from pysat.formula import WCNF

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult
from occamlearn.maxsat.external import model_cost
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

__all__ = ["BACKEND_CLASSES", "HERMAX_SOLVERS", "HermaxBackend", "hermax_available"]

# name -> (module, class, how the time limit is enforced, proves optimality?)
HERMAX_SOLVERS = {
    "uwrmaxsat": ("hermax.incremental", "UWrMaxSAT", "terminate", True),
    "evalmaxsat": ("hermax.incremental", "EvalMaxSAT", "child", True),
    "loandra": ("hermax.non_incremental.incomplete", "Loandra", "hermax", False),
    "nuwls": ("hermax.non_incremental.incomplete", "NuWLSCIBR", "hermax", False),
    "open-wbo-inc": ("hermax.non_incremental.incomplete", "OpenWBOInc", "hermax", False),
    "spb-maxsat": ("hermax.non_incremental.incomplete", "SPBMaxSATCFPS", "hermax", False),
    "tt-open-wbo-inc": ("hermax.non_incremental.incomplete", "TTOpenWBOInc", "hermax", False),
}
KILL_GRACE = 2.0  # seconds a child with its own deadline gets to report before it is killed
STATUS_NAMES = {"OPTIMUM": "optimal", "INTERRUPTED_SAT": "feasible", "UNSAT": "unsatisfiable"}


def hermax_available() -> bool:
    try:
        import_module("hermax")
    except ImportError:
        return False
    return True


def _solver_class(name: str):
    module, cls, _, _ = HERMAX_SOLVERS[name]
    try:
        return getattr(import_module(module), cls)
    except ImportError as exc:
        raise ImportError(f"MaxSAT solver {name!r} needs the hermax package: "
                          "pip install occamlearn[solvers]") from exc


def _load(solver, wcnf: WCNF) -> None:
    """Hard clauses, then soft units (non-unit soft clauses get a relaxation variable)."""
    for clause in wcnf.hard:
        solver.add_clause([int(lit) for lit in clause])
    top = wcnf.nv
    for clause, weight in zip(wcnf.soft, wcnf.wght):
        if len(clause) == 1:
            solver.add_soft_unit(int(clause[0]), int(weight))
        else:
            top += 1
            solver.add_soft_relaxed([int(lit) for lit in clause], int(weight), relax_var=top)


def _solve_here(name: str, wcnf: WCNF, time_limit: float | None):
    """(hermax status name, model or None) solved in this process."""
    solver = _solver_class(name)()
    try:
        _load(solver, wcnf)
        mode = HERMAX_SOLVERS[name][2]
        if mode == "terminate" and time_limit is not None:
            # the seconds crossed a process boundary (the child's clock is its own)
            deadline = Deadline.after(time_limit)
            solver.set_terminate(lambda: int(deadline.expired()))
            found = solver.solve()
        elif mode == "hermax":
            found = solver.solve(time_limit=time_limit)
        else:
            found = solver.solve()
        status = solver.get_status().name
        return status, (list(solver.get_model()) if found else None)
    finally:
        solver.close()


def _solve_in_child(name: str, wcnf: WCNF, time_limit: float | None):
    """``_solve_here`` in a child Python process, killed (no model) after the limit.

    A solver with a terminate callback gets the limit itself and ``KILL_GRACE`` seconds more
    to report its best model; the others are killed at the limit.
    """
    own_limit = time_limit if HERMAX_SOLVERS[name][2] == "terminate" else None
    request = pickle.dumps((name, wcnf.hard, wcnf.soft, wcnf.wght, wcnf.nv, own_limit))
    kill_after = None if time_limit is None else time_limit + (KILL_GRACE if own_limit else 0)
    child = subprocess.Popen([sys.executable, "-m", "occamlearn.maxsat.hermax_backend"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = child.communicate(request, timeout=kill_after)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return "INTERRUPTED", None
    if child.returncode != 0:
        raise RuntimeError(f"hermax solver {name!r} failed in its child process: "
                           f"{err.decode(errors='replace')[-500:]}")
    return pickle.loads(out)


class HermaxBackend(MaxSATBackend):
    """One hermax MaxSAT solver; subclasses set ``name`` (a key of ``HERMAX_SOLVERS``)."""

    name = "uwrmaxsat"

    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        deadline = Deadline.coerce(deadline)
        progress = ProgressSink.coerce(progress)
        _solver_class(self.name)  # ImportError naming the extra, before any work
        # the solver runs in C (or in a child process): it gets the seconds left
        time_limit = max(deadline.remaining(), 1e-3) if deadline.limited else None
        start = CLOCK()
        in_child = HERMAX_SOLVERS[self.name][2] == "child" or (
            HERMAX_SOLVERS[self.name][2] == "terminate" and time_limit is not None)
        run = _solve_in_child if in_child else _solve_here
        hermax_status, model = run(self.name, wcnf, time_limit)
        seconds = CLOCK() - start
        stats = {"seconds": seconds, "hermax_status": hermax_status, "n_vars": wcnf.nv,
                 "n_hard": len(wcnf.hard), "n_soft": len(wcnf.soft)}
        complete = HERMAX_SOLVERS[self.name][3]
        if model is None:  # an incomplete solver's "UNSAT" may only mean "none found"
            status = "unsatisfiable" if hermax_status == "UNSAT" and complete else "unknown"
            return MaxSATResult(status, None, None, 0, [], stats)
        model = [lit for lit in model if abs(lit) <= wcnf.nv]
        cost = model_cost(wcnf, model)
        status = STATUS_NAMES.get(hermax_status, "feasible")
        if status == "optimal" and not complete:
            status = "feasible"  # an incomplete solver's "OPTIMUM" is no proof
        lower = cost if status == "optimal" else 0
        progress.report(cost, lower or None, deadline.elapsed(), model)
        return MaxSATResult(status, cost, model, lower, [(seconds, cost)], stats)


class UWrMaxSATBackend(HermaxBackend):
    """UWrMaxSat (exact; with a limit, in a child that reports its best model)."""
    name = "uwrmaxsat"


class EvalMaxSATBackend(HermaxBackend):
    """EvalMaxSAT (exact, run in a child process)."""
    name = "evalmaxsat"


class LoandraBackend(HermaxBackend):
    """Loandra (incomplete: core-boosted linear search)."""
    name = "loandra"


class NuWLSBackend(HermaxBackend):
    """NuWLS-c-IBR (incomplete: local search)."""
    name = "nuwls"


class OpenWBOIncBackend(HermaxBackend):
    """Open-WBO-Inc (incomplete)."""
    name = "open-wbo-inc"


class SPBMaxSATBackend(HermaxBackend):
    """SPB-MaxSAT-c-FPS (incomplete: local search)."""
    name = "spb-maxsat"


class TTOpenWBOIncBackend(HermaxBackend):
    """TT-Open-WBO-Inc (incomplete; Table 5's TT-Open-WBO-Inc-21 is an earlier version)."""
    name = "tt-open-wbo-inc"


BACKEND_CLASSES = {cls.name: cls for cls in (
    UWrMaxSATBackend, EvalMaxSATBackend, LoandraBackend, NuWLSBackend, OpenWBOIncBackend,
    SPBMaxSATBackend, TTOpenWBOIncBackend)}


def _child_main() -> None:
    name, hard, soft, weights, n_vars, time_limit = pickle.loads(sys.stdin.buffer.read())
    wcnf = WCNF()
    wcnf.hard, wcnf.soft, wcnf.wght, wcnf.nv = hard, soft, weights, n_vars
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # native solvers may print to stdout
    answer.write(pickle.dumps(_solve_here(name, wcnf, time_limit)))
    answer.close()


if __name__ == "__main__":
    _child_main()
