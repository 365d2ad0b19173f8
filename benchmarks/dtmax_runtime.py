"""DT(max) -- most accurate tree of depth <= d -- occamlearn against STreeD.

``--solver dp`` (the default; "auto" is the same) times occamlearn's search as
``trees.dtmax.entry.find_most_accurate_tree`` picks it (MurTree's compiled search on these 0/1
matrices), ``--solver maxsat`` (or a back-end name) its MaxSAT route.

Protocol: every bundled dataset, ``FeatureBinarizer(encoding="binary")`` fitted on a stratified
64 % training split (``random_state=0``), no conflict filtering (DT(max) handles noise), depths
2, 3 and 4. For each run: proven optimal?, wall seconds (greedy bound + encoding + solve),
training accuracy; STreeD (``STreeDClassifier(optimization_task="accuracy", max_depth=d,
cost_complexity=0)`` -- its default cost_complexity=0.01 would trade accuracy for size) on the
same binary matrix with the same time limit. When both prove optimality their training
accuracies must be equal: that is the correctness check (column "agree").

Each tool fits 20 rows of the matrix first in the same process (a warm-up: compiled kernels are
loaded, lazily imported modules imported), then the timed fit; ``--cold`` times the first fit
instead. STreeD is a benchmark-only tool (``pip install ../shared/tools/pystreed-1.4.0-*.whl``),
never a dependency. Each occamlearn run is a subprocess (``--worker``), so a run that overruns its
limit while encoding is killed and reported, and memory does not accumulate. Run by hand::

    python benchmarks/dtmax_runtime.py --markdown benchmarks/results/dtmax_runtime.md
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time

import numpy as np

from occamlearn.stopping import Deadline


def binary_training_data(name: str):
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y, random_state=0)
    X_bin = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X_train), dtype=np.uint8)
    classes, y_index = np.unique(np.asarray(y_train), return_inverse=True)
    return X_bin, y_index.astype(np.int64), len(classes)


def warm_up_rows(y: np.ndarray) -> np.ndarray:
    """20 rows for the warm-up fit: 10 of the first row's class, 10 of the others."""
    return np.r_[np.flatnonzero(y == y[0])[:10], np.flatnonzero(y != y[0])[:10]]


def run_occamlearn(name: str, depth: int, solver: str, time_limit: float,
                   prefer_small: bool = False, warm_up: bool = True) -> dict:
    from occamlearn.trees.dtmax.data import OrderedData
    from occamlearn.trees.dtmax.entry import find_most_accurate_tree

    X, y, n_classes = binary_training_data(name)
    method = "maxsat" if solver not in ("dp", "auto") else "auto"
    backend = solver if solver in ("lsu", "rc2") else "auto"

    def fit(rows, deadline=None):
        data = OrderedData.from_matrix(X[rows], y[rows], n_classes)
        return find_most_accurate_tree(data, max_depth=depth, method=method, solver=backend,
                                       prefer_small=prefer_small, deadline=deadline)

    if warm_up:                      # compile / load kernels, import lazily imported modules
        fit(warm_up_rows(y))
    began = time.perf_counter()
    result = fit(np.arange(len(y)), Deadline.after(time_limit))
    seconds = time.perf_counter() - began
    return {"rows": X.shape[0], "features": X.shape[1],
            "patterns": result.stats.get("n_patterns", "–"),
            "optimal": result.status == "optimal", "seconds": seconds,
            "accuracy": 1 - result.errors / len(y),
            "errors": result.errors, "errors_lower_bound": result.errors_lower_bound,
            "encode_seconds": result.stats.get("encode_seconds", 0.0),
            "solve_seconds": result.stats.get("solve_seconds", result.stats.get("seconds"))}


def run_streed(name: str, depth: int, time_limit: float, warm_up: bool = True) -> dict:
    from pystreed import STreeDClassifier

    X, y, _ = binary_training_data(name)
    model = STreeDClassifier(optimization_task="accuracy", max_depth=depth, cost_complexity=0,
                             time_limit=time_limit)
    if warm_up:
        warm = warm_up_rows(y)
        model.fit(X[warm], y[warm])
    began = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - began
    return {"optimal": bool(model.fit_result.is_optimal()), "seconds": seconds,
            "accuracy": float((model.predict(X) == y).mean())}


