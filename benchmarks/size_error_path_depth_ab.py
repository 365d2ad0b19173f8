"""The depth-bounded size-error path (``MaxAccuracyTreeClassifier(max_depth=D, max_leaves=L)
.size_error_path``, the route through ``trees.size_error.depth_bounded``) on every bundled
table, source trees alternated, in CPU seconds.

Each run is a fresh process with the source tree first on ``PYTHONPATH``: the raw table's
stratified 64 % training split (as ``size_error_path.table_path``), the kernels warmed, the
path once untimed (first-call costs), then ``--repeats`` timed calls whose CPU seconds
(``time.process_time``) are summed. The trees alternate per table and round, so a head and
its base meet the same load. The errors of every point must agree between the trees
(``same`` column).

    python benchmarks/size_error_path_depth_ab.py --src /tmp/base/src src \\
        --out benchmarks/results/size_error_path_depth_ab.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from result_file import publish  # noqa: E402
from size_error_path import DATASETS  # noqa: E402


def worker(name: str, depth: int, leaves: int, calls: int) -> dict:
    """One table's depth-bounded path, ``calls`` times after one untimed call."""
    import warnings

    from sklearn.model_selection import train_test_split

    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.datasets import load_dataset

    warnings.simplefilter("ignore")
    X, y = load_dataset(name)
    X, _, y, _ = train_test_split(X, y, train_size=0.64, stratify=y, random_state=0)
    estimator = MaxAccuracyTreeClassifier(max_depth=depth, max_leaves=leaves, time_limit=None)
    path = estimator.size_error_path(X, y)
    start = time.process_time()
    for _ in range(calls):
        path = estimator.size_error_path(X, y)
    return {"cpu": time.process_time() - start, "status": path.status,
            "errors": [float(e) for e in path.errors]}


def run(src: str, name: str, depth: int, leaves: int, calls: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name,
                           str(depth), str(leaves), str(calls)], capture_output=True, text=True,
                          env=env, timeout=1800)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--src", nargs="+", default=["src"], help="source trees, alternated")
    parser.add_argument("--max-depth", type=int, default=3)
    parser.add_argument("--max-leaves", type=int, default=8)
    parser.add_argument("--calls", type=int, default=3, help="timed calls per process")
    parser.add_argument("--repeats", type=int, default=2, help="alternated rounds")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.worker:
        name, depth, leaves, calls = args.worker
        print(json.dumps(worker(name, int(depth), int(leaves), int(calls))))
        return
    load = os.getloadavg()[0]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    lines = [f"`python benchmarks/size_error_path_depth_ab.py {' '.join(sys.argv[1:])}` at "
             f"commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
             f"average {load:.1f} at the start", "",
             f"# Depth-bounded size_error_path (max_depth={args.max_depth}, max_leaves="
             f"{args.max_leaves}), CPU seconds of {args.calls} calls, {args.repeats} rounds "
             "alternated", "",
             "| table | " + " | ".join(f"CPU s {s}" for s in args.src)
             + " | last/first | status | same |", "|---" * (len(args.src) + 4) + "|"]
    totals = [0.0] * len(args.src)
    for name in args.datasets:
        cpu, errors, status = [0.0] * len(args.src), [None] * len(args.src), "?"
        for _ in range(args.repeats):
            for i, src in enumerate(args.src):
                result = run(src, name, args.max_depth, args.max_leaves, args.calls)
                if "error" in result:
                    cpu[i], status = float("nan"), result["error"]
                    continue
                cpu[i] += result["cpu"]
                errors[i], status = result["errors"], result["status"]
        totals = [t + c for t, c in zip(totals, cpu, strict=True)]
        same = all(e == errors[0] for e in errors)
        row = (f"| {name} | " + " | ".join(f"{c:.2f}" for c in cpu)
               + f" | {cpu[-1] / cpu[0]:.2f} | {status} | {'yes' if same else '**NO**'} |")
        lines.append(row)
        print(row, flush=True)
    lines.append("| **total** | " + " | ".join(f"{t:.2f}" for t in totals)
                 + f" | {totals[-1] / totals[0]:.2f} | | |")
    lines += ["", f"Load average at the end: {os.getloadavg()[0]:.1f}."]
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
