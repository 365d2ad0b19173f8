"""Any MaxSAT solver executable as a back-end, through the MaxSAT Evaluation I/O conventions.

Table 5 compares the MPDT encoding under the best incomplete solvers of the MaxSAT Evaluation
(SATLike-c, TT-Open-WBO-Inc, ...). Those are programs, so this back-end writes the WCNF to a
temporary file (MaxSAT Evaluation 2022 format by default, ``format="legacy"`` for older
solvers), runs a user-given command and reads its standard output:

- ``o COST`` -- a better solution was found; each is timestamped when the line arrives and
  becomes a point of the anytime ``trace``;
- ``s OPTIMUM FOUND`` / ``s SATISFIABLE`` / ``s UNSATISFIABLE`` / ``s UNKNOWN``;
- ``v ...`` -- the model, either the 2022 compact bit string (``v 0110``, character i is
  variable i + 1) or the legacy literal list (``v 1 -2 3 ...``, possibly over several lines).

The time limit is enforced from outside, and within it: SIGTERM to the solver's process
group ``kill_grace`` seconds before the limit (the Evaluation rules ask solvers to print their
best model then; the grace is at most a quarter of the limit), SIGKILL at the limit, so even a
solver that ignores SIGTERM is gone when the deadline is up (or its stop requested); whatever
``o``/``v`` lines arrived by then are used. The model is checked against the hard clauses and its
cost recomputed; a model that breaks a hard clause raises RuntimeError.

A solver that stops by itself without a status line or a model (it crashed, the command is
wrong, ``false``) raises ``ExternalSolverError`` (a RuntimeError) with its exit code and the
end of its standard error: its silence is never read as "no better tree found".

``command`` holds ``{wcnf}`` where the file path goes (appended when absent) and optionally
``{time_limit}`` (whole seconds). ``make_backend("external")`` takes the command from the
environment variable ``OCCAMLEARN_MAXSAT_COMMAND``. ``progress`` gets one report, of the
final model: solvers print no model before they stop, so the ``o`` lines are in ``trace`` and
``stats["o_lines"]`` only.
"""

from __future__ import annotations

import math
import os
import shlex
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from pysat.formula import WCNF

from occamlearn.maxsat.base import MaxSATBackend, MaxSATResult
from occamlearn.stopping import CLOCK, Deadline, ProgressSink

__all__ = ["COMMAND_VARIABLE", "ExternalBackend", "ExternalSolverError", "model_cost",
           "parse_solver_output"]

COMMAND_VARIABLE = "OCCAMLEARN_MAXSAT_COMMAND"
FORMATS = ("mse22", "legacy")
S_LINES = {"OPTIMUM FOUND": "optimal", "SATISFIABLE": "feasible",
           "UNSATISFIABLE": "unsatisfiable", "UNKNOWN": "unknown"}
STDERR_KEPT = 4000  # characters of the solver's standard error kept for the error message
WAIT_SLICE = 0.2  # seconds between two looks at the deadline while the program runs


class ExternalSolverError(RuntimeError):
    """The external solver ended without an answer; the message holds its exit code and the
    end of its standard error. ``user_facing``: the command line prints it as one line."""

    user_facing = True


def _parse_model(v_tokens: list[str], n_vars: int) -> list[int] | None:
    """Literals of variables 1..n_vars from the payload of the ``v`` lines (either format)."""
    if not v_tokens:
        return None
    if len(v_tokens) == 1 and set(v_tokens[0]) <= {"0", "1"}:
        bits = v_tokens[0]
        return [i if i <= len(bits) and bits[i - 1] == "1" else -i for i in range(1, n_vars + 1)]
    value = {}
    for token in v_tokens:
        try:
            literal = int(token)
        except ValueError:
            raise ExternalSolverError(f"the solver's 'v' line holds {token[:20]!r}, which is "
                                      "neither a literal nor a 0/1 string") from None
        if literal:
            value[abs(literal)] = literal > 0
    return [i if value.get(i, False) else -i for i in range(1, n_vars + 1)]


