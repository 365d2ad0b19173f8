"""``occamlearn encode | decode``: a minimum pure tree through an external MaxSAT solver.

``encode`` writes the MaxSAT instance for an external solver and ``decode`` turns the solver's
answer back into a tree (see ``occamlearn.trees.mpdt.maxsat_route.wcnf_file``). ``encode``
takes ``fit``'s data and solve flags (``occamlearn.cli.trees``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from occamlearn.cli.common import (
    add_data_arguments,
    check_input_file,
    check_output_path,
    read_table,
)
from occamlearn.cli.trees import add_solve_arguments, pure_tree_classifier, split_rows

DECODE_HELP = """\
Read a MaxSAT solver's output for an instance written by 'occamlearn encode' and print (or
save) the tree. SOLUTION is the solver's standard output as the MaxSAT Evaluations define it:
an 's' line (OPTIMUM FOUND -> status optimal; SATISFIABLE -> feasible; UNSATISFIABLE ->
no tree of at most n nodes; UNKNOWN), optional 'o COST' lines, and the model in 'v' lines,
either the MSE 2022 compact form 'v 0110...' (character i is the value of variable i+1) or
the legacy literal list 'v 1 -2 3 ... 0' (one or several v lines). A model given as a single
'v 1' line is read as the literal 1."""


def register(subparsers) -> None:
    encode = subparsers.add_parser(
        "encode", help="write the MaxSAT instance (WCNF) for an external solver",
        description="Write the minimum-pure-tree MaxSAT instance of DATA.csv or a bundled "
        "dataset in the MaxSAT Evaluation format, plus OUT.json with what 'occamlearn decode' "
        "needs. The optimal cost k of the instance is a minimum tree of 2k-1 nodes.")
    add_data_arguments(encode)
    add_solve_arguments(encode)
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


def run_encode(args) -> int:
    from occamlearn.estimators.model_files import write_wcnf_instance

    check_output_path(args.output)
    check_output_path(f"{args.output}.json")
    X, y, source = read_table(args)
    X, y, _, _ = split_rows(args, X, y)
    try:
        sidecar = write_wcnf_instance(pure_tree_classifier(args), X, y, args.output,
                                      upper_bound=args.upper_bound, wcnf_format=args.format)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    print(f"wrote {args.output} ({sidecar['n_vars']} variables, {sidecar['n_hard']} hard and "
          f"{sidecar['n_soft']} soft clauses, trees of at most {sidecar['upper_bound']} nodes) and "
          f"{args.output}.json")
    return 0


def run_decode(args) -> int:
    for path in (args.sidecar, args.solution):
        check_input_file(path)
    check_output_path(args.output)
    from occamlearn.estimators.model_files import decode_solution, save_model

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
