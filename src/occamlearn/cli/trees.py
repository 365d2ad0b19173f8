"""``occamlearn fit``: a minimum pure tree (or a most accurate bounded tree) from the shell.

``fit`` learns a ``MinimumPureTreeClassifier`` (or, with ``--max-depth``, the most accurate
tree of bounded depth: ``MaxAccuracyTreeClassifier``) on a CSV file or a bundled dataset,
shows each better tree as it is found (stderr), prints the tree, its size, status and
timings, and can save it as a JSON model file. The commands that read such a file are in
``occamlearn.cli.saved_models``; ``encode``/``decode`` for an external MaxSAT solver, which
share this module's data and solve flags, are in ``occamlearn.cli.external_solver``.
"""

from __future__ import annotations

import argparse
import sys

from occamlearn.cli.common import (
    add_column_role_arguments,
    add_data_arguments,
    binarizer_argument,
    check_output_path,
    command_seconds_left,
    read_table,
    time_limit_seconds,
)

BINARIZERS = ("readable", "binary", "onehot", "threshold", "none")
# the estimators' default time_limit (estimators._base.DEFAULT_TIME_LIMIT, written out so that
# the CLI starts without importing scikit-learn; a test checks that the two agree)
DEFAULT_TIME_LIMIT = 60.0
# MaxSAT back-ends (occamlearn.maxsat.backends.BACKENDS, written out so that the CLI starts
# without importing PySAT; a test checks that the two agree).
SOLVERS = ("lsu", "rc2", "external", "uwrmaxsat", "evalmaxsat", "loandra", "nuwls",
           "open-wbo-inc", "spb-maxsat", "tt-open-wbo-inc")



