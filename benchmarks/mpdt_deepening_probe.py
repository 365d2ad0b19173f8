"""How the root's budget is raised: one leaf a step (the deepening) or straight to a target.

A probe of the compiled search alone (``CompiledRowSetSearch``, no greedy tree, no improvement,
no search for smaller trees): from the root's static bound it either deepens one proven leaf
at a time up to ``--target`` leaves, or calls ``solve(root, target)`` once. Both prove the
same bound (``solve`` returns the exact minimum when it is within the budget, else a bound
above it); the question is which costs fewer calls. Prints, per step, the budget, the value
returned and the CPU seconds so far; then the calls. Run it with ``PYTHONPATH`` set to the
source tree to measure (the kernels load before the clock starts).

    PYTHONPATH=src python benchmarks/mpdt_deepening_probe.py --dataset haber:all \\
        --mode deepen --target 54
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="haber:all")
    parser.add_argument("--mode", choices=("deepen", "jump"), default="deepen")
    parser.add_argument("--target", type=int, required=True, help="leaves")
    args = parser.parse_args(argv)
    from mpdt_bounds_ablation import matrix

    from occamlearn.trees.mpdt.bnb import kernels
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, prepare_rows

    kernels.warm_up()
    rows, labels, n_classes, kept = prepare_rows(*matrix(args.dataset))
    search = CompiledRowSetSearch(rows, labels, n_classes, kept)
    root = (1 << search.n_rows) - 1
    budget = search.root_bound(root)
    print(f"root bound {budget} leaves", flush=True)
    start = time.process_time()
    budgets = [args.target] if args.mode == "jump" else None
    while budget <= args.target:
        step = budgets.pop() if budgets else budget
        value = search.solve(root, step)
        print(f"budget {step} -> {value} ({time.process_time() - start:.1f} CPU s)", flush=True)
        if value <= step or args.mode == "jump":
            break
        budget = value
    print(f"{args.mode} to {args.target}: {search.calls:,} calls, "
          f"{time.process_time() - start:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
