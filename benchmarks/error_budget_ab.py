"""Source variants of the error-budget branch and bound against each other, alternated.

A question about one piece of the error-budget search (is a helper call in its hottest loop
slower than the code written out twice? does a two-class kernel pay for itself?) is answered
by fitting the same instances with two or more source trees, each run a fresh process with
``PYTHONPATH`` set to one tree's ``src``, in the order A, B, ..., A, B, ... (``--repeats``
rounds), after one untimed run of each so that all read their kernels from numba's disk cache.
An instance is ``find_minimum_tree_with_errors_bnb`` on ``mpdt_runtime.training_matrix(name)``
with budget e; the child times the fit alone and reports the size and status, which must agree
across the variants.

    python benchmarks/error_budget_ab.py --variant inline=/tmp/A/src --variant helper=src \\
        --repeats 3 --out benchmarks/results/error_budget_ab.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from result_file import HERE, publish, stamp  # noqa: E402

# (dataset, budget): two-class and multi-class matrices whose fit takes a fraction of a second
# to a few seconds; the budgets are among error_budget_runtime.py's
# (haber, monks-1 and monks-3 have two classes; hayes-r, new-thy and wine three)
INSTANCES = (("haber", 2), ("haber", 5), ("monks-1", 7), ("monks-3", 5), ("hayes-r", 5),
             ("new-thy", 2), ("wine", 1))

CHILD = r"""
import json, sys, time
sys.path.insert(0, {here!r})
from mpdt_runtime import training_matrix
from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb
X, y, k = training_matrix({name!r})
start = time.perf_counter()
r = find_minimum_tree_with_errors_bnb(X, y, k, {budget!r}, deadline=Deadline.after({limit!r}))
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "answer": repr((r.upper_bound, r.status))}}))
"""


def run(src: str, name: str, budget: int, limit: float) -> dict:
    code = CHILD.format(here=HERE, name=name, budget=budget, limit=limit)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": src}, timeout=limit * 2 + 120)
    if done.returncode != 0:
        return {"seconds": float("nan"), "answer": "error: " + done.stderr.strip()[-200:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", required=True, metavar="NAME=SRC",
                        help="a source tree to time (give two or more; the first is the base)")
    parser.add_argument("--repeats", type=int, default=3, help="alternated rounds")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    args = parser.parse_args(argv)
    variants = [tuple(v.split("=", 1)) for v in args.variant]
    load_before = os.getloadavg()
    rows, sums = [], {name: 0.0 for name, _ in variants}
    for dataset, budget in INSTANCES:
        for _, src in variants:  # untimed: kernels into the disk cache
            run(src, dataset, budget, args.time_limit)
        times = {name: [] for name, _ in variants}
        answers = set()
        for _ in range(args.repeats):
            for name, src in variants:
                result = run(src, dataset, budget, args.time_limit)
                times[name].append(result["seconds"])
                answers.add(result["answer"])
        medians = {name: statistics.median(times[name]) for name, _ in variants}
        for name in sums:
            sums[name] += medians[name]
        first = variants[0][0]
        cells = [f"{medians[name]:.3f}" for name, _ in variants]
        cells += [f"{medians[name] / medians[first]:.2f}" for name, _ in variants[1:]]
        same = "yes" if len(answers) == 1 else f"NO: {sorted(answers)}"
        rows.append(f"| {dataset} e={budget} | {' | '.join(cells)} | {same} |")
        print(rows[-1], flush=True)
    first = variants[0][0]
    cells = [f"{sums[name]:.3f}" for name, _ in variants]
    cells += [f"{sums[name] / sums[first]:.2f}" for name, _ in variants[1:]]
    rows.append(f"| sum | {' | '.join(cells)} | |")
    names = [name for name, _ in variants]
    header = ("| instance | " + " | ".join(f"{n} s" for n in names) + " | "
              + " | ".join(f"{n}/{first}" for n in names[1:]) + " | same answer |")
    load_after = os.getloadavg()
    text = "\n".join([
        "# Error-budget branch and bound: source variants alternated", "",
        f"Command: `python benchmarks/error_budget_ab.py {' '.join(argv)}`  ",
        stamp(load_before[0], load_after[0]), "",
        "Median wall seconds of the fit alone over alternated fresh processes (after one "
        "untimed run of each variant); 'same answer': every run of every variant found the "
        "same size and status.", "",
        header, "|---|" + "---:|" * (2 * len(names) - 1) + "---|", *rows, ""])
    publish(text, args.out)


if __name__ == "__main__":
    main()
