"""``occamlearn predict | show``: use and print a saved JSON model file (no pickle).

``predict`` reads a model file written by ``occamlearn fit -o`` (or ``save_model``) and a CSV
file, writes one prediction per row and, when the CSV has the target column, the accuracy;
``show`` prints the model as ``print(model)`` does in Python, or as Graphviz DOT.
"""

from __future__ import annotations

import sys

from occamlearn.cli.common import (
    add_csv_format_arguments,
    check_input_file,
    check_output_path,
    csv_format,
    read_csv,
)


def register(subparsers) -> None:
    predict = subparsers.add_parser(
        "predict", help="predict with a saved model",
        description="Predict the class of every row of DATA.csv with MODEL.json. A column "
        "named like --target is left out of the input and used to report accuracy.")
    predict.add_argument("model", metavar="MODEL.json")
    predict.add_argument("data", metavar="DATA.csv")
    predict.add_argument("--target", default="target", help="label column, if present")
    add_csv_format_arguments(predict)
    predict.add_argument("-o", "--output", metavar="OUT.csv",
                         help="write the predictions here (default: stdout)")
    predict.set_defaults(run=run_predict)

    show = subparsers.add_parser(
        "show", help="print a saved model",
        description="Print a saved model (tree or decision list) exactly as print(model) does "
        "in Python, or as Graphviz DOT.")
    show.add_argument("model", metavar="MODEL.json")
    show.add_argument("--dot", action="store_true", help="Graphviz DOT instead of text")
    show.add_argument("--counts", action="store_true",
                      help="show training rows per class at each leaf of a tree")
    show.set_defaults(run=run_show)


def _load_model(path):
    check_input_file(path, "model file")
    from occamlearn.estimators.model_files import load_model

    return load_model(path)


def _label_warning(model, y, target: str) -> str | None:
    classes = getattr(model, "classes_", None)
    if classes is None:
        return None
    known = {str(c) for c in classes}
    seen = {str(v) for v in y.tolist()}
    if known & seen:
        return None
    shown = ", ".join(sorted(seen)[:5]) + (", ..." if len(seen) > 5 else "")
    return (f"warning: no value of column {target!r} ({shown}) is a class of the model "
            f"({', '.join(sorted(known))}): the accuracy compares unrelated labels; is "
            "--target the right column?")


def run_predict(args) -> int:
    check_input_file(args.model, "model file")
    check_input_file(args.data)
    check_output_path(args.output)
    import pandas as pd

    model = _load_model(args.model)
    # the model knows which columns hold dates and reads their text itself: no detection
    frame = read_csv(args.data, **{**csv_format(args), "dates": args.dates or []})
    y = frame.pop(args.target) if args.target in frame.columns else None
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [str(n) for n in names if n not in frame.columns]
        if missing:
            raise ValueError(f"{args.data} lacks the model's column(s) {', '.join(missing)}")
        frame = frame[list(names)]
    predictions = model.predict(frame if names is not None else frame.to_numpy())
    table = pd.DataFrame({"prediction": predictions})
    if args.output:
        table.to_csv(args.output, index=False)
    else:
        table.to_csv(sys.stdout, index=False)
        sys.stdout.flush()
    if y is not None:
        warning = _label_warning(model, y, args.target)
        if warning:
            print(warning, file=sys.stderr)
        accuracy = float((pd.Series(predictions).astype(str) == y.astype(str).to_numpy()).mean())
        print(f"accuracy: {accuracy:.4f} on {len(y)} rows", file=sys.stderr)
    return 0


def _dot(model, show_counts: bool) -> str:
    from occamlearn.export import export_graphviz

    return export_graphviz(model, show_counts=show_counts)


def run_show(args) -> int:
    """Print the saved model as ``print(model)`` does (``--counts``: with the training rows
    per class at each leaf), or as Graphviz DOT."""
    model = _load_model(args.model)
    if args.dot:
        sys.stdout.write(_dot(model, args.counts))
        return 0
    from occamlearn.export.describe import describe

    print(describe(model, show_counts=True if args.counts else None))
    return 0