def in_subprocess(args: list[str], timeout: float) -> dict:
    command = [sys.executable, __file__, "--worker", *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"killed after {timeout:.0f} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell_seconds(run: dict) -> str:
    if "error" in run:
        return run["error"]
    return f"{run['seconds']:.2f}" + ("" if run["optimal"] else " (limit)")


def table(rows: list[dict]) -> list[str]:
    header = ("| dataset | rows × bin. features (distinct rows) | depth | ours: optimal? "
              "| ours s | ours train acc. | STreeD: optimal? | STreeD s | STreeD train acc. "
              "| agree | ours / STreeD time |")
    lines = [header, "|" + "---|" * 11]
    for r in rows:
        ours, peer = r["ours"], r["streed"]
        shape = (f"{ours['rows']} × {ours['features']} ({ours['patterns']})"
                 if "rows" in ours else "")
        both = "error" not in ours and "error" not in peer
        agree = ""
        if both and ours["optimal"] and peer["optimal"]:
            agree = "yes" if abs(ours["accuracy"] - peer["accuracy"]) < 1e-12 else "**NO**"
        ratio = (f"{ours['seconds'] / max(peer['seconds'], 1e-3):.0f}×" if both else "")
        lines.append(f"| {r['dataset']} | {shape} | {r['depth']} | {yes(ours)} "
                     f"| {cell_seconds(ours)} | {acc(ours)} | {yes(peer)} | {cell_seconds(peer)} "
                     f"| {acc(peer)} | {agree} | {ratio} |")
    return lines


def acc(run: dict) -> str:
    return f"{run['accuracy']:.4f}" if "accuracy" in run else ""


def yes(run: dict) -> str:
    return ("yes" if run["optimal"] else "no") if "optimal" in run else "–"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--depths", nargs="*", type=int, default=[2, 3, 4])
    parser.add_argument("--solver", default="dp",
                        choices=["dp", "auto", "maxsat", "lsu", "rc2"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--prefer-small", action="store_true",
                        help="occamlearn also minimises nodes among the most accurate trees "
                        "(STreeD's objective stays accuracy alone)")
    parser.add_argument("--cold", action="store_true",
                        help="time the first fit of each process (no warm-up fit: kernel "
                        "loading and lazy imports count)")
    parser.add_argument("--markdown", default=None, help="write the result table here")
    parser.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        kind, name, depth, limit, *rest = args.worker
        warm_up = rest[-1] == "warm"
        if kind == "ours":
            out = run_occamlearn(name, int(depth), rest[0], float(limit), rest[1] == "small",
                                 warm_up)
        else:
            out = run_streed(name, int(depth), float(limit), warm_up)
        print(json.dumps(out))
        return
    from occamlearn.datasets import list_datasets

    names = args.datasets or list(list_datasets())
    grace = args.time_limit + 60           # encoding and start-up are outside the solver limit
    rows = []
    for depth in args.depths:
        for name in names:
            limit = str(args.time_limit)
            warm = "cold" if args.cold else "warm"
            ours = in_subprocess(["ours", name, str(depth), limit, args.solver,
                                  "small" if args.prefer_small else "any", warm], grace)
            peer = in_subprocess(["streed", name, str(depth), limit, warm], grace)
            rows.append({"dataset": name, "depth": depth, "ours": ours, "streed": peer})
            print(table(rows)[-1], flush=True)
            if args.markdown:
                write_markdown(args, rows)


def summary(rows: list[dict]) -> list[str]:
    """Per depth: runs proven by each tool, total seconds of each (a run stopped by the limit
    counts its limit) and the ratio of totals; median of the per-run ratios."""
    lines = [("| depth | proven: ours | proven: STreeD | total s: ours | total s: STreeD "
              "| ours / STreeD (totals) | median per-run ratio | agree (both proven) |"),
             "|" + "---|" * 8]
    for depth in sorted({r["depth"] for r in rows}):
        runs = [r for r in rows if r["depth"] == depth
                and "error" not in r["ours"] and "error" not in r["streed"]]
        if not runs:
            continue
        ours = sum(r["ours"]["seconds"] for r in runs)
        peer = sum(r["streed"]["seconds"] for r in runs)
        ratios = sorted(r["ours"]["seconds"] / max(r["streed"]["seconds"], 1e-3) for r in runs)
        both = [r for r in runs if r["ours"]["optimal"] and r["streed"]["optimal"]]
        agree = sum(abs(r["ours"]["accuracy"] - r["streed"]["accuracy"]) < 1e-12 for r in both)
        lines.append(f"| {depth} | {sum(r['ours']['optimal'] for r in runs)} of {len(runs)} "
                     f"| {sum(r['streed']['optimal'] for r in runs)} of {len(runs)} "
                     f"| {ours:.2f} | {peer:.2f} | {ours / max(peer, 1e-3):.1f}× "
                     f"| {ratios[len(ratios) // 2]:.1f}× | {agree} of {len(both)} |")
    return lines


def write_markdown(args, rows) -> None:
    command = "python benchmarks/dtmax_runtime.py " + " ".join(
        a for a in sys.argv[1:] if not a.startswith("--worker"))
    route = ("search of trees.dtmax.entry.find_most_accurate_tree" if args.solver in ("dp", "auto")
             else f"MaxSAT `{args.solver}` (CaDiCaL 1.9.5)")
    text = [
        f"# DT(max): occamlearn ({route}) vs STreeD, most accurate tree of depth <= d"
        + (" (occamlearn: then smallest)" if args.prefer_small else ""),
        "",
        f"Command: `{command}`",
        "",
        (f"Machine: {platform.machine()}, Python {platform.python_version()}, shared 2 cores; "
         f"occamlearn solver `{args.solver}`, time limit {args.time_limit:.0f} s per run for "
         "both tools. Seconds are wall time of the whole fit on the binary matrix, measured "
         "inside a fresh process per run, "
         + ("the first fit of the process (kernel loading and lazy imports included)"
            if args.cold else "after a warm-up fit on 20 rows of the same matrix (start-up, "
            "compilation and kernel loading excluded)")
         + "; for occamlearn: search and decoding (and the greedy tree where used). "
         "\"(limit)\": stopped by the time limit, best tree so far. "
         "\"agree\": both proved optimality and report the same training accuracy. Ratios "
         "divide by max(STreeD seconds, 1 ms)."),
        "",
        *summary(rows),
        "",
        *table(rows),
    ]
    with open(args.markdown, "w") as handle:
        handle.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
