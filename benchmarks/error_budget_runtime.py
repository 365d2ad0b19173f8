"""Smallest trees within an error budget: branch and bound against the MaxSAT route.

For each benchmark matrix and budget e, ``find_minimum_tree_with_errors_bnb`` (branch and
bound over row sets, ``trees.mpdt.error_budget_bnb``) and ``find_minimum_tree_with_errors``
(MaxSAT, Linear SAT-UNSAT, ``trees.mpdt.error_budget``) each run in their own forked process
with the time limit (and a hard kill a while after it): seconds to the proof (or to the limit),
size, proven lower bound, status, and the ratio MaxSAT seconds / branch-and-bound seconds.
Two "optimal" sizes that differ, or a proven lower bound above the other route's tree, are a
**DISAGREEMENT** (printed loudly; the exit status is 1).

Matrices: ``mpdt_runtime.training_matrix`` (the paper's binarisation, conflicting rows
majority-filtered, stratified 64 % training split), budgets e in {1, 2, 5, 2 % of the rows};
and, where the unfiltered matrix (same protocol without ``resolve_conflicts``) has identical
rows with different labels, that matrix ("name*") with e = f + {1, 2, 5, 2 % of the rows},
f being the errors the conflicts force. Modules are imported and the kernel compiled in the
parent, so the forked runs do not pay for either. Timeouts count as the limit in the totals.

    python benchmarks/error_budget_runtime.py --time-limit 60 \\
        --out benchmarks/results/error_budget_runtime.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bnb_runtime import isolated  # noqa: E402  (one process-isolation helper)
from mpdt_runtime import training_matrix  # noqa: E402

from occamlearn.stopping import Deadline

DATASETS = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber", "monks-1",
            "new-thy", "append", "wine", "audio", "titanic", "lympho", "h-votes", "hepa",
            "tic-tac-toe", "mushr", "back", "spect")


def unfiltered_matrix(name: str):
    """``training_matrix`` without ``resolve_conflicts``: conflicting rows stay."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    if name == "hayes-r":
        X, y = X.iloc[:132], y.iloc[:132]
    codes = np.unique(y.to_numpy().astype(str), return_inverse=True)[1]
    B = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, y), dtype=np.int64)
    try:
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, stratify=codes,
                                          random_state=0)
    except ValueError:  # a class too small to stratify
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, random_state=0)
    return B, np.unique(codes, return_inverse=True)[1], len(np.unique(codes))


_MATRICES: dict = {}


def matrix(name: str):
    if name not in _MATRICES:
        _MATRICES[name] = unfiltered_matrix(name[:-1]) if name.endswith("*") \
            else training_matrix(name)
    return _MATRICES[name]


def run(method: str, name: str, budget: int, time_limit: float) -> dict:
    X, y, k = matrix(name)
    start = time.perf_counter()
    if method == "bnb":
        from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

        result = find_minimum_tree_with_errors_bnb(X, y, k, budget,
                                                   deadline=Deadline.after(time_limit))
    else:
        from occamlearn.trees.mpdt.error_budget.maxsat_search import find_minimum_tree_with_errors

        result = find_minimum_tree_with_errors(X, y, k, budget, solver="lsu",
                                               deadline=Deadline.after(time_limit))
    seconds = time.perf_counter() - start
    errors = int((result.tree.predict(X) != y).sum())
    if errors > budget:
        return {"error": f"tree makes {errors} errors > {budget}"}
    return {"size": result.tree.n_nodes, "lb": result.lower_bound, "status": result.status,
            "seconds": seconds, "errors": errors}


def budgets_of(name: str) -> list[int]:
    from occamlearn.trees.exact.data import group_examples

    X, y, _ = matrix(name)
    forced = group_examples(X, y).forced_errors()
    two_percent = max(1, round(0.02 * len(y)))
    return sorted({forced + e for e in (1, 2, 5, two_percent)})


NOT_RUN = {"error": "not run"}  # a route left out with --routes


def _cell(r) -> list[str]:
    if r is NOT_RUN:
        return ["–", "–", "–"]
    if r is None or "error" in r:
        return [(r or {}).get("error", "killed (hard limit)")[:50], "–", "–"]
    size = str(r["size"]) if r["status"] == "optimal" else f"{r['size']} (≥{r['lb']})"
    return [size, r["status"], f"{r['seconds']:.2f}"]


