"""CPU per fit of ``MaxAccuracyTreeClassifier(max_depth=4, binarizer=None)`` on the bundled
0/1 matrices, this checkout against a base checkout, alternated in one sitting.

Each round runs one process per side (base, then this checkout); a process fits every
matrix once to warm up (as ``dtmax_continuous.py`` does, on 20 of its rows), then
``--repeats`` times, and reports CPU seconds per fit (``time.process_time``) and the answer
(errors, nodes). A table's number is the least over the rounds (the least disturbed by
other jobs). The answers must agree.

    python benchmarks/dtmax_binary_fixed_cost.py --base /tmp/base/src --out ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(repeats: int) -> dict:
    import warnings

    import numpy as np

    sys.path.insert(0, HERE)
    from dtmax_continuous import training_table

    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.datasets import list_datasets

    warnings.simplefilter("ignore")

    def fit(X, y):
        return MaxAccuracyTreeClassifier(max_depth=4, time_limit=60, binarizer=None).fit(X, y)

    out = {}
    for name in list_datasets():
        X, y, _ = training_table(f"bundled:{name}")
        warm = np.r_[np.flatnonzero(y == y[0])[:10], np.flatnonzero(y != y[0])[:10]]
        fit(X[warm], y[warm])
        began = time.process_time()
        for _ in range(repeats):
            model = fit(X, y)
        out[name] = {"cpu": (time.process_time() - began) / repeats,
                     "answer": [model.training_errors_, int(model.n_nodes_)]}
    return out


def run(src: str | None, repeats: int) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(src), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                           str(repeats)], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--base", help="src folder of the base checkout")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker)))
        return
    load_before = os.getloadavg()
    sides = {"base": [], "head": []}
    for _ in range(args.rounds):
        sides["base"].append(run(args.base, args.repeats))
        sides["head"].append(run(None, args.repeats))
    best = {side: {name: min(r[name]["cpu"] for r in runs) for name in runs[0]}
            for side, runs in sides.items()}
    names = list(best["head"])
    lines = ["# CPU per fit on the bundled 0/1 matrices, depth 4: base vs head\n",
             "Command: `python benchmarks/dtmax_binary_fixed_cost.py "
             + " ".join(argv if argv is not None else sys.argv[1:]) + "`  ",
             f"Commit: {_commit()}  ",
             f"Load average (1, 5, 15 min) before {tuple(round(v, 2) for v in load_before)}, "
             f"after {tuple(round(v, 2) for v in os.getloadavg())}; {args.rounds} rounds "
             f"alternated (base, head), {args.repeats} fits each after a warm-up; the least "
             "CPU per fit over the rounds.\n",
             "| table | base ms | head ms | head / base | answer (errors, nodes) |",
             "|---|---|---|---|---|"]
    for name in names:
        answers = {json.dumps(r[name]["answer"]) for runs in sides.values() for r in runs}
        b, h = best["base"][name] * 1e3, best["head"][name] * 1e3
        lines.append(f"| {name} | {b:.2f} | {h:.2f} | {h / b:.2f} | "
                     f"{' vs '.join(sorted(answers))} |")
    b, h = (sum(best[s].values()) * 1e3 for s in ("base", "head"))
    lines.append(f"| **total** | {b:.1f} | {h:.1f} | {h / b:.2f} | |")
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


def _commit() -> str:
    done = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True,
                          text=True, cwd=HERE)
    return done.stdout.strip()[:100]


if __name__ == "__main__":
    main()
