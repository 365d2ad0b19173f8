"""Where a small size-error frontier spends its time: the first call in a fresh process against
the calls after it, base against head, alternated.

``house_ab.py`` times ``size_error_path.py``'s frontiers, each the first call of a process forked
after the error-budget kernels were loaded. That time is the search plus the set-up a process
pays once (the modules imported inside the fit, the pure-tree kernels read from numba's disk
cache, the kernel-source keys). This script tells the two apart: for each tree and dataset
one fresh process loads the error-budget kernels, as ``size_error_path.py`` does, forks, and
the child runs ``--calls`` frontiers on the same matrix, timing each by its process CPU
seconds; then the child runs ``--calls`` more with each phase of the frontier timed
(the names of ``trees.size_error.frontier`` that exist in the tree). Base and head alternate,
``--rounds`` times; the table gives medians. Run by hand::

    git archive 87a66e9 | tar -x -C /tmp/base32
    python benchmarks/frontier_call_cost.py --base /tmp/base32 --head . --rounds 5 \\
        --out benchmarks/results/frontier_call_cost.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

DATASETS = ("mux6", "hayes-r", "haber")
PHASES = ("pure_oracle", "pure_tail", "_staircase", "_trees_and_errors")


def child(name: str, calls: int) -> dict:
    """In a tree's process: the CPU seconds of each call, then the phases' mean seconds."""
    import collections
    import functools

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from dtmax_runtime import binary_training_data

    from occamlearn.stopping import Deadline
    from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up
    try:
        import occamlearn.trees.size_error.frontier as module
        frontier = module.find_size_error_frontier
    except ImportError:  # the base, before the move
        import occamlearn.trees.frontier as module
        frontier = module.size_error_frontier
    warm_up()
    X, y, k = binary_training_data(name)
    read, write = os.pipe()
    if os.fork() == 0:
        seconds = []
        for _ in range(calls):
            start = time.process_time()
            frontier(X, y, k, deadline=Deadline.after(60))
            seconds.append(time.process_time() - start)
        spent = collections.defaultdict(float)
        for phase in PHASES:
            if hasattr(module, phase):
                function = getattr(module, phase)

                def timed(*args, _function=function, _phase=phase, **kwargs):
                    start = time.process_time()
                    try:
                        return _function(*args, **kwargs)
                    finally:
                        spent[_phase] += time.process_time() - start
                setattr(module, phase, functools.wraps(function)(timed))
        for _ in range(calls):
            frontier(X, y, k, deadline=Deadline.after(60))
        os.write(write, json.dumps({"calls": seconds, "phases": {
            phase: value / calls for phase, value in spent.items()}}).encode())
        os._exit(0)
    os.close(write)
    os.wait()
    return json.loads(os.read(read, 1 << 16).decode())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--base", required=False, help="base tree (src/)")
    parser.add_argument("--head", default=".", help="head tree (src/)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return
    found = {}
    load = os.getloadavg()
    for _ in range(args.rounds):
        for side, tree in (("base", args.base), ("head", args.head)):
            env = {**os.environ, "PYTHONPATH": os.path.join(os.path.abspath(tree), "src")}
            for name in args.datasets:
                done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                       name, str(args.calls)], env=env, capture_output=True,
                                      text=True, check=True)
                found.setdefault((side, name), []).append(
                    json.loads(done.stdout.strip().splitlines()[-1]))
    lines = ["| dataset | first call, base ms | head ms | head/base | later calls, base ms | "
             "head ms | head/base | head phases (later calls, ms) |",
             "|---|" + "---:|" * 6 + "---|"]
    for name in args.datasets:
        cells = [name]
        for pick in (lambda r: r["calls"][0], lambda r: statistics.median(r["calls"][1:])):
            b = statistics.median(pick(r) for r in found["base", name]) * 1000
            h = statistics.median(pick(r) for r in found["head", name]) * 1000
            cells += [f"{b:.1f}", f"{h:.1f}", f"{h / b:.2f}"]
        phases = {p: statistics.median(r["phases"].get(p, 0) for r in found["head", name])
                  for p in PHASES}
        cells.append(", ".join(f"{p} {v * 1000:.1f}" for p, v in phases.items()))
        lines.append("| " + " | ".join(cells) + " |")
    command = "python benchmarks/frontier_call_cost.py " + " ".join(sys.argv[1:])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    header = ["# First call against later calls of the small size-error frontiers", "",
              f"Command: `{command}`  ",
              f"Commit {commit.stdout.strip() or 'unknown'}; "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
              f"load average before {load[0]:.1f}, after {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores (a machine shared with other jobs: read the ratios). "
              f"Process CPU seconds, medians over {args.rounds} alternated rounds, "
              f"{args.calls} calls a process.", ""]
    text = "\n".join(header + lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
