"""Each addition of issue 35 to the compiled branch and bound, on and off, side by side.

The additions are switches of ``engines.CompiledRowSetSearch`` (class attributes, read when
a search starts):

* ``trie``: the subset trie (``subset_trie``; off: ``SUBSET_MAX_ROWS = 0``);
* ``dominance``: the largest-pure-side rule (``split_reductions.drop_dominated``);
* ``classes``: splits whose sides' class counts exceed the budget are not probed;
* ``one_leaf``: a budget of one leaf is answered by the class count;
* ``pairs``: the pair bound stored on the root's sides (``pair_bound``; off by default since
  round 3: ``pairs on`` sets ``pair_bound.SEED_SECONDS = 5``, as the round-3 runs had it).

(The two-class two-leaf test and the one-split-per-partition rule have no switch.) For each
frozen readable-default matrix (``readable_matrices``, after the column reductions
``find_minimum_tree`` applies) and each configuration this runs the branch and bound alone
(``find_minimum_tree_branch_and_bound``) in a fresh process for ``--seconds`` and records the
lower bound it had proven at 10, 30 and 60 s (in nodes) and the time it took to prove the
minimum (``-`` when it did not). A name ending in ``:all`` is the dataset's whole table
through the default binariser and the majority filter (what ``occamlearn fit --dataset
haber`` searches), not the frozen 64 % split. Configurations are run in alternating order per matrix
(the machine is shared; compare within a row).

    python benchmarks/mpdt_bounds_ablation.py --datasets back breast_cancer hepa haber \\
        --seconds 60 --out benchmarks/results/mpdt_bounds_ablation.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

OFF = {"trie": {"SUBSET_MAX_ROWS": 0}, "dominance": {"DROP_DOMINATED": False},
       "classes": {"PRUNE_BY_CLASSES": False}, "one_leaf": {"ONE_LEAF_BY_CLASSES": False},
       "pairs": {"pair_bound.SEED_SECONDS": 0.0}}
CONFIGS = {"all on": {}, "pairs on": {"pair_bound.SEED_SECONDS": 5.0},
           **{f"no {name}": switches for name, switches in OFF.items()},
           "all off": {k: v for switches in OFF.values() for k, v in switches.items()}}
# beside the switches: the portfolio (``find_minimum_tree``'s default method) instead of the
# branch and bound alone, and either of them from ``--base-src``
BESIDES = ("auto", "base", "base auto")
MARKS = (10.0, 30.0, 60.0)


def worker(name: str, config: str, seconds: float) -> dict:
    """One run in this process: the trace of (seconds, size, lower bound) and the stats."""
    from occamlearn.stopping import Deadline, ProgressSink
    from occamlearn.trees.mpdt.bnb import kernels
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
    from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch
    from occamlearn.trees.mpdt.minimum import _column_reduction, find_minimum_tree

    X, y, n_classes = matrix(name)
    kernels.warm_up()
    for attribute, value in CONFIGS.get(config, {}).items():
        owner, _, attribute = attribute.rpartition(".")
        if owner:
            from occamlearn.trees.mpdt.bnb import pair_bound
        setattr(pair_bound if owner else CompiledRowSetSearch, attribute, value)
    trace = []
    sink = ProgressSink(lambda upper, lower, at, tree: trace.append((at, upper, lower)))
    if config.endswith("auto"):  # the default method (the portfolio), its own reductions
        found = find_minimum_tree(X, y, n_classes, deadline=Deadline.after(seconds),
                                  progress=sink)
        return {"trace": trace, "optimal": found.status == "optimal", "size": found.upper_bound,
                "lower": found.lower_bound, "stats": {}}
    reduction = _column_reduction(X, y)
    X = reduction.reduce(X) if reduction is not None else X
    found = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=Deadline.after(seconds),
                                          progress=sink)
    return {"trace": trace, "optimal": found.status == "optimal", "size": found.upper_bound,
            "lower": found.lower_bound,
            "stats": {k: v for k, v in found.stats.items() if isinstance(v, (int, float))}}


def matrix(name: str):
    """(X, y, n_classes): the frozen readable matrix, or for ``<dataset>:all`` the whole
    table through ``ThresholdBinarizer()`` and the majority filter."""
    if not name.endswith(":all"):
        from readable_matrices import load

        return load(name)[:3]
    import warnings

    import numpy as np

    from occamlearn import load_dataset
    from occamlearn.binarize import ThresholdBinarizer, resolve_conflicts

    X, y = load_dataset(name[:-len(":all")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        X_bin = np.asarray(ThresholdBinarizer().fit_transform(X, y), dtype=np.uint8)
    X_bin, y = resolve_conflicts(X_bin, np.asarray(y), strategy="majority")
    classes, y_index = np.unique(y, return_inverse=True)
    return np.asarray(X_bin, dtype=np.uint8), y_index.astype(np.int64), len(classes)


def run(name: str, config: str, seconds: float, base_src: Path | None) -> dict:
    """One worker process; a configuration named "base ..." imports occamlearn from
    ``base_src``."""
    env = dict(os.environ)
    if config.startswith("base"):
        env["PYTHONPATH"] = str(base_src)
    completed = subprocess.run([sys.executable, __file__, "--worker", name, config,
                                str(seconds)], capture_output=True, text=True, check=True,
                               env=env)
    return json.loads(completed.stdout.splitlines()[-1])


def cells(result: dict) -> list[str]:
    def bound_at(mark):
        lowers = [lower for at, _, lower in result["trace"] if at <= mark and lower is not None]
        return str(max(lowers)) if lowers else "-"

    proven = result["trace"][-1][0] if result["optimal"] and result["trace"] else None
    steps, last = [], None
    for at, _, lower in result["trace"]:
        if lower is not None and lower != last and lower > 1:
            steps.append(f"{lower}@{at:.1f}")
            last = lower
    return [*(bound_at(mark) for mark in MARKS), f"{result['size']}",
            "-" if proven is None else f"{proven:.1f}", " ".join(steps[-4:])]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["back", "breast_cancer"])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS),
                        choices=[*CONFIGS, *BESIDES])
    parser.add_argument("--base-src", type=Path,
                        help="occamlearn's src of the base, for the configurations 'base...'")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--from-jsonl", type=Path,
                        help="tabulate the runs of an earlier result's .jsonl, run nothing")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.worker:
        name, config, seconds = args.worker
        print(json.dumps(worker(name, config, float(seconds))))
        return 0
    if args.out is None:
        parser.error("--out is required")
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    command = "python benchmarks/mpdt_bounds_ablation.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    lines = [f"Command: `{command}`", "",
             "# The compiled branch and bound with each addition of issue 35 on and off", "",
             f"Commit {commit}; started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores, shared with "
             "other jobs: compare within a matrix). Branch and bound alone, one fresh process "
             f"per run, {args.seconds:g} s each. Lower bounds and sizes in nodes.", "",
             "| matrix | configuration | LB 10 s | LB 30 s | LB 60 s | tree | proven at s | "
             "last bounds @ s |", "|---|---|---|---|---|---|---|---|"]
    earlier = {}
    if args.from_jsonl:
        for line in args.from_jsonl.read_text().splitlines():
            result = json.loads(line)
            earlier[result.pop("dataset"), result.pop("config")] = result
        before = args.out.read_text().splitlines() if args.out.exists() else []
        lines[0] = before[0] + f" (tabulated again by `{command}`)" if before else lines[0]
        lines[4] = before[4] if len(before) > 4 else f"Runs of {args.from_jsonl.name}."
    jsonl = args.out.with_suffix(".jsonl")
    if not args.from_jsonl:
        jsonl.write_text("")
    for position, name in enumerate(args.datasets):
        configs = args.configs if position % 2 == 0 else args.configs[::-1]
        rows = {}
        for config in configs:
            if args.from_jsonl:
                result = earlier[name, config]
            else:
                result = run(name, config, args.seconds, args.base_src)
                with jsonl.open("a") as handle:
                    handle.write(json.dumps({"dataset": name, "config": config, **result})
                                 + "\n")
            rows[config] = f"| {name} | {config} | " + " | ".join(cells(result)) + " |"
            print(rows[config], flush=True)
        lines += [rows[config] for config in args.configs]
        args.out.write_text("\n".join(lines) + "\n")
    lines.append(f"\nFinished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load "
                 f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}.")
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
