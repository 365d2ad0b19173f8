"""DT(max) against ConTree and STreeD, side by side in one run, one fit at a time.

What is fitted, each fit in its own process, its seconds those of ``fit`` after a warm-up fit
on 20 rows in the same process (start-up and compilation excluded), accuracy on the training
split (the quantity all of them maximise):

* continuous tables -- scikit-learn's breast_cancer, wine, digits (0 vs rest) and
  ``make_classification`` with 5,000 and 20,000 rows x 20 features (8 informative,
  ``random_state=0``), each on a 64 % stratified training split (``random_state=0``) -- at
  depths 2, 3 and 4;
* the bundled datasets as the paper's binary matrices (``FeatureBinarizer(encoding="binary")``,
  as ``dtmax_runtime.py``) at depth 4;
* ``missing``: ``make_classification`` 3,000 x 10 with 10 % of the cells missing and integer
  weights 1-3, at depth 3.

Tools:

* ``ours``: the default ``MaxAccuracyTreeClassifier(max_depth=d, time_limit=T)`` -- every
  threshold of the table, fewest errors then fewest nodes, missing values and weights as
  given (on binary matrices ``binarizer=None``); ``first``: the same with
  ``prefer_small=False`` (the first tree with the fewest errors, as the peers return);
* ``contree``: ``pycontree.ConTree(max_depth=d, time_limit=T)`` on the raw columns (every
  threshold; Brita, van der Linden and Demirovic, AAAI 2025);
* ``streed``: ``pystreed.STreeDClassifier(optimization_task="accuracy", cost_complexity=0)``
  on a 0/1 matrix: the binary matrix itself, or every threshold of a continuous table as a
  column (``ThresholdBinarizer(max_thresholds=None)``) when that fits ``STREED_CELLS``.

The peers take neither missing values nor weights, so on ``missing`` they get the same
problem written their way: each row repeated by its weight, and each column with missing
values as two columns, missing below every value and missing above every value (which holds
exactly our tests ``x >= t``, ``x >= t or missing`` and ``x is missing``).

ConTree (``pip install pycontree``) and STreeD (``pip install
../shared/tools/pystreed-1.4.0-*.whl``) are benchmark-only tools, never dependencies: run in
/work/venv-bench. ``--base SRC`` adds ``ours@base``, the estimator of another checkout
(``SRC`` first on its fits' ``PYTHONPATH``), fitted right after ``ours`` on each table. Run by
hand::

    python benchmarks/dtmax_continuous.py --out benchmarks/results/dtmax_continuous.md

and the binary matrices alone (ours against STreeD)::

    python benchmarks/dtmax_continuous.py --tables --no-missing --tools ours streed \
        --out benchmarks/results/dtmax_binary.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_file import publish  # noqa: E402

CONTINUOUS = ("breast_cancer", "wine", "digits", "make_classification_5000",
              "make_classification_20000")
MISSING = "missing"
TOOLS = ("ours", "first", "contree", "streed")
STREED_CELLS = 40_000_000     # every-threshold 0/1 matrices larger than this: STreeD skipped


def _split(X, y):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, train_size=0.64, stratify=y, random_state=0)


def missing_table():
    """(X with NaN, y, integer weights): make_classification 3,000 x 10, 10 % cells missing."""
    from sklearn import datasets

    X, y = datasets.make_classification(n_samples=3000, n_features=10, n_informative=6,
                                        random_state=1)
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.10] = np.nan
    return X, y, rng.integers(1, 4, len(y))


def training_table(name: str):
    """(X, y as class indices, weights or None) of the table's 64 % training split."""
    from sklearn import datasets

    if name == MISSING:
        from sklearn.model_selection import train_test_split

        X, y, w = missing_table()
        X, _, y, _, w, _ = train_test_split(X, y, w, train_size=0.64, stratify=y,
                                            random_state=0)
        return X, np.unique(y, return_inverse=True)[1], w
    if name.startswith("bundled:"):
        from occamlearn.binarize import FeatureBinarizer
        from occamlearn.datasets import load_dataset

        X, y = load_dataset(name.removeprefix("bundled:"))
        X, _, y, _ = _split(X, y)
        X = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X), dtype=np.float64)
        return X, np.unique(y, return_inverse=True)[1], None
    if name.startswith("make_classification_"):
        X, y = datasets.make_classification(n_samples=int(name.rsplit("_", 1)[1]),
                                            n_features=20, n_informative=8, random_state=0)
    elif name == "digits":
        X, y = datasets.load_digits(return_X_y=True)
        y = (y == 0).astype(int)
    else:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X, _, y, _ = _split(X, y)
    return np.asarray(X, dtype=np.float64), np.unique(y, return_inverse=True)[1], None