def parse_solver_output(lines, n_vars: int) -> dict:
    """``{"status", "model", "o_lines"}`` from timestamped output lines ``[(seconds, text)]``.

    ``status`` is the last ``s`` line's meaning (None without one); ``o_lines`` lists
    (seconds, cost). A new ``s`` or compact ``v`` line replaces an earlier model.
    """
    status, o_lines, v_tokens = None, [], []
    for seconds, text in lines:
        text = text.strip()
        if text.startswith("o "):
            try:
                o_lines.append((seconds, int(text[2:].split()[0])))
            except (ValueError, IndexError):
                continue
        elif text.startswith("s "):
            status = S_LINES.get(text[2:].strip().upper(), status)
        elif text.startswith("v"):
            tokens = text[1:].split()
            if len(tokens) == 1 and set(tokens[0]) <= {"0", "1"} and len(tokens[0]) > 1:
                v_tokens = []  # a compact model replaces any earlier one
            v_tokens.extend(tokens)
    return {"status": status, "model": _parse_model(v_tokens, n_vars), "o_lines": o_lines}


def model_cost(wcnf: WCNF, model: list[int]) -> int:
    """Weight of the soft clauses ``model`` falsifies; RuntimeError if it breaks a hard one."""
    true = set(model)
    for clause in wcnf.hard:
        if not any(lit in true for lit in clause):
            raise RuntimeError(f"the solver's model falsifies the hard clause {clause}")
    return sum(w for clause, w in zip(wcnf.soft, wcnf.wght)
               if not any(lit in true for lit in clause))


