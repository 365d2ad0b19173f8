"""The deepening probe under two source trees, alternated in one sitting: CPU seconds.

Runs ``mpdt_deepening_probe.py --mode deepen`` once per round with ``PYTHONPATH=<head src>``
and once with ``PYTHONPATH=<base src>`` (head first in odd rounds), each in a fresh process
whose kernels load before its clock starts, and prints each run's last line (calls and CPU
seconds) with the load average. ``--env NAME=VALUE`` is passed to both (e.g. a numba cache
directory per tree: ``--head-env``/``--base-env``).

    python benchmarks/mpdt_probe_ab.py --base-src /tmp/base/src --dataset haber:all \\
        --target 56 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _pairs(values: list[str]) -> dict:
    return dict(value.split("=", 1) for value in values)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", required=True, type=Path)
    parser.add_argument("--head-src", default=HERE.parent / "src", type=Path)
    parser.add_argument("--dataset", default="haber:all")
    parser.add_argument("--target", type=int, required=True, help="leaves")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--head-env", nargs="*", default=[], help="NAME=VALUE for the head")
    parser.add_argument("--base-env", nargs="*", default=[], help="NAME=VALUE for the base")
    args = parser.parse_args(argv)
    sides = {"head": (args.head_src, _pairs(args.head_env)),
             "base": (args.base_src, _pairs(args.base_env))}
    for round_ in range(1, args.rounds + 1):
        for side in (("head", "base") if round_ % 2 else ("base", "head")):
            src, extra = sides[side]
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            done = subprocess.run([sys.executable, str(HERE / "mpdt_deepening_probe.py"),
                                   "--dataset", args.dataset, "--mode", "deepen", "--target",
                                   str(args.target)], capture_output=True, text=True, check=True,
                                  env={**os.environ, "PYTHONPATH": str(src), **extra})
            print(f"{side} round {round_} (load {load}): {done.stdout.splitlines()[-1]}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
