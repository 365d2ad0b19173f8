"""Which lower bound is weak where a size-error path stalls (issue 30).

An open path (``size_error_path.py --every-threshold``) stops inside one query of the
error-budget search, best(b*) at one middle budget b*, and every point below it keeps only the
pure tail's bound. This script runs the path of ``MaxAccuracyTreeClassifier(max_depth=None,
time_limit=T).size_error_path`` on the raw training split of each table, as that benchmark
does, keeps the error-budget search it ran (``BudgetRowSetSearch``), and reads at the root:

* the stall budget b*: the largest budget whose proven bound is below the fewest leaves found
  (the walk goes down from the largest budget, so this is where it stopped);
* the root's bounds at b*: the class count, the exact three-leaf answers (``small_trees``),
  the incompatibility bound (computed again, without a work cap), the stored bounds (the
  tail's margin levels, the one-step look-ahead of failed queries), and the fewest leaves found;
* the root's candidates at b* (split and budget division) whose summed side bounds are below
  the fewest leaves found, i.e. those the query must still search, with the share of their
  side bounds that come from the static bounds alone (class count or small trees, at most
  four leaves a side) and the largest side bound among them.

Run by hand, one table at a time in its own process::

    python benchmarks/frontier_stall_bounds.py --datasets lympho back hepa --time-limit 60 \\
        --out benchmarks/results/frontier_stall_bounds.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from result_file import publish, stamp


def inspect(name: str, time_limit: float) -> dict:
    from size_error_path import table_path

    from occamlearn.trees.mpdt.error_budget import bnb_engine
    from occamlearn.trees.mpdt.error_budget.bnb_candidates import (
        ACH,
        CLASS_ERR,
        ERR1,
        FORCED,
        LO,
        split_candidates,
    )
    from occamlearn.trees.size_error import frontier

    made = []

    class Recorded(bnb_engine.BudgetRowSetSearch):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    frontier.BudgetRowSetSearch = Recorded
    _, _, path, seconds = table_path(name, time_limit)
    search = made[-1]
    search.poll.deadline = None
    root = search.view.root
    entry = search.entry(root)
    budgets = range(entry[FORCED], entry[ERR1])
    open_budgets = [b for b in budgets if search.lower(entry, b) < search.upper(entry, b)]
    result = {"dataset": name, "seconds": round(seconds, 1), "points": len(path),
              "proven": int(path.proven.sum()), "forced": entry[FORCED],
              "err1": entry[ERR1], "unit": search.unit, "open_budgets": len(open_budgets)}
    if not open_budgets:
        return result
    stall = max(open_budgets)
    upper, lower = search.upper(entry, stall), search.lower(entry, stall)
    class_err = entry[CLASS_ERR]
    class_bound = 2
    while class_err[class_bound] > stall and class_bound < 4:
        class_bound += 1
    stored = max((v for b, v in entry[LO].items() if b >= stall), default=0)
    incompatibility = (search.incompatibility_bound(root, stall)
                       if search.kernels is not None else None)
    candidates, failed = split_candidates(search, root, entry, stall, upper)
    side_bounds, static_only, at_cap = [], 0, 0
    for _, _, left_budget, _, _, left_entry, right_entry, _ in candidates:
        sides = (search.lower(left_entry, left_budget),
                 search.lower(right_entry, stall - left_budget))
        side_bounds.extend(sides)
        for side_entry, side_budget, value in ((left_entry, left_budget, sides[0]),
                                               (right_entry, stall - left_budget, sides[1])):
            if not any(b >= side_budget and v >= value
                       for b, v in (side_entry[LO] or {}).items()):
                static_only += 1
                at_cap += value == 4  # the static bounds stop at four leaves
    result.update({
        "stall_budget": stall, "fewest_leaves_found": upper, "proven_bound": lower,
        "class_or_small_tree_bound": class_bound, "stored_bound": stored,
        "incompatibility_bound": incompatibility,
        "trees_found": {v: e for v, (e, *_) in sorted(entry[ACH].items())},
        "stored_bounds": dict(sorted(entry[LO].items())),
        "open_candidates": len(candidates), "least_left_out_bound": failed,
        "side_bounds_static_share": round(static_only / max(1, len(side_bounds)), 3),
        "side_bounds_at_static_cap_share": round(at_cap / max(1, len(side_bounds)), 3),
        "largest_side_bound": max(side_bounds, default=None),
        "median_side_bound": statistics.median(side_bounds) if side_bounds else None,
    })
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["lympho", "back", "hepa"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(inspect(args.worker, args.time_limit), default=str))
        return
    load_before = os.getloadavg()[0]
    rows = []
    for name in args.datasets:
        done = subprocess.run([sys.executable, __file__, "--worker", name, "--time-limit",
                               str(args.time_limit)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{name}: {done.stderr[-2000:]}")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    text = ["# Where the open size-error paths stall: the root's bounds at the stall budget", "",
            f"Command: `python {' '.join(sys.argv)}`  ",
            stamp(load_before, os.getloadavg()[0]), "",
            "One JSON object per table (budgets and errors in the search's units; bounds "
            "and leaves in leaves):", ""]
    text += [f"- `{json.dumps(row, default=str)}`" for row in rows]
    publish("\n".join(text) + "\n", args.out)


if __name__ == "__main__":
    main()
