"""Which side of a split the branch and bound solves first: base against head, in CPU seconds.

Each run is the compiled branch and bound alone (``find_minimum_tree_branch_and_bound``, what the
default portfolio's first round runs) in a fresh process, with its kernels loaded before the
clock starts, on one matrix of ``mpdt_bounds_ablation.matrix`` (``haber:all`` is what
``occamlearn fit --dataset haber`` searches). It records the CPU seconds of the process (not
wall: the machine is shared) at which each lower bound was proven, and the calls made. Base
and head alternate, so both see the same load. A table row gives, per run, the CPU seconds to
reach the largest bound both reached, the calls, and the last bound or the proof.

    python benchmarks/mpdt_first_side.py --base-src /tmp/base/src --datasets haber:all back \\
        --seconds 150 --repeats 2 --out benchmarks/results/mpdt_first_side.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from result_file import publish, stamp  # noqa: E402


def worker(name: str, seconds: float) -> dict:
    from mpdt_bounds_ablation import matrix

    from occamlearn.stopping import Deadline, ProgressSink
    from occamlearn.trees.mpdt.bnb import kernels
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
    from occamlearn.trees.mpdt.minimum import _column_reduction

    kernels.warm_up()
    X, y, n_classes = matrix(name)
    reduction = _column_reduction(X, y)
    X = reduction.reduce(X) if reduction is not None else X
    start, trace = time.process_time(), []
    sink = ProgressSink(lambda upper, lower, at, tree: trace.append(
        (time.process_time() - start, upper, lower)))
    found = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=Deadline.after(seconds),
                                          progress=sink)
    return {"optimal": found.status == "optimal", "lower": found.lower_bound,
            "upper": found.upper_bound, "cpu": time.process_time() - start,
            "calls": found.stats["calls"], "trace": trace}


def run(name: str, seconds: float, src: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, __file__, "--worker", name, str(seconds)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.splitlines()[-1])


def cpu_to(result: dict, bound: int) -> float:
    return min(cpu for cpu, _, lower in result["trace"] if lower is not None and lower >= bound)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, help="occamlearn's src of the base")
    parser.add_argument("--head-src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--datasets", nargs="+", default=["haber:all"])
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], float(args.worker[1]))))
        return 0
    if args.base_src is None:
        parser.error("--base-src is required")
    command = "python benchmarks/mpdt_first_side.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    lines = [f"Command: `{command}`", "", "# The side a split solves first: base against head",
             "", stamp(os.getloadavg()[0]) + f" Wall limit {args.seconds:g} s a run; CPU "
             "seconds of the search alone (kernels loaded first). Bounds and sizes in nodes.",
             "", "| matrix | run | tree | CPU s base → head to the common bound | "
             "calls base → head | base: last bound (CPU s) | head: last bound (CPU s) |",
             "|---|---|---|---|---|---|---|"]
    for name in args.datasets:
        for repeat in range(args.repeats):
            order = ("base", "head") if repeat % 2 == 0 else ("head", "base")
            results = {side: run(name, args.seconds, args.base_src if side == "base"
                                 else args.head_src) for side in order}
            base, head = results["base"], results["head"]
            common = min(base["lower"], head["lower"])
            cells = [f"{side['lower']}{' proven' if side['optimal'] else ''} "
                     f"({side['cpu']:.1f})" for side in (base, head)]
            lines.append(f"| {name} | {repeat + 1} | {base['upper']} / {head['upper']} | "
                         f"≥ {common}: {cpu_to(base, common):.1f} → {cpu_to(head, common):.1f} "
                         f"| {base['calls']:,} → {head['calls']:,} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    lines.append(f"\nFinished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load "
                 f"{os.getloadavg()[0]:.1f}.")
    publish("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