def as_peers_see_it(X, y, w):
    """The same problem without missing values or weights (module doc)."""
    if w is not None:
        X, y = np.repeat(X, w, axis=0), np.repeat(y, w)
    columns = []
    for column in X.T:
        absent = np.isnan(column)
        if not absent.any():
            columns.append(column)
            continue
        low, high = np.nanmin(column), np.nanmax(column)
        columns += [np.where(absent, low - 1, column), np.where(absent, high + 1, column)]
    return np.column_stack(columns), y


def _fit(tool: str, X, y, w, depth: int, limit: float, binary: bool) -> dict:
    """One fit: seconds, CPU seconds, training accuracy, proven?, errors lower bound."""
    began, cpu = time.perf_counter(), time.process_time()
    if tool in ("ours", "first"):
        from occamlearn import MaxAccuracyTreeClassifier

        model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=limit,
                                          binarizer=None if binary else "readable",
                                          prefer_small=tool == "ours")
        model.fit(X, y, sample_weight=w)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        right = model.predict(X) == y
        weight = np.ones(len(y)) if w is None else w
        return {"seconds": seconds, "cpu": cpu,
                "accuracy": float(weight[right].sum() / weight.sum()),
                "optimal": model.status_ == "optimal", "lower": model.errors_lower_bound_,
                "errors": model.training_errors_, "nodes": int(model.n_nodes_),
                "search": model.solve_stats_.get("search")}
    X, y = as_peers_see_it(X, y, w)
    if tool == "contree":
        from pycontree import ConTree

        model = ConTree(max_depth=depth, time_limit=limit)
        model.fit(X, y)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        return {"seconds": seconds, "cpu": cpu,
                "accuracy": float((model.predict(X) == y).mean()),
                "optimal": seconds < 0.98 * limit}
    from pystreed import STreeDClassifier

    from occamlearn.binarize import ThresholdBinarizer

    if not binary:
        n_cuts = sum(len(np.unique(c)) - 1 for c in X.T)
        if n_cuts * len(y) > STREED_CELLS:
            return {"seconds": None, "note": f"skipped ({n_cuts} thresholds)"}
        X = np.asarray(ThresholdBinarizer(max_thresholds=None).fit_transform(X))
        began, cpu = time.perf_counter(), time.process_time()
    model = STreeDClassifier(optimization_task="accuracy", max_depth=depth, cost_complexity=0,
                             time_limit=limit)
    model.fit(X, y)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "accuracy": float((model.predict(X) == y).mean()),
            "optimal": bool(model.fit_result.is_optimal())}


def worker(tool: str, table: str, depth: int, limit: float) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    X, y, w = training_table(table)
    binary = table.startswith("bundled:")
    warm = np.r_[np.flatnonzero(y == y[0])[:10], np.flatnonzero(y != y[0])[:10]]
    _fit(tool, X[warm], y[warm], None if w is None else w[warm], depth, limit, binary)
    return dict(_fit(tool, X, y, w, depth, limit, binary), rows=len(y))


def in_subprocess(tool: str, table: str, depth: int, limit: float, base: str | None) -> dict:
    name = tool.split("@")[0]
    command = [sys.executable, os.path.abspath(__file__), "--worker", name, table,
               str(depth), str(limit)]
    env = None
    if tool.endswith("@base"):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.abspath(base), os.environ.get("PYTHONPATH", "")]))
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=2 * limit + 120, env=env)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "note": "killed"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"seconds": None, "note": lines[-1][:80] if lines else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cell(run: dict) -> str:
    if run.get("seconds") is None:
        return run.get("note", "failed")
    limit = "" if run["optimal"] else " (limit)"
    gap = ""
    if not run["optimal"] and run.get("lower") is not None:
        gap = f", err in [{run['lower']:g}, {run['errors']:g}]"
    return f"{run['seconds']:.2f} s (cpu {run['cpu']:.2f}){limit}, {run['accuracy']:.4f}{gap}"


