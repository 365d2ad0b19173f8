"""``occamlearn reproduce EXPERIMENT [OPTIONS]``: the papers' tables and figures.

Each experiment is a module under ``occamlearn.experiments`` exposing ``DESCRIPTION`` (one
line), ``add_arguments(parser)`` and ``run(args) -> int``. Experiment modules import the
whole scientific stack, so they are imported only when their experiment is asked for: the
``reproduce`` parser takes the experiment name and hands the remaining arguments to a parser
that the experiment's module builds. Help lines below are the listing; each module's
``DESCRIPTION`` is the long form shown by ``occamlearn reproduce NAME --help``.
"""

from __future__ import annotations

import argparse
from importlib import import_module

EXPERIMENTS = {
    "table5": ("occamlearn.experiments.table5",
               "MaxSAT paper Table 5: best upper bound per solver on dataset samples"),
    "table6": ("occamlearn.experiments.table6",
               "MaxSAT paper Table 6: test accuracy of minimum trees vs scikit-learn"),
    "tictactoe": ("occamlearn.experiments.dl_tictactoe",
                  "decision-list paper Sec. III and Fig. 1: tic-tac-toe lists by direction"),
    "simulated": ("occamlearn.experiments.dl_simulated",
                  "decision-list paper Fig. 2: simulated general vs directional lists"),
    "titanic": ("occamlearn.experiments.dl_titanic",
                "decision-list paper: top Titanic rules in each direction"),
    "roc": ("occamlearn.experiments.dl_roc",
            "decision-list paper Fig. 3: ROC of a directional list vs L1 logistic and forests"),
}


def register(subparsers) -> None:
    listing = "\n".join(f"  {name:<10} {text}" for name, (_, text) in EXPERIMENTS.items())
    parser = subparsers.add_parser(
        "reproduce",
        help="reproduce an experiment of the papers",
        description="Reproduce an experiment of the papers.\n\nexperiments:\n" + listing
        + "\n\n`occamlearn reproduce NAME --help` lists an experiment's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("experiment", choices=sorted(EXPERIMENTS), metavar="EXPERIMENT")
    parser.add_argument("options", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    module_name, text = EXPERIMENTS[args.experiment]
    module = import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"occamlearn reproduce {args.experiment}",
                                     description=module.DESCRIPTION)
    module.add_arguments(parser)
    options = parser.parse_args(args.options)
    options.command = args.command
    return module.run(options)
