"""``occamlearn fit | predict | show | encode | decode``: minimum pure trees from the shell.

``fit`` learns a ``MinimumPureTreeClassifier`` (or, with ``--max-depth``, the most accurate
tree of bounded depth: ``MaxAccuracyTreeClassifier``) on a CSV file or a bundled dataset,
shows each better tree as it is found (stderr), prints the tree, its size, status and
timings, and can save it as a JSON model file. ``predict`` and ``show`` read such a file (no pickle).
``encode`` writes the MaxSAT instance for an external solver and ``decode`` turns the solver's
answer back into a tree (see ``occamlearn.trees.mpdt.wcnf_file``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from occamlearn.cli.common import add_data_arguments, read_table

BINARIZERS = ("binary", "onehot", "threshold", "none")
# MaxSAT back-ends (occamlearn.maxsat.backends.BACKENDS, written out so that the CLI starts
# without importing PySAT; a test checks that the two agree).
SOLVERS = ("lsu", "rc2", "external", "uwrmaxsat", "evalmaxsat", "loandra", "nuwls",
           "open-wbo-inc", "spb-maxsat", "tt-open-wbo-inc")
TREE_METHODS = ("maxsat", "mindt")       # MinimumPureTreeClassifier(method=...)
DEPTH_METHODS = ("auto", "dp", "maxsat")  # MaxAccuracyTreeClassifier(method=...)

DECODE_HELP = """\
Read a MaxSAT solver's output for an instance written by 'occamlearn encode' and print (or
save) the tree. SOLUTION is the solver's standard output as the MaxSAT Evaluations define it:
an 's' line (OPTIMUM FOUND -> status optimal; SATISFIABLE -> feasible; UNSATISFIABLE ->
no tree of at most n nodes; UNKNOWN), optional 'o COST' lines, and the model in 'v' lines,
either the MSE 2022 compact form 'v 0110...' (character i is the value of variable i+1) or
the legacy literal list 'v 1 -2 3 ... 0' (one or several v lines). A model given as a single
'v 1' line is read as the literal 1."""


def _add_solve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--binarizer", choices=BINARIZERS, default="binary",
                        help="binary: the MaxSAT paper's bit encoding (default); onehot; "
                        "threshold; none: the data is already 0/1")
    parser.add_argument("--on-conflict", choices=("error", "majority", "relax"),
                        default="error",
                        help="identical binarised rows with different labels: error "
                        "(default), keep each group's majority label (the paper's filter), "
                        "or relax: allow the fewest training errors the conflicts force")
    parser.add_argument("--train-size", type=float, metavar="F",
                        help="learn on a stratified fraction F of the rows (the papers use "
                        "0.64) and report accuracy on the rest")
    parser.add_argument("--random-state", type=int, default=0,
                        help="seed of the --train-size split (default 0)")


def register(subparsers) -> None:
    fit = subparsers.add_parser(
        "fit", help="learn a minimum pure decision tree",
        description="Learn the decision tree with the fewest nodes that classifies every "
        "training row correctly (MaxSAT). Progress goes to stderr; the tree to stdout.")
    add_data_arguments(fit)
    _add_solve_arguments(fit)
    fit.add_argument("--time-limit", type=float, metavar="S",
                     help="stop after S seconds with the best tree so far (status feasible)")
    fit.add_argument("--method", choices=sorted(set(TREE_METHODS + DEPTH_METHODS)),
                     default=None,
                     help="how the optimum is searched for and proven: maxsat (default; "
                     "the MaxSAT encoding solved by --solver) or mindt (the SAT baseline); "
                     "with --max-depth auto (default), dp (dynamic programme) or maxsat")
    fit.add_argument("--solver", choices=SOLVERS, default=None,
                     help="MaxSAT back-end of --method maxsat: lsu (linear SAT-UNSAT, "
                     "default), rc2, external (command in $OCCAMLEARN_MAXSAT_COMMAND) or a "
                     "hermax solver (pip install occamlearn[solvers])")
    fit.add_argument("--max-errors", type=int, metavar="E",
                     help="smallest tree with at most E training errors instead of a pure one")
    fit.add_argument("--max-depth", type=int, metavar="D",
                     help="instead of a pure tree: the most accurate tree of depth <= D "
                     "(DT(max)), the smallest among the most accurate; conflicting rows "
                     "are kept and counted as errors")
    fit.add_argument("--sat-solver", default="cadical195", help="PySAT SAT solver name")
    fit.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    fit.add_argument("-o", "--output", metavar="MODEL.json", help="save the model as JSON")
    fit.set_defaults(run=run_fit)

    predict = subparsers.add_parser(
        "predict", help="predict with a saved model",
        description="Predict the class of every row of DATA.csv with MODEL.json. A column "
        "named like --target is left out of the input and used to report accuracy.")
    predict.add_argument("model", metavar="MODEL.json")
    predict.add_argument("data", metavar="DATA.csv")
    predict.add_argument("--target", default="target", help="label column, if present")
    predict.add_argument("-o", "--output", metavar="OUT.csv",
                         help="write the predictions here (default: stdout)")
    predict.set_defaults(run=run_predict)

    show = subparsers.add_parser("show", help="print a saved model",
                                 description="Print a saved tree as text or Graphviz DOT.")
    show.add_argument("model", metavar="MODEL.json")
    show.add_argument("--dot", action="store_true", help="Graphviz DOT instead of text")
    show.add_argument("--counts", action="store_true",
                      help="show training rows per class at each leaf")
    show.set_defaults(run=run_show)

    encode = subparsers.add_parser(
        "encode", help="write the MaxSAT instance (WCNF) for an external solver",
        description="Write the minimum-pure-tree MaxSAT instance of DATA.csv or a bundled "
        "dataset in the MaxSAT Evaluation format, plus OUT.json with what 'occamlearn decode' "
        "needs. The optimal cost k of the instance is a minimum tree of 2k-1 nodes.")
    add_data_arguments(encode)
    _add_solve_arguments(encode)
    encode.add_argument("-o", "--output", metavar="OUT.wcnf", required=True)
    encode.add_argument("--format", choices=("new", "legacy"), default="new",
                        help="new: MaxSAT Evaluation 2022 format (default); legacy: 'p wcnf' "
                        "header and top-weighted hard clauses")
    encode.add_argument("--upper-bound", type=int, metavar="N",
                        help="nodes of the encoded tree (default: the size of a greedy pure "
                        "tree, so every minimum tree is a solution)")
    encode.set_defaults(run=run_encode)

    decode = subparsers.add_parser(
        "decode", help="read an external MaxSAT solver's answer",
        description=DECODE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    decode.add_argument("sidecar", metavar="OUT.wcnf.json")
    decode.add_argument("solution", metavar="SOLUTION.txt")
    decode.add_argument("-o", "--output", metavar="MODEL.json", help="save the model as JSON")
    decode.set_defaults(run=run_decode)


def _split(args, X, y):
    if args.train_size is None:
        return X, y, None, None
    from sklearn.model_selection import train_test_split

    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must be in (0, 1); got {args.train_size}")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=args.train_size, stratify=y, random_state=args.random_state)
    return X_train, y_train, X_test, y_test


def _classifier(args, **extra):
    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    binarizer = None if args.binarizer == "none" else args.binarizer
    return MinimumPureTreeClassifier(binarizer=binarizer, on_conflict=args.on_conflict, **extra)


def _depth_classifier(args):
    """``MaxAccuracyTreeClassifier`` for ``fit --max-depth``; refuses pure-tree options."""
    from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

    if args.max_depth < 1:
        raise ValueError(f"--max-depth must be at least 1; got {args.max_depth}")
    if args.max_errors is not None:
        raise ValueError("--max-errors and --max-depth are two different models; give one")
    if args.on_conflict != "error":
        raise ValueError("--on-conflict does not apply with --max-depth: conflicting rows "
                         "are kept and counted as training errors")
    if args.method is not None and args.method not in DEPTH_METHODS:
        raise ValueError(f"--method {args.method} finds pure trees; with --max-depth use "
                         f"{', '.join(DEPTH_METHODS)}")
    binarizer = None if args.binarizer == "none" else args.binarizer
    return MaxAccuracyTreeClassifier(
        max_depth=args.max_depth, binarizer=binarizer, method=args.method or "auto",
        solver=args.solver or "auto",
        sat_solver=args.sat_solver, time_limit=args.time_limit, prefer_small=True,
        verbose=0 if args.quiet else 1)


def run_fit(args) -> int:
    from occamlearn.export.tree_json import save_model

    X, y, source = read_table(args)
    X_train, y_train, X_test, y_test = _split(args, X, y)
    if args.max_depth is not None:
        clf = _depth_classifier(args)
    elif args.method is not None and args.method not in TREE_METHODS:
        raise ValueError(f"--method {args.method} needs --max-depth (it searches trees of "
                         "bounded depth)")
    else:
        clf = _classifier(args, method=args.method or "maxsat", solver=args.solver or "lsu",
                          sat_solver=args.sat_solver,
                          time_limit=args.time_limit, max_errors=args.max_errors,
                          verbose=0 if args.quiet else 1)
    clf.fit(X_train, y_train)
    stats = clf.solve_stats_
    out = [clf.export_text()]
    out.append(f"data: {source}, {stats['n_rows']} training rows x {stats['n_binary_features']}"
               f" binary features, {len(clf.classes_)} classes")
    if getattr(clf, "n_conflicts_removed_", 0):
        out.append(f"conflicts: removed {clf.n_conflicts_removed_} rows (majority filter)")
    if args.max_depth is not None:
        out.append(f"size: {clf.n_nodes_} nodes, depth {clf.depth_} (at most "
                   f"{args.max_depth}), status {clf.status_}, {clf.training_errors_} training "
                   f"errors (proven minimum: {clf.errors_lower_bound_})")
    else:
        out.append(f"size: {clf.n_nodes_} nodes, status {clf.status_}, bounds "
                   f"[{clf.lower_bound_}, {clf.upper_bound_}], "
                   f"{clf.training_errors_} training errors")
    timing = ", ".join(f"{key[:-len('_seconds')]} {stats[key]:.2f} s" for key in
                       ("prepare_seconds", "ub_seconds", "encode_seconds", "solve_seconds",
                        "total_seconds") if key in stats)
    out.append(f"time: {timing}")
    if X_test is not None:
        out.append(f"accuracy: train {clf.score(X_train, y_train):.4f}, "
                   f"test {clf.score(X_test, y_test):.4f} ({len(y_test)} rows)")
    if args.output:
        save_model(clf, args.output)
        out.append(f"model saved to {args.output}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _read_csv(path: str):
    import pandas as pd

    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    frame = pd.read_csv(path)
    if frame.empty:
        raise ValueError(f"{path} has no rows")
    return frame


def run_predict(args) -> int:
    import pandas as pd

    from occamlearn.estimators.model_files import load_model

    model = load_model(args.model)
    frame = _read_csv(args.data)
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
    if y is not None:
        accuracy = float((pd.Series(predictions).astype(str) == y.astype(str).to_numpy()).mean())
        print(f"accuracy: {accuracy:.4f} on {len(y)} rows", file=sys.stderr)
    return 0


_EXPORTERS = {  # fitted attribute -> (text exporter, DOT exporter), as "module:function"
    "tree_": ("occamlearn.export.tree_text:export_text",
              "occamlearn.export.tree_dot:export_graphviz"),
    "list_": ("occamlearn.export.decision_list:export_text",
              "occamlearn.export.decision_list:export_graphviz"),
}


def _exporter(model, dot: bool):
    from importlib import import_module

    for attribute, functions in _EXPORTERS.items():
        if hasattr(model, attribute):
            module, _, name = functions[int(dot)].partition(":")
            return getattr(import_module(module), name)
    raise ValueError(f"cannot show a {type(model).__name__}")


def run_show(args) -> int:
    from occamlearn.estimators.model_files import load_model

    model = load_model(args.model)
    sys.stdout.write(_exporter(model, args.dot)(model, show_counts=args.counts))
    return 0


def run_encode(args) -> int:
    from occamlearn.export.tree_json import data_info_dict
    from occamlearn.trees.greedy import greedy_upper_bound
    from occamlearn.trees.mpdt.wcnf_file import write_instance

    X, y, source = read_table(args)
    X, y, _, _ = _split(args, X, y)
    clf = _classifier(args)
    data = clf._prepare(X, y)
    if len(data.classes) < 2:
        raise ValueError(f"{source} has a single class: the minimum tree is one leaf, "
                         "there is nothing to encode")
    upper = args.upper_bound
    if upper is None:
        upper = greedy_upper_bound(data.X_bin, data.y, len(data.classes)).size
    sidecar = write_instance(args.output, data.X_bin, data.y, upper_bound=upper,
                             wcnf_format=args.format, model_info=data_info_dict(clf))
    print(f"wrote {args.output} ({sidecar['n_vars']} variables, {sidecar['n_hard']} hard and "
          f"{sidecar['n_soft']} soft clauses, trees of at most {upper} nodes) and "
          f"{args.output}.json")
    return 0


def run_decode(args) -> int:
    from occamlearn.estimators.model_files import decode_solution
    from occamlearn.export.tree_json import save_model

    for path in (args.sidecar, args.solution):
        if not Path(path).is_file():
            raise FileNotFoundError(f"no such file: {path}")
    try:
        sidecar = json.loads(Path(args.sidecar).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{args.sidecar} is not JSON: {exc}") from None
    model = decode_solution(sidecar, Path(args.solution).read_text())
    sys.stdout.write(model.export_text())
    if args.output:
        save_model(model, args.output)
        print(f"model saved to {args.output}")
    return 0
