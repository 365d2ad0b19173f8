"""The ``occamlearn`` command line.

Each subcommand lives in a module of this package listed in ``COMMAND_MODULES``; a module
exposes ``register(subparsers)``, which adds its parsers and sets ``run`` (a function taking
the parsed arguments and returning an exit code) as a default. User mistakes (bad file,
unknown dataset, bad column, data that admits no pure tree, ...) surface as ``ValueError``,
``TypeError``, ``FileNotFoundError`` or ``KeyError`` and are printed as one line on stderr
with exit code 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

COMMAND_MODULES = (
    "occamlearn.cli.data",       # datasets, binarize
    "occamlearn.cli.trees",      # fit, predict, show, encode, decode
    "occamlearn.cli.lists",      # dlist
    "occamlearn.cli.reproduce",  # reproduce <experiment>
)

USER_ERRORS = (ValueError, TypeError, FileNotFoundError, KeyError, IsADirectoryError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="occamlearn",
        description="Provably small interpretable classifiers: minimum pure decision trees "
        "(MaxSAT) and directional decision lists.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        try:
            module = import_module(name)
        except ModuleNotFoundError as exc:  # a command family not built yet
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("occamlearn: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"occamlearn {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
