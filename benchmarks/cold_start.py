"""First use on a fresh install: what compiling the kernels costs, and what a first fit sees.

Every run is its own process with ``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` pointing to
folders of its own: new and empty for a cold run (what a fresh install sees), a copy of a
complete cache for a warm one. Three parts:

1. ``families``: CPU and wall seconds to compile each kernel family into an empty cache, each
   alone in its process (``python -m occamlearn.trees.compiling.compile_child FAMILY``, the compile
   child a fit starts), and ``occamlearn warm-up`` on an empty cache (all of them, one process);
2. ``haber``: ``occamlearn fit --dataset haber`` (the default 60 s limit) cold ``--repeats``
   times and warm once: wall and CPU seconds, the result line (proven or not);
3. ``mux6``: ``occamlearn fit --dataset mux6`` cold: whether a compile process is still
   running 1 s and 10 s after the command ended (the pids come from the compile log).

The load average before each run is recorded (the machine may be shared: say so when
quoting). Each run starts after every compile child of the previous one has ended.

    python benchmarks/cold_start.py --out benchmarks/results/cold_start.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
FAMILIES = ("bnb", "error-budget", "one-error", "dtmax-dp", "dtmax-ordered")


def _env(folder: Path) -> dict:
    return {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"),
            "XDG_CACHE_HOME": str(folder / "home"),
            "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(arguments: list, folder: Path, timeout: float = 900) -> dict:
    """A fresh process: its wall and CPU seconds (with the children it waited for), stdout
    and stderr, the load average before it, and when it ended (``time.monotonic``)."""
    load = os.getloadavg()[0]
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], env=_env(folder), capture_output=True,
                          text=True, timeout=timeout)
    ended = time.monotonic()
    if done.returncode != 0:
        raise RuntimeError(f"{arguments} failed: {done.stderr[-2000:]}")
    return {"wall": time.perf_counter() - started, "cpu": _children_cpu() - cpu,
            "load": load, "out": done.stdout, "err": done.stderr, "ended": ended}


def _compile_pids(folder: Path) -> set[int]:
    """The pids of the compile children that logged into ``folder``'s numba cache."""
    pids = set()
    for log in (folder / "numba").rglob("occamlearn-compile*.log"):
        for line in log.read_text().splitlines():
            if line.startswith("{"):
                pids.add(int(json.loads(line)["pid"]))
    return pids


