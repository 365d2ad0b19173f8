"""The compiled one-deletion search (``mpdt.error_budget.one_error``) alone, on an empty memo
and on a memo a pure-tree search filled first.

On the DT(max) benchmark's binary matrix of a dataset (``dtmax_runtime.binary_training_data``;
every row a distinct pattern there, so every row is deletable at one error), three fits, each in
its own forked process: (1) one(F) by deepening from one leaf on an empty memo; (2) the pure
minimum by deepening on a fresh compiled search, then one(F) on the same search (its memo
shared, as the size-error path shares the pure tail's); reported: values, seconds, calls. Run
by hand::

    python benchmarks/one_error_search.py back
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bnb_runtime import isolated  # noqa: E402  (one process-isolation helper)
from dtmax_runtime import binary_training_data  # noqa: E402


def _deepen(solve, start: int) -> int:
    bound = start
    while (value := solve(bound)) > bound:
        bound = value
    return value


def run(name: str, pure_first: bool) -> dict:
    import numpy as np

    from occamlearn.trees.compiling import kernel_cache
    from occamlearn.trees.exact.data import reduce_columns
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch
    from occamlearn.trees.mpdt.error_budget.one_error import OneErrorSearch

    X, y, k = binary_training_data(name)
    rows = np.unique(np.c_[X, y], axis=0)
    if len(rows) != len(y) or len(np.unique(X, axis=0)) != len(y):
        return {"name": name, "skipped": "repeated rows"}
    kernel_cache.load("bnb", search=True)
    kernel_cache.load("one-error")
    rows = X.astype(np.int64)
    pure = CompiledRowSetSearch(rows, y, k, reduce_columns(rows).column.tolist())
    full = (1 << len(y)) - 1
    out = {"name": name, "pure_first": pure_first}
    if pure_first:
        start = time.perf_counter()
        out["pure"] = _deepen(lambda b: pure.solve(full, b), 2)
        out["pure_seconds"] = time.perf_counter() - start
    one = OneErrorSearch(pure, np.ones(len(y), dtype=bool))
    start = time.perf_counter()
    out["one"] = _deepen(lambda b: one.solve(full, b), 1)
    out["one_seconds"] = time.perf_counter() - start
    out["one_calls"] = one.stats()["one_error_calls"]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["back"])
    args = parser.parse_args(argv)
    print("| dataset | memo | pure (leaves, s) | one(F) (leaves) | one(F) seconds | calls |")
    print("|---|---|---|---|---|---|")
    for name in args.datasets:
        for pure_first in (False, True):
            r = isolated(run, (name, pure_first), 1800)
            if r is None or "skipped" in r:
                print(f"| {name} | – | {r and r['skipped']} | | | |")
                continue
            pure = f"{r['pure']}, {r['pure_seconds']:.1f}" if pure_first else "–"
            print(f"| {name} | {'after the pure search' if pure_first else 'empty'} | {pure} | "
                  f"{r['one']} | {r['one_seconds']:.1f} | {r['one_calls']} |", flush=True)


if __name__ == "__main__":
    main()