def _table(title: str, rows: list, tools: list, runs: dict, key, limit: float) -> list:
    """A Markdown table of ``rows`` (each a table name) with totals and ratios to ours."""
    lines = [f"## {title}\n", "| table | rows | " + " | ".join(tools) + " |",
             "|---|---|" + "---|" * len(tools)]
    totals, cpu = dict.fromkeys(tools, 0.0), dict.fromkeys(tools, 0.0)
    short = []
    for name in rows:
        cells = [runs[key(tool, name)] for tool in tools]
        n = next((r["rows"] for r in cells if r.get("rows")), "")
        lines.append(f"| {name} | {n} | " + " | ".join(_cell(r) for r in cells) + " |")
        for tool, run in zip(tools, cells):
            totals[tool] += run["seconds"] if run.get("seconds") is not None else limit
            cpu[tool] += run["cpu"] if run.get("cpu") is not None else limit
        ours = runs[key("ours", name)].get("accuracy")
        for tool, run in zip(tools, cells):
            if tool != "ours" and ours is not None and run.get("accuracy") is not None \
                    and ours < run["accuracy"] - 1e-12:
                short.append(f"{name}: ours {ours:.4f} < {tool} {run['accuracy']:.4f}")
    lines.append("| **total** | | " + " | ".join(f"{totals[t]:.2f} s (cpu {cpu[t]:.3f})"
                                                 for t in tools) + " |")
    for tool in tools:
        if tool != "ours" and totals[tool] > 0:
            lines.append(f"\nours / {tool} total: {totals['ours'] / totals[tool]:.2f}x "
                         f"(cpu {cpu['ours'] / max(cpu[tool], 1e-9):.2f}x)")
    lines.append("\nTraining accuracy below a peer's: "
                 + ("; ".join(short) if short else "none") + ".\n")
    return lines


def _commit() -> str:
    done = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True,
                          text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    return done.stdout.strip()[:100] or "unknown"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--tables", nargs="*", default=list(CONTINUOUS),
                        help="continuous tables (none: only the binary matrices with "
                             "--no-missing)")
    parser.add_argument("--binary", nargs="*", default=None,
                        help="bundled datasets at depth 4 (default: all; none: skip)")
    parser.add_argument("--no-missing", action="store_true", help="skip the missing table")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--tools", nargs="+", choices=TOOLS,
                        default=["ours", "contree", "streed"])
    parser.add_argument("--base", help="src folder of a base checkout: adds ours@base")
    parser.add_argument("--out", help="write the results (Markdown) here")
    args = parser.parse_args(argv)
    if args.worker:
        tool, table, depth, limit = args.worker
        print(json.dumps(worker(tool, table, int(depth), float(limit))))
        return
    from occamlearn.datasets import list_datasets

    tools = ["ours"] + [t for t in args.tools if t != "ours"]   # ours: the ratios' reference
    tools += ["ours@base"] if args.base else []
    binary = list(list_datasets()) if args.binary is None else args.binary
    jobs = [(tool, table, depth) for depth in args.depths for table in args.tables
            for tool in tools]
    jobs += [(tool, f"bundled:{name}", 4) for name in binary for tool in tools]
    if not args.no_missing:
        jobs += [(tool, MISSING, 3) for tool in tools]
    load_before, began = os.getloadavg(), time.perf_counter()
    runs = {}
    for job in jobs:                               # one fit at a time
        runs[job] = in_subprocess(*job, args.time_limit, args.base)
        print(job, _cell(runs[job]), flush=True)
    command = " ".join(["python", "benchmarks/dtmax_continuous.py", *(argv or sys.argv[1:])])
    lines = ["# DT(max) against ConTree and STreeD, one fit at a time\n",
             f"Command: `{command}`  ", f"Commit: {_commit()}  ",
             f"Machine: {os.cpu_count()} cores, load average (1, 5, 15 min) before "
             f"{tuple(round(v, 2) for v in load_before)}, after "
             f"{tuple(round(v, 2) for v in os.getloadavg())}; wall "
             f"{time.perf_counter() - began:.0f} s. The machine was shared with other jobs: "
             "compare within a row and read ratios, not absolute seconds.  ",
             f"Time limit {args.time_limit:g} s per fit; seconds of `fit` after a warm-up "
             "fit in the same process (CPU seconds in brackets); training accuracy; "
             "\"(limit)\": not proven, with ours' proven errors interval.\n"]
    for depth in args.depths if args.tables else ():
        lines += _table(f"Continuous tables, depth {depth}", args.tables, tools, runs,
                        lambda tool, name, d=depth: (tool, name, d), args.time_limit)
    if binary:
        lines += _table("Bundled binary matrices, depth 4", binary, tools, runs,
                        lambda tool, name: (tool, f"bundled:{name}", 4), args.time_limit)
    if not args.no_missing:
        lines += _table("10 % missing values and integer weights 1-3, depth 3", [MISSING],
                        tools, runs, lambda tool, name: (tool, MISSING, 3), args.time_limit)
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
