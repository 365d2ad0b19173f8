"""DT(max) on continuous tables: occamlearn's ordered engine and its binary dynamic programme
against ConTree and STreeD, side by side in one run.

Tables: scikit-learn's breast_cancer, wine, digits (0 vs rest) and ``make_classification``
with 5,000 and 20,000 rows x 20 features (8 informative, ``random_state=0``), each on a 64 %
stratified training split (``random_state=0``), at depths 2, 3 and 4; and the bundled datasets
as binary matrices (``FeatureBinarizer(encoding="binary")``, as ``dtmax_runtime.py``) at
depth 4. Tools:

* ``ordered``: ``MaxAccuracyTreeClassifier(method="ordered")`` -- every threshold of every
  numeric column (on binary matrices: ``binarizer=None``);
* ``dp``: ``MaxAccuracyTreeClassifier(method="dp")`` over the readable binariser's features (at
  most 32 cuts per column), on binary matrices over the matrix;
* ``contree``: ``pycontree.ConTree(max_depth=d, time_limit=...)`` on the raw columns (all
  thresholds; Brita, van der Linden and Demirovic, AAAI 2025);
* ``streed``: ``pystreed.STreeDClassifier(optimization_task="accuracy", cost_complexity=0)`` on
  the readable binariser's 0/1 matrix (the binary matrix itself for the bundled datasets).

ConTree (``pip install pycontree``) and STreeD (``pip install
../shared/tools/pystreed-1.4.0-*.whl``) are benchmark-only tools, never dependencies. Each fit
runs in its own process (killed at the limit plus a grace period); the seconds are those of
``fit`` after a warm-up fit on 20 rows in the same process (start-up and compilation
excluded). Accuracy is on the training split, the quantity all four maximise. Run by hand::

    python benchmarks/dtmax_continuous.py --markdown benchmarks/results/dtmax_continuous.md

``--tools`` runs some of the tools only; ``--base SRC`` adds ``ordered@base``, the ordered
engine of another checkout (``SRC`` put first on ``PYTHONPATH`` of its fits), so a change is
timed against its base in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CONTINUOUS = ("breast_cancer", "wine", "digits", "make_classification_5000",
              "make_classification_20000")
TOOLS = ("ordered", "dp", "contree", "streed")
BINARY_TOOLS = ("ordered", "dp", "streed")


def training_table(name: str):
    """(X, y) of the 64 % stratified training split; y as class indices."""
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    if name.startswith("make_classification_"):
        X, y = datasets.make_classification(n_samples=int(name.rsplit("_", 1)[1]),
                                            n_features=20, n_informative=8, random_state=0)
    elif name == "digits":
        X, y = datasets.load_digits(return_X_y=True)
        y = (y == 0).astype(int)
    elif name in ("breast_cancer", "wine"):
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    else:                                   # "bundled:<name>", as a binary matrix
        from occamlearn.binarize import FeatureBinarizer
        from occamlearn.datasets import load_dataset

        X, y = load_dataset(name.removeprefix("bundled:"))
        X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                                  random_state=0)
        X_bin = FeatureBinarizer(encoding="binary").fit_transform(X_train)
        return np.asarray(X_bin, dtype=np.float64), np.unique(y_train, return_inverse=True)[1]
    X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                              random_state=0)
    return np.asarray(X_train, dtype=np.float64), np.unique(y_train, return_inverse=True)[1]


def _fit(tool: str, X, y, depth: int, time_limit: float, binary: bool) -> dict:
    """One fit; returns seconds, training accuracy, proven?, lower bound on errors."""
    if tool in ("ordered", "dp"):
        from occamlearn import MaxAccuracyTreeClassifier

        model = MaxAccuracyTreeClassifier(max_depth=depth, method=tool,
                                          binarizer=None if binary else "readable",
                                          time_limit=time_limit, prefer_small=False)
        began, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        seconds = time.perf_counter() - began
        return {"seconds": seconds, "cpu": time.process_time() - cpu,
                "accuracy": float((model.predict(X) == y).mean()),
                "optimal": model.status_ == "optimal",
                "lower": float(model.errors_lower_bound_)}
    if tool == "contree":
        from pycontree import ConTree

        model = ConTree(max_depth=depth, time_limit=time_limit)
        began, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        seconds = time.perf_counter() - began
        return {"seconds": seconds, "cpu": time.process_time() - cpu,
                "accuracy": float((model.predict(X) == y).mean()),
                "optimal": seconds < 0.98 * time_limit, "lower": None}
    from pystreed import STreeDClassifier

    from occamlearn.binarize import ThresholdBinarizer

    X_bin = X if binary else ThresholdBinarizer().fit_transform(X)
    model = STreeDClassifier(optimization_task="accuracy", max_depth=depth, cost_complexity=0,
                             time_limit=time_limit)
    began = time.perf_counter()
    model.fit(X_bin, y)
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "accuracy": float((model.predict(X_bin) == y).mean()),
            "optimal": bool(model.fit_result.is_optimal()), "lower": None}


def worker(tool: str, table: str, depth: int, time_limit: float) -> dict:
    import warnings

    tool = tool.split("@")[0]
    warnings.simplefilter("ignore")
    X, y = training_table(table)
    binary = table not in CONTINUOUS
    if tool == "ordered":
        from occamlearn.trees.dtmax.ordered.solve import warm_kernels

        warm_kernels()
    warm = np.r_[np.flatnonzero(y == y[0])[:10], np.flatnonzero(y != y[0])[:10]]
    _fit(tool, X[warm], y[warm], depth, time_limit, binary)         # compile, load
    return dict(_fit(tool, X, y, depth, time_limit, binary), rows=len(y))


def in_subprocess(tool, table, depth, time_limit, base=None) -> dict:
    command = [sys.executable, __file__, "--worker", tool, table, str(depth), str(time_limit)]
    env = None
    if tool.endswith("@base"):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.abspath(base), os.environ.get("PYTHONPATH", "")]))
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=2 * time_limit + 60, env=env)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "accuracy": None, "optimal": False, "note": "killed"}
    if done.returncode != 0:
        return {"seconds": None, "accuracy": None, "optimal": False,
                "note": done.stderr.strip().splitlines()[-1][:80] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cell(run: dict, time_limit: float) -> str:
    if run.get("seconds") is None:
        return run.get("note", "failed")
    proven = "" if run["optimal"] else " (limit)"
    gap = ""
    if not run["optimal"] and run.get("lower") is not None and run.get("rows"):
        gap = f", err >= {run['lower']:g}"
    cpu = f" (cpu {run['cpu']:.2f})" if run.get("cpu") is not None else ""
    return f"{run['seconds']:.2f} s{cpu}{proven}, {run['accuracy']:.4f}{gap}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--tables", nargs="+", default=list(CONTINUOUS))
    parser.add_argument("--binary", nargs="*", default=None,
                        help="bundled datasets at depth 4 (default: all)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--jobs", type=int, default=2, help="fits run at once")
    parser.add_argument("--markdown", help="write the results table here")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--base", help="src folder of a base checkout: adds ordered@base")
    args = parser.parse_args(argv)
    if args.worker:
        tool, table, depth, limit = args.worker
        print(json.dumps(worker(tool, table, int(depth), float(limit))))
        return
    from occamlearn.datasets import list_datasets

    tools = list(args.tools) + (["ordered@base"] if args.base else [])
    binary_tools = [t for t in tools if t.split("@")[0] in BINARY_TOOLS]
    binary = list(list_datasets()) if args.binary is None else args.binary
    jobs = [(tool, table, depth) for table in args.tables for depth in args.depths
            for tool in tools]
    jobs += [(tool, f"bundled:{name}", 4) for name in binary for tool in binary_tools]
    load_before = os.getloadavg()
    began = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        runs = dict(zip(jobs, pool.map(
            lambda j: in_subprocess(*j, args.time_limit, args.base), jobs)))
    wall = time.perf_counter() - began
    load_after = os.getloadavg()
    lines = ["# DT(max) on continuous tables: ordered engine vs ConTree and STreeD\n",
             f"Command: `python benchmarks/dtmax_continuous.py "
             f"{' '.join(argv or sys.argv[1:])}`  ",
             f"Time limit {args.time_limit:g} s per fit, {args.jobs} fits at once, each in its "
             f"own process; seconds of `fit` after a warm-up fit (in brackets: CPU seconds of the "
             f"fitting process); accuracy on the training "
             f"split. Load average (1, 5, 15 min) before {load_before}, after {load_after} on "
             f"{os.cpu_count()} cores; wall {wall:.0f} s.\n"]
    for depth in args.depths:
        lines += [f"## Continuous tables, depth {depth}\n",
                  "| table | rows | " + " | ".join(tools) + " |",
                  "|---|---|" + "---|" * len(tools)]
        totals = dict.fromkeys(tools, 0.0)
        for table in args.tables:
            row = [runs[(tool, table, depth)] for tool in tools]
            rows = next((r["rows"] for r in row if r.get("rows")), "")
            lines.append(f"| {table} | {rows} | "
                         + " | ".join(_cell(r, args.time_limit) for r in row) + " |")
            for tool, run in zip(tools, row):
                totals[tool] += run["seconds"] if run.get("seconds") is not None \
                    else args.time_limit
        lines.append("| **total** | | " + " | ".join(f"{totals[t]:.2f} s" for t in tools)
                     + " |")
        for tool in ("ordered", "ordered@base"):
            if tool in totals and "contree" in totals:
                ratio = totals[tool] / max(totals["contree"], 1e-9)
                lines.append(f"\n{tool} / ConTree total: {ratio:.2f}x")
        lines.append("")
    if binary and binary_tools:
        lines += ["## Bundled binary matrices, depth 4\n",
                  "| dataset | rows | " + " | ".join(binary_tools) + " |",
                  "|---|---|" + "---|" * len(binary_tools)]
        totals = dict.fromkeys(binary_tools, 0.0)
        for name in binary:
            row = [runs[(tool, f"bundled:{name}", 4)] for tool in binary_tools]
            rows = next((r["rows"] for r in row if r.get("rows")), "")
            lines.append(f"| {name} | {rows} | "
                         + " | ".join(_cell(r, args.time_limit) for r in row) + " |")
            for tool, run in zip(binary_tools, row):
                totals[tool] += run["seconds"] if run.get("seconds") is not None \
                    else args.time_limit
        lines.append("| **total** | | "
                     + " | ".join(f"{totals[t]:.2f} s" for t in binary_tools) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
