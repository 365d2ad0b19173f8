"""The error-budget fit at the budget just above the forced errors, on every bundled binary
matrix: the budget where one pattern may be misclassified, settled by the compiled
one-deletion search (``mpdt.error_budget.one_error``) since it was added.

Each fit runs in its own forked process (``bnb_runtime.isolated``) on the DT(max) benchmark's
matrix (``dtmax_runtime.binary_training_data``), ``find_minimum_tree_with_errors_bnb`` with
``max_errors = forced + 1`` and the time limit; reported: status, leaves, proven lower bound
in leaves, seconds. Compare two trees side by side with PYTHONPATH, run by hand::

    PYTHONPATH=src python benchmarks/one_error_fits.py --time-limit 60
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bnb_runtime import isolated  # noqa: E402  (one process-isolation helper)
from dtmax_runtime import binary_training_data  # noqa: E402
from size_error_path import DATASETS  # noqa: E402

from occamlearn.stopping import Deadline  # noqa: E402


def run(name: str, time_limit: float) -> dict:
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    X, y, k = binary_training_data(name)
    budget = int(group_examples(X, y).forced_errors()) + 1
    start = time.perf_counter()
    result = find_minimum_tree_with_errors_bnb(X, y, k, budget,
                                               deadline=Deadline.after(time_limit))
    return {"name": name, "budget": budget, "status": result.status,
            "leaves": result.tree.n_leaves, "lower": (result.lower_bound + 1) // 2,
            "seconds": time.perf_counter() - start,
            "one_error": result.stats.get("one_error_calls", 0)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args(argv)
    print("| dataset | budget | status | leaves | lower | seconds | one-deletion calls |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        r = isolated(run, (name, args.time_limit), args.time_limit + 120)
        if r is None:
            print(f"| {name} | – | no answer within the limit + 120 s | | | | |", flush=True)
            continue
        print(f"| {name} | {r['budget']} | {r['status']} | {r['leaves']} | {r['lower']} | "
              f"{r['seconds']:.2f} | {r['one_error']} |", flush=True)


if __name__ == "__main__":
    main()
