"""The ``occamlearn`` command line.

Each subcommand lives in a module of this package listed in ``COMMAND_MODULES``; a module
exposes ``register(subparsers)``, which adds its parsers and sets ``run`` (a function taking
the parsed arguments and returning an exit code) as a default. User mistakes (bad file,
unknown dataset, bad column, data that admits no pure tree, ...) surface as ``ValueError``,
``TypeError``, ``FileNotFoundError`` or ``KeyError`` (or any exception marked
``user_facing``, such as a failed external solver) and are printed as one line on stderr with
exit code 2; anything else is a bug and keeps its traceback. Estimator parameters named
in such a message are given as the command's flags (``on_conflict='majority'`` is printed
``--on-conflict majority``). Output cut short by the reader (``occamlearn predict ... | head``)
ends quietly with exit code 141 (128 + SIGPIPE), as a killed pipeline writer does.

Modules of this package import nothing heavy at module level: a command imports pandas,
scikit-learn or PySAT when it runs, so argument and file errors come back at once.

A command's ``--time-limit`` counts from the command's start (``args.command_started``): run
as ``occamlearn`` or ``python -m occamlearn`` (``run``), from the start of the process, its
interpreter and imports included, since the user's promise is about the command; called as
``main(argv)`` inside another program, from the call. ``run`` also ends the process as soon
as the command is done: it runs the ``atexit`` handlers and flushes the output, then exits
without tearing the interpreter down (freeing every object of scikit-learn, pandas, numba,
which costs about a second and does nothing a finished command needs).
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from occamlearn.stopping import CLOCK, process_seconds

COMMAND_MODULES = (
    "occamlearn.cli.data",       # datasets, binarize
    "occamlearn.cli.trees",      # fit
    "occamlearn.cli.saved_models",  # predict, show
    "occamlearn.cli.external_solver",  # encode, decode
    "occamlearn.cli.lists",      # dlist
    "occamlearn.cli.reproduce",  # reproduce <experiment>
    "occamlearn.cli.warm_up",    # warm-up (compile the search kernels ahead)
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


def _subparser(parser: argparse.ArgumentParser, command: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


def _quiet_broken_pipe() -> int:
    """The reader closed the pipe: send further output (and the final flush) to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def _warning_line(command: str, subparser):
    """``warnings.showwarning`` for the CLI: one line, in the command's words."""
    from occamlearn.cli.common import flags_of, in_cli_words

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if subparser is not None:
            text = in_cli_words(text, flags_of(subparser))
        print(f"occamlearn {command}: warning: {text}", file=sys.stderr)

    return show


def main(argv: list[str] | None = None, *, started: float | None = None) -> int:
    """Run the command ``argv`` (default ``sys.argv[1:]``); its exit code. ``started``: when
    the command started on ``stopping.CLOCK`` (its time limit counts from there; default
    now)."""
    import warnings

    from occamlearn.cli.common import flags_of, in_cli_words

    started = CLOCK() if started is None else started
    parser = build_parser()
    args = parser.parse_args(argv)
    args.command_started = started
    shown = warnings.showwarning
    warnings.showwarning = _warning_line(args.command, _subparser(parser, args.command))
    try:
        # The data warnings (rows dropped or relabelled, columns read as text) are part of a
        # command's report, so they are shown whatever the interpreter's warning filters say
        # (``-W ignore`` or ``PYTHONWARNINGS=ignore`` would otherwise lose them silently).
        with warnings.catch_warnings():
            warnings.simplefilter("always", UserWarning)
            return int(args.run(args) or 0)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("occamlearn: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - user mistakes are one line, bugs keep tracebacks
        if not (isinstance(exc, USER_ERRORS) or getattr(exc, "user_facing", False)):
            raise
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        subparser = _subparser(parser, args.command)
        text = str(message)
        if subparser is not None:
            text = in_cli_words(text, flags_of(subparser))
        print(f"occamlearn {args.command}: error: {text}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = shown


def run() -> None:
    """The ``occamlearn`` command (console script, ``python -m occamlearn``): ``main`` timed
    from the process's start, then an exit without interpreter teardown (``_exit_now``)."""
    _exit_now(main(started=CLOCK() - process_seconds()))


def _exit_now(code: int) -> None:
    """End the process with ``code`` once the ``atexit`` handlers have run and the output is
    flushed, skipping the interpreter's teardown (CPython's ``atexit._run_exitfuncs`` runs
    the handlers, as the interpreter would; elsewhere a normal ``sys.exit``)."""
    import atexit

    if not hasattr(atexit, "_run_exitfuncs"):  # pragma: no cover - not CPython
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            code = _quiet_broken_pipe()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
