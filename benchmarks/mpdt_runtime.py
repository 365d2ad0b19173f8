"""Minimum pure decision trees: occamlearn's MaxSAT back-ends against STreeD.

Protocol: the paper's binarisation (``FeatureBinarizer(encoding="binary")``),
conflicting rows majority-filtered (``resolve_conflicts``), stratified 64 % training split
``random_state=0``. For each dataset and back-end ("lsu", "rc2") it records rows, features,
the greedy upper bound, the size found, status, seconds to the first tree below the greedy
bound and to the proof, clauses and literals of the encoding, and the peak memory of the
process. STreeD (benchmark-only, patched wheel ``../shared/tools``) computes the smallest
perfect tree on the same matrix by increasing the number of branch nodes k (depth <= k).
Every instance runs in its own process (peak memory, hard time limit).

    python benchmarks/mpdt_runtime.py --time-limit 60 --out benchmarks/results/mpdt_runtime.md
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue as queue_module
import resource
import sys
import time

import numpy as np

PAPER_DATASETS = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber",
                  "monks-1", "new-thy", "append", "wine", "audio", "mushr", "hepa", "back",
                  "lympho", "h-votes", "spect", "tic-tac-toe")


def training_matrix(name: str):
    """The benchmark protocol's training matrix: (X binary int array, y class indices, K)."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer, resolve_conflicts
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    if name == "hayes-r":  # the paper's rows: UCI hayes-roth.data, the first 132 (MANIFEST.md)
        X, y = X.iloc[:132], y.iloc[:132]
    codes = np.unique(y.to_numpy().astype(str), return_inverse=True)[1]
    B = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, y), dtype=np.int64)
    B, codes = resolve_conflicts(B, codes)
    try:
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, stratify=codes,
                                          random_state=0)
    except ValueError:  # a class too small to stratify
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, random_state=0)
    return B, np.unique(codes, return_inverse=True)[1], len(np.unique(codes))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_occamlearn(name, solver, time_limit):
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    X, y, k = training_matrix(name)
    start = time.perf_counter()
    result = find_minimum_tree(X, y, k, solver=solver, time_limit=time_limit)
    seconds = time.perf_counter() - start
    trace = result.trace
    first = trace[1][0] if len(trace) > 1 else None
    s = result.stats
    return {"rows": len(y), "features": X.shape[1], "ub": s.get("greedy_size", 1),
            "size": result.tree.n_nodes, "lb": result.lower_bound, "status": result.status,
            "first": first, "seconds": seconds, "encode": s.get("encode_seconds", 0.0),
            "clauses": s.get("n_clauses", 0), "literals": s.get("n_literals", 0),
            "sat_calls": s.get("sat_calls", 0), "peak_mb": _peak_mb()}


def run_streed(name, time_limit):
    import warnings

    from pystreed import STreeDClassifier

    X, y, k = training_matrix(name)
    start = time.perf_counter()
    for branches in range(k - 1, 10_000):
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            return {"size": None, "seconds": time.perf_counter() - start, "lb": 2 * branches + 1}
        model = STreeDClassifier(optimization_task="accuracy", upper_bound=0,
                                 max_num_nodes=branches, max_depth=min(branches, 20),
                                 time_limit=max(1, int(left)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        try:
            perfect = model.score(X, y) == 1.0
        except Exception:  # noqa: BLE001 - pystreed raises when it found no tree
            perfect = False
        if time.perf_counter() - start > time_limit:
            return {"size": None, "seconds": time.perf_counter() - start, "lb": 2 * branches + 1}
        if perfect:
            return {"size": 2 * branches + 1, "seconds": time.perf_counter() - start}


def _child(queue, job, args):
    try:
        queue.put(job(*args))
    except Exception as error:  # noqa: BLE001 - report any failure, never hang the parent
        queue.put({"error": f"{type(error).__name__}: {error}"})


def isolated(job, args, hard_limit):
    """Run job(*args) in a fresh process; None if it outlives ``hard_limit`` seconds."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_child, args=(queue, job, args))
    process.start()
    try:
        return queue.get(timeout=hard_limit)
    except queue_module.Empty:
        return None
    finally:
        process.join(timeout=1)
        if process.is_alive():
            process.kill()


def _fmt(value, digits=1):
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(PAPER_DATASETS))
    parser.add_argument("--solvers", nargs="*", default=["lsu", "rc2"])
    parser.add_argument("--no-streed", action="store_true")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    args = parser.parse_args(argv)
    header = ("| dataset | rows × feat. | greedy UB | " + " | ".join((
        f"{s} size | {s} status | {s} s first | {s} s total | {s} enc. s") for s in args.solvers)
        + " | clauses | literals | peak MB | STreeD size | STreeD s | "
        + " | ".join(f"{s}/STreeD" for s in args.solvers) + " |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print(lines[0], flush=True)
    totals = {s: 0.0 for s in args.solvers + ["streed"]}
    for name in args.datasets:
        runs = {s: isolated(run_occamlearn, (name, s, args.time_limit), args.time_limit + 120)
                for s in args.solvers}
        streed = None if args.no_streed else isolated(run_streed, (name, args.time_limit),
                                                      args.time_limit + 60)
        first = next((r for r in runs.values() if r and "error" not in r), None)
        cells = [name, f"{first['rows']} × {first['features']}" if first else "–",
                 _fmt(first["ub"]) if first else "–"]
        for s in args.solvers:
            r = runs[s]
            if not r or "error" in r:
                cells += [(r or {}).get("error", "crash/timeout")[:60], "–", "–", "–", "–"]
                totals[s] += args.time_limit
                continue
            size = str(r["size"]) if r["status"] == "optimal" else f"{r['size']} (≥{r['lb']})"
            cells += [size, r["status"], _fmt(r["first"]), _fmt(r["seconds"]), _fmt(r["encode"], 2)]
            totals[s] += min(r["seconds"], args.time_limit)
        cells += [_fmt(first["clauses"]) if first else "–", _fmt(first["literals"]) if first else "–",
                  _fmt(max(r["peak_mb"] for r in runs.values() if r and "error" not in r), 0)
                  if first else "–"]
        if streed and "error" not in streed:
            size = _fmt(streed["size"]) if streed["size"] else f"– (≥{streed.get('lb')})"
            cells += [size, _fmt(streed["seconds"])]
            totals["streed"] += min(streed["seconds"], args.time_limit)
        else:
            cells += ["–", "–"]
            totals["streed"] += args.time_limit
        for s in args.solvers:
            r = runs[s]
            ok = r and "error" not in r and streed and "error" not in streed
            cells.append(_fmt(r["seconds"] / max(streed["seconds"], 0.01), 2) if ok else "–")
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    summary = ", ".join(f"{s}: {v:.0f} s" for s, v in totals.items())
    text = ["# Minimum pure decision trees: runtime", "",
            f"Command: `python {' '.join(sys.argv)}`", "",
            (f"Per-instance time limit {args.time_limit:.0f} s; timeouts count as the limit in "
            f"the totals. Totals: {summary}."), "", *lines, ""]
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join(text))


if __name__ == "__main__":
    main()
