"""DT(max) at depth 3, base against head: fit CPU seconds and the search's counts, alternated.

Each fit runs in its own process with one checkout's ``src`` first on ``PYTHONPATH``, after a
warm-up fit on 20 rows and ``warm_kernels`` (a fresh checkout compiles there, not in the
fit): ``MaxAccuracyTreeClassifier(max_depth=D, time_limit=T)`` (the default) on the
continuous tables of ``dtmax_continuous.py`` (64 % stratified split,
``random_state=0``). Base and head alternate table by table, so load drifts hit both; CPU
seconds (``time.process_time``) are less noisy than wall on a shared machine, and the counts
(root-threshold evaluations, depth-2 calls and their root tests, block refinements) do not
depend on the machine at all. Run by hand::

    python benchmarks/dtmax_search_ab.py --base /path/to/base/src \
        --out benchmarks/results/dtmax_depth3_ab.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ("breast_cancer", "wine", "digits", "make_classification_5000",
          "make_classification_20000")
COUNTS = ("evaluations", "depth2_calls", "depth2_evaluations", "block_refinements")


def worker(table: str, depth: int, limit: float) -> dict:
    sys.path.insert(0, HERE)
    from dtmax_continuous import training_table

    from occamlearn import MaxAccuracyTreeClassifier

    X, y, _ = training_table(table)
    MaxAccuracyTreeClassifier(max_depth=depth).fit(X[:20], y[:20])
    from occamlearn.trees.dtmax.ordered.solve import warm_kernels

    warm_kernels()          # every kernel compiled or loaded before the timed fit
    model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=limit)
    began, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    row = {"seconds": time.perf_counter() - began, "cpu": time.process_time() - cpu,
           "status": model.status_, "errors": float(model.training_errors_),
           "nodes": int(model.n_nodes_)}
    row.update({name: int(model.solve_stats_.get(name, 0)) for name in COUNTS})
    return row


def in_subprocess(src: str, table: str, depth: int, limit: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", table,
                           str(depth), str(limit)], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _commit() -> str:
    done = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True,
                          text=True, cwd=HERE)
    return done.stdout.strip()[:100] or "unknown"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--base", required=False, help="src folder of the base checkout")
    parser.add_argument("--head", default=os.path.join(HERE, "..", "src"))
    parser.add_argument("--tables", nargs="+", default=list(TABLES))
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--out", help="write the results (Markdown) here")
    args = parser.parse_args(argv)
    if args.worker:
        table, depth, limit = args.worker
        print(json.dumps(worker(table, int(depth), float(limit))))
        return
    if not args.base:
        parser.error("--base is required")
    load_before = os.getloadavg()
    lines = ["| table | checkout | CPU s | wall s | status | errors | nodes | "
             + " | ".join(COUNTS) + " |", "|" + "---|" * (7 + len(COUNTS))]
    total = {"base": 0.0, "head": 0.0}
    for table in args.tables:
        for name, src in (("base", args.base), ("head", args.head)):
            row = in_subprocess(src, table, args.depth, args.time_limit)
            total[name] += row["cpu"]
            lines.append(f"| {table} | {name} | {row['cpu']:.2f} | {row['seconds']:.2f} | "
                         f"{row['status']} | {row['errors']:g} | {row['nodes']} | "
                         + " | ".join(str(row[c]) for c in COUNTS) + " |")
            print(lines[-1], flush=True)
    command = "python benchmarks/dtmax_search_ab.py " + " ".join(argv or sys.argv[1:])
    text = "\n".join([
        "# DT(max) base against head: CPU and search counts", "",
        f"Command: `{command}`  ", f"Commit: {_commit()}  ",
        f"Machine: {os.cpu_count()} cores, load average before "
        f"{tuple(round(v, 2) for v in load_before)}, after "
        f"{tuple(round(v, 2) for v in os.getloadavg())}. The machine was shared with other "
        "jobs: read the counts and the CPU ratios, not absolute seconds.", "",
        f"Depth {args.depth}, time limit {args.time_limit:g} s.", "", *lines, "",
        f"CPU total: base {total['base']:.2f} s, head {total['head']:.2f} s, head/base "
        f"{total['head'] / max(total['base'], 1e-9):.2f}.", ""])
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
