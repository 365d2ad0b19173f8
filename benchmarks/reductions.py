"""What the column reductions before a minimum pure tree search (``trees.exact.reductions``)
remove, and what they change in the time to a proof.

1. Columns: on every readable-default matrix (``readable_matrices.load``) and every
   paper-bit matrix (``mpdt_runtime.training_matrix``): columns as binarised, after the
   equivalent-column rule (``reduce_columns``: constant, equal, complementary), after the
   twin-covered rule; distinct rows before and after; seconds of the reduction. On the
   readable matrices also the columns the *false* boundary-threshold rule would drop (cuts
   of one numeric column whose two adjacent row groups share one class; see the module's
   docstring for the counterexample), read from the printed conditions ``name >= t``, to
   show what is at stake.
2. Seconds to a proof: ``find_minimum_tree(method="auto", deadline=60 s)`` with
   ``reductions=True`` and ``False`` side by side in one process (kernels compiled by a
   warm-up first), the order alternating from one dataset to the next, on the slow readable
   matrices and on every matrix where the reductions drop a column.

    python benchmarks/reductions.py --out benchmarks/results/reductions.md
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

SLOW_READABLE = ("back", "hepa", "mushr", "breast_cancer", "haber", "tic-tac-toe", "wine")
CONDITION = re.compile(r"^(?P<name>.+) >= (?P<cut>[^ ]+)$")


def boundary_candidates(X: np.ndarray, y: np.ndarray, features: list[str]) -> int:
    """Threshold columns ``name >= t`` of one numeric column whose row groups just below
    and just above the cut are one and the same class (the refuted rule's drops)."""
    by_name: dict[str, list[tuple[float, int]]] = {}
    for j, text in enumerate(features):
        match = CONDITION.match(text)
        if match is None:
            continue
        try:
            cut = float(match["cut"])
        except ValueError:
            continue
        by_name.setdefault(match["name"], []).append((cut, j))
    count = 0
    for cuts in by_name.values():
        order = [j for _, j in sorted(cuts)]
        for position, j in enumerate(order):
            below = X[:, j] == 0
            if position > 0:
                below &= X[:, order[position - 1]] == 1
            above = X[:, j] == 1
            if position + 1 < len(order):
                above &= X[:, order[position + 1]] == 0
            classes = set(y[below | above].tolist())
            count += below.any() and above.any() and len(classes) == 1
    return count


def column_row(name: str, X, y, features=None) -> dict:
    from occamlearn.trees.exact.data import distinct_rows, reduce_columns
    from occamlearn.trees.exact.reductions import reduce_for_pure_tree

    start = time.perf_counter()
    reduction = reduce_for_pure_tree(X, y)
    seconds = time.perf_counter() - start
    return {"name": name, "rows": len(distinct_rows(X)[0]), "columns": X.shape[1],
            "equivalent": reduce_columns(X).n_kept, "twin": reduction.n_kept,
            "rows_after": len(distinct_rows(reduction.reduce(X))[0]),
            "boundary": None if features is None else boundary_candidates(X, y, features),
            "seconds": seconds}


def timed(X, y, k, reductions: bool, time_limit: float) -> dict:
    from occamlearn.stopping import Deadline
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    start = time.perf_counter()
    result = find_minimum_tree(X, y, k, method="auto", deadline=Deadline.after(time_limit),
                               reductions=reductions)
    seconds = time.perf_counter() - start
    assert result.tree.is_pure_on(X, y)
    return {"size": result.tree.n_nodes, "lb": result.lower_bound, "status": result.status,
            "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args(argv)

    import readable_matrices
    from mpdt_runtime import training_matrix

    from occamlearn.datasets import list_datasets

    readable = {name: readable_matrices.load(name) for name in readable_matrices.names()}
    lines = ["# Column reductions before the minimum pure tree search", "",
             f"Command: `python benchmarks/reductions.py --out {args.out}"
             + (f" --time-limit {args.time_limit:g}" if args.time_limit != 60 else "") + "`",
             "", "## Columns kept", "",
             "Columns as binarised -> after the equivalent-column rule (constant, equal, "
             "complementary) -> after the twin-covered rule; distinct rows before -> after; "
             "'boundary' = threshold columns the refuted boundary-point rule would drop.", "",
             "| matrix | distinct rows | columns | equivalent | twin-covered | rows after | "
             "boundary (false rule) | seconds |", "|---|---|---|---|---|---|---|---|"]
    dropping = []
    for name, (X, y, k, features) in readable.items():
        row = column_row(name, X, y, features)
        dropping += [("readable", name)] if row["twin"] < row["equivalent"] else []
        lines.append(f"| {name} (readable) | {row['rows']} | {row['columns']} | "
                     f"{row['equivalent']} | {row['twin']} | {row['rows_after']} | "
                     f"{row['boundary']} | {row['seconds']:.3f} |")
        print(lines[-1], flush=True)
    paper = {}
    for name in list_datasets():
        try:
            paper[name] = training_matrix(name)
        except ValueError as error:  # a dataset the paper encoding cannot read
            print(f"{name}: {error}", flush=True)
            continue
        X, y, k = paper[name]
        row = column_row(name, X, y)
        dropping += [("paper bits", name)] if row["twin"] < row["equivalent"] else []
        lines.append(f"| {name} (paper bits) | {row['rows']} | {row['columns']} | "
                     f"{row['equivalent']} | {row['twin']} | {row['rows_after']} | – | "
                     f"{row['seconds']:.3f} |")
        print(lines[-1], flush=True)
    if not args.skip_timing:
        lines += ["", f"## Seconds to a proof, find_minimum_tree(method='auto', "
                  f"{args.time_limit:g} s)", "",
                  "Same process, kernels warm, order alternating (first run marked *).", "",
                  "| matrix | without reductions | with reductions | ratio |",
                  "|---|---|---|---|"]
        X, y, k, _ = readable["iris"]
        timed(X, y, k, True, 10)  # warm-up: compile the kernels
        jobs = [("readable", n) for n in SLOW_READABLE] + [j for j in dropping
                                                            if j[1] not in SLOW_READABLE]
        for index, (kind, name) in enumerate(jobs):
            X, y, k = readable[name][:3] if kind == "readable" else paper[name]
            first = index % 2 == 0  # True: with reductions first
            runs = {}
            for reductions in ((True, False) if first else (False, True)):
                runs[reductions] = timed(X, y, k, reductions, args.time_limit)
            off, on = runs[False], runs[True]

            def cell(run, mark):
                proven = run["status"] == "optimal"
                return (f"{run['seconds']:.1f} s{' *' if mark else ''}, {run['size']}"
                        + ("" if proven else f" (lb {run['lb']})"))

            ratio = on["seconds"] / off["seconds"] if off["seconds"] else float("nan")
            lines.append(f"| {name} ({kind}) | {cell(off, not first)} | {cell(on, first)} | "
                         f"{ratio:.2f} |")
            print(lines[-1], flush=True)
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
