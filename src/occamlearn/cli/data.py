"""``occamlearn datasets`` and ``occamlearn binarize``: look at data before learning from it.

``datasets`` prints one row per bundled dataset: rows, features, classes, rows in conflicting
groups (identical features, different labels: no pure tree exists) -- counted after
binarising with ``occamlearn fit``'s default binariser fitted with the labels, as ``fit``
does, so these are the conflicts ``fit`` meets (thinned cuts could make distinct rows
identical) -- and the number of binary features that binariser makes (on the full data).

``binarize`` prints the feature names a binariser produces for a CSV file or a bundled dataset
(fitted with the target column when there is one, as ``fit`` does) and, with ``-o``, writes
the 0/1 matrix (with the target column) as CSV.
"""

from __future__ import annotations

import sys

from occamlearn.cli.common import (
    add_column_role_arguments,
    add_data_arguments,
    check_output_path,
    read_table,
)

ENCODINGS = ("readable", "binary", "onehot", "threshold", "quantile")


def register(subparsers) -> None:
    datasets = subparsers.add_parser(
        "datasets",
        help="list the bundled datasets",
        description="Rows, features, classes, conflicting rows and binary feature count of "
        "every bundled dataset, after binarising as 'occamlearn fit' does by default (the "
        "conflicting rows are those fit meets: --on-conflict decides what it does with them).",
    )
    datasets.set_defaults(run=run_datasets)

    binarize = subparsers.add_parser(
        "binarize",
        help="binarise a table and print the feature names",
        description="Binarise DATA.csv or a bundled dataset; print one feature name a line.",
    )
    add_data_arguments(binarize)
    binarize.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="readable",
        help="readable: what fit and dlist use by default (x >= t between training values, "
        "one-hot categories; with a target column, as fit has it, every cut a tree can need, "
        "else 32 cuts per column, as dlist has it); binary: the MaxSAT paper's bit encoding; "
        "onehot; threshold "
        "(x <= t features); quantile: the decision-list paper's quantile indicators",
    )
    binarize.add_argument(
        "--n-bins",
        type=int,
        default=None,
        help="bins per continuous column (binary, onehot, threshold; default 8)",
    )
    add_column_role_arguments(binarize)
    binarize.add_argument(
        "--strategy", choices=("uniform", "quantile"), default=None,
        help="binning strategy (binary, onehot, threshold; default uniform)"
    )
    binarize.add_argument("-o", "--output", metavar="OUT.csv", help="write the 0/1 matrix here")
    binarize.set_defaults(run=run_binarize)


def _binarizer(args):
    from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer, ThresholdBinarizer

    roles = {"drop_identifiers": not args.keep_identifiers,
             "max_categories": args.max_categories, "categorical": args.categorical}
    binning = {"n_bins": args.n_bins, "strategy": args.strategy}
    if args.encoding in ("readable", "quantile"):
        given = [f"--{name.replace('_', '-')}" for name, value in binning.items()
                 if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} apply to --encoding binary, onehot or "
                             f"threshold, not {args.encoding}")
    if args.encoding == "readable":
        return ThresholdBinarizer(**roles)
    if args.encoding == "quantile":
        return QuantileBinarizer(**roles)
    return FeatureBinarizer(encoding=args.encoding, n_bins=args.n_bins or 8,
                            strategy=args.strategy or "uniform", **roles)


def run_binarize(args) -> int:
    import pandas as pd

    check_output_path(args.output)
    X, y, _ = read_table(args, need_target=False)
    binarizer = _binarizer(args)
    # with the target the readable cuts are those fit uses: every cut a tree can need
    matrix = binarizer.fit(X, y).transform(X)
    names = binarizer.get_feature_names_out()
    if args.output:
        table = pd.DataFrame(matrix, columns=names, index=X.index)
        if y is not None:
            table[y.name if y.name is not None else args.target] = y.to_numpy()
        table.to_csv(args.output, index=False)
    sys.stdout.write("".join(f"{name}\n" for name in names))
    return 0


def dataset_rows() -> list[dict]:
    """One dict per bundled dataset with the numbers ``occamlearn datasets`` prints."""
    from occamlearn.binarize import find_conflicts
    from occamlearn.cli.trees import BINARIZERS
    from occamlearn.datasets import list_datasets, load_dataset
    from occamlearn.estimators import binarizer_to_fit, encode_labels

    default = BINARIZERS[0]  # fit's default --binarizer
    rows = []
    for name in list_datasets():
        X, y = load_dataset(name)
        _, y_index = encode_labels(y)
        X_bin = binarizer_to_fit(default).fit(X, y_index).transform(X)
        conflicts = find_conflicts(X_bin, y_index)
        rows.append(
            {
                "name": name,
                "rows": len(X),
                "features": X.shape[1],
                "classes": y.nunique(),
                "conflicting rows": sum(len(g) for g in conflicts),
                "binary features": X_bin.shape[1],
            }
        )
    return rows


def format_table(rows: list[dict]) -> str:
    """Plain aligned table: first column left-aligned, numbers right-aligned."""
    headers = list(rows[0])
    cells = [headers] + [[str(row[h]) for h in headers] for row in rows]
    widths = [max(len(line[k]) for line in cells) for k in range(len(headers))]
    lines = []
    for line in cells:
        first = line[0].ljust(widths[0])
        rest = [text.rjust(width) for text, width in zip(line[1:], widths[1:])]
        lines.append("  ".join([first, *rest]))
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines) + "\n"


def run_datasets(args) -> int:
    sys.stdout.write(format_table(dataset_rows()))
    return 0