def _disagree(a, b) -> bool:
    if not (a and b and "error" not in a and "error" not in b):
        return False
    if a["status"] == b["status"] == "optimal" and a["size"] != b["size"]:
        return True
    return a["lb"] > b["size"] or b["lb"] > a["size"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--no-unfiltered", action="store_true",
                        help="skip the matrices with conflicting rows kept")
    parser.add_argument("--jobs", type=int, default=1,
                        help="instances run at once (each route still in its own process)")
    parser.add_argument("--routes", nargs="+", choices=("bnb", "maxsat"),
                        default=["bnb", "maxsat"], help="the routes to run (default both)")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    args = parser.parse_args(argv)
    limit = args.time_limit
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget import maxsat_search as error_budget  # noqa: F401
    from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up

    warm_up()
    names = []
    for name in args.datasets:
        names.append(name)
        if not args.no_unfiltered:
            X, y, _ = matrix(name + "*")
            if group_examples(X, y).forced_errors():
                names.append(name + "*")
            else:
                _MATRICES.pop(name + "*")
    header = ("| matrix | rows × feat. | forced | e | bnb size | bnb status | bnb s | "
              "MaxSAT size | MaxSAT status | MaxSAT s | MaxSAT s / bnb s | check |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print(header, flush=True)
    totals = {"bnb": 0.0, "maxsat": 0.0}
    proved = {"bnb": 0, "maxsat": 0}
    disagreements, n_runs = [], 0

    def both(name, budget):
        return {m: isolated(run, (m, name, budget, limit),
                            limit * 1.1 + (30 if m == "bnb" else 120))
                for m in args.routes}

    instances = [(name, budget) for name in names for budget in budgets_of(name)]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(both, *instance) for instance in instances]
        for (name, budget), future in zip(instances, futures):
            X, y, _ = matrix(name)
            forced = group_examples(X, y).forced_errors()
            runs = future.result()
            n_runs += 1
            for m, r in runs.items():
                ok = r is not None and "error" not in r
                totals[m] += min(r["seconds"], limit) if ok else limit
                proved[m] += ok and r["status"] == "optimal"
            a, b = runs.get("bnb", NOT_RUN), runs.get("maxsat", NOT_RUN)
            ratio = "–"
            if a and b and "error" not in a and "error" not in b:
                ratio = f"{min(b['seconds'], limit) / max(a['seconds'], 0.01):.1f}"
                if b["status"] != "optimal" and a["status"] == "optimal":
                    ratio = "≥" + ratio
                elif a["status"] != "optimal" and b["status"] == "optimal":
                    ratio = "≤" + ratio
                elif a["status"] != "optimal":
                    ratio = "both open"
            check = ""
            if _disagree(a, b):
                check = "**DISAGREEMENT**"
                disagreements.append(f"{name} e={budget}: bnb {a}, MaxSAT {b}")
                print(f"!!! DISAGREEMENT on {name} e={budget}: bnb {a} MaxSAT {b}",
                      file=sys.stderr, flush=True)
            cells = [name, f"{len(y)} × {X.shape[1]}", str(forced), str(budget),
                     *_cell(a), *_cell(b), ratio, check]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    summary = (f"{n_runs} instances, per-run time limit {limit:.0f} s (timeouts and crashes "
               f"count as the limit). Total seconds: branch and bound {totals['bnb']:.1f}, "
               f"MaxSAT (lsu) {totals['maxsat']:.1f} (ratio "
               f"{totals['maxsat'] / max(totals['bnb'], 0.01):.1f}). Proven optimal: branch "
               f"and bound {proved['bnb']}, MaxSAT {proved['maxsat']}. Disagreements between "
               f"the routes: {len(disagreements)}.")
    print(summary, flush=True)
    for line in disagreements:
        print("!!! DISAGREEMENT", line, file=sys.stderr)
    if args.out:
        text = ["# Smallest trees within an error budget: branch and bound vs MaxSAT", "",
                f"Command: `python {' '.join(sys.argv)}`", "", summary, "",
                "`name*` = the unfiltered matrix (conflicting rows kept); forced = errors "
                "they force; e = budget. Size in nodes, `(≥lb)` = proven lower bound when the "
                "limit hit. Ratio = MaxSAT seconds / branch-and-bound seconds (≥ when only "
                "branch and bound proved, ≤ when only MaxSAT did).", "", *lines, ""]
        if disagreements:
            text += ["## DISAGREEMENTS", "", *[f"- {d}" for d in disagreements], ""]
        with open(args.out, "w") as handle:
            handle.write("\n".join(text))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
