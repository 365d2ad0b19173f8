"""Argument helpers shared by subcommands: reading a table from a CSV or a bundled dataset,
checking output paths before any work starts, and turning estimator parameter names in error
messages into the command's flags.

Nothing here imports the scientific stack at module level: every command pays for pandas,
scikit-learn or PySAT only when it uses them (``occamlearn predict missing.json x.csv``
answers before importing any of them).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shlex
from pathlib import Path

from occamlearn.stopping import CLOCK

# The index column pandas writes with ``to_csv()`` (an empty header cell) reads back as
# "Unnamed: 0"; it numbers rows and is no feature.
# The shortest time_limit a command gives its fit (``command_seconds_left``).
MIN_FIT_SECONDS = 0.01
_UNNAMED_INDEX = re.compile(r"^Unnamed: 0$")


def add_data_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``DATA.csv`` or ``--dataset NAME``, plus ``--target COL``, the CSV format flags and
    ``--categorical COLS`` (columns to read as categories whatever their values)."""
    parser.add_argument("data", nargs="?", help="CSV file with a header row")
    parser.add_argument("--dataset", metavar="NAME", help="a bundled dataset instead of a CSV")
    parser.add_argument("--target", default="target", help="label column (default: target)")
    add_csv_format_arguments(parser)
    parser.add_argument("--categorical", type=column_list, metavar="COLS", default=None,
                        help="comma-separated columns to read as unordered categories (one "
                        "test per value) even when they hold numbers, e.g. --categorical "
                        "zip,age")


def column_list(text: str) -> list[str]:
    """``a,b,c`` -> ``["a", "b", "c"]`` (a column name cannot hold a comma here)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected one or more column names, e.g. a,b")
    return names


def add_csv_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``--sep``, ``--decimal`` and ``--dates``: how the CSV writes fields, numbers and
    dates."""
    parser.add_argument("--sep", default=",",
                        help="field separator of the CSV (default: ','; 'tab' for a tab)")
    parser.add_argument("--decimal", choices=(".", ","), default=".",
                        help="decimal mark of the CSV's numbers (default: '.'; a column whose "
                        "every value is a number with a decimal comma, such as \"1,5\", is "
                        "read as numbers either way, with a warning)")
    parser.add_argument("--dates", type=_dates_argument, metavar="COLS", default=None,
                        help="comma-separated columns that hold dates, cut at dates (e.g. "
                        "application_date >= 2022-06-23); default: every text column whose "
                        "values are all ISO dates (2022-06-23, 2022-06-23 14:30) is read as "
                        "dates, with a warning; none: no column is")


def _dates_argument(text: str):
    return [] if text.strip().lower() == "none" else column_list(text)


def csv_format(args: argparse.Namespace) -> dict:
    """The ``read_csv`` keywords ``--sep``/``--decimal``/``--dates`` ask for."""
    sep = getattr(args, "sep", ",")
    return {"sep": "\t" if sep in ("tab", "\\t") else sep,
            "decimal": getattr(args, "decimal", "."), "dates": getattr(args, "dates", None)}


def add_column_role_arguments(parser: argparse.ArgumentParser) -> None:
    """``--keep-identifiers`` and ``--max-categories``: the binarisers' column-role options
    (``occamlearn.binarize.column_roles``)."""
    parser.add_argument("--keep-identifiers", action="store_true",
                        help="keep identifier-like columns (every value a distinct string, "
                        "or integers counting the rows), which are dropped with a warning "
                        "by default")
    parser.add_argument("--max-categories", type=_categories_cap, default=64, metavar="K",
                        help="categories per column that keep their own test, the most "
                        "frequent; the rest fold into 'other' with a warning (default 64; "
                        "0: no cap)")


