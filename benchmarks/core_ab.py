"""CPU seconds of the exact searches in one checkout, for side-by-side runs of two checkouts.

    PYTHONPATH=<checkout>/src python benchmarks/core_ab.py <kind> <dataset[:arg]>...

``kind``: ``bnb`` (minimum pure tree by branch and bound), ``budget`` (smallest tree within
forced errors + arg, error-budget branch and bound), ``budget0`` (the error-budget search
with budget 0, i.e. a pure tree), ``dtmax`` (most accurate tree of depth arg, dynamic
programme). Each fit runs ``--repeat`` times after the kernels are loaded; the least process
CPU time is printed (CPU, not wall: on a shared machine wall time measures the load). Run it
alternately from two checkouts to compare them; the API of either (``deadline`` or
``time_limit``) is detected.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mpdt_runtime import training_matrix  # noqa: E402


def _limit(function, seconds: float) -> dict:
    if "deadline" in inspect.signature(function).parameters:
        from occamlearn.stopping import Deadline

        return {"deadline": Deadline.after(seconds)}
    return {"time_limit": seconds}


def fit(kind: str, name: str, arg: int, seconds: float):
    X, y, k = training_matrix(name)
    if kind == "bnb":
        from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound

        return lambda: find_minimum_tree_branch_and_bound(
            X, y, k, **_limit(find_minimum_tree_branch_and_bound, seconds))
    if kind == "dtmax":
        from occamlearn.stopping import Deadline
        from occamlearn.trees.dtmax.data import OrderedData
        from occamlearn.trees.dtmax.entry import find_most_accurate_tree

        data = OrderedData.from_matrix(X, y, k)
        return lambda: find_most_accurate_tree(data, max_depth=arg,
                                               deadline=Deadline.after(seconds))
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    budget = 0 if kind == "budget0" else group_examples(X, y).forced_errors() + arg
    return lambda: find_minimum_tree_with_errors_bnb(
        X, y, k, budget, **_limit(find_minimum_tree_with_errors_bnb, seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("bnb", "budget", "budget0", "dtmax"))
    parser.add_argument("cases", nargs="+", help="dataset or dataset:arg")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=120.0)
    options = parser.parse_args()
    from occamlearn.trees.mpdt.bnb.kernels import warm_up

    warm_up()
    for case in options.cases:
        name, _, arg = case.partition(":")
        run = fit(options.kind, name, int(arg or 0), options.time_limit)
        cpu = []
        for _ in range(options.repeat):
            began = time.process_time()
            result = run()
            cpu.append(time.process_time() - began)
        size = getattr(result, "upper_bound", getattr(result, "training_errors", None))
        print(f"| {options.kind} | {case} | {size} | {result.status} | {min(cpu):.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
