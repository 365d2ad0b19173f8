"""Base against head, alternated, for a change that moves code: the same fits must take the
same time.

Each run is a fresh process with ``PYTHONPATH`` set to one of two source trees (``--base``,
``--head``), in the order base, head, base, head, ... (``--repeats`` pairs), after one warm-up
run of each so that both read their compiled kernels from numba's disk cache. The runs:

* ``bnb``: ``find_minimum_tree_branch_and_bound`` (the pure branch and bound) on small matrices of
  ``mpdt_runtime.training_matrix``;
* ``frontier``: the size-error frontier (``size_error_path``'s walk) on small matrices;
* ``all_minimum``: ``find_minimum_trees`` drawing and counting minimum trees by the branch
  and bound's tree space.

The table gives each run's median wall seconds for base and head and their ratio. On a shared
machine the ratio of alternated runs is the number to read, not the seconds.

    python benchmarks/layout_ab.py --base /tmp/base/src --head src \
        --out benchmarks/results/layout_ab.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# one child per run; the names it imports exist in both trees, or are looked up in both places
CHILD = r"""
import json, sys, time
sys.path.insert(0, {here!r})
from mpdt_runtime import training_matrix
from occamlearn.stopping import Deadline
kind, name, limit = {kind!r}, {name!r}, {limit!r}
X, y, k = training_matrix(name)
start = time.perf_counter()
if kind == "bnb":
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
    r = find_minimum_tree_branch_and_bound(X, y, k, deadline=Deadline.after(limit))
    answer = (r.upper_bound, r.status)
elif kind == "frontier":
    try:
        from occamlearn.trees.size_error.frontier import find_size_error_frontier as frontier
    except ImportError:
        from occamlearn.trees.frontier import size_error_frontier as frontier
    f = frontier(X, y, k, max_leaves=8, deadline=Deadline.after(limit))
    answer = (list(map(float, f.errors)),)
else:
    try:
        from occamlearn.trees.mpdt.all_minimum.minimum_trees import find_minimum_trees
    except ImportError:
        from occamlearn.trees.mpdt.many.minimum_trees import find_minimum_trees
    m = find_minimum_trees(X, y, k, 200, method="bnb", deadline=Deadline.after(limit),
                           random_state=0)
    answer = (m.count, len(m.trees))
print(json.dumps({{"seconds": time.perf_counter() - start, "answer": repr(answer)}}))
"""

RUNS = (("bnb", "mux6"), ("bnb", "iris"), ("bnb", "zoo"), ("bnb", "wine"), ("bnb", "monks-1"),
        ("frontier", "iris"), ("frontier", "monks-3"), ("all_minimum", "zoo"),
        ("all_minimum", "irish"))


def run(src: str, kind: str, name: str, limit: float) -> dict:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    code = CHILD.format(here=HERE, kind=kind, name=name, limit=limit)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=limit * 3 + 60)
    if done.returncode != 0:
        return {"seconds": float("nan"), "answer": "error: " + done.stderr.strip()[-200:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                          text=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="src folder of the base tree")
    parser.add_argument("--head", required=True, help="src folder of the head tree")
    parser.add_argument("--repeats", type=int, default=3, help="alternated base/head pairs")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--only", nargs="*", default=None, help="run kinds to keep (bnb, ...)")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    args = parser.parse_args()
    load_before = os.getloadavg()
    rows = []
    for kind, name in RUNS:
        if args.only and kind not in args.only:
            continue
        run(args.base, kind, name, args.time_limit)  # warm-up: kernels from the disk cache
        run(args.head, kind, name, args.time_limit)
        base, head = [], []
        for _ in range(args.repeats):
            base.append(run(args.base, kind, name, args.time_limit))
            head.append(run(args.head, kind, name, args.time_limit))
        b = statistics.median(r["seconds"] for r in base)
        h = statistics.median(r["seconds"] for r in head)
        same = {r["answer"] for r in base} == {r["answer"] for r in head}
        rows.append(f"| {kind} | {name} | {b:.3f} | {h:.3f} | {h / b:.2f} | "
                    f"{'yes' if same else 'NO: ' + str({r['answer'] for r in base + head})} |")
        print(rows[-1], flush=True)
    load_after = os.getloadavg()
    text = "\n".join([
        f"Command: python benchmarks/layout_ab.py --base {args.base} --head {args.head} "
        f"--repeats {args.repeats} --time-limit {args.time_limit:g}"
        + (f" --only {' '.join(args.only)}" if args.only else "")
        + (f" --out {args.out}" if args.out else ""),
        f"Commit: {_commit()} (head); load average before {load_before[0]:.1f}, after "
        f"{load_after[0]:.1f} (a shared 2-core machine); {time.strftime('%Y-%m-%d %H:%M')}",
        "",
        "Median wall seconds of alternated fresh-process runs (after one warm-up each); "
        "ratio = head / base; 'same answer': every run of both found the same result.",
        "",
        "| run | data | base s | head s | head/base | same answer |",
        "|---|---|---:|---:|---:|---|",
        *rows, ""])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    print(text)


if __name__ == "__main__":
    main()
