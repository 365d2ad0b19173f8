"""Minimum trees over every cut that can matter (the default) against 32 cuts per column.

For each table -- every bundled dataset and scikit-learn's breast_cancer and wine, split
64/36 stratified (``random_state=0``) -- ``MinimumPureTreeClassifier(time_limit=T)`` is
fitted on the 64 % (``--train-size``; 1 fits every row) twice, each fit in its own process,
alternating:

* ``cuts32``: ``ThresholdBinarizer(max_thresholds=32)``, the earlier default (label-blind
  quantiles: "optimal" meant optimal over the cuts it happened to keep);
* ``default``: the readable binariser fitted with the labels: every cut a tree can need,
  thinned only past its budget (``optimal_over`` then names the restriction).

Columns: binary features, nodes, status (``optimal`` = proven minimum over those features,
else [lower, upper]), rows the majority filter set aside, seconds, held-out accuracy. A
``--max-errors E`` run compares the smallest trees within E errors instead.

Run by hand (not part of the tests)::

    python benchmarks/optimal_over_thresholds.py --time-limit 30 \\
        --out benchmarks/results/optimal_over_thresholds.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from sklearn.model_selection import train_test_split
from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.binarize import ThresholdBinarizer
warnings.simplefilter("ignore")
name, variant, limit, budget = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
train_size = float(sys.argv[5])
if name in ("breast_cancer", "wine_sklearn"):
    from sklearn import datasets
    loader = datasets.load_breast_cancer if name == "breast_cancer" else datasets.load_wine
    X, y = loader(return_X_y=True, as_frame=True)
else:
    X, y = load_dataset(name)
if train_size >= 1:  # every row: the accuracy is the training accuracy
    X_train, X_test, y_train, y_test = X, X, y, y
else:
    try:
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, train_size=train_size, random_state=0, stratify=y)
    except ValueError:  # a class too small to stratify
        X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=train_size,
                                                            random_state=0)
binarizer = ThresholdBinarizer(max_thresholds=32) if variant == "cuts32" else "readable"
params = {} if budget == "none" else {"max_errors": int(budget)}
start = time.perf_counter()
model = MinimumPureTreeClassifier(binarizer=binarizer, time_limit=limit, **params).fit(
    X_train, y_train)
seconds = time.perf_counter() - start
print(json.dumps({"features": len(model.feature_names_), "nodes": int(model.n_nodes_),
                  "status": model.status_, "lower": int(model.lower_bound_),
                  "upper": int(model.upper_bound_), "over": model.optimal_over_,
                  "set_aside": int(len(model.conflict_rows_)), "seconds": seconds,
                  "accuracy": float(model.score(X_test, y_test))}))
"""

TABLES = ("append", "audio", "back", "corral", "h-votes", "haber", "hayes-r", "hepa", "iris",
          "irish", "lympho", "monks-1", "monks-3", "mushr", "mux6", "new-thy", "spect",
          "tic-tac-toe", "titanic", "wine", "zoo", "breast_cancer", "wine_sklearn")


def run_child(name: str, variant: str, limit: float, budget: str, src: str,
              train_size: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    done = subprocess.run([sys.executable, "-c", CHILD, name, variant, str(limit), budget,
                           str(train_size)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(r: dict) -> str:
    size = f"{r['nodes']}" if r["status"] == "optimal" else f"{r['nodes']} [{r['lower']}, " \
        f"{r['upper']}]"
    over = f" over {r['over']}" if r["over"] else ""
    return (f"{r['features']} | {size}{over} | {r['set_aside']} | {r['seconds']:.1f} | "
            f"{r['accuracy']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--max-errors", default="none")
    parser.add_argument("--train-size", type=float, default=0.64,
                        help="share of the rows fitted on (1: all, accuracy on them)")
    parser.add_argument("--tables", nargs="*", default=TABLES)
    parser.add_argument("--src", default="src", help="occamlearn sources to run (default: "
                        "this checkout's; e.g. a `git archive` of the commit measured)")
    parser.add_argument("--out")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    lines = [f"    {' '.join([os.path.basename(sys.executable)] + sys.argv)}", "",
             f"commit {commit}; load average {os.getloadavg()[0]:.1f} at the start on "
             f"{os.cpu_count()} cores (a shared machine: seconds are inflated, sizes and "
             "proofs within the limit may differ on an idle one)", "",
             "| table | 32 cuts: features | nodes | set aside | s | accuracy "
             "| default: features | nodes | set aside | s | accuracy |",
             "|---" * 11 + "|"]
    totals = {"cuts32": [], "default": []}
    for name in args.tables:
        row = {}
        for variant in ("cuts32", "default"):
            row[variant] = run_child(name, variant, args.time_limit, args.max_errors,
                                     args.src, args.train_size)
            totals[variant].append(row[variant])
        lines.append(f"| {name} | {cell(row['cuts32'])} | {cell(row['default'])} |")
        print(lines[-1], flush=True)
    smaller = sum(d["nodes"] < c["nodes"] for c, d in zip(totals["cuts32"], totals["default"]))
    larger = sum(d["nodes"] > c["nodes"] for c, d in zip(totals["cuts32"], totals["default"]))
    proven = {k: sum(r["status"] == "optimal" for r in v) for k, v in totals.items()}
    lines += ["", f"{len(args.tables)} tables: the default tree is smaller on {smaller}, larger "
              f"on {larger}; proven minimum on {proven['cuts32']} (32 cuts) and "
              f"{proven['default']} (default) within {args.time_limit:g} s.",
              f"load average {os.getloadavg()[0]:.1f} at the end; "
              f"{time.strftime('%Y-%m-%d %H:%M')}"]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("# Minimum trees over every cut that can matter vs 32 cuts per "
                         "column\n\n" + text)
    print(text)


if __name__ == "__main__":
    main()
