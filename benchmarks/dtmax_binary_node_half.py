"""What the smallest-tree half of the default objective costs on the bundled 0/1 matrices.

``MaxAccuracyTreeClassifier(max_depth=4, binarizer=None)`` with ``prefer_small=True`` (the
default: fewest weighted errors, then fewest nodes, one lexicographic search) against
``prefer_small=False`` (the first tree with the fewest errors, STreeD's question), in one
process: both warmed up, then ``--rounds`` rounds alternating the two, ``--repeats`` fits
each; a table's number is the least CPU per fit (``time.process_time``) over the rounds.
Beside each: the answer (errors, nodes) and the search's counters of the last fit
(``solve_stats_``): depth >= 3 subproblems searched and depth-2 sides counted
(``subproblems``), memo hits, tests pruned before a search, depth-2 sides bounded by a
witness, units of work.

    python benchmarks/dtmax_binary_node_half.py --out benchmarks/results/...md [tables]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dtmax_continuous import training_table  # noqa: E402
from result_file import publish, stamp  # noqa: E402

COUNTERS = ("subproblems", "cache_hits", "pruned", "witnessed", "work")


def _fit(X, y, small: bool):
    from occamlearn import MaxAccuracyTreeClassifier

    return MaxAccuracyTreeClassifier(max_depth=4, time_limit=60, binarizer=None,
                                     prefer_small=small).fit(X, y)


def measure(name: str, rounds: int, repeats: int) -> dict:
    """{small: (least CPU seconds per fit, last model)} for small in (True, False)."""
    X, y, _ = training_table(f"bundled:{name}")
    best, models = {True: float("inf"), False: float("inf")}, {}
    for small in (True, False):
        _fit(X, y, small)
    for _ in range(rounds):
        for small in (True, False):
            began = time.process_time()
            for _ in range(repeats):
                models[small] = _fit(X, y, small)
            best[small] = min(best[small], (time.process_time() - began) / repeats)
    return {small: (best[small], models[small]) for small in (True, False)}


def _row(name: str, runs: dict) -> str:
    (small_cpu, small), (first_cpu, first) = runs[True], runs[False]

    def counts(model) -> str:
        return " / ".join(str(model.solve_stats_.get(c, "")) for c in COUNTERS)

    return (f"| {name} | {small_cpu * 1e3:.2f} | {first_cpu * 1e3:.2f} | "
            f"{small_cpu / first_cpu:.1f} | {small.training_errors_:g}, {small.n_nodes_} | "
            f"{first.training_errors_:g}, {first.n_nodes_} | {counts(small)} | "
            f"{counts(first)} |")


def main(argv=None) -> None:
    from occamlearn.datasets import list_datasets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", help="bundled matrices (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    load = os.getloadavg()[0]
    names = args.tables or list_datasets()
    runs = {name: measure(name, args.rounds, args.repeats) for name in names}
    lines = ["Command: `python benchmarks/dtmax_binary_node_half.py "
             + " ".join(argv if argv is not None else sys.argv[1:]) + "`; "
             + stamp(load, os.getloadavg()[0]) + "\n",
             "# The smallest-tree half on the 0/1 matrices, depth 4: prefer_small True / False\n",
             f"CPU ms per fit, the least of {args.rounds} alternated rounds of {args.repeats} "
             "fits; counters of the last fit: " + " / ".join(COUNTERS) + ".\n",
             "| table | small ms | first ms | small / first | small: errors, nodes | "
             "first: errors, nodes | small: counters | first: counters |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [_row(name, runs[name]) for name in names]
    small = sum(r[True][0] for r in runs.values()) * 1e3
    first = sum(r[False][0] for r in runs.values()) * 1e3
    lines.append(f"| **total** | {small:.1f} | {first:.1f} | {small / first:.1f} | | | | |")
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
