"""``occamlearn reproduce table6``: accuracy of minimum pure trees, MaxSAT paper Table 6.

Datasets x methods x random selection/test splits (Sec. 9.2). Two stages, both through the
resumable runner (``experiments.runner``):

1. *pools* -- per dataset and method group, the candidate trees learned on the fixed 64 %
   training part, stored as their predictions on the 36 % held-out rows
   (``<results>.pools.jsonl``). All mpdt variants of a dataset share one group, hence one
   minimum-tree solve (``table6_methods.SharedSolve``); lsk reads the minimum size from it.
2. *splits* -- one record per (dataset, method, split) in ``<results>``: the held-out rows
   are split 16 % selection / 20 % test with seed ``split``; the method's candidates are
   evaluated on the selection part, those within ``delta`` of the best kept (mpdt variants,
   Alg. 3; sklearn methods keep the best), one is picked at random (seed ``split``) and its
   test accuracy recorded. Splits fall back to unstratified where a class is too small
   (zoo), and the record says so.

The Markdown table and the plot are made from the records (``table6_report``).
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from pathlib import Path

from occamlearn.datasets import list_datasets
from occamlearn.experiments.runner import Task, read_results, run_tasks
from occamlearn.experiments.table6_methods import (
    DTMAX_DEPTHS,
    METHODS,
    MPDT_VARIANTS,
    MethodPool,
    SharedSolve,
    holdout_split,
    prepare_dataset,
)
from occamlearn.trees.mpdt.all_minimum.selection import pick_one, within_delta

__all__ = ["DESCRIPTION", "add_arguments", "pool_task", "run", "settings_of", "split_task"]

DESCRIPTION = ("MaxSAT paper Table 6: test accuracy of minimum pure trees (mpdt variants) "
               "against scikit-learn trees and DT(max) over random selection/test splits")
# settings each pool group depends on; a group not listed depends on all but delta
CONFIG_KEYS = {"mpdt": ("k", "solve_time_limit", "enum_time_limit", "layout_depth"),
               "psk": ("sk_seeds",), "lsk": ("sk_seeds",), "ask": ("sk_seeds",),
               **{f"dtmax-{d}": ("dtmax_time_limit",) for d in DTMAX_DEPTHS}}


def _group(method: str) -> str:
    return "mpdt" if method in MPDT_VARIANTS else method


def pool_task(dataset: str, methods: list, settings: dict, minimum_size=None) -> dict:
    """Stage 1: candidates of ``methods`` (one group) on ``dataset``'s training part."""
    data = prepare_dataset(dataset, settings["train_seed"])
    shared = SharedSolve(data, settings, known_minimum=minimum_size)
    order = sorted(methods, key=lambda m: (m != "mpdt-sat-nd", m))  # plain SAT: live solver
    try:
        pools = {m: METHODS[m](data, settings, shared).to_record() for m in order}
    finally:
        shared.close()
    return {"pools": pools, "train_rows": len(data.y_train),
            "holdout_rows": len(data.y_holdout), "train_stratified": data.train_stratified}


@cache
def _pools(path: str) -> dict:
    out = {}
    for record in read_results(path):
        for method, pool in record["pools"].items():
            out[(record["dataset"], method, record["config"])] = MethodPool.from_record(pool)
    return out


@cache
def _data(dataset: str, train_seed: int):
    return prepare_dataset(dataset, train_seed)


def split_task(dataset: str, method: str, split: int, pools_path: str, config: str,
               settings: dict) -> dict:
    """Stage 2: select one candidate on split ``split``'s selection part, test it."""
    pool = _pools(pools_path)[(dataset, method, config)]
    data = _data(dataset, settings["train_seed"])
    part = holdout_split(data, split)
    y_sel, y_test = data.y_holdout[part.first], data.y_holdout[part.second]
    selection_acc = (pool.predictions[:, part.first] == y_sel).mean(axis=1)
    test_acc = (pool.predictions[:, part.second] == y_test).mean(axis=1)
    delta = settings["delta"] if method in MPDT_VARIANTS else 0.0
    best = within_delta(selection_acc, delta)
    chosen = pick_one(best, random_state=split)
    return {"test_accuracy": float(test_acc[chosen]),
            "selection_accuracy": float(selection_acc[chosen]),
            "size": int(pool.sizes[chosen]), "n_candidates": len(pool.sizes),
            "n_best": len(best), "oracle_test_accuracy": float(test_acc.max()),
            "split_stratified": bool(part.stratified), **pool.info}


def settings_of(args) -> dict:
    return {"k": args.k, "sk_seeds": args.sk_seeds, "delta": args.delta,
            "solve_time_limit": args.solve_time_limit, "enum_time_limit": args.enum_time_limit,
            "layout_depth": args.layout_depth, "train_seed": args.train_seed,
            "dtmax_time_limit": args.dtmax_time_limit}


def _config(group: str, settings: dict) -> str:
    """The settings a group's pools depend on (its pools are reused while they match)."""
    keys = CONFIG_KEYS.get(group, tuple(k for k in settings if k != "delta"))
    return json.dumps({key: settings[key] for key in keys + ("train_seed",)}, sort_keys=True)


