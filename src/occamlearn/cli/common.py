"""Argument helpers shared by subcommands: reading a table from a CSV or a bundled dataset."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_data_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``DATA.csv`` or ``--dataset NAME``, plus ``--target COL``."""
    parser.add_argument("data", nargs="?", help="CSV file with a header row")
    parser.add_argument("--dataset", metavar="NAME", help="a bundled dataset instead of a CSV")
    parser.add_argument("--target", default="target", help="label column (default: target)")


def read_table(args: argparse.Namespace, need_target: bool = True):
    """Return ``(X, y, source_name)`` from ``args.data`` or ``args.dataset``.

    ``y`` is None when the CSV has no target column and ``need_target`` is False.
    """
    import pandas as pd

    from occamlearn.datasets import load_dataset

    if args.dataset and args.data:
        raise ValueError("give either DATA.csv or --dataset NAME, not both")
    if args.dataset:
        X, y = load_dataset(args.dataset)
        return X, y, args.dataset
    if not args.data:
        raise ValueError("no data: give DATA.csv or --dataset NAME")
    path = Path(args.data)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    frame = pd.read_csv(path)
    if frame.empty:
        raise ValueError(f"{path} has no rows")
    if args.target in frame.columns:
        y = frame.pop(args.target)
    elif need_target:
        raise ValueError(
            f"{path} has no target column {args.target!r} (columns: {', '.join(frame.columns)});"
            " name it with --target"
        )
    else:
        y = None
    return frame, y, path.name
