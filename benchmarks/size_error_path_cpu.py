"""The size-error path of every bundled table at a CPU-second limit, source trees alternated,
and the promise that every point is certified or states its proven lower bound.

Each run is ``size_error_path.table_path`` (``MaxAccuracyTreeClassifier(max_depth=None,
time_limit=T).size_error_path`` on the raw table's stratified 64 % training split, every
threshold) in a fresh process with ``occamlearn.stopping.CLOCK = time.process_time``: the
limit and the reported seconds are the process's CPU seconds, which a shared machine does not
bend as it bends wall seconds. The kernels are loaded before the clock starts.

With several ``--src`` trees, each table runs under each tree in turn (``--repeats`` rounds,
alternated) so that a head and its base meet the same load.

The promise checked at every point i of a path: ``proven[i]`` and errors == lower bound, or
``errors_lower_bound[i] < errors[i]`` and the point's model states its bound in all three
outputs -- the attribute ``errors_lower_bound_``, the text (``training errors in [lb, ub]``)
and the model file (``"errors_lower_bound"``). A point that breaks it is counted in the
``promise`` column.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from size_error_path import DATASETS, _curve  # noqa: E402


def _promise_breaks(path) -> int:
    """Points of ``path`` that are neither certified nor state a proven bound below their
    errors in the model's attribute, text and JSON."""
    breaks, seen = 0, {}
    for i, model in enumerate(path.models):
        errors, lower = float(path.errors[i]), float(path.errors_lower_bound[i])
        if path.proven[i]:
            breaks += lower != errors
            continue
        if not lower < errors:
            breaks += 1
            continue
        if id(model) not in seen:
            bound = float(model.errors_lower_bound_)
            text, record = str(model), json.loads(model.to_record().to_json())
            stated = (bound <= float(model.training_errors_)
                      and (bound == model.training_errors_
                           or "training errors in [" in text)
                      and float(record.get("errors_lower_bound", -1)) == bound)
            seen[id(model)] = stated
        breaks += not seen[id(model)]
    return breaks


def worker(name: str, limit: float) -> dict:
    """One table's path with the CPU clock, in this process."""
    from occamlearn import stopping
    from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up

    warm_up()
    stopping.CLOCK = time.process_time
    from size_error_path import table_path

    start = time.process_time()
    _, _, path, _ = table_path(name, limit or None)
    cpu = time.process_time() - start
    stats = path.models[-1].solve_stats_
    return {"points": len(path), "proven": int(path.proven.sum()), "status": path.status,
            "cpu": round(cpu, 2), "queries": stats.get("queries", "–"),
            "calls": stats.get("calls", "–"), "four": stats.get("four_leaf_calls", "–"),
            "promise": _promise_breaks(path), "errors": path.errors.tolist(),
            "lower": path.errors_lower_bound.tolist()}


def run(src: str, name: str, limit: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name,
                               str(limit)], capture_output=True, text=True, env=env,
                              timeout=(limit or 600) * 4 + 300)
    except subprocess.TimeoutExpired:
        return {"error": "killed (hard limit)"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--src", nargs="+", default=["src"], help="source trees, alternated")
    parser.add_argument("--cpu-limit", type=float, default=60.0, 
                        help="0: no limit (the same work every run: no kernel call is "
                        "skipped by its time budget)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], float(args.worker[1]))))
        return 0
    header = ("| dataset | source | round | points | proven | status | CPU s | queries | "
              "search calls | four-leaf calls | promise |")
    lines, curves = [header, "|" + "---|" * 11], []
    certified = {src: set() for src in args.src}
    loads = [os.getloadavg()[0]]
    print(header, flush=True)
    for name in args.datasets:
        for repeat in range(args.repeats):
            for src in args.src:
                r = run(src, name, args.cpu_limit)
                loads.append(os.getloadavg()[0])
                if "error" in r:
                    cells = [name, src, str(repeat), "–", "–", r["error"], *["–"] * 5]
                else:
                    cells = [name, src, str(repeat), str(r["points"]), str(r["proven"]),
                             r["status"], f"{r['cpu']:.2f}", str(r["queries"]),
                             str(r.get("calls", "–")), str(r.get("four", "–")),
                             str(r["promise"])]
                    if r["status"] == "optimal":
                        certified[src].add(name)
                    if repeat == 0:
                        curves.append(f"- {name} ({src}): {_curve(r)}")
                lines.append("| " + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
    summary = "; ".join(f"{src}: {len(certified[src])} of {len(args.datasets)} certified"
                        for src in args.src)
    summary += (f" (within {args.cpu_limit:.0f} CPU s each, in any round)." if args.cpu_limit
                else " (without a time limit).")
    print(summary, flush=True)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        text = ["# Size-error paths at a CPU-second limit, every threshold", "",
                f"Command: `python {' '.join(sys.argv)}`  ",
                f"Script at commit {commit} (the sources' commits: see the reading); "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                f"1-minute load average {min(loads):.1f}-{max(loads):.1f} on "
                f"{os.cpu_count()} cores (CPU seconds: a shared machine bends them little).",
                "", summary, "", *lines, "",
                "Curves (fewest training errors with at most 1, 2, … leaves; \"(≥b)\": not "
                "proven, b the proven lower bound stated):", "", *curves, ""]
        with open(args.out, "w") as handle:
            handle.write("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
