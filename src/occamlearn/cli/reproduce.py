"""``occamlearn reproduce EXPERIMENT``: the papers' tables and figures.

Each experiment is a module under ``occamlearn.experiments`` exposing ``DESCRIPTION`` (one
line), ``add_arguments(parser)`` and ``run(args) -> int``. Experiments whose module is not
present are simply not offered.
"""

from __future__ import annotations

from importlib import import_module

EXPERIMENTS = {
    "table5": "occamlearn.experiments.table5",          # MaxSAT paper, runtime (Sec. 9.1)
    "table6": "occamlearn.experiments.table6",          # MaxSAT paper, accuracy (Sec. 9.2)
    "tictactoe": "occamlearn.experiments.dl_tictactoe",  # decision-list paper, Sec. III, Fig. 1
    "simulated": "occamlearn.experiments.dl_simulated",  # decision-list paper, Fig. 2
    "titanic": "occamlearn.experiments.dl_titanic",      # decision-list paper, Titanic rules
    "roc": "occamlearn.experiments.dl_roc",              # decision-list paper, ROC comparison
}


def register(subparsers) -> None:
    parser = subparsers.add_parser("reproduce", help="reproduce an experiment of the papers")
    experiments = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT")
    experiments.required = True
    for name, module_name in EXPERIMENTS.items():
        try:
            module = import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        sub = experiments.add_parser(name, help=module.DESCRIPTION, description=module.DESCRIPTION)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
