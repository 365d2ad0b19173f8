"""Output helpers shared by the decision-list paper's experiments (``dl_*`` modules).

Every experiment takes ``--markdown PATH`` (a summary table) and ``--plot PATH`` (its figure);
this module declares those options once and writes the files, creating parent folders.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = [
    "DIRECTION_NAMES",
    "add_output_arguments",
    "figure_path",
    "list_block",
    "plot_link",
    "write_text",
]

# how each search direction is named in tables and legends
DIRECTION_NAMES = {"positive": "positive (rules for y = 1)",
                   "negative": "negative (rules for y = 0)",
                   None: "undirected (general list)"}


def add_output_arguments(parser: argparse.ArgumentParser, default_stem: str | None = None) -> None:
    """``--markdown PATH`` and ``--plot PATH``; neither is written unless given."""
    suffix = f" (e.g. benchmarks/results/{default_stem}.md)" if default_stem else ""
    parser.add_argument("--markdown", metavar="PATH", help="write a Markdown summary" + suffix)
    parser.add_argument("--plot", metavar="PATH", help="save the figure (PNG, PDF or SVG; "
                        "needs matplotlib)")


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (parents created), ending with one newline."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"--markdown {path} is a directory; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n")
    return path


def figure_path(path: str | Path) -> Path:
    """``path`` checked for a plot: not a folder, parents created."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"--plot {path} is a directory; give a file name such as fig.png")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def list_block(decision_list, decimals: int = 2) -> str:
    """A decision list as a fenced Markdown code block."""
    return "```\n" + decision_list.to_text(decimals=decimals) + "\n```"


def plot_link(args) -> str | None:
    """Where ``args.plot`` lies relative to ``args.markdown``'s folder (None if no plot)."""
    if not getattr(args, "plot", None):
        return None
    if not getattr(args, "markdown", None):
        return str(args.plot)
    start = Path(args.markdown).resolve().parent
    return Path(os.path.relpath(Path(args.plot).resolve(), start)).as_posix()
