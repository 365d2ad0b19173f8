"""What a ``limits.py`` case spends before its fit: Python, numpy, scikit-learn, occamlearn, data.

Each sample is a fresh process (``python benchmarks/startup_parts.py --child CASE``) that
imports, in order, what the case's own process imports before ``fit`` and marks the CPU
seconds (``time.process_time``) and wall seconds after each part:

* ``python``: from the process's start (``/proc``) to the child's first step (interpreter,
  ``site``, this script's standard-library imports, as ``limits.py``'s child has);
* ``numpy``;
* ``sklearn.base``: what every scikit-learn estimator imports (scikit-learn itself imports
  scipy.stats, scipy.optimize and pandas here: ``sklearn.utils.fixes`` / ``_array_api``);
* ``occamlearn``: the case's estimator class, ``from occamlearn import ...`` (our share);
* ``data``: the case's table (``limits_cases``, a ``_fit`` case's ``data``).

``--src`` names the source trees to import occamlearn from (base and head): each round runs
every case once per tree, alternated, so their ratios come from one sitting. ``--load N``
runs N busy-loop processes beside each sample, as ``limits.py --load`` does. The table gives
the median over ``--repeat`` rounds of each part's CPU and wall seconds.

    python benchmarks/startup_parts.py --src /tmp/base/src src --load 0 2 --repeat 5 \\
        --out benchmarks/results/startup_parts.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = ("python", "numpy", "sklearn.base", "occamlearn", "data")
DEFAULT_CASES = ("bc-alg3-errors", "bc-errors-5", "dtmax", "mpdt", "mpdt-100k-errors")


def child(name: str) -> list:
    """Import and build what case ``name``'s process does before ``fit``; the marks as
    ``(part, wall seconds since the process started, CPU seconds)``."""
    from occamlearn.stopping import process_seconds

    started, first_line = time.perf_counter(), process_seconds()
    marks = [("python", first_line, time.process_time())]

    def mark(part):
        marks.append((part, first_line + time.perf_counter() - started, time.process_time()))

    import numpy  # noqa: F401
    mark("numpy")
    import sklearn.base  # noqa: F401
    mark("sklearn.base")
    sys.path.insert(0, str(HERE))
    from limits_cases import CASES, ESTIMATORS

    import occamlearn

    build = CASES[name].build
    getattr(occamlearn, ESTIMATORS[build.kind])
    mark("occamlearn")
    build.data()
    mark("data")
    return marks


def sample(name: str, src: str, load: int) -> dict:
    """One fresh process's parts: ``{part: (wall, cpu)}``, each part's own seconds."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        done = subprocess.run([sys.executable, __file__, "--child", name], check=True,
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": src})
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    parts, wall, cpu = {}, 0.0, 0.0
    for part, at, used in marks:
        parts[part] = (at - wall, used - cpu)
        wall, cpu = at, used
    return parts


def table(samples: dict) -> str:
    """Median seconds per (load, case, src) and part: ``wall / CPU``."""
    lines = ["| load | case | src | " + " | ".join(PARTS) + " | before fit | of which ours |",
             "|---|---|---|" + "---|" * (len(PARTS) + 2)]
    for (load, name, src), runs in samples.items():
        cells, total = [], [0.0, 0.0]
        for part in PARTS:
            wall = statistics.median(run[part][0] for run in runs)
            cpu = statistics.median(run[part][1] for run in runs)
            total[0], total[1] = total[0] + wall, total[1] + cpu
            cells.append(f"{wall:.2f} / {cpu:.2f}")
        ours = cells[PARTS.index("occamlearn")]
        lines.append(f"| {load} | {name} | {src} | " + " | ".join(cells)
                     + f" | {total[0]:.2f} / {total[1]:.2f} | {ours} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(child(argv[1])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES))
    parser.add_argument("--src", nargs="+", default=["src"])
    parser.add_argument("--load", nargs="+", type=int, default=[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    header = (f"# Before the fit: Python, numpy, scikit-learn, occamlearn, the case's data\n\n"
              f"`python benchmarks/startup_parts.py {' '.join(argv)}` at commit {commit}, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python "
              f"{sys.version.split()[0]}, {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f} at the start")
    samples: dict = {}
    for load in args.load:
        for _ in range(args.repeat):
            for name in args.cases:
                for src in args.src:  # alternated: each round runs every tree once
                    samples.setdefault((load, name, src), []).append(sample(name, src, load))
        print(f"load {load} done, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    header += f" and {os.getloadavg()[0]:.1f} at the end.\n"
    text = (header + "Cells: median wall / CPU seconds of each part over "
            f"{args.repeat} fresh processes; `load` = busy-loop processes beside each "
            "(ours; other work on the machine ran too). `python` is the interpreter's start "
            "to the first line; `before fit` sums the parts; `of which ours` is the "
            "`occamlearn` part (the case's estimator class imported after scikit-learn).\n\n"
            + table(samples))
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