def add_solve_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags ``fit`` and ``encode`` share: how the table is binarised and split, and what
    is done with conflicting rows."""
    parser.add_argument("--binarizer", choices=BINARIZERS, default="readable",
                        help="readable: tests a person reads (default); binary: the MaxSAT "
                        "paper's bit encoding; onehot; threshold; none: the data is already "
                        "0/1")
    add_column_role_arguments(parser)
    parser.add_argument("--on-conflict", choices=("auto", "error", "majority", "relax"),
                        default="auto",
                        help="identical binarised rows with different labels: auto "
                        "(default: majority with a warning naming the rows; with "
                        "--max-errors they are kept and use the budget), error, majority "
                        "(keep each group's majority label, the paper's filter), or relax: "
                        "allow the fewest training errors the conflicts force")
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
    add_solve_arguments(fit)
    fit.add_argument("--time-limit", type=time_limit_seconds, metavar="S",
                     default=DEFAULT_TIME_LIMIT,
                     help="stop S seconds after the command started (start-up and reading "
                     "the data included) with the best tree so far (status feasible, "
                     "with its proven size bounds); default 60, 0 for no limit (or none; as in "
                     "Python: time_limit=60, None or 0). Ctrl-C also stops with the best tree "
                     "so far")
    fit.add_argument("--method", metavar="NAME", default=None,
                     help="how the optimum is searched for and proven: the estimator's "
                     "method= (default auto); for a minimum tree e.g. bnb (branch and bound) "
                     "or maxsat (the MaxSAT encoding solved by --solver), with --max-depth "
                     "or --max-leaves e.g. dp; a wrong name is answered with the list")
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
    fit.add_argument("--max-leaves", type=int, metavar="L",
                     help="instead of a pure tree: the most accurate tree with at most L "
                     "leaves (and depth <= D with --max-depth), as "
                     "MaxAccuracyTreeClassifier(max_leaves=L)")
    fit.add_argument("--class-weight", type=_class_weight, metavar="W",
                     help="with --max-depth or --max-leaves: weigh the rows of each class, "
                     "'balanced' (each class weighs alike in total) or LABEL=W pairs such "
                     "as yes=3,no=1; errors are then counted by weight")
    fit.add_argument("--prefer-small", action=argparse.BooleanOptionalAction, default=True,
                     help="with --max-depth: the smallest among the most accurate trees "
                     "(default, as in Python), or --no-prefer-small: the first most "
                     "accurate tree the dynamic programme proves (faster, maybe larger)")
    fit.add_argument("--sat-solver", default="cadical195", help="PySAT SAT solver name")
    selection = fit.add_argument_group(
        "Algorithm 3 (several minimum trees, one chosen on held-out rows)")
    selection.add_argument("--n-solutions", type=int, default=1, metavar="K",
                           help="draw up to K minimum trees (default 1: just the minimum)")
    selection.add_argument("--selection-size", type=float, default=0.0, metavar="F",
                           help="hold out a fraction F of the training rows to choose among "
                           "them (default 0)")
    selection.add_argument("--diverse", action=argparse.BooleanOptionalAction, default=True,
                           help="draw trees that differ as much as possible (MDSOL; default) "
                           "or in enumeration order (--no-diverse)")
    selection.add_argument("--delta", type=float, default=0.0, metavar="D",
                           help="keep the trees within D of the best selection accuracy and "
                           "pick one at random (--random-state; default 0)")
    fit.add_argument("-q", "--quiet", action="store_true",
                     help="no progress on stderr (on a terminal: a live line with the best "
                     "tree, the proven lower bound and the time; elsewhere one line per "
                     "better tree)")
    fit.add_argument("-o", "--output", metavar="MODEL.json", help="save the model as JSON")
    fit.set_defaults(run=run_fit)


def split_rows(args, X, y):
    """``X_train, y_train, X_test, y_test``: all rows and no test rows without
    ``--train-size``, else a stratified split seeded by ``--random-state``."""
    if args.train_size is None:
        return X, y, None, None
    from sklearn.model_selection import train_test_split

    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must be in (0, 1); got {args.train_size}")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=args.train_size, stratify=y, random_state=args.random_state)
    return X_train, y_train, X_test, y_test


def pure_tree_classifier(args, **extra):
    """``MinimumPureTreeClassifier`` with the ``--binarizer``/``--on-conflict`` flags (and
    the column roles) of ``add_solve_arguments``, plus ``extra`` parameters."""
    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    return MinimumPureTreeClassifier(binarizer=binarizer_argument(args, args.binarizer),
                                     on_conflict=args.on_conflict, **extra)


def _class_weight(text: str):
    """``balanced``, or ``LABEL=W,...`` as a dict of label text -> weight (matched to the
    target's labels once it is read: ``_labelled_weights``)."""
    if text.strip() == "balanced":
        return "balanced"
    weights = {}
    for pair in text.split(","):
        label, sep, value = pair.partition("=")
        try:
            weights[label.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not label.strip():
            raise argparse.ArgumentTypeError(
                f"expected 'balanced' or LABEL=WEIGHT pairs such as yes=3,no=1; got {text!r}")
    return weights


def _labelled_weights(weights, y):
    """``--class-weight`` with its labels as the target's values (a CSV label is read as a
    number or text; the flag gives text)."""
    if weights is None or isinstance(weights, str):
        return weights
    classes = {str(c): c for c in sorted(set(y.tolist()), key=str)}
    unknown = [label for label in weights if label not in classes]
    if unknown:
        raise ValueError(f"--class-weight names {', '.join(map(repr, unknown))}, not a class "
                         f"of the target (classes: {', '.join(classes)})")
    return {classes[label]: weight for label, weight in weights.items()}


def _bounded(args) -> bool:
    """A tree that may err in a bounded shape (DT(max)) rather than a minimum tree."""
    return args.max_depth is not None or args.max_leaves is not None


def _check_fit_flags(args) -> None:
    """The flag combinations ``fit`` refuses, checked before any data is read (``--method``
    names are checked against the estimator's own list once it is imported)."""
    _time_limit(args)
    if args.train_size is not None and not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must be in (0, 1); got {args.train_size}")
    _method(args, _estimator_class(args))
    if not _bounded(args):
        if args.class_weight is not None:
            raise ValueError("--class-weight applies with --max-depth or --max-leaves: a "
                             "minimum pure tree classifies every row, whatever its weight")
        return
    shape = "--max-depth" if args.max_depth is not None else "--max-leaves"
    if args.max_depth is not None and args.max_depth < 1:
        raise ValueError(f"--max-depth must be at least 1; got {args.max_depth}")
    if args.max_leaves is not None and args.max_leaves < 1:
        raise ValueError(f"--max-leaves must be at least 1; got {args.max_leaves}")
    if args.max_errors is not None:
        raise ValueError(f"--max-errors and {shape} are two different models; give one")
    if args.on_conflict != "auto":
        raise ValueError(f"--on-conflict does not apply with {shape}: conflicting rows "
                         "are kept and counted as training errors")
    if args.n_solutions != 1 or args.selection_size != 0:
        raise ValueError("--n-solutions and --selection-size (Algorithm 3) choose among "
                         f"minimum pure trees; they do not apply with {shape}")


def _estimator_class(args):
    if _bounded(args):
        from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

        return MaxAccuracyTreeClassifier
    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    return MinimumPureTreeClassifier


def _method(args, estimator_class) -> dict:
    """``{"method": NAME}`` for ``--method NAME`` (nothing without it), NAME checked against
    the estimator's ``_parameter_constraints``: its list is the one place methods are named."""
    if args.method is None:
        return {}
    names = _method_names(estimator_class)
    if args.method in names:
        return {"method": args.method}
    if not _bounded(args):
        from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

        if args.method in _method_names(MaxAccuracyTreeClassifier):
            raise ValueError(f"--method {args.method} needs --max-depth or --max-leaves (it "
                             "searches the most accurate tree of a bounded shape)")
    what = ("--max-depth/--max-leaves (most accurate trees)" if _bounded(args)
            else "a minimum tree")
    raise ValueError(f"--method {args.method} is not a method for {what}; use one of "
                     f"{', '.join(sorted(names))}")


def _method_names(estimator_class) -> set:
    names = set()
    for constraint in estimator_class._parameter_constraints["method"]:
        names |= set(getattr(constraint, "options", ()))
    return names


def _depth_classifier(args, y):
    """``MaxAccuracyTreeClassifier`` for ``fit --max-depth``/``--max-leaves`` (flags checked
    already)."""
    from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

    return MaxAccuracyTreeClassifier(
        max_depth=args.max_depth, max_leaves=args.max_leaves,
        binarizer=binarizer_argument(args, args.binarizer),
        solver=args.solver or "auto", sat_solver=args.sat_solver,
        time_limit=_time_limit(args), prefer_small=args.prefer_small,
        class_weight=_labelled_weights(args.class_weight, y),
        verbose=args.verbose, callback=args.progress.sink,
        **_method(args, MaxAccuracyTreeClassifier))


def _time_limit(args):
    """The fit's seconds, what is left of ``--time-limit`` since the command started, or
    None for no limit (``--time-limit`` 0 or none)."""
    if args.time_limit is not None and args.time_limit < 0:
        raise ValueError(f"--time-limit must be positive (0: no limit); got {args.time_limit}")
    return command_seconds_left(args, args.time_limit)


def _pure_classifier(args):
    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    extra = _method(args, MinimumPureTreeClassifier)
    return pure_tree_classifier(args, solver=args.solver or "lsu", sat_solver=args.sat_solver,
                                time_limit=_time_limit(args), max_errors=args.max_errors,
                                verbose=args.verbose, callback=args.progress.sink,
                                n_solutions=args.n_solutions,
                                selection_size=args.selection_size, diverse=args.diverse,
                                delta=args.delta, random_state=args.random_state, **extra)


def _bounds_line(args, clf, interrupted: bool) -> str | None:
    """Why the tree is not proven best, when it is not: how far it may be from the optimum."""
    if clf.status_ == "optimal":
        return None
    why = "interrupted" if interrupted else (
        f"time limit of {args.time_limit:g} s reached" if _time_limit(args) else "stopped")
    if _bounded(args):
        return (f"{why}: the best tree so far makes {clf.training_errors_} training errors; "
                f"the fewest possible are at least {clf.errors_lower_bound_} (not proven "
                "optimal)")
    lower, upper = clf.lower_bound_, clf.upper_bound_
    gap = "" if lower is None or upper is None else f" (at most {upper - lower} nodes more)"
    more = " (--time-limit 0: no limit)" if why.startswith("time limit") else ""
    return (f"{why}: the best tree so far has {clf.n_nodes_} nodes; a minimum tree has "
            f"between {lower} and {upper} nodes{gap}, not proven{more}")


def run_fit(args) -> int:
    from occamlearn.cli.progress import FitProgress

    check_output_path(args.output)
    _check_fit_flags(args)
    if not _bounded(args):  # a minimum tree: on a fresh install, compile while reading
        from occamlearn.estimators import compile_kernels_early

        compile_kernels_early("bnb")
    X, y, source = read_table(args)
    X_train, y_train, X_test, y_test = split_rows(args, X, y)
    args.progress = FitProgress(args.quiet)
    args.verbose = 0 if args.quiet else args.progress.estimator_verbose
    clf, interrupted = None, False
    try:
        clf = _depth_classifier(args, y_train) if _bounded(args) else _pure_classifier(args)
        try:
            clf.fit(X_train, y_train)
        except KeyboardInterrupt:
            if not hasattr(clf, "tree_"):  # interrupted before a first tree: nothing to show
                raise
            interrupted = True
    finally:
        args.progress.close(getattr(clf, "lower_bound_", None))
        if clf is not None:  # the model keeps the limit asked for, not what the fit had left
            clf.set_params(time_limit=args.time_limit)
    interrupted = interrupted or bool(clf.solve_stats_.get("interrupted"))
    _report_fit(args, clf, source, X_train, y_train, X_test, y_test, interrupted)
    return 130 if interrupted else 0


def _report_fit(args, clf, source, X_train, y_train, X_test, y_test, interrupted) -> None:
    from occamlearn.estimators.model_files import save_model

    stats = clf.solve_stats_
    out = [clf.export_text()]
    out.append(f"data: {source}, {stats['n_rows']} training rows x {stats['n_binary_features']}"
               f" binary features, {len(clf.classes_)} classes")
    if getattr(clf, "n_conflicts_removed_", 0):
        out.append(f"conflicts: removed {clf.n_conflicts_removed_} rows (majority filter)")
    status = clf.status_ + (f" over {clf.optimal_over_}"
                            if getattr(clf, "optimal_over_", None) else "")
    if _bounded(args):
        shape = ", ".join(text for text, given in (
            (f"at most {args.max_depth}", args.max_depth),
            (f"at most {args.max_leaves} leaves", args.max_leaves)) if given is not None)
        out.append(f"size: {clf.n_nodes_} nodes, depth {clf.depth_} ({shape}), status "
                   f"{status}, {clf.training_errors_} training errors (proven minimum: "
                   f"{clf.errors_lower_bound_})")
    else:
        out.append(f"size: {clf.n_nodes_} nodes, status {status}, bounds "
                   f"[{clf.lower_bound_}, {clf.upper_bound_}], "
                   f"{clf.training_errors_} training errors")
    if getattr(clf, "candidate_trees_", None) and (args.n_solutions > 1 or args.selection_size):
        out.append(f"selection: {len(clf.candidate_trees_)} minimum trees drawn, "
                   f"{len(clf.best_trees_)} within --delta of the best selection accuracy")
    bounds = _bounds_line(args, clf, interrupted)
    if bounds:
        out.append(bounds)
    timing = ", ".join(f"{key[:-len('_seconds')]} {stats[key]:.2f} s" for key in
                       ("prepare_seconds", "ub_seconds", "encode_seconds", "solve_seconds",
                        "total_seconds") if key in stats)
    out.append(f"time: {timing}")
    if X_test is not None and not interrupted:
        out.append(f"accuracy: train {clf.score(X_train, y_train):.4f}, "
                   f"test {clf.score(X_test, y_test):.4f} ({len(y_test)} rows)")
    if args.output:
        save_model(clf, args.output)
        out.append(f"model saved to {args.output}")
    sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.flush()
