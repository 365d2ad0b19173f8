"""``occamlearn warm-up``: compile the numba kernels of the exact searches now.

Without it nothing is lost: the first fit that needs the kernels compiles them in a background
process while it searches with its Python engine, and switches when they are ready
(``occamlearn.trees.kernel_cache``). Running it once after installing (or after upgrading)
makes even the first fit start on the compiled engine. Nothing is compiled at install time.
"""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "warm-up",
        help="compile the search kernels into numba's disk cache (optional, once)",
        description="Compile (or load, if already compiled) the numba kernels of the exact "
        "searches into numba's disk cache, so that the first fit starts on the compiled "
        "engine. Optional: a first fit without it compiles them in the background.",
    )
    parser.set_defaults(run=run_warm_up)


def run_warm_up(args) -> int:
    from occamlearn.estimators import warm_up_kernels

    for name, seconds in warm_up_kernels().items():
        print(f"{name} kernels ready ({seconds:.1f} s)")
    return 0
