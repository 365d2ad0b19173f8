"""The error-budget small-tree kernel's split loop: the two-class variant against the general one.

``trees.mpdt.error_budget.bnb_kernels`` keeps two copies of the loop that finds the best
2- and 3-leaf trees from pair counts: ``_best_splits`` (any number of classes, a leaf's errors
counted over a class array) and ``_best_splits_two_classes`` (a leaf errs by its lighter
class: two ``min``). This script calls both, compiled, on the same random pair counts of
two-class row sets (``--columns`` split columns, ``--rows`` rows), alternating the two in
one process, and reports the CPU seconds per call of each and their ratio; the answers must
agree. One process, so the ratio holds on a loaded machine.

    python benchmarks/small_tree_splits.py --out benchmarks/results/small_tree_splits.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from result_file import publish, stamp  # noqa: E402

from occamlearn.trees.mpdt.error_budget.bnb_kernels import (  # noqa: E402
    _best_splits,
    _best_splits_two_classes,
)


def pair_counts(rng, rows: int, columns: int):
    """``total``, ``ones``, ``both`` of ``small_tree_errors`` for a random 0/1 row set."""
    X = rng.random((rows, columns)) < 0.5
    y = rng.integers(0, 2, rows)
    total = np.bincount(y, minlength=2).astype(np.int64)
    ones = np.stack([X[y == k].sum(axis=0) for k in (0, 1)], axis=1).astype(np.int64)
    both = np.zeros((columns, columns, 2), dtype=np.int64)
    for k in (0, 1):
        Xk = X[y == k].astype(np.int64)
        both[:, :, k] = np.triu(Xk.T @ Xk, 1)
    return total, ones, both


def seconds_per_call(kernel, args, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        kernel(*args)
    return (time.process_time() - start) / calls


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, nargs="*", default=[10, 20, 45])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5, help="alternated rounds")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    load = os.getloadavg()[0]
    rows = []
    for columns in args.columns:
        total, ones, both = pair_counts(rng, args.rows, columns)
        active = np.arange(columns, dtype=np.int64)
        e1 = int(total.sum() - total.max())
        call = (total, ones, both, active, e1)
        general, two = _best_splits(*call), _best_splits_two_classes(*call)  # compiles
        assert general == two, (general, two)
        calls = max(20, 2_000_000 // (columns * columns))
        times = {"general": [], "two": []}
        for _ in range(args.rounds):
            times["general"].append(seconds_per_call(_best_splits, call, calls))
            times["two"].append(seconds_per_call(_best_splits_two_classes, call, calls))
        g, t = min(times["general"]), min(times["two"])
        rows.append(f"| {columns} | {calls} | {g * 1e6:.1f} | {t * 1e6:.1f} | {t / g:.2f} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# Small-tree split loop: two-class variant against the general one", "",
        f"Command: `python benchmarks/small_tree_splits.py {' '.join(argv)}`  ",
        stamp(load) + " Both run alternated in one process.", "",
        f"Random two-class row sets of {args.rows} rows; CPU microseconds per call, the least "
        f"of {args.rounds} alternated rounds; the two answers agree on every input.", "",
        "| columns | calls a round | general µs | two-class µs | two-class/general |",
        "|---:|---:|---:|---:|---:|", *rows, ""])
    publish(text, args.out)


if __name__ == "__main__":
    main()
