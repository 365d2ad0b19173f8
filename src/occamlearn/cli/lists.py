"""``occamlearn dlist``: learn a (directional) decision list on a CSV file or bundled dataset.

Prints the list (``IF ... THEN p=... ELSE ...``) with a summary line (direction, rules,
training log-likelihood, why the search stopped) and the training accuracy; ``-o list.json``
saves the fitted model (``occamlearn.save_model``). By default each rule is
grown literal by literal and the list stops where a rule no longer pays for its description
length, as ``DecisionListClassifier()`` does. Example, the paper's tic-tac-toe list (Sec.
III): enumerated conjunctions of 2-3 cells, no penalty::

    occamlearn dlist --dataset tic-tac-toe --binarizer onehot --direction positive \\
        --rule-search enumerate --penalty none --min-conjunction 2 --max-conjunction 3 \\
        --max-rules 8
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

# DecisionListClassifier(binarizer=...)'s names (estimators._base.BINARIZERS, written out so
# that the CLI starts without importing scikit-learn; a test checks that they agree) + none
BINARIZERS = ("readable", "threshold", "quantile", "binary", "onehot", "none")
DIRECTIONS = {"positive": "positive", "negative": "negative", "both": "both", "none": None}
RULE_SEARCHES = ("beam", "exact", "enumerate")  # lists.RULE_SEARCHES, checked by a test
DEFAULT_TIME_LIMIT = 60.0  # estimators._base.DEFAULT_TIME_LIMIT


def penalty_value(text: str) -> float | None:
    """``--penalty W``: a number >= 0, or ``none`` (no penalty, as ``penalty=None``)."""
    if text.strip().lower() == "none":
        return None
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or none; got {text!r}")
    return value


def shrinkage_folds_value(text: str):
    """``--shrinkage-folds F``: an int >= 2, ``auto`` or ``none``."""
    word = text.strip().lower()
    if word in ("auto", "none"):
        return None if word == "none" else "auto"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an int >= 2, auto or none; got {text!r}")
    return value


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "dlist",
        help="learn a directional decision list",
        description="Learn a decision list by hill climbing or beam search over binary "
        "features, optionally with all rules in one direction (Goessling and Kang).",
    )
    add_data_arguments(parser)
    parser.add_argument("--direction", choices=tuple(DIRECTIONS), default="both",
                        help="positive: rules characterise the positive class (p_k >= p_>k); "
                        "negative: the other class; both: run both, keep the more likely; "
                        "none: a general, undirected list (default: both)")
    parser.add_argument("--search", choices=("hill", "beam"), default="hill",
                        help="hill climbing (default) or beam search")
    parser.add_argument("--beam-width", type=int, default=10, metavar="B",
                        help="lists kept per step by --search beam (default: 10)")
    parser.add_argument("--rule-search", choices=RULE_SEARCHES, default="beam",
                        help="how each rule's condition is found: grown literal by literal by "
                        "a beam (default), the best by branch and bound (exact), or the best "
                        "of every conjunction of --min-conjunction..--max-conjunction features "
                        "(enumerate, the paper's setting)")
    parser.add_argument("--rule-beam-width", type=int, default=5, metavar="B",
                        help="conjunctions kept per literal added (default: 5; 1 is greedy)")
    parser.add_argument("--penalty", type=penalty_value, default=1.0, metavar="W",
                        help="weight of each rule's description length, the log of the number "
                        "of conditions of at most its k features out of d: a rule joins only "
                        "if its log-likelihood gain exceeds it (default: 1; none: no penalty)")
    parser.add_argument("--validation-folds", type=int, default=None, metavar="F",
                        help="also check the list's length on F held-out folds: keep the "
                        "shortest prefix within one standard error of the best held-out "
                        "log-likelihood (default: off)")
    parser.add_argument("--shrinkage-folds", type=shrinkage_folds_value, default="auto",
                        metavar="F", help="state each rule's training rate shrunk toward the "
                        "table's rate by the factor F held-out folds choose (default: auto, "
                        "5 folds up to 10,000 rows; none: the training rates)")
    parser.add_argument("--max-rules", type=int, default=10, metavar="K",
                        help="most rules (default: 10)")
    parser.add_argument("--min-conjunction", type=int, default=1, metavar="M",
                        help="fewest binary features per condition (default: 1)")
    parser.add_argument("--max-conjunction", type=int, default=4, metavar="M",
                        help="most binary features per condition (default: 4)")
    parser.add_argument("--min-support", type=int, default=1, metavar="N",
                        help="fewest training rows a rule must cover (default: 1)")
    parser.add_argument("--monotone", action="store_true",
                        help="require monotone rule probabilities (Sec. III-A)")
    parser.add_argument("--mode", choices=("probabilistic", "classification"),
                        default="probabilistic",
                        help="classification: predict the characterised class when any rule "
                        "applies (Sec. III-B)")
    parser.add_argument("--binarizer", choices=BINARIZERS, default="readable",
                        help="how the table becomes 0/1 features: readable (default, as in "
                        "Python: thresholds between training values, one-hot categories), "
                        "threshold, quantile (the paper's quantile indicators), binary, "
                        "onehot; none: it already is")
    add_column_role_arguments(parser)
    parser.add_argument("--time-limit", type=time_limit_seconds, default=DEFAULT_TIME_LIMIT,
                        metavar="S", help="stop S seconds after the command started (start-up "
                        "and reading the data included) with the list found so far "
                        "(default: 60; 0 or none: no limit)")
    parser.add_argument("--positive-class", metavar="LABEL",
                        help="the class called positive (default: the second sorted class)")
    parser.add_argument("-o", "--output", metavar="LIST.json", help="save the fitted list")
    parser.set_defaults(run=run_dlist)


def _positive_class(label, y):
    """The class of ``y`` whose text is ``label`` (labels read from a CLI are strings)."""
    if label is None:
        return None
    classes = sorted(set(y.tolist()), key=str)
    for value in classes:
        if str(value) == label:
            return value
    raise ValueError(f"--positive-class {label!r} is not a class of the target; classes: "
                     f"{', '.join(str(c) for c in classes)}")


def build_model(args, y):
    from occamlearn.estimators.decision_list import DecisionListClassifier

    return DecisionListClassifier(
        direction=DIRECTIONS[args.direction], search=args.search, beam_width=args.beam_width,
        rule_search=args.rule_search, rule_beam_width=args.rule_beam_width,
        penalty=args.penalty, max_rules=args.max_rules, min_conjunction=args.min_conjunction,
        max_conjunction=args.max_conjunction, min_support=args.min_support,
        validation_folds=args.validation_folds, shrinkage_folds=args.shrinkage_folds,
        time_limit=command_seconds_left(args, args.time_limit),
        monotone=args.monotone, mode=args.mode,
        binarizer=binarizer_argument(args, args.binarizer),
        positive_class=_positive_class(args.positive_class, y))


def run_dlist(args) -> int:
    from occamlearn.estimators.model_files import save_model
    from occamlearn.export.decision_list import export_text

    check_output_path(args.output)
    X, y, source = read_table(args)
    model = build_model(args, y).fit(X, y)
    accuracy = model.score(X, y)
    lines = [f"# {source}: {len(X)} rows, {len(model.feature_names_)} binary features",
             export_text(model, summary=True),
             f"# training accuracy {accuracy:.4f}"]
    if args.output:
        save_model(model, args.output)
        lines.append(f"# saved to {args.output}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
