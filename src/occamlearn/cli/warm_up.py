"""``occamlearn warm-up``: compile the numba kernels of the exact searches now.

Without it nothing is lost: a fit that needs kernels compiles the families it uses in a background
process while it searches with its Python engine, and switches when they are ready
(``occamlearn.trees.compiling.kernel_cache``); that process ends with the fit's. Running this once
after installing (or after upgrading) makes every fit start on the compiled engines. It shows each
family as it goes, with its seconds. Nothing is compiled at install time.
"""

from __future__ import annotations

import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "warm-up",
        help="compile the search kernels into numba's disk cache (optional, once)",
        description="Compile (or load, if already compiled) the numba kernels of the exact "
        "searches into numba's disk cache, so that every fit starts on the compiled engines. "
        "Optional: a fit without it compiles what it needs in the background.",
    )
    parser.set_defaults(run=run_warm_up)


def run_warm_up(args) -> int:
    from occamlearn.estimators import KERNEL_COMPILE_ALL_SECONDS, warm_up_kernels

    print("compiling the search kernels: every family, about "
          f"{KERNEL_COMPILE_ALL_SECONDS} CPU seconds on an empty cache, a few seconds "
          "once cached", file=sys.stderr, flush=True)

    def report(name, index, count, seconds):
        if seconds is None:
            print(f"[{index + 1}/{count}] {name} ...", file=sys.stderr, flush=True)
        else:
            print(f"{name} kernels ready ({seconds:.1f} s)", flush=True)

    warm_up_kernels(report)
    return 0
