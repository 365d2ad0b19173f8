"""Throughput of the enumeration of minimum trees: plain blocking (mpdt-nd) vs MDSOL (mpdt).

For each dataset, on the Table 6 training part (64 %, ``train_seed`` 0): prove the minimum
with the Linear MaxSAT search, then draw up to ``--k`` minimum trees with each enumerator
under ``--time-limit`` seconds, from fresh copies of the optimal formula. Reports trees,
seconds, trees per second, whether the enumeration ran out of minimum trees (all found), and
the mean pairwise Hamming distance over the a_{r,j} of the first ``--diversity-sample``
trees. Writes Markdown (``--markdown``) and JSON lines (``--json``).

    python benchmarks/enumeration_throughput.py --datasets zoo,iris --k 1000 --time-limit 600
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from occamlearn.experiments.table6_methods import prepare_dataset
from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.many.enumerate import collect_trees, mean_pairwise_hamming
from occamlearn.trees.mpdt.many.minimum_trees import optimal_formula
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch


def measure(dataset: str, k: int, time_limit: float, solve_limit: float, sample: int) -> list:
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
        for name, diverse in (("plain", False), ("mdsol", True)):
            formula = optimal_formula(search, live=not diverse)
            found = collect_trees(formula, k, diverse=diverse,
                                  deadline=Deadline.after(time_limit))
            formula.close()
            rows.append({
                "dataset": dataset, "enumerator": name, "status": result.status,
                "size": result.tree.n_nodes, "solve_seconds": round(solve_seconds, 1),
                "trees": len(found.trees), "seconds": round(found.seconds, 1),
                "trees_per_second": round(len(found.trees) / max(found.seconds, 1e-9), 2),
                "all_found": found.complete,
                "hamming": round(mean_pairwise_hamming(found.trees[:sample]), 2)})
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
    parser.add_argument("--markdown", default="benchmarks/results/enumeration_throughput.md")
    parser.add_argument("--json", default="benchmarks/results/enumeration_throughput.jsonl")
    args = parser.parse_args()
    rows = []
    for dataset in args.datasets.split(","):
        rows += measure(dataset.strip(), args.k, args.time_limit, args.solve_limit,
                        args.diversity_sample)
    Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
    Path(args.markdown).write_text(markdown(rows, args))
    Path(args.json).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(markdown(rows, args))


if __name__ == "__main__":
    main()
