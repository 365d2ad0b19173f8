"""CPU seconds of the size-error frontier, two source trees alternated: a small change's effect.

Each run is a fresh process with ``PYTHONPATH`` set to one tree's ``src``: it loads the
error-budget kernels, fits ``find_size_error_frontier`` on the DT(max) benchmark's binary
matrix (``dtmax_runtime.binary_training_data``) once untimed, then three times, and reports
the least process CPU seconds of the three (CPU, not wall: the machine may be shared) and the
frontier's errors, which must agree. The trees run base, head, base, head (``--rounds``).

    python benchmarks/frontier_cpu_ab.py --base /tmp/base/src --head src haber append \\
        --out benchmarks/results/frontier_cpu_ab.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from result_file import HERE, publish, stamp  # noqa: E402

CHILD = r"""
import json, sys, time
sys.path.insert(0, {here!r})
from dtmax_runtime import binary_training_data
from occamlearn.stopping import Deadline
from occamlearn.trees.size_error.frontier import find_size_error_frontier
from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up
warm_up()
X, y, k = binary_training_data({name!r})
find_size_error_frontier(X, y, k, deadline=Deadline.after(60))
best = float("inf")
for _ in range(3):
    start = time.process_time()
    found = find_size_error_frontier(X, y, k, deadline=Deadline.after(60))
    best = min(best, time.process_time() - start)
print(json.dumps([best, found.errors.tolist()]))
"""


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="src folder of the base tree")
    parser.add_argument("--head", required=True, help="src folder of the head tree")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("datasets", nargs="+")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = []
    for name in args.datasets:
        cpu, answers = {"base": [], "head": []}, set()
        for _ in range(args.rounds):
            for side in ("base", "head"):
                done = subprocess.run([sys.executable, "-c", CHILD.format(here=HERE, name=name)],
                                      env={**os.environ, "PYTHONPATH": getattr(args, side)},
                                      capture_output=True, text=True, check=True)
                seconds, errors = json.loads(done.stdout.strip().splitlines()[-1])
                cpu[side].append(seconds)
                answers.add(str(errors))
        b, h = min(cpu["base"]), min(cpu["head"])
        rows.append(f"| {name} | {b:.3f} | {h:.3f} | {h / b:.2f} | "
                    f"{'yes' if len(answers) == 1 else 'NO'} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# Size-error frontier CPU seconds, base against head alternated", "",
        f"Command: `python benchmarks/frontier_cpu_ab.py {' '.join(argv)}`  ",
        stamp(load), "",
        "| dataset | base CPU s | head CPU s | head/base | same frontier |",
        "|---|---:|---:|---:|---|", *rows, ""])
    publish(text, args.out)


if __name__ == "__main__":
    main()
