"""The default DT(max) fit on a numeric table, base against head in one run.

``X, y = make_classification(5000, 30, random_state=0)`` and
``MaxAccuracyTreeClassifier(max_depth=3).fit(X, y)`` with every other parameter at its
default (readable binariser, ``prefer_small=True``, ``method="auto"``, ``time_limit=60``): the
case a new user tries first. Each fit runs in its own process, after a warm-up fit on 200
rows in that process (start-up and kernel loading excluded); base and head alternate, so load
drifts hit both. Also one time-limited fit per checkout (``--limit-depth``, ``--limit``
seconds) to show the limit is kept and the lower bound reported. Run by hand::

    python benchmarks/dtmax_default_numeric.py --base /path/to/base/src \\
        --markdown benchmarks/results/dtmax_default_numeric.md

``--base`` is the ``src`` folder of the checkout to compare with (put first on ``PYTHONPATH``
of its fits); head is the ``src`` folder next to this script. ``--bundled 2 3 4`` instead
fits the defaults on every bundled dataset at those depths (one process per checkout and
depth, datasets in turn, after a warm-up fit), to see the route change nowhere slower::

    python benchmarks/dtmax_default_numeric.py --base /path/to/base/src --bundled 2 3 4 \
        --markdown benchmarks/results/dtmax_default_bundled.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HEAD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def worker(depth: int, time_limit: float, rows: int, features: int) -> dict:
    import warnings

    from sklearn.datasets import make_classification

    from occamlearn import MaxAccuracyTreeClassifier

    warnings.simplefilter("ignore")
    X, y = make_classification(rows, features, random_state=0)
    MaxAccuracyTreeClassifier(max_depth=depth).fit(X[:200], y[:200])        # warm-up
    model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=time_limit)
    began, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "cpu": time.process_time() - cpu, "status": model.status_,
            "errors": float(model.training_errors_),
            "lower": float(model.errors_lower_bound_), "nodes": int(model.n_nodes_),
            "route": model.solve_stats_.get("method", "dp"),
            "tree": str(model).splitlines()[1:4]}


def bundled_worker(depth: int, time_limit: float) -> dict:
    """Defaults on every bundled dataset at ``depth``: name -> the fit's numbers."""
    import warnings

    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.datasets import list_datasets, load_dataset

    warnings.simplefilter("ignore")
    for name in ("iris", "tic-tac-toe"):         # warm-up: each route loads its kernels
        X, y = load_dataset(name)
        MaxAccuracyTreeClassifier(max_depth=depth).fit(X, y)
    answer = {}
    for name in list_datasets():
        X, y = load_dataset(name)
        model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=time_limit)
        began, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        answer[name] = {"seconds": time.perf_counter() - began,
                        "cpu": time.process_time() - cpu, "status": model.status_,
                        "errors": float(model.training_errors_),
                        "nodes": int(model.n_nodes_),
                        "route": model.solve_stats_.get("method", "dp")}
    return answer