def _names(text: str, valid, what: str) -> list:
    names = list(valid) if text == "all" else [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in valid]
    if unknown or not names:
        raise ValueError(f"--{what}: unknown {unknown or text!r}; valid: {', '.join(valid)}")
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--datasets", default="all", help="comma list or 'all' (default)")
    parser.add_argument("--methods", default="all",
                        help=f"comma list or 'all': {', '.join(METHODS)}")
    parser.add_argument("--splits", type=int, default=50, help="selection/test splits (50)")
    parser.add_argument("--k", type=int, default=1000, help="minimum trees per mpdt variant")
    parser.add_argument("--sk-seeds", type=int, default=100,
                        help="random_state values per sklearn method (and per size for ask)")
    parser.add_argument("--delta", type=float, default=0.0,
                        help="Alg. 3 accuracy deviation for the mpdt variants (0.01 = 1 point)")
    parser.add_argument("--solve-time-limit", type=float, default=60.0,
                        help="seconds for the minimum-tree search per dataset (60; 0: none)")
    parser.add_argument("--enum-time-limit", type=float, default=60.0,
                        help="seconds for drawing trees, per mpdt variant and dataset (60; "
                        "0: none)")
    parser.add_argument("--dtmax-time-limit", type=float, default=60.0,
                        help="seconds per DT(max) fit (dtmax-2/3/4), per dataset and depth "
                        "(60; 0: none)")
    parser.add_argument("--layout-depth", type=int, default=3, help="levels fixed by a layout")
    parser.add_argument("--train-seed", type=int, default=0, help="seed of the 64 %% split")
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address")
    parser.add_argument("--local-cluster", action="store_true",
                        help="run stage 1 on a dask.distributed LocalCluster")
    parser.add_argument("--results", default=None,
                        help="JSON-lines results file, kept to resume an interrupted run "
                        "(default: a temporary file, removed at the end)")
    parser.add_argument("--markdown", default=None, help="write the Table 6 Markdown here")
    parser.add_argument("--plot", default=None, help="write a plot (PNG/SVG/PDF) here")
    parser.add_argument("--quiet", action="store_true", help="no progress display")


def run(args) -> int:

    datasets = _names(args.datasets, list_datasets(), "datasets")
    methods = _names(args.methods, list(METHODS), "methods")
    if args.splits < 1 or args.k < 1 or args.sk_seeds < 1:
        raise ValueError("--splits, --k and --sk-seeds must be positive integers; got "
                         f"{args.splits}, {args.k}, {args.sk_seeds}")
    for name in ("solve_time_limit", "enum_time_limit", "dtmax_time_limit"):
        if getattr(args, name) == 0:
            setattr(args, name, None)  # 0 means no limit
    settings = settings_of(args)
    if args.results is None:  # write only where told: records go to a temporary folder
        import tempfile

        with tempfile.TemporaryDirectory(prefix="occamlearn-table6-") as folder:
            args.results = str(Path(folder) / "table6.jsonl")
            return _run(args, datasets, methods, settings)
    return _run(args, datasets, methods, settings)


def _run(args, datasets, methods, settings) -> int:
    from occamlearn.experiments.table6_report import plot_table6, table6_markdown

    results = Path(args.results)
    pools_path = results.with_name(results.stem + ".pools.jsonl")
    engine = dict(n_jobs=args.n_jobs, scheduler=args.scheduler,
                  local_cluster=args.local_cluster, progress=not args.quiet)
    groups = {}
    for method in methods:
        groups.setdefault(_group(method), []).append(method)
    minimum = {}
    if "mpdt" in groups:
        tasks = [Task({"dataset": d, "pool": "mpdt", "config": _config("mpdt", settings),
                       "methods": ",".join(sorted(groups["mpdt"]))},
                      {"dataset": d, "methods": groups["mpdt"], "settings": settings})
                 for d in datasets]
        for record in run_tasks(pool_task, tasks, pools_path, **engine):
            first = next(iter(record["pools"].values()))
            minimum[record["dataset"]] = first["info"]["optimum"]
    other = [g for g in groups if g != "mpdt"]
    tasks = [Task({"dataset": d, "pool": g, "config": _config(g, settings), "methods": g},
                  {"dataset": d, "methods": [g], "settings": settings,
                   "minimum_size": minimum.get(d)})
             for d in datasets for g in other]
    run_tasks(pool_task, tasks, pools_path, **engine)
    _pools.cache_clear()
    tasks = [Task({"dataset": d, "method": m, "split": s, "config": _config(_group(m), settings),
                   "delta": settings["delta"]},
                  {"dataset": d, "method": m, "split": s, "pools_path": str(pools_path),
                   "config": _config(_group(m), settings), "settings": settings})
             for d in datasets for m in methods for s in range(args.splits)]
    records = run_tasks(split_task, tasks, results, n_jobs=1, progress=False)
    text = table6_markdown(records, methods, datasets)
    print(text)
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(text)
    if args.plot:
        plot_table6(records, methods, datasets, args.plot)
    return 0
