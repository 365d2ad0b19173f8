"""What a user's script pays around a short fit, base tree against head tree, alternated.

Each run is a fresh process running the script below with one tree's ``src`` first on the
path: it imports scikit-learn and loads breast_cancer (the user's own cost), then imports
the estimator (``import`` column: our modules), fits ``MinimumPureTreeClassifier(max_errors=5,
time_limit=LIMIT)``, and prints the wall clock as its last line. ``exit`` is the seconds
from that line to the process being reaped by this driver (``atexit`` handlers and the
interpreter's teardown). Runs alternate base, head, base, ... so that a changing load hits
both alike; the table gives each tree's median and every run.

    python benchmarks/limits_exit_ab.py --base /path/to/base/src --head src --runs 5 \\
        --out benchmarks/results/limits_exit_ab.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from limits import emit  # noqa: E402

SCRIPT = r"""
import sys, time
from sklearn.datasets import load_breast_cancer
X, y = load_breast_cancer(return_X_y=True)
start = time.perf_counter()
from occamlearn import MinimumPureTreeClassifier
imported = time.perf_counter() - start
MinimumPureTreeClassifier(max_errors=5, time_limit=float(sys.argv[1])).fit(X, y)
fit = time.perf_counter() - start - imported
print(imported, fit, time.time(), flush=True)
"""


def run_once(src: str, limit: float) -> tuple[float, float, float]:
    """(import, fit, exit) seconds of one process with ``src`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(limit)], capture_output=True,
                          text=True, env=env, check=True)
    reaped = time.time()
    imported, fit, last_line = (float(v) for v in done.stdout.split()[-3:])
    return imported, fit, reaped - last_line


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the base tree's src folder")
    parser.add_argument("--head", default="src", help="the head tree's src folder")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=float, default=1.0, help="the fit's time_limit")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    trees = {"base": args.base, "head": args.head}
    runs = {name: [] for name in trees}
    load_start = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, src in trees.items():
            runs[name].append(run_once(src, args.limit))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=Path(__file__).parent).stdout.strip()
    lines = [f"# A user's script around a {args.limit:g} s fit: base against head\n",
             f"`python benchmarks/limits_exit_ab.py {' '.join(argv or sys.argv[1:])}` at "
             f"commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} cores, load average {load_start:.1f} at the start and "
             f"{os.getloadavg()[0]:.1f} at the end (a shared machine).\n",
             "| tree | import (s), median | fit (s), median | exit (s), median | exit, each run |",
             "|---|---|---|---|---|"]
    for name, rows in runs.items():
        imported, fit, exits = zip(*rows)
        lines.append(f"| {name} | {statistics.median(imported):.2f} | "
                     f"{statistics.median(fit):.2f} | {statistics.median(exits):.2f} | "
                     f"{', '.join(f'{e:.2f}' for e in exits)} |")
    emit("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
