"""Minimum pure decision trees by branch and bound: runtime on the paper's benchmark matrices.

Same training matrices as ``mpdt_runtime.py`` (``training_matrix``: the paper's binarisation,
conflicts majority-filtered, stratified 64 % split). Each dataset runs in its own process with
a hard time limit; the table gives rows, features, the size found, the proven lower bound,
status, seconds and the size certified by peers (MaxSAT / STreeD / GOSDT agreed) as a check:
a proven size that disagrees is flagged ``MISMATCH``. ``--peers`` adds STreeD (if
``pystreed`` is installed) on the same matrix, increasing the number of branch nodes.

    python benchmarks/bnb_runtime.py --time-limit 60 --out benchmarks/results/bnb_runtime.md
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue as queue_module
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mpdt_runtime import training_matrix  # noqa: E402

DATASETS = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber", "monks-1",
            "new-thy", "append", "wine", "audio", "titanic", "lympho", "h-votes", "hepa",
            "tic-tac-toe", "mushr", "back", "spect")
# The 14 datasets whose minimum STreeD and GOSDT both prove (their totals: about 90 s).
PEER_PROVEN = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber",
               "monks-1", "new-thy", "append", "wine", "audio", "titanic")
# Minimum sizes (nodes) certified by peers on these matrices; None where none is certified.
CERTIFIED = {"mux6": 15, "corral": 13, "irish": 9, "iris": 15, "zoo": 15, "hayes-r": 39,
             "monks-3": 29, "haber": 59, "monks-1": 29, "new-thy": 27, "append": 21, "wine": 17,
             "audio": 15, "titanic": 13, "lympho": 33, "h-votes": 27, "hepa": 21,
             "tic-tac-toe": 81}


def run_branch_and_bound(name: str, time_limit: float) -> dict:
    from occamlearn.stopping import Deadline
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound

    X, y, k = training_matrix(name)
    start, cpu = time.perf_counter(), time.process_time()
    result = find_minimum_tree_branch_and_bound(X, y, k, deadline=Deadline.after(time_limit))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"rows": len(y), "features": X.shape[1], "size": result.upper_bound,
            "lb": result.lower_bound, "status": result.status, "seconds": seconds,
            "greedy": result.trace[0][1], "calls": result.stats["calls"],
            "compile": result.stats["kernel_compile_seconds"], "engine": result.stats["engine"],
            "cpu": cpu}


def warm_kernels() -> dict:
    """Compile the kernels into numba's disk cache (or load them if already there)."""
    from occamlearn.trees.mpdt.bnb.kernels import warm_up

    return {"seconds": warm_up()}


def _child(queue, job, args):
    try:
        queue.put(job(*args))
    except Exception as error:  # noqa: BLE001 - report any failure, never hang the parent
        queue.put({"error": f"{type(error).__name__}: {error}"})


def isolated(job, args, hard_limit):
    """Run job(*args) in a fresh process; None if it outlives ``hard_limit`` seconds."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_child, args=(queue, job, args))
    process.start()
    try:
        return queue.get(timeout=hard_limit)
    except queue_module.Empty:
        return None
    finally:
        process.join(timeout=1)
        if process.is_alive():
            process.kill()


def run_peer(name: str, time_limit: float) -> dict:
    from mpdt_runtime import run_streed

    return run_streed(name, time_limit)


def _check(name: str, run: dict) -> str:
    certified = CERTIFIED.get(name)
    if certified is None:
        return "–"
    if run["status"] == "optimal" and run["size"] != certified:
        return f"**MISMATCH {certified}**"
    if run["lb"] > certified or run["size"] < certified:
        return f"**MISMATCH {certified}**"
    return f"{certified} ok" if run["status"] == "optimal" else f"{certified}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--peers", action="store_true", help="also run STreeD (pystreed)")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    args = parser.parse_args(argv)
    warm = isolated(warm_kernels, (), 600)
    print(f"kernel warm-up in a fresh process: {warm}", flush=True)
    header = ("| dataset | rows | features | greedy | size | lower bound | status | seconds | "
              "CPU s | kernel load s | search calls | certified"
              + (" | STreeD size | STreeD s" if args.peers else "") + " |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print(header, flush=True)
    total, total_certified, total_peer, mismatches = 0.0, 0.0, 0.0, 0
    for name in args.datasets:
        run = isolated(run_branch_and_bound, (name, args.time_limit),
                       args.time_limit * 1.1 + 30)
        if run is None or "error" in run:
            cells = [name] + ["–"] * 5 + [(run or {}).get("error", "crash/timeout")[:60]]
            cells += ["–"] * 5
            total += args.time_limit
        else:
            check = _check(name, run)
            mismatches += "MISMATCH" in check
            seconds = min(run["seconds"], args.time_limit)
            total += seconds
            total_certified += seconds if name in CERTIFIED else 0.0
            total_peer += seconds if name in PEER_PROVEN else 0.0
            cells = [name, str(run["rows"]), str(run["features"]), str(run["greedy"]),
                     str(run["size"]), str(run["lb"]), run["status"], f"{run['seconds']:.2f}",
                     f"{run['cpu']:.2f}", f"{run['compile']:.2f}", str(run["calls"]), check]
        if args.peers:
            peer = isolated(run_peer, (name, args.time_limit), args.time_limit + 60)
            if peer and "error" not in peer and peer.get("size"):
                cells += [str(peer["size"]), f"{peer['seconds']:.2f}"]
            else:
                cells += ["–", "–"]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    summary = (f"Per-instance time limit {args.time_limit:.0f} s (timeouts count as the limit). "
               f"Total {total:.1f} s; on the datasets with a certified size "
               f"{total_certified:.1f} s; "
               f"on the 14 both STreeD and GOSDT prove {total_peer:.1f} s."
               f" Disagreements with a certified size: {mismatches}.")
    print(summary)
    if mismatches:
        print(f"!!! {mismatches} DISAGREEMENT(S) WITH A CERTIFIED MINIMUM !!!", file=sys.stderr)
    if args.out:
        text = ["# Minimum pure decision trees by branch and bound: runtime", "",
                f"Command: `python {' '.join(sys.argv)}`", "",
                "Seconds are wall clock in a fresh process per dataset (including loading the "
                "compiled kernels from numba's disk cache, column 'kernel load s'); CPU s is the "
                "process CPU time (includes reading the data).",
                f"Kernel warm-up in a fresh process before the runs: {warm}.", "", summary, "",
                *lines, ""]
        with open(args.out, "w") as handle:
            handle.write("\n".join(text))


if __name__ == "__main__":
    main()
