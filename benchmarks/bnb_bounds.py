"""Branch and bound for minimum pure trees, two source trees side by side: CPU to each bound.

Compares versions of the branch and bound (e.g. ``main`` and a branch) on the hard matrices:
the readable-default ones (``readable_matrices``) and the paper's bits (``mpdt_runtime``).
Each run is a fresh process, with ``PYTHONPATH`` set to the variant's ``src`` folder, and the
variants alternate per dataset (on a shared machine the load drifts; alternating keeps the
comparison fair). The branch and bound runs alone (no portfolio), with its kernels warm
(each variant's numba cache is filled first). Reported per run: the size, the proven lower
bound, the search calls, wall and *CPU* seconds, and the CPU second at which each lower bound
was proven -- on a machine shared with other jobs CPU seconds are what a variant costs.

    python benchmarks/bnb_bounds.py --variant base=/tmp/base/src --variant head=src \\
        --matrices readable:back paper:back --time-limit 150 --out /tmp/bnb_bounds.jsonl

Each result is one JSON line in ``--out`` (appended).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(source: str, name: str, limit: float) -> dict:
    """One run of the branch and bound alone, in this process."""
    sys.path.insert(0, HERE)
    if source == "readable":
        from readable_matrices import load

        X, y, k, _ = load(name)
    else:
        from mpdt_runtime import training_matrix

        X, y, k = training_matrix(name)
    from occamlearn.stopping import Deadline, ProgressSink
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound

    bounds = []
    cpu, wall = time.process_time(), time.perf_counter()

    def report(upper, lower, seconds, tree):
        if lower is not None:
            bounds.append((round(time.process_time() - cpu, 2), lower))

    result = find_minimum_tree_branch_and_bound(X, y, k, deadline=Deadline.after(limit),
                                           progress=ProgressSink(report))
    return {"matrix": f"{source}:{name}", "size": result.upper_bound,
            "lower": result.lower_bound, "status": result.status,
            "calls": result.stats["calls"], "engine": result.stats["engine"],
            "wall": round(time.perf_counter() - wall, 2),
            "cpu": round(time.process_time() - cpu, 2), "bounds": bounds}


def run(variant_src: str, matrix: str, limit: float) -> dict:
    source, name = matrix.split(":")
    env = {**os.environ, "PYTHONPATH": os.path.abspath(variant_src)}
    code = (f"import sys, json; sys.path.insert(0, {HERE!r}); import bnb_bounds; "
            f"print(json.dumps(bnb_bounds.worker({source!r}, {name!r}, {limit!r})))")
    try:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=limit * 1.5 + 60)
    except subprocess.TimeoutExpired:
        return {"matrix": matrix, "error": "hard timeout"}
    if done.returncode:
        return {"matrix": matrix, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", required=True, metavar="NAME=SRC",
                        help="a name and the src folder of a version of occamlearn")
    parser.add_argument("--matrices", nargs="+", required=True,
                        metavar="readable:NAME|paper:NAME")
    parser.add_argument("--time-limit", type=float, default=150.0)
    parser.add_argument("--out", required=True, help="JSON lines file (appended)")
    args = parser.parse_args(argv)
    variants = dict(item.split("=", 1) for item in args.variant)
    for name, src in variants.items():  # fill each variant's numba cache first
        subprocess.run([sys.executable, "-m", "occamlearn.cli", "warm-up"], check=True,
                       env={**os.environ, "PYTHONPATH": os.path.abspath(src)})
    with open(args.out, "a") as out:
        for matrix in args.matrices:
            for name, src in variants.items():
                result = {"variant": name, **run(src, matrix, args.time_limit)}
                print(json.dumps(result), flush=True)
                out.write(json.dumps(result) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
