"""Do the learners keep their limits? Wall time, peak memory and the model returned, per case.

Each case (``limits_cases.CASES``: the tables of issue 31 and the earlier large inputs) runs in
a process of its own (``python benchmarks/limits.py --case NAME``), so its peak RSS is its own
(``getrusage(RUSAGE_SELF).ru_maxrss`` of the child, imports included) and a runaway case is
killed at a hard limit instead of taking the run with it. ``--load N`` runs the cases again
while N busy-loop processes keep the cores busy (a ``stress``-like load).

The table: the time_limit asked for; the process's wall seconds (start-up, imports, data, fit,
exit) against issue 31's bar ``limit * 1.1 + 2``; the fit's own seconds against the tests'
rule ``limit * 1.1 + 1``; the seconds to the first tree (from the fit's trace, where there is
one); the peak RSS against 2 GB; the status and size returned. A case without a time limit
(an estimator that has none) says n/a.

    python benchmarks/limits.py --load 2 --out benchmarks/results/limits_loaded7.md

``--src A B`` runs each case once per source tree, alternated (base against head in one
sitting; the table gets a ``src`` column).

What the columns around the fit hold. Before the fit: the interpreter, then ``sklearn.base``
(which imports scipy.stats, scipy.optimize and pandas itself: 0.66-0.70 of the 0.8-1.0
CPU-seconds before an idle fit, and the user's own cost), our estimator modules (0.06-0.07
CPU-s: no numba, no compiled kernel, no search, no scikit-learn tree: ``fit`` imports those
under its deadline), the case's data; ``startup_parts.py`` times these apart
(``benchmarks/results/startup_parts.md``: beside two busy loops each CPU-second of them took
2-4 s of wall). After the fit: the ``atexit`` handlers, then the interpreter's teardown.
That teardown was mostly the cyclic garbage collector's passes over every object (0.3-1.1 s
idle, several seconds under load); a fitted process now freezes the collector at exit
(``estimators._process_exit``), so what is left is releasing the objects. The ``occamlearn``
command skips the teardown entirely (``cli.run``: handlers, flush, ``os._exit``), and its
``--time-limit`` counts from the process's start.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from limits_cases import CASES  # noqa: E402

MEMORY_BAR_MB = 2048


def _seconds_since_process_start() -> float:
    """Seconds since this process was started (its interpreter, imports, data: what a user's
    script pays before ``fit``)."""
    from occamlearn.stopping import process_seconds

    return process_seconds()


def run_case(name: str) -> dict:
    """Fit one case in this process: its seconds, peak RSS and what it returned."""
    case = CASES[name]
    started_up = _seconds_since_process_start()
    estimator, X, y, fit_options = case.build()
    if case.method == "fits":
        return _run_fits(estimator, X, fit_options, started_up)
    if case.time_limit is not None and "time_limit" in estimator.get_params():
        estimator.set_params(time_limit=case.time_limit)
    limited = "time_limit" in estimator.get_params()
    before_fit_cpu, start = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what was dropped or folded is read off the model
        if case.method == "size_error_path":
            path = estimator.size_error_path(X, y, **fit_options)
            model = path.models[-1]
        else:
            model = estimator.fit(X, y, **fit_options)
    seconds = time.perf_counter() - start
    out = {"fit_seconds": seconds, "limited": limited, "startup_seconds": started_up,
           "before_fit_seconds": _seconds_since_process_start() - seconds,
           "before_fit_cpu_seconds": before_fit_cpu, "peak_rss_mb": _peak_rss_mb()}
    if case.method == "size_error_path":
        out.update(status=path.status, size=f"{len(path)} points")
    elif hasattr(model, "tree_"):
        out.update(status=model.status_, size=int(model.n_nodes_))
        trace = model.solve_stats_.get("trace") or []
        if trace:
            out["first_tree_seconds"] = float(trace[0][0])
    else:
        out.update(status=getattr(model, "stop_reason_", "?"), size=len(model.rules_))
    return out


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run_fits(pairs, X, fit_options, started_up) -> dict:
    """Fit each ``(estimator, y)`` in turn in this process (each with its own defaults): the
    process's peak RSS after each, so the fit that raised it is named."""
    before_fit_cpu, start, parts = time.process_time(), time.perf_counter(), []
    for estimator, y in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = estimator.fit(X, y, **fit_options)
        status = getattr(model, "status_", None) or getattr(model, "stop_reason_", "?")
        parts.append(f"{type(model).__name__}: {status}, peak {_peak_rss_mb():.0f} MB")
    seconds = time.perf_counter() - start
    return {"fit_seconds": seconds, "limited": False, "startup_seconds": started_up,
            "before_fit_seconds": _seconds_since_process_start() - seconds,
            "before_fit_cpu_seconds": before_fit_cpu, "peak_rss_mb": _peak_rss_mb(),
            "status": "; ".join(parts), "size": ""}


