"""Throughput of the enumeration of minimum trees: SAT (plain blocking = mpdt-nd, MDSOL = mpdt)
against the branch and bound's tree space (``trees.mpdt.all_minimum.tree_space``).

For each dataset, on the Table 6 training part (64 %, ``train_seed`` 0): prove the minimum
with the Linear MaxSAT search, then draw up to ``--k`` minimum trees with each enumerator
under ``--time-limit`` seconds, from fresh copies of the optimal formula; and from the tree
space (counting included in its seconds): ``space-rank`` (the first k in rank order),
``space-sample`` (k drawn uniformly), ``space-diverse`` (MDSOL's greedy step over the space).
Reports trees, seconds, trees per second, whether the enumeration ran out of minimum trees
(all found; for the space: the exact count), and the mean pairwise Hamming distance over the
a_{r,j} of the first ``--diversity-sample`` trees. Writes Markdown (``--markdown``) and JSON
lines (``--json``).

    python benchmarks/enumeration_throughput.py --datasets zoo,iris --k 1000 --time-limit 600
    python benchmarks/enumeration_throughput.py --datasets monks-1 --enumerators plain,space-diverse
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from occamlearn.experiments.table6_methods import prepare_dataset
from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.all_minimum.enumerate import collect_trees, mean_pairwise_hamming
from occamlearn.trees.mpdt.all_minimum.minimum_trees import optimal_formula
from occamlearn.trees.mpdt.all_minimum.tree_space import MinimumTreeSpace
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch

SAT_ENUMERATORS = {"plain": False, "mdsol": True}
SPACE_DRAWS = {"space-rank": lambda space, k: [space.tree(i) for i in range(min(k, space.count))],
               "space-sample": lambda space, k: space.sample(k, random_state=0),
               "space-diverse": lambda space, k: space.diverse(k, random_state=0)}


def measure_space(data, name: str, k: int, time_limit: float, size: int) -> dict:
    """Count the minimum trees of the proven ``size`` and draw k by ``name``."""
    began = time.perf_counter()
    space = MinimumTreeSpace(data.X_train, data.y_train, data.n_classes, leaves=(size + 1) // 2,
                             deadline=Deadline.after(time_limit))
    trees = SPACE_DRAWS[name](space, k) if space.complete else []
    seconds = time.perf_counter() - began
    return {"trees": len(trees), "seconds": round(seconds, 2), "count": space.count,
            "trees_per_second": round(len(trees) / max(seconds, 1e-9), 2),
            "all_found": space.complete, "_trees": trees}


def measure(dataset: str, k: int, time_limit: float, solve_limit: float, sample: int,
            enumerators=tuple(SAT_ENUMERATORS) + tuple(SPACE_DRAWS)) -> list:
    data = prepare_dataset(dataset)
    began = time.perf_counter()
    search = MinimumTreeSearch(data.X_train, data.y_train, data.n_classes,
                               deadline=Deadline.after(solve_limit))
    result = search.run()
    solve_seconds = time.perf_counter() - began
    rows = []
    try:
        if result.status != "optimal":
            return [{"dataset": dataset, "enumerator": "-", "status": result.status,
                     "size": result.tree.n_nodes, "solve_seconds": round(solve_seconds, 1)}]
        for name in enumerators:
            if name in SPACE_DRAWS:
                row = measure_space(data, name, k, time_limit, result.tree.n_nodes)
                trees = row.pop("_trees")
            else:
                formula = optimal_formula(search, live=not SAT_ENUMERATORS[name])
                found = collect_trees(formula, k, diverse=SAT_ENUMERATORS[name],
                                      deadline=Deadline.after(time_limit))
                formula.close()
                trees = found.trees
                row = {"trees": len(trees), "seconds": round(found.seconds, 2),
                       "trees_per_second": round(len(trees) / max(found.seconds, 1e-9), 2),
                       "all_found": found.complete}
            rows.append({"dataset": dataset, "enumerator": name, "status": result.status,
                         "size": result.tree.n_nodes, "solve_seconds": round(solve_seconds, 1),
                         **row, "hamming": round(mean_pairwise_hamming(trees[:sample]), 2)})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        search.close()
    return rows


def markdown(rows: list, args) -> str:
    lines = [f"Enumeration throughput: k = {args.k}, time limit {args.time_limit} s per "
             f"enumerator, minimum proven within {args.solve_limit} s; Hamming distance over "
             f"a_(r,j), mean over pairs of the first {args.diversity_sample} trees.", "",
             "| dataset | size | enumerator | trees | seconds | trees/s | all found | Hamming |",
             "| --- | --: | --- | --: | --: | --: | --- | --: |"]
    for r in rows:
        if r["enumerator"] == "-":
            lines.append(f"| {r['dataset']} | {r['size']}* | (minimum not proven in "
                         f"{r['solve_seconds']} s) | | | | | |")
            continue
        lines.append(f"| {r['dataset']} | {r['size']} | {r['enumerator']} | {r['trees']} | "
                     f"{r['seconds']} | {r['trees_per_second']} | "
                     f"{'yes' if r['all_found'] else 'no'} | {r['hamming']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="mux6,corral,irish,iris,zoo")
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--solve-limit", type=float, default=120.0)
    parser.add_argument("--diversity-sample", type=int, default=300)
    parser.add_argument("--enumerators", default=",".join([*SAT_ENUMERATORS, *SPACE_DRAWS]),
                        help="comma-separated, from: " + ", ".join([*SAT_ENUMERATORS,
                                                                   *SPACE_DRAWS]))
    parser.add_argument("--markdown", default="benchmarks/results/enumeration_throughput.md")
    parser.add_argument("--json", default="benchmarks/results/enumeration_throughput.jsonl")
    args = parser.parse_args()
    rows = []
    for dataset in args.datasets.split(","):
        rows += measure(dataset.strip(), args.k, args.time_limit, args.solve_limit,
                        args.diversity_sample, tuple(args.enumerators.split(",")))
    Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
    Path(args.markdown).write_text(markdown(rows, args))
    Path(args.json).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(markdown(rows, args))


if __name__ == "__main__":
    main()
