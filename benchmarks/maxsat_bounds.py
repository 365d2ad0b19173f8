"""Lower bounds of time-limited searches, and encoding variants A/B (minimum pure trees).

Two experiments on the benchmark protocol's training matrices (``mpdt_runtime.training_matrix``),
every instance in its own process (hard time limit):

``bounds``: the proven lower bound each method reaches within the time limit, where the full
search does not prove the minimum:

* ``lsu`` / ``rc2``: ``find_minimum_tree_maxsat`` with that back-end (``lsu-core``: LSU with
  a core-guided phase first, ``maxsat.lsu.LinearSatUnsat(core_seconds=...)``);
* ``bnb``: the branch and bound on all rows;
* ``subset-bnb`` / ``subset-maxsat``: ``subset_bounds.find_minimum_tree_incremental`` with that
  engine on the subsets.

``ab``: CPU seconds of the search (greedy bound, encodings, LSU: ``time.process_time`` in the
instance's process, less sensitive than wall time to a shared machine's load) to the proof,
for encoding variants (``encoding.EXTRAS``); the variants of one dataset run one after the
other, repeated, datasets in order, in ONE invocation; the best of the repeats is kept.
Unproven within the (wall) time limit counts as the limit.

    python benchmarks/maxsat_bounds.py bounds --time-limit 10 --out scratch/bounds10.md
    python benchmarks/maxsat_bounds.py ab --variants base sym --repeats 2
"""

from __future__ import annotations

import argparse
import sys
import time

sys.path.insert(0, "benchmarks")
from bnb_runtime import isolated  # noqa: E402  (one process-isolation helper)
from mpdt_runtime import training_matrix  # noqa: E402

from occamlearn.stopping import Deadline, ProgressSink

HARD = ("hepa", "lympho", "h-votes", "tic-tac-toe", "spect", "back", "mushr", "audio")
PROVEN = ("mux6", "corral", "iris", "zoo", "hayes-r", "monks-3", "wine", "append", "new-thy")
METHODS = ("lsu", "rc2", "lsu-core", "bnb", "subset-bnb", "subset-maxsat")


def run_bound(name, method, time_limit):
    X, y, k = training_matrix(name)
    start = time.perf_counter()
    first = {}

    def on_bound(upper, lower, seconds, tree):
        if lower is not None:
            first.setdefault(lower, seconds)

    if method in ("lsu", "rc2", "lsu-core"):
        from occamlearn.trees.mpdt.maxsat_route.search import find_minimum_tree_maxsat

        solver = "lsu" if method == "lsu-core" else method
        if method == "lsu-core":
            from occamlearn.maxsat import lsu

            lsu.CORE_SHARE = 0.25  # share of the time limit for the core phase
        result = find_minimum_tree_maxsat(X, y, k, solver=solver,
                                          deadline=Deadline.after(time_limit))
        lower, upper, status, extra = (result.lower_bound, result.upper_bound, result.status,
                                       "")
    elif method == "bnb":
        from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound

        result = find_minimum_tree_branch_and_bound(
            X, y, k, deadline=Deadline.after(time_limit),
            progress=ProgressSink(lambda ub, lb, seconds, tree: first.setdefault(lb, seconds)))
        lower, upper, status, extra = (result.lower_bound, result.upper_bound, result.status,
                                       result.stats.get("engine", ""))
    else:
        from occamlearn.trees.mpdt.bnb.subsets import find_minimum_tree_incremental

        result = find_minimum_tree_incremental(X, y, k, deadline=Deadline.after(time_limit),
                                               engine=method.split("-")[1],
                                               progress=ProgressSink(on_bound))
        s = result.stats
        lower, upper, status = result.lower_bound, result.upper_bound, result.status
        extra = f"{s['rounds']} rounds, {s['subset_rows']}/{s['distinct_rows']} rows"
    return {"rows": len(y), "features": X.shape[1], "lower": lower, "upper": upper,
            "status": status, "seconds": time.perf_counter() - start,
            "lb_seconds": first.get(lower), "extra": extra}