def _cli_report(stdout: str) -> dict:
    """What ``occamlearn fit`` printed: the fit's seconds, status and size."""
    fit = re.search(r"total ([0-9.]+) s", stdout)
    size = re.search(r"size: (\d+) nodes, (?:depth \d+ \([^)]*\), )?status (\w+)", stdout)
    return {"fit_seconds": float(fit.group(1)) if fit else None, "limited": True,
            "status": size.group(2) if size else "?", "size": size.group(1) if size else ""}


def measure(name: str, src: str | None = None) -> dict:
    """Run ``name`` in a child process; wall time and the child's report. A ``cli`` case runs
    the command ``occamlearn ARGS`` (as ``python -m occamlearn``), whose ``--time-limit``
    counts from its start. ``src``: the source tree the child imports occamlearn from (None:
    this process's ``PYTHONPATH``)."""
    case = CASES[name]
    env = None if src is None else {**os.environ, "PYTHONPATH": src}
    start = time.perf_counter()
    row = {"case": name, "time_limit": case.time_limit, "load_before": os.getloadavg()[0]}
    if src is not None:
        row["src"] = src
    command = ([sys.executable, "-m", "occamlearn", *case.build()] if case.method == "cli"
               else [sys.executable, __file__, "--case", name])
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=case.hard_limit,
                              env=env)
    except subprocess.TimeoutExpired:
        row.update(wall_seconds=time.perf_counter() - start,
                   error=f"killed at the hard limit of {case.hard_limit:g} s")
        return row
    row["wall_seconds"] = time.perf_counter() - start
    row["load_after"] = os.getloadavg()[0]
    if done.returncode != 0:  # a negative code is the signal that ended the child
        last = (done.stderr.strip().splitlines() or ["no message"])[-1][:200]
        row["error"] = f"exit code {done.returncode}: {last}"
        return row
    if case.method == "cli":
        row.update(_cli_report(done.stdout))
    else:
        row.update(json.loads(done.stdout.strip().splitlines()[-1]))
    if row.get("fit_seconds") is not None and row.get("before_fit_seconds") is not None:
        row["after_fit_seconds"] = (row["wall_seconds"] - row["before_fit_seconds"]
                                    - row["fit_seconds"])
    return row


