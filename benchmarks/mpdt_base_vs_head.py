"""Minimum pure trees, one source tree against another, alternated in the same run.

The machine is shared, so two versions of occamlearn are only comparable side by side: for
each dataset this runs ``mpdt_runtime.py`` (one fresh process per fit, the same protocol and
checks) once with ``PYTHONPATH=<head src>`` and once with ``PYTHONPATH=<base src>``, in
alternating order (head first on even datasets), and tabulates both.

    python benchmarks/mpdt_base_vs_head.py --base-src /path/to/main/src \\
        --datasets back mushr --matrices paper --time-limit 60 --out results.md

Every fit's raw result goes to ``--out``'s ``.jsonl`` sibling.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD_SRC = HERE.parent / "src"


def run_one(src: Path, dataset: str, matrices: str, time_limit: float, runner: str) -> dict:
    """One ``mpdt_runtime.py`` run of ``dataset`` with occamlearn imported from ``src``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.md"
        env = {**os.environ, "PYTHONPATH": str(src)}
        subprocess.run([sys.executable, str(HERE / "mpdt_runtime.py"), "--runners", runner,
                        "--datasets", dataset, "--matrices", matrices, "--time-limit",
                        str(time_limit), "--out", str(out)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        line = out.with_suffix(".jsonl").read_text().splitlines()[0]
    return json.loads(line)["result"]


def cell(run: dict) -> str:
    if "error" in run:
        return "ERROR " + run["error"][:40]
    size = f"{run['size']}" if run["status"] == "optimal" else f"{run['size']} (≥{run['lb']})"
    return f"{size} | {run['seconds']:.1f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", required=True, type=Path)
    parser.add_argument("--head-src", default=HEAD_SRC, type=Path)
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--matrices", default="paper", choices=("paper", "readable"))
    parser.add_argument("--runner", default="auto")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--head-label", default="", help="what the head is, e.g. a commit")
    parser.add_argument("--base-label", default="", help="what the base is, e.g. a commit")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    jsonl = args.out.with_suffix(".jsonl")
    jsonl.write_text("")
    def commit(src: Path) -> str:
        done = subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True)
        return done.stdout.strip() or "not a git checkout"

    lines = [f"Command: `{' '.join([Path(sys.executable).name, *sys.argv])}`", "",
             f"Head {args.head_src} ({args.head_label or commit(args.head_src)}); "
             f"base {args.base_src} "
             f"({args.base_label or commit(args.base_src)}). Shared machine (2 cores).", "",
             f"Matrices: {args.matrices}; runner {args.runner}; time limit {args.time_limit:g} s; "
             f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
             f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}.", "",
             "| dataset | head size | head s | base size | base s | load after |",
             "|---|---|---|---|---|---|"]
    for position, dataset in enumerate(args.datasets):
        sides = [("head", args.head_src), ("base", args.base_src)]
        runs = {}
        for side, src in (sides if position % 2 == 0 else sides[::-1]):
            runs[side] = run_one(src, dataset, args.matrices, args.time_limit, args.runner)
            with jsonl.open("a") as handle:
                handle.write(json.dumps({"dataset": dataset, "side": side,
                                         "matrices": args.matrices, "result": runs[side]})
                             + "\n")
            print(dataset, side, json.dumps(runs[side]), flush=True)
        lines.append(f"| {dataset} | {cell(runs['head'])} | {cell(runs['base'])} | "
                     f"{os.getloadavg()[0]:.1f} |")
        args.out.write_text("\n".join(lines) + "\n")
    lines.append(f"\nFinished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load "
                 f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}.")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