def run_proof(name, variant, time_limit, instance=0):
    from occamlearn.trees.mpdt.maxsat_route import encoding
    from occamlearn.trees.mpdt.maxsat_route.search import find_minimum_tree_maxsat

    encoding.EXTRAS = frozenset() if variant == "base" else frozenset(variant.split("+"))
    X, y, k = training_matrix(name)
    if instance:  # another instance of the dataset: a random 95 % of the rows
        import numpy as np

        keep = np.random.default_rng(instance).random(len(y)) < 0.95
        X, y = X[keep], y[keep]
    start, cpu = time.perf_counter(), time.process_time()
    result = find_minimum_tree_maxsat(X, y, k, solver="lsu", deadline=Deadline.after(time_limit))
    return {"size": result.tree.n_nodes, "status": result.status,
            "lower": result.lower_bound, "wall": time.perf_counter() - start,
            "seconds": time.process_time() - cpu, "clauses": result.stats.get("n_clauses", 0)}


def bounds(args):
    lines = ["| dataset | rows × feat. | method | lower bound | upper bound | status | "
             "s to bound | s total | notes |", "|---|---|---|---|---|---|---|---|---|"]
    print(lines[0], flush=True)
    for name in args.datasets:
        for method in args.methods:
            r = isolated(run_bound, (name, method, args.time_limit), args.time_limit + 120)
            if not r or "error" in r:
                lines.append(f"| {name} | – | {method} | {(r or {}).get('error', 'timeout')} "
                             "| | | | | |")
            else:
                lb_s = "–" if r["lb_seconds"] is None else f"{r['lb_seconds']:.1f}"
                lines.append(f"| {name} | {r['rows']} × {r['features']} | {method} | "
                             f"{r['lower']} | {r['upper']} | {r['status']} | {lb_s} | "
                             f"{r['seconds']:.1f} | {r['extra']} |")
            print(lines[-1], flush=True)
    return lines


def ab(args):
    variants = args.variants
    header = ("| dataset | " + " | ".join(f"{v} CPU s" for v in variants) + " | "
              + " | ".join(f"{v}/base" for v in variants[1:]) + " | sizes |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print(lines[0], flush=True)
    totals = {v: 0.0 for v in variants}
    instances = [(name, i) for name in args.datasets for i in args.instances]
    for name, instance in instances:
        seconds = {v: [] for v in variants}
        sizes = set()
        for _ in range(args.repeats):
            for v in variants:
                r = isolated(run_proof, (name, v, args.time_limit, instance),
                             args.time_limit + 120)
                if not r or "error" in r:
                    seconds[v].append(float("nan"))
                    sizes.add(str((r or {}).get("error", "timeout"))[:40])
                    continue
                t = r["seconds"] if r["status"] == "optimal" else args.time_limit
                seconds[v].append(t)
                sizes.add(f"{r['size']}{'' if r['status'] == 'optimal' else '?'}")
        best = {v: min(seconds[v]) for v in variants}
        for v in variants:
            totals[v] += best[v]
        ratios = [f"{best[v] / best[variants[0]]:.2f}" for v in variants[1:]]
        label = name if instance == 0 else f"{name} #{instance}"
        lines.append(f"| {label} | " + " | ".join(f"{best[v]:.2f}" for v in variants) + " | "
                     + " | ".join(ratios) + f" | {'/'.join(sorted(sizes))} |")
        print(lines[-1], flush=True)
    lines.append("| **total** | " + " | ".join(f"{totals[v]:.1f}" for v in variants) + " | "
                 + " | ".join(f"{totals[v] / totals[variants[0]]:.2f}" for v in variants[1:])
                 + " | |")
    print(lines[-1], flush=True)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=("bounds", "ab"))
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--methods", nargs="*", default=list(METHODS))
    parser.add_argument("--variants", nargs="*", default=["base"])
    parser.add_argument("--repeats", type=int, default=1, help="ab: best of this many")
    parser.add_argument("--instances", type=int, nargs="*", default=[0],
                        help="ab: 0 = the training matrix, i > 0 = a random 95 %% of its rows "
                             "(seed i): other formulas, other solver paths")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.datasets is None:
        args.datasets = list(HARD if args.experiment == "bounds" else PROVEN)
    lines = bounds(args) if args.experiment == "bounds" else ab(args)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join([f"Command: `python {' '.join(sys.argv)}`", "", *lines, ""]))


if __name__ == "__main__":
    main()