def _busy_loops(count: int) -> list:
    """``count`` processes that spin until killed (a ``stress --cpu count``)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(count)]


def _verdicts(row: dict) -> tuple[str, str]:
    """(fit kept, wall kept): the tests' rule for the fit, issue 31's bar for the process."""
    limit = row["time_limit"]
    if "error" in row:
        return "no (" + row["error"] + ")", ""
    if limit is None or not row.get("limited"):
        return "n/a", "n/a"
    if row.get("fit_seconds") is None:
        return "?", ""
    fit_over = row["fit_seconds"] - (limit * 1.1 + 1)
    wall_over = row["wall_seconds"] - (limit * 1.1 + 2)
    return ("yes" if fit_over <= 0 else f"**no** (+{fit_over:.1f} s)",
            "yes" if wall_over <= 0 else f"no (+{wall_over:.1f} s)")


def _number(value, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict]) -> str:
    with_src = any("src" in row for row in rows)
    lines = ["| case | " + ("src | " if with_src else "")
             + "load | load avg | time_limit (s) | fit (s) | fit kept | before fit (s) | "
             "before fit CPU (s) | "
             "after fit (s) | wall (s) | wall kept | first tree (s) | peak RSS (MB) | status | "
             "size |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
             + ("---|" if with_src else "")]
    for row in rows:
        limit, rss = row["time_limit"], row.get("peak_rss_mb")
        fit_kept, wall_kept = _verdicts(row)
        memory = "" if rss is None else f"{rss:.0f}" + ("" if rss < MEMORY_BAR_MB else " **over**")
        lines.append(
            f"| {row['case']} | " + (f"{row.get('src', '')} | " if with_src else "")
            + f"{row['load']} | {_number(row.get('load_before'))}-"
            f"{_number(row.get('load_after'))} | {'none' if limit is None else f'{limit:g}'} | "
            f"{_number(row.get('fit_seconds'))} | {fit_kept} | "
            f"{_number(row.get('before_fit_seconds'))} | "
            f"{_number(row.get('before_fit_cpu_seconds'), 2)} | "
            f"{_number(row.get('after_fit_seconds'))} | {row['wall_seconds']:.1f} | "
            f"{wall_kept} | {_number(row.get('first_tree_seconds'))} | {memory} | "
            f"{row.get('status', '')} | {row.get('size', '')} |")
    return "\n".join(lines) + "\n"


def _header(argv) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=Path(__file__).parent).stdout.strip()
    return (f"# Limits: wall time, first tree and peak RSS vs time_limit\n\n"
            f"`python benchmarks/limits.py {' '.join(argv)}` at commit {commit}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python "
            f"{sys.version.split()[0]}, {os.cpu_count()} cores, load average "
            f"{os.getloadavg()[0]:.1f} at the start (a shared machine: other work ran too).\n"
            f"Bars: fit <= limit * 1.1 + 1 s (the tests' rule), wall <= limit * 1.1 + 2 s "
            f"(issue 31's, start-up included), peak RSS < 2 GB. `load` is the number of "
            f"busy-loop processes run beside the case (ours), `load avg` the machine's 1-minute "
            f"load average when the case started and ended (everything else on the machine); "
            f"before fit = the seconds from the process's start to the fit's (interpreter, "
            f"imports, data), before fit CPU its CPU seconds; after fit = wall - before fit - "
            f"fit (the process's exit, and starting it). A `cli-` case runs `python -m "
            f"occamlearn fit ...`, whose --time-limit counts from the command's start (its fit "
            f"gets what start-up and reading left; before and after fit are not split there)."
            f"\n\n")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), help="run one case here (child)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--load", nargs="+", type=int, default=[0],
                        help="busy-loop processes beside each run (e.g. 0 2)")
    parser.add_argument("--src", nargs="+", default=[None],
                        help="source trees to import occamlearn from, alternated case by "
                             "case (e.g. a base checkout's src and src)")
    parser.add_argument("--out", help="write the Markdown table here too")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case)))
        return 0
    header, rows = _header(argv), []
    for load in args.load:
        for name in args.cases:  # one at a time, each its own process
            for src in args.src:  # base and head alternated, in one sitting
                loops = _busy_loops(load)
                try:
                    rows.append({**measure(name, src), "load": load})
                finally:
                    for loop in loops:
                        loop.kill()
                        loop.wait()
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    legend = "\n".join(f"- `{name}`: {CASES[name].what}" for name in args.cases)
    emit(header + table(rows) + "\nCases:\n" + legend + "\n", args.out)
    return 0


def emit(text: str, out: str | None) -> None:
    """Print a result table, and write it to ``out`` too when given."""
    sys.stdout.write(text)
    if out:
        Path(out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