def _categories_cap(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 (0: no cap), got {value}")
    return value or None


def binarizer_argument(args, name: str | None):
    """What the estimators' ``binarizer=`` gets for ``--binarizer NAME`` (``None`` for
    "none"): the name itself when the column-role flags and ``--categorical`` keep their
    defaults -- so a CLI model has exactly the Python default's parameters -- else the
    configured transformer."""
    if name is None or name == "none":
        return None
    keep = getattr(args, "keep_identifiers", False)
    cap = getattr(args, "max_categories", 64)
    categorical = getattr(args, "categorical", None)
    if not keep and cap == 64 and not categorical:
        return name
    from occamlearn.estimators import BINARIZERS

    return BINARIZERS[name]().set_params(drop_identifiers=not keep, max_categories=cap,
                                         categorical=categorical)


def time_limit_seconds(text: str) -> float | None:
    """``--time-limit S``: seconds; ``0`` or ``none`` mean no limit (as ``time_limit=None``
    or ``0`` do in Python). A negative number is left for the command to refuse."""
    if text.strip().lower() in ("none", "inf"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid seconds {text!r}: expected a number, 0 or none (no limit)") from None
    if value != value:
        raise argparse.ArgumentTypeError("invalid seconds 'nan': expected a number, 0 or none")
    return value or None


def command_seconds_left(args: argparse.Namespace, seconds: float | None) -> float | None:
    """What is left of ``seconds`` (a command's ``--time-limit``; None: no limit) counted from
    the command's start (``args.command_started``, set by ``cli.main``): the ``time_limit``
    of the fit the command runs now. At least ``MIN_FIT_SECONDS``, since a fit's
    ``time_limit`` of 0 would mean no limit: a command whose start-up took its whole limit
    still returns the first model its fit finds."""
    started = getattr(args, "command_started", None)
    if seconds is None or started is None:
        return seconds
    return max(MIN_FIT_SECONDS, seconds - (CLOCK() - started))


def check_output_path(path, flag: str = "-o") -> None:
    """ValueError naming ``path`` unless a file can be written there: run before the work,
    so that a long fit never ends in "no such directory"."""
    if path is None:
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"{flag} {path}: is a directory, not a file")
    if not folder.is_dir():
        raise ValueError(f"{flag} {path}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists()
                                                   and not os.access(target, os.W_OK)):
        raise ValueError(f"{flag} {path}: not writable")


def check_input_file(path, what: str = "file") -> Path:
    path = Path(path)
    if not path.is_file():
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a directory, not a {what}")
        raise FileNotFoundError(f"no such {what}: {path}")
    return path


def read_csv(path, what: str = "file", *, sep: str = ",", decimal: str = ".", dates=None):
    """A CSV file as a DataFrame: errors name the file; duplicate column names are an error
    (pandas would rename them silently); the unnamed index column ``to_csv`` writes is
    dropped. ``sep`` separates fields; ``decimal`` is the decimal mark (with ``"."``, a text
    column whose every value is a number with a decimal comma, such as a quoted ``"1,5"``, is
    still read as numbers by the binarisers, with a warning). A one-column header that holds
    another separator is an error suggesting ``--sep``, quoted for the shell. ``dates``: the
    columns to read as dates (``read_dates``; None: detect ISO dates, [] none)."""
    path = check_input_file(path, what)
    import pandas as pd

    if len(sep) != 1:
        raise ValueError(f"--sep {sep!r}: give one character (or 'tab')")
    try:
        with open(path, newline="") as handle:
            header = next(csv.reader(handle, delimiter=sep), [])
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{path} is not a readable CSV file: {exc}") from None
    if len(header) == 1:
        for other, flag in ((";", ";"), ("\t", "tab"), (",", ",")):
            if other != sep and other in header[0]:
                raise ValueError(f"{path} has one column, {header[0]!r}: are its fields "
                                 f"separated by {other!r}? pass --sep {shlex.quote(flag)}")
    seen, repeated = set(), []
    for name in header:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    if repeated:
        raise ValueError(f"{path} repeats the column name(s) "
                         f"{', '.join(repr(n) for n in repeated)}: rename them")
    try:
        frame = pd.read_csv(path, sep=sep, decimal=decimal)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty (no header row)") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a readable CSV file: "
                         f"{str(exc).strip().splitlines()[-1]}") from None
    if len(frame.columns) and _UNNAMED_INDEX.match(str(frame.columns[0])):
        frame = frame.drop(columns=frame.columns[0])
    if frame.empty:
        raise ValueError(f"{path} has no rows" if len(frame.columns) else
                         f"{path} has no columns")
    return read_dates(frame, dates)


# an ISO 8601 date, optionally with a time of day and a UTC offset: unambiguous, so a text
# column of nothing else is read as dates without being asked
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
                       r"(?:Z|[+-]\d{2}:?\d{2})?$")


def _iso_dates(column) -> bool:
    present = column.dropna()
    return bool(len(present)) and all(isinstance(v, str) and _ISO_DATE.match(v.strip())
                                       for v in present)