def in_subprocess(src: str, depth: int, time_limit: float, rows: int, features: int,
                  bundled: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, __file__, "--bundled-worker" if bundled else "--worker",
               str(depth), str(time_limit), str(rows), str(features)]
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          timeout=(40 if bundled else 2) * time_limit + 120)
    if done.returncode != 0:
        return {"note": (done.stderr.strip().splitlines() or ["failed"])[-1][:100]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _row(name: str, limit: float, run: dict) -> str:
    if "note" in run:
        return f"| {name} | {run['note']} | | | | | | |"
    kept = "yes" if run["seconds"] <= 1.1 * limit + 1 else "**no**"
    return (f"| {name} | {run['seconds']:.2f} | {run['cpu']:.2f} | {run['status']} | "
            f"{run['errors']:g} | {run['lower']:g} | {run['nodes']} | {run['route']} | "
            f"{kept} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--bundled-worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--bundled", type=int, nargs="*", default=None,
                        help="depths: time the defaults on the bundled datasets instead")
    parser.add_argument("--base", required=False, help="src folder of the base checkout")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--features", type=int, default=30)
    parser.add_argument("--limit-depth", type=int, default=4)
    parser.add_argument("--limit", type=float, default=10.0)
    parser.add_argument("--markdown", help="write the results here")
    args = parser.parse_args(argv)
    if args.worker:
        depth, limit, rows, features = args.worker
        print(json.dumps(worker(int(depth), float(limit), int(rows), int(features))))
        return
    if args.bundled_worker:
        print(json.dumps(bundled_worker(int(args.bundled_worker[0]),
                                        float(args.bundled_worker[1]))))
        return
    sides = [("head", HEAD)] + ([("base", os.path.abspath(args.base))] if args.base else [])
    if args.bundled:
        return bundled(args, sides, argv)
    load_before = os.getloadavg()
    runs = []
    for repeat in range(args.repeats):
        for name, src in (sides if repeat % 2 == 0 else sides[::-1]):
            runs.append((f"{name}, depth 3, defaults", 60.0,
                         in_subprocess(src, 3, 60.0, args.rows, args.features)))
    for name, src in sides:
        runs.append((f"{name}, depth {args.limit_depth}, time_limit={args.limit:g}",
                     args.limit, in_subprocess(src, args.limit_depth, args.limit, args.rows,
                                               args.features)))
    load_after = os.getloadavg()
    lines = ["# The default DT(max) fit on 5,000 x 30 numeric rows: base vs head\n",
             f"Command: `python benchmarks/dtmax_default_numeric.py "
             f"{' '.join(argv or sys.argv[1:])}`  ",
             f"`make_classification({args.rows}, {args.features}, random_state=0)`, "
             "`MaxAccuracyTreeClassifier(max_depth=...)` with the other parameters at their "
             "defaults; each fit in its own process after a warm-up fit on 200 rows; base and "
             f"head alternated. Load average (1, 5, 15 min) before {load_before}, after "
             f"{load_after} on {os.cpu_count()} cores.\n",
             "| fit | wall s | CPU s | status | errors | lower bound | nodes | route | "
             "within limit (10 % + 1 s) |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [_row(name, limit, run) for name, limit, run in runs]
    head = [r for n, _, r in runs if n.startswith("head, depth 3") and "cpu" in r]
    base = [r for n, _, r in runs if n.startswith("base, depth 3") and "cpu" in r]
    if head and base:
        ratio = min(r["cpu"] for r in base) / min(r["cpu"] for r in head)
        wall = min(r["seconds"] for r in base) / min(r["seconds"] for r in head)
        lines.append(f"\nDepth 3 defaults, base / head (best of {args.repeats}): CPU "
                     f"{ratio:.1f}x, wall {wall:.1f}x.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)


def bundled(args, sides, argv) -> None:
    load_before = os.getloadavg()
    results = {}
    for i, depth in enumerate(args.bundled):
        for name, src in (sides if i % 2 == 0 else sides[::-1]):
            results[(name, depth)] = in_subprocess(src, depth, args.limit, 0, 0, bundled=True)
    lines = ["# The default DT(max) fit on the bundled datasets: base vs head\n",
             f"Command: `python benchmarks/dtmax_default_numeric.py "
             f"{' '.join(argv or sys.argv[1:])}`  ",
             "`MaxAccuracyTreeClassifier(max_depth=d).fit(X, y)` on each whole bundled "
             f"dataset, defaults otherwise but `time_limit={args.limit:g}` (``--limit``); one "
             "process per checkout and "
             "depth, after warm-up fits on iris and tic-tac-toe (one per route). Seconds: wall (CPU). Load average before "
             f"{load_before}, after {os.getloadavg()} on {os.cpu_count()} cores.\n"]
    for depth in args.bundled:
        runs = {name: results[(name, depth)] for name, _ in sides}
        lines += [f"## Depth {depth}\n", "| dataset | " + " | ".join(
            f"{n} s (CPU) | {n} status, errors, nodes, route" for n, _ in sides) + " |",
            "|---|" + "---|---|" * len(sides)]
        totals = {n: [0.0, 0.0] for n, _ in sides}
        names = next((list(r) for r in runs.values() if "note" not in r), [])
        for dataset in names:
            cells = []
            for n, _ in sides:
                r = runs[n].get(dataset)
                if not isinstance(r, dict):
                    cells += ["failed", ""]
                    continue
                totals[n][0] += r["seconds"]
                totals[n][1] += r["cpu"]
                cells += [f"{r['seconds']:.2f} ({r['cpu']:.2f})",
                          f"{r['status']}, {r['errors']:g}, {r['nodes']}, {r['route']}"]
            lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
        lines.append("| **total** | " + " | ".join(
            f"{totals[n][0]:.2f} ({totals[n][1]:.2f}) | " for n, _ in sides) + "|\n")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
