"""The anytime lower bound of DT(max) against CPU seconds, with the block bounds of
``trees.dtmax.ordered.blocks`` and without them, both fits running at the same time.

On a shared machine wall seconds say little; the two fits run side by side (same load) and
each reports the bound it has proven by given CPU seconds of its own process, then its end:
errors, bound, status, threshold evaluations. ``without`` disables the blocks
(``blocks.pays`` returns False). Run by hand::

    python benchmarks/dtmax_bound_cpu.py --table make_classification_20000 --out out.md
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(table: str, depth: int, limit: float, blocks_on: bool, marks: list) -> dict:
    sys.path.insert(0, HERE)
    from dtmax_continuous import training_table

    from occamlearn.stopping import Deadline
    from occamlearn.trees.dtmax.data import OrderedData
    from occamlearn.trees.dtmax.entry import find_most_accurate_tree
    from occamlearn.trees.dtmax.ordered import blocks

    if not blocks_on:
        blocks.pays = lambda depth, n_rows: False
    X, y, _ = training_table(table)
    data = OrderedData.from_matrix(X, y, int(y.max()) + 1)
    find_most_accurate_tree(OrderedData.from_matrix(X[:30], y[:30], 2), max_depth=depth)
    started = time.process_time()
    state = {"lower": 0.0, "upper": None, "at": {}}

    class Sink:
        def report(self, upper=None, lower=None, seconds=0.0, model=None):
            cpu = time.process_time() - started
            for mark in marks:
                if cpu >= mark and mark not in state["at"]:
                    state["at"][mark] = (state["lower"], state["upper"])
            if lower is not None:
                state["lower"] = lower
            if upper is not None:
                state["upper"] = upper

    result = find_most_accurate_tree(data, max_depth=depth, deadline=Deadline.after(limit),
                                     progress=Sink())
    return {"at": {str(k): v for k, v in state["at"].items()}, "errors": result.errors,
            "lower": result.errors_lower_bound, "status": result.status,
            "cpu": time.process_time() - started,
            "evaluations": result.stats.get("evaluations")}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--table", default="make_classification_20000")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=120.0, help="wall seconds")
    parser.add_argument("--marks", type=float, nargs="+", default=[10, 20, 30, 40, 60])
    parser.add_argument("--out", help="write the results (Markdown) here")
    args = parser.parse_args(argv)
    if args.worker:
        table, depth, limit, on = args.worker
        print(json.dumps(worker(table, int(depth), float(limit), on == "1", args.marks)))
        return
    load_before = os.getloadavg()
    runs = {}
    for name, on in (("with blocks", "1"), ("without", "0")):
        runs[name] = subprocess.Popen(
            [sys.executable, __file__, "--worker", args.table, str(args.depth),
             str(args.time_limit), on, "--marks", *map(str, args.marks)],
            stdout=subprocess.PIPE, text=True)
    results = {name: json.loads(p.communicate()[0].strip().splitlines()[-1])
               for name, p in runs.items()}
    commit = subprocess.run(["git", "log", "--oneline", "-1"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines = ["# DT(max): the anytime bound against CPU seconds, blocks on and off\n",
             f"Command: `python benchmarks/dtmax_bound_cpu.py {' '.join(argv or sys.argv[1:])}`  ",
             f"Commit: {commit}  ",
             f"Machine: {os.cpu_count()} cores, shared; load average before "
             f"{tuple(round(v, 2) for v in load_before)}, after "
             f"{tuple(round(v, 2) for v in os.getloadavg())}. Both fits ran at the same time.\n",
             f"{args.table}, depth {args.depth}, default objective; `[bound, best]` proven by "
             "each CPU second of the fit's process.\n",
             "| run | " + " | ".join(f"CPU {m:g} s" for m in args.marks)
             + " | end: errors (bound, status), CPU s, evaluations |",
             "|---|" + "---|" * (len(args.marks) + 1)]
    for name, r in results.items():
        cells = " | ".join(
            "[{:g}, {}]".format(*r["at"][str(float(m))]) if str(float(m)) in r["at"]
            else "" for m in args.marks)
        lines.append(f"| {name} | {cells} | {r['errors']:g} ({r['lower']:g}, {r['status']}), "
                     f"{r['cpu']:.1f}, {r['evaluations']} |")
    print("\n".join(lines))
    if args.out:
        pathlib.Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
