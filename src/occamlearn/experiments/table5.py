"""Table 5 of Alós, Ansótegui and Torres (Sec. 9.1): which solver reports the best upper bound in
time.

Instances: for each dataset, ``samples`` random row samples at each fraction (40 %, 60 %,
80 % by default) of the binarised dataset (``FeatureBinarizer(encoding="binary")``, then the
majority filter on the sample's conflicting rows). Upper bound: the smallest greedy pure tree
(the paper used ITI); lower bound 3. Every solver gets the same time limit per instance
(the paper: 1 h; default here 30 s) and reports the smallest pure tree it found; a tree
reported after the limit (a solver that stops late) does not count.

Per sample size and solver, the table counts the instances where the solver's tree is the
smallest any solver found ("# Best UB", ties count for all), the instances it proved optimal,
and its median time to the proof. The anytime traces (seconds, size) of every run are kept
in the JSON-lines results; ``--plot`` draws them for the instances where solvers disagree
most (``occamlearn.experiments.table5_report``).

Solvers: "lsu" (our Linear MaxSAT, Alg. 1), "mindt" (the SAT baseline, re-encoding each
size), "rc2" (PySAT's core-guided MaxSAT), and the ``hermax`` solvers when installed (the
exact "uwrmaxsat" by default; incomplete ones such as "loandra" on request -- hermax drops
their incumbent at a time limit, see ``maxsat.hermax_backend``). All PySAT-based ones use
CaDiCaL 1.9.5.
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path

import numpy as np

from occamlearn.experiments.runner import Task, run_tasks
from occamlearn.stopping import CLOCK, Deadline

DESCRIPTION = "MaxSAT paper Table 5: best upper bound per solver on random samples (Sec. 9.1)"

# The larger datasets (rows x binary features) whose samples are neither trivial nor hopeless
# at a time limit of seconds on a small machine (see benchmarks/results/table5.md).
DEFAULT_DATASETS = ("monks-1", "monks-3", "irish", "spect", "hayes-r")
DEFAULT_FRACTIONS = (0.4, 0.6, 0.8)
DEFAULT_SOLVERS = ("lsu", "mindt", "rc2", "uwrmaxsat")
HERMAX_DEFAULTS = {"uwrmaxsat"}

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "default_solvers",
    "make_tasks",
    "run",
    "run_instance",
    "sample_instance",
]


def default_solvers() -> tuple:
    """DEFAULT_SOLVERS without the hermax ones when hermax is not installed."""
    from occamlearn.maxsat.hermax_backend import hermax_available

    keep = hermax_available()
    return tuple(s for s in DEFAULT_SOLVERS if keep or s not in HERMAX_DEFAULTS)


def sample_instance(dataset: str, fraction: float, sample: int, seed: int = 0):
    """(X_bin, y, n_classes, n_dropped) of one instance: a random ``fraction`` of the rows.

    The whole dataset is binarised, then round(fraction * rows) rows are drawn without
    replacement (generator seeded by seed, dataset, fraction and sample), then conflicting
    rows of the sample keep their majority label.
    """
    from occamlearn.binarize import FeatureBinarizer, resolve_conflicts
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(dataset)
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    X_bin = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, codes))
    rng = np.random.default_rng([seed, zlib.crc32(dataset.encode()),
                                 round(fraction * 1000), sample])
    rows = np.sort(rng.choice(len(codes), size=round(fraction * len(codes)),
                              replace=False))
    X_s, y_s = resolve_conflicts(X_bin[rows], codes[rows])
    return np.asarray(X_s), np.asarray(y_s), len(classes), len(rows) - len(y_s)


def run_instance(dataset: str, fraction: float, sample: int, solver: str, time_limit: float,
                 seed: int = 0, sat_solver: str = "cadical195") -> dict:
    """Solve one instance with one solver; the record of the results file."""
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    X, y, n_classes, dropped = sample_instance(dataset, fraction, sample, seed)
    began = CLOCK()
    method = "mindt" if solver == "mindt" else "maxsat"  # Table 5's rows: back-ends and MinDT
    result = find_minimum_tree(X, y, n_classes, method=method, solver=solver,
                               sat_solver=sat_solver, deadline=Deadline.after(time_limit))
    seconds = CLOCK() - began
    trace = [(round(float(t), 3), int(s)) for t, s in result.trace]
    # what the solver reported within the limit (some stop late: UWrMaxSAT polls its
    # terminate callback only between its SAT calls)
    in_time = [s for t, s in trace if t <= time_limit]
    optimal = result.status == "optimal" and seconds <= time_limit
    return {
        "n_rows": len(y), "n_features": int(X.shape[1]), "n_conflicts_dropped": dropped,
        "greedy_size": int(result.stats.get("greedy_size", result.tree.n_nodes)),
        "size": min(in_time) if in_time else trace[0][1], "status": result.status,
        "final_size": int(result.tree.n_nodes), "proven_in_time": optimal,
        "lower_bound": int(result.lower_bound), "seconds": round(seconds, 3),
        "proof_seconds": round(seconds, 3) if optimal else None,
        "trace": trace, "time_limit": time_limit,
    }


def make_tasks(datasets, fractions, samples: int, solvers, time_limit: float, seed: int = 0,
               sat_solver: str = "cadical195") -> list[Task]:
    """One task per (dataset, fraction, sample, solver); the key names the instance."""
    tasks = []
    for dataset in datasets:
        for fraction in fractions:
            for sample in range(samples):
                for solver in solvers:
                    key = {"dataset": dataset, "fraction": fraction, "sample": sample,
                           "solver": solver, "seed": seed, "time_limit": time_limit}
                    kwargs = {"dataset": dataset, "fraction": fraction, "sample": sample,
                              "solver": solver, "time_limit": time_limit, "seed": seed,
                              "sat_solver": sat_solver}
                    tasks.append(Task(key, kwargs))
    return tasks


def _fractions(text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            value = float(part) / (100.0 if float(part) > 1 else 1.0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a fraction or percentage: {part!r}") from None
        if not 0 < value <= 1:
            raise argparse.ArgumentTypeError(f"fractions must be in (0, 1] or (0, 100]: {part!r}")
        values.append(round(value, 4))
    return values


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--datasets", type=_names, default=list(DEFAULT_DATASETS),
                        help=f"comma-separated bundled datasets (default: "
                             f"{','.join(DEFAULT_DATASETS)})")
    parser.add_argument("--fractions", type=_fractions, default=list(DEFAULT_FRACTIONS),
                        help="sample sizes as fractions or percentages (default: 40,60,80)")
    parser.add_argument("--samples", type=int, default=20,
                        help="random samples per dataset and size (default: 20)")
    parser.add_argument("--solvers", type=_names, default=None,
                        help="comma-separated solver names (default: "
                             f"{','.join(DEFAULT_SOLVERS)}, hermax ones if installed)")
    parser.add_argument("--time-limit", type=float, default=30.0,
                        help="seconds per instance and solver (default: 30; the paper: 3600)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the row samples")
    parser.add_argument("--sat-solver", default="cadical195", help="PySAT SAT oracle")
    parser.add_argument("--results", default=None,
                        help="resumable JSON-lines results file (default: a temporary file, "
                        "removed at the end)")
    parser.add_argument("--markdown", help="write the table as Markdown to this file")
    parser.add_argument("--plot", help="write anytime traces of a few instances (PNG/PDF)")
    parser.add_argument("--plot-instances", type=int, default=4,
                        help="instances in the plot (default: 4)")
    parser.add_argument("--plot-focus", metavar="SOLVER",
                        help="plot first the instances where SOLVER missed the best UB")
    parser.add_argument("--n-jobs", type=int, default=-1, help="parallel processes (joblib)")
    parser.add_argument("--scheduler", help="Dask scheduler address (tcp://host:port)")
    parser.add_argument("--local-cluster", action="store_true",
                        help="run on a local Dask cluster of --n-jobs workers")
    parser.add_argument("--no-progress", action="store_true", help="no progress line")


def _check(args) -> list[str]:
    from occamlearn.datasets import load_dataset
    from occamlearn.maxsat.backends import BACKENDS

    solvers = args.solvers or list(default_solvers())
    known = set(BACKENDS) | {"mindt"}
    unknown = [s for s in solvers if s not in known]
    if unknown:
        raise ValueError(f"--solvers: unknown {unknown}; valid: {', '.join(sorted(known))}")
    if args.samples < 1:
        raise ValueError(f"--samples must be >= 1; got {args.samples}")
    if not args.time_limit > 0:
        raise ValueError(f"--time-limit must be positive; got {args.time_limit}")
    for name in args.datasets:
        load_dataset(name)  # ValueError naming unknown datasets
    return solvers


def run(args) -> int:
    from occamlearn.experiments.table5_report import markdown_table, plot_traces, summarize

    solvers = _check(args)
    if args.results is None:  # write only where told: records go to a temporary folder
        import os
        import tempfile

        with tempfile.TemporaryDirectory(prefix="occamlearn-table5-") as folder:
            args.results = os.path.join(folder, "table5.jsonl")
            return run(args)
    tasks = make_tasks(args.datasets, args.fractions, args.samples, solvers, args.time_limit,
                       args.seed, args.sat_solver)
    records = run_tasks(run_instance, tasks, args.results, n_jobs=args.n_jobs,
                        scheduler=args.scheduler, local_cluster=args.local_cluster,
                        progress=not args.no_progress)
    rows = summarize(records)
    text = markdown_table(rows, records)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.plot:
        plot_traces(records, args.plot, n_instances=args.plot_instances,
                    focus=args.plot_focus)
    return 0
