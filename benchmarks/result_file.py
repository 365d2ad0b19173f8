"""(A module, not a script) the stamp every A/B result file starts with, and its writing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def commit(folder: str = HERE) -> str:
    """The short commit of the checkout holding ``folder`` ('' outside a checkout)."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder,
                          capture_output=True, text=True)
    return done.stdout.strip()


def stamp(load_before: float, load_after: float | None = None) -> str:
    """When, and the machine's load: ``Commit ...; <UTC time>; load average ...``."""
    after = "" if load_after is None else f", after {load_after:.1f}"
    return (f"Commit {commit()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load "
            f"average {load_before:.1f}{after} on {os.cpu_count()} cores (a machine shared "
            "with other jobs: read the ratios).")


def publish(text: str, out: str | None) -> None:
    """Print the result and, with ``--out``, write it there."""
    print(text)
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)


def publish_run(title: str, script: str, out: str | None, work) -> None:
    """Publish ``work()``'s markdown under ``# title``, the command that ran ``script`` (its
    arguments as given) and the stamp, the load read before and after; warnings silenced
    while it runs (the peers' and the tables' own)."""
    started, load = time.perf_counter(), os.getloadavg()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = work()
    command = f"python benchmarks/{script} " + " ".join(sys.argv[1:])
    publish(f"# {title}\n\nCommand: `{command}`\n\n{stamp(load, os.getloadavg()[0])} "
            f"{time.perf_counter() - started:.0f} s.\n\n" + body, out)
