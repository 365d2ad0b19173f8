"""(A module, not a script) the stamp every A/B result file starts with, and its writing."""

from __future__ import annotations

import os
import subprocess
import time

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