def _alive(pids: set[int]) -> set[int]:
    """The ``pids`` still running (a zombie, ended but not yet reaped by its new parent,
    is not)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _wait_for_children(folder: Path, limit: float = 60.0) -> None:
    """Never start the next run while a compile child of this one runs."""
    ends = time.monotonic() + limit
    while _alive(_compile_pids(folder)) and time.monotonic() < ends:
        time.sleep(0.2)


def families(workdir: Path) -> list[dict]:
    rows = []
    for name in FAMILIES:
        folder = Path(tempfile.mkdtemp(dir=workdir))
        run = _run(["-m", "occamlearn.trees.compiling.compile_child", name], folder)
        rows.append({"what": f"compile {name} alone", "wall": run["wall"], "cpu": run["cpu"],
                     "load": run["load"]})
        print(rows[-1], flush=True)
    folder = Path(tempfile.mkdtemp(dir=workdir))
    run = _run(["-m", "occamlearn.cli", "warm-up"], folder)
    rows.append({"what": "occamlearn warm-up (every family, one process)", "wall": run["wall"],
                 "cpu": run["cpu"], "load": run["load"]})
    run = _run(["-m", "occamlearn.cli", "warm-up"], folder)
    rows.append({"what": "occamlearn warm-up again (all cached)", "wall": run["wall"],
                 "cpu": run["cpu"], "load": run["load"]})
    print(rows[-2:], flush=True)
    return rows


def _result_line(out: str) -> str:
    return next((line for line in out.splitlines() if line.startswith("size:")), "?")


def haber(workdir: Path, repeats: int, warm_row: bool = True) -> list[dict]:
    warm = Path(tempfile.mkdtemp(dir=workdir))
    if warm_row:
        _run(["-m", "occamlearn.cli", "warm-up"], warm)
    rows = []
    for kind in ["cold"] * repeats + ["warm"] * warm_row:
        folder = Path(tempfile.mkdtemp(dir=workdir)) if kind == "cold" else warm
        run = _run(["-m", "occamlearn.cli", "fit", "--dataset", "haber"], folder)
        _wait_for_children(folder)
        result = _result_line(run["out"])
        rows.append({"kind": kind, "wall": run["wall"], "cpu": run["cpu"], "load": run["load"],
                     "result": result, "proven": "status optimal" in result})
        print(rows[-1], flush=True)
    return rows


def mux6(workdir: Path) -> dict:
    folder = Path(tempfile.mkdtemp(dir=workdir))
    run = _run(["-m", "occamlearn.cli", "fit", "--dataset", "mux6"], folder)
    pids = _compile_pids(folder)
    after = {}
    for seconds in (1.0, 10.0):
        time.sleep(max(0.0, run["ended"] + seconds - time.monotonic()))
        after[seconds] = sorted(_alive(pids))
    _wait_for_children(folder)
    row = {"wall": run["wall"], "cpu": run["cpu"], "load": run["load"],
           "result": _result_line(run["out"]), "compile_children": sorted(pids),
           "alive_after_1s": after[1.0], "alive_after_10s": after[10.0],
           "said_on_exit": [line for line in (run["out"] + run["err"]).splitlines()
                            if "compil" in line]}
    print(row, flush=True)
    return row


def report(family_rows, haber_rows, mux6_row, argv) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    lines = ["# Cold start: empty numba cache against a warm one", "",
             f"`python benchmarks/cold_start.py {' '.join(argv)}` at commit {commit}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores. "
             "Each run is a fresh process with its own empty (cold) or complete (warm) cache. "
             "CPU = user + system seconds of the process and of the children it waited for. "
             "Load = the 1-minute load average before the run (a shared machine: other jobs "
             "ran beside these).", ""]
    if family_rows:
        lines += ["## Compiling the kernel families", "",
                  "| what | wall (s) | CPU (s) | load |", "|---|---:|---:|---:|"]
        lines += [f"| {r['what']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['load']:.1f} |"
                  for r in family_rows]
    if haber_rows:
        proven = sum(r["proven"] for r in haber_rows if r["kind"] == "cold")
        cold = sum(r["kind"] == "cold" for r in haber_rows)
        lines += ["", "## occamlearn fit --dataset haber (default 60 s limit)", "",
                  f"Cold runs proven within the limit: {proven} of {cold}.", "",
                  "| cache | wall (s) | CPU (s) | result | load |", "|---|---:|---:|---|---:|"]
        lines += [f"| {r['kind']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['result']} | "
                  f"{r['load']:.1f} |" for r in haber_rows]
    if mux6_row:
        row = mux6_row
        lines += ["", "## occamlearn fit --dataset mux6, cold: what keeps running after it", "",
                  f"Wall {row['wall']:.1f} s, CPU {row['cpu']:.1f} s, load {row['load']:.1f}; "
                  f"result `{row['result']}`. Compile children started: "
                  f"{len(row['compile_children'])}; still running 1 s after the command "
                  f"ended: {len(row['alive_after_1s'])}; after 10 s: "
                  f"{len(row['alive_after_10s'])}."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="Markdown file for the tables")
    parser.add_argument("--repeats", type=int, default=3, help="cold haber fits")
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=("families", "haber", "warm", "mux6"),
                        help="parts to leave out ('warm': haber's warm run and its warm-up)")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="occamlearn-cold-"))
    try:
        family_rows = [] if "families" in args.skip else families(workdir)
        haber_rows = ([] if "haber" in args.skip
                      else haber(workdir, args.repeats, "warm" not in args.skip))
        mux6_row = None if "mux6" in args.skip else mux6(workdir)
        text = report(family_rows, haber_rows, mux6_row, argv)
        print(text)
        if args.out:
            Path(args.out).write_text(text)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