class ExternalBackend(MaxSATBackend):
    """A MaxSAT solver program; ``command`` like ``"loandra {wcnf}"`` (see module doc)."""

    name = "external"

    def __init__(self, sat_solver: str = "cadical195", *, command: str | None = None,
                 format: str = "mse22", kill_grace: float = 2.0):
        super().__init__(sat_solver)
        command = command if command is not None else os.environ.get(COMMAND_VARIABLE)
        if not command or not isinstance(command, str):
            raise ValueError(f"external solver needs a command (e.g. 'loandra {{wcnf}}'): pass "
                             f"command=... or set {COMMAND_VARIABLE}; got {command!r}.")
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}; got {format!r}.")
        if not isinstance(kill_grace, (int, float)) or kill_grace < 0:
            raise ValueError(f"kill_grace must be a non-negative number; got {kill_grace!r}.")
        self.command, self.format, self.kill_grace = command, format, float(kill_grace)

    def _argv(self, path: Path, time_limit: float | None) -> list[str]:
        limit = str(math.ceil(time_limit)) if time_limit is not None else "0"
        argv = [token.replace("{wcnf}", str(path)).replace("{time_limit}", limit)
                for token in shlex.split(self.command)]
        if "{wcnf}" not in self.command:
            argv.append(str(path))
        return argv

    def solve(self, wcnf: WCNF, deadline: Deadline | None = None,
              progress: ProgressSink | None = None,
              phases: list[int] | None = None) -> MaxSATResult:
        deadline = Deadline.coerce(deadline)
        progress = ProgressSink.coerce(progress)
        start = CLOCK()
        with tempfile.TemporaryDirectory(prefix="occamlearn-") as folder:
            path = Path(folder) / "instance.wcnf"
            wcnf.to_file(str(path), format=self.format)
            written = CLOCK()
            # the program gets the seconds left as its own limit, and is stopped at the deadline
            limit = max(deadline.remaining(), 1e-3) if deadline.limited else None
            lines, stopped, code, errors = self._run(self._argv(path, limit), start, deadline)
        parsed = parse_solver_output(lines, wcnf.nv)
        model, status, cost = parsed["model"], parsed["status"], None
        if not stopped and parsed["status"] is None and model is None:
            raise ExternalSolverError(self._failure(code, errors))
        if status == "unsatisfiable":
            model = None
        elif model is not None:
            cost = model_cost(wcnf, model)
            status = "optimal" if status == "optimal" else "feasible"
        else:
            status = "unknown"
        seconds = CLOCK() - start
        trace = _improving([(t, c) for t, c in parsed["o_lines"]])
        if cost is not None and (not trace or trace[-1][1] > cost):
            trace.append((seconds, cost))
        stats = {"command": self.command, "format": self.format, "write_seconds": written - start,
                 "seconds": seconds, "killed": stopped, "exit_code": code,
                 "stderr_tail": errors[-STDERR_KEPT:],
                 "o_lines": parsed["o_lines"], "n_vars": wcnf.nv, "n_hard": len(wcnf.hard),
                 "n_soft": len(wcnf.soft)}
        lower = cost if status == "optimal" else 0
        if cost is not None:
            progress.report(cost, lower or None, deadline.elapsed(), model)
        return MaxSATResult(status, cost, model, lower, trace, stats)

    def _failure(self, code, errors: str) -> str:
        tail = errors.strip()[-STDERR_KEPT:]
        said = f"; its standard error ends: {tail}" if tail else "; it wrote nothing on stderr"
        return (f"the external MaxSAT solver {self.command!r} ended (exit code {code}) with "
                f"no 's' status line and no model{said}")

    def _grace(self, deadline: Deadline) -> float:
        """Seconds between SIGTERM and SIGKILL: ``kill_grace``, at most a quarter of the time
        left."""
        if not deadline.limited:
            return self.kill_grace
        return min(self.kill_grace, deadline.remaining() / 4)

    def _run(self, argv: list[str], start: float, deadline: Deadline):
        """Run ``argv``; return (timestamped stdout lines, killed by the limit?, exit code,
        standard error text). SIGTERM comes ``_grace`` seconds before the deadline (or when
        its stop is requested), SIGKILL at it."""
        try:
            process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       stdin=subprocess.DEVNULL, text=True, bufsize=1,
                                       errors="replace", start_new_session=True)
        except OSError as exc:
            raise ValueError(f"cannot run the external solver command {self.command!r}: "
                             f"{exc}") from exc
        lines: list = []
        errors: list = []

        def read():
            for text in process.stdout:
                lines.append((CLOCK() - start, text))

        def read_errors():
            kept = 0
            for text in process.stderr:
                errors.append(text)
                kept += len(text)
                while kept > 2 * STDERR_KEPT and len(errors) > 1:
                    kept -= len(errors.pop(0))

        readers = [threading.Thread(target=read, daemon=True),
                   threading.Thread(target=read_errors, daemon=True)]
        for reader in readers:
            reader.start()
        stopped = False
        grace = self._grace(deadline)
        try:
            while process.poll() is None:  # in slices, so that a requested stop reaches it
                if deadline.remaining() <= grace:
                    stopped = True
                    self._stop(process, grace)
                    break
                try:
                    process.wait(timeout=min(WAIT_SLICE, deadline.remaining() - grace))
                except subprocess.TimeoutExpired:
                    continue
        except KeyboardInterrupt:
            stopped = True
            self._stop(process, grace)
        for reader in readers:
            reader.join(timeout=1.0)
        process.stdout.close()
        process.stderr.close()
        return list(lines), stopped, process.returncode, "".join(errors)

    def _stop(self, process: subprocess.Popen, grace: float | None = None) -> None:
        """SIGTERM the process group, SIGKILL it ``grace`` seconds later."""
        grace = self.kill_grace if grace is None else grace
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, None)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue


def _improving(points: list) -> list:
    """The (seconds, cost) points where the cost strictly drops."""
    out = []
    for seconds, cost in points:
        if not out or cost < out[-1][1]:
            out.append((seconds, cost))
    return out