def read_dates(frame, dates):
    """``frame`` with its date columns parsed: the columns named in ``dates`` (a ValueError
    names a column that is not in the file and the first value that is no date), or, when
    ``dates`` is None, every text column whose values are all ISO dates, with a warning
    naming them (a date read as text would become one category per day)."""
    import warnings

    import pandas as pd

    if dates is None:
        found = [name for name in frame.columns
                 if (frame[name].dtype == object or pd.api.types.is_string_dtype(frame[name]))
                 and _iso_dates(frame[name])]
        for name in found:
            frame[name] = _parsed_dates(frame, name)
        if found:
            shown = ", ".join(repr(str(n)) for n in found)
            warnings.warn(f"column(s) {shown} hold dates (such as "
                          f"{frame[found[0]].dropna().iloc[0]:%Y-%m-%d}): read as dates, so a "
                          "test cuts them at a date instead of naming one day; pass --dates "
                          "none to read them as text", UserWarning, stacklevel=2)
        return frame
    unknown = [name for name in dates if name not in frame.columns]
    if unknown:
        raise ValueError(f"--dates names {', '.join(map(repr, unknown))}, not a column of the "
                         f"file (columns: {', '.join(map(str, frame.columns))})")
    for name in dates:
        if not pd.api.types.is_datetime64_any_dtype(frame[name]):
            frame[name] = _parsed_dates(frame, name)
    return frame


def _parsed_dates(frame, name):
    import pandas as pd

    column = frame[name]
    text = column.astype("string").str.strip()
    iso = _iso_dates(column)
    offsets = iso and bool(text.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$", regex=True,
                                             na=False).any())
    parsed = pd.to_datetime(text, errors="coerce", format="ISO8601" if iso else "mixed",
                            utc=offsets)
    bad = parsed.isna() & column.notna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(f"--dates {name}: row {row} holds {column.iloc[row]!r}, not a date")
    return parsed


def read_table(args: argparse.Namespace, need_target: bool = True):
    """Return ``(X, y, source_name)`` from ``args.data`` or ``args.dataset``.

    ``y`` is None when the CSV has no target column and ``need_target`` is False.
    """
    if args.dataset and args.data:
        raise ValueError("give either DATA.csv or --dataset NAME, not both")
    if args.dataset:
        from occamlearn.datasets import load_dataset

        X, y = load_dataset(args.dataset)
        return X, y, args.dataset
    if not args.data:
        raise ValueError("no data: give DATA.csv or --dataset NAME")
    frame = read_csv(args.data, **csv_format(args))
    path = Path(args.data)
    if args.target in frame.columns:
        y = frame.pop(args.target)
        if frame.shape[1] == 0:
            raise ValueError(f"{path} has only the target column {args.target!r}: no features")
    elif need_target:
        raise ValueError(
            f"{path} has no target column {args.target!r} (columns: {', '.join(frame.columns)});"
            " name it with --target"
        )
    else:
        y = None
    return frame, y, path.name


# -- error messages in the command's words ----------------------------------------------------
_ASSIGNMENT = re.compile(
    r"\b([a-z_][a-z0-9_]*)=(\[[^\]]*\]|'[^']*'|\"[^\"]*\"|[A-Za-z0-9_.+-]+)")


def flags_of(parser: argparse.ArgumentParser) -> dict:
    """``{dest: (long flag, action)}`` for the optional arguments of ``parser``."""
    out = {}
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if longs:
            out[action.dest] = (longs[0], action)
    return out


def in_cli_words(message: str, flags: dict) -> str:
    """``on_conflict='majority'`` -> ``--on-conflict majority`` (and ``categorical=['age']``
    -> ``--categorical age``) for the parameters that are flags of the command (``flags``
    from ``flags_of``), values quoted for the shell; other text is left alone."""
    def replace(match):
        name, value = match.group(1), match.group(2)
        if name not in flags:
            return match.group(0)
        flag, action = flags[name]
        if value.startswith("["):
            return f"{flag} {shlex.quote(','.join(_listed(value)))}"
        bare = value[1:-1] if value[:1] in "'\"" else value
        if isinstance(action, argparse.BooleanOptionalAction) and bare in ("True", "False"):
            return flag if bare == "True" else "--no-" + flag[2:]
        if bare == "None":
            if name == "binarizer":
                return f"{flag} none"
            if name in ("time_limit", "max_categories"):
                return f"{flag} 0"
        if action.nargs == 0:  # a store_true flag
            return flag if bare == "True" else f"no {flag}"
        return f"{flag} {shlex.quote(bare)}"

    return _ASSIGNMENT.sub(replace, message)


def _listed(text: str) -> list[str]:
    """The items of a printed Python list (``['age', 'zip']``) as text."""
    import ast

    try:
        return [str(item) for item in ast.literal_eval(text)]
    except (ValueError, SyntaxError):
        return [text.strip("[]")]
