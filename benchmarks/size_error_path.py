"""The size-error path certified on every bundled binary matrix, within a time limit each.

For each dataset, ``trees.size_error.frontier.find_size_error_frontier`` (no depth bound, no leaf
cap: from one leaf to the smallest tree with the fewest errors) runs in its own forked process on
the DT(max) benchmark's matrix (``dtmax_runtime.binary_training_data``: ``FeatureBinarizer(encoding=
"binary")`` on a stratified 64 % training split, ``random_state=0``, conflicting rows kept), with
the time limit. Reported: points on the path, how many are proven, seconds, the staircase queries,
the errors at 1 leaf and at the end, and the curve itself.

``--every-threshold`` runs instead what a user runs: ``MaxAccuracyTreeClassifier(max_depth=None,
time_limit=T).size_error_path(X, y)`` on the raw table's training split (every threshold of
every numeric column, missing values on either side, categories as the readable binariser
reads them), the whole call timed (reading the table included).

``--base SRC`` (with ``--every-threshold``) runs each table a second time right after, with
``SRC`` first on ``PYTHONPATH`` (``@base`` rows): a checkout against its base in one run.

``--check`` also fits, in the same process after the timed run, the error-budget branch and
bound (``find_minimum_tree_with_errors_bnb``) at the budget in the middle of a certified path:
its smallest tree must have L(e) leaves with errors[L(e)] <= e < errors[L(e) - 1]
(**DISAGREEMENT** otherwise; exit status 1). Run by hand::

    python benchmarks/size_error_path.py --time-limit 60 --check \\
        --out benchmarks/results/size_error_path.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bnb_runtime import isolated  # noqa: E402  (one process-isolation helper)
from dtmax_runtime import binary_training_data  # noqa: E402

from occamlearn.stopping import Deadline  # noqa: E402

DATASETS = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber", "monks-1",
            "new-thy", "append", "wine", "audio", "titanic", "lympho", "h-votes", "hepa",
            "tic-tac-toe", "mushr", "back", "spect")


def _check(X, y, k, errors, proven) -> str:
    from occamlearn.trees.mpdt.error_budget.bnb import find_minimum_tree_with_errors_bnb

    if not proven.all() or len(errors) < 2:
        return "–"
    budget = int(errors[len(errors) // 2])
    result = find_minimum_tree_with_errors_bnb(X, y, k, budget, deadline=Deadline.after(60))
    if result.status != "optimal":
        return f"e={budget}: budget search open"
    leaves = result.tree.n_leaves
    ok = errors[leaves - 1] <= budget and (leaves == 1 or errors[leaves - 2] > budget)
    return f"e={budget}: L={leaves} ok" if ok else f"**DISAGREEMENT** e={budget}: L={leaves}"


def run(name: str, time_limit: float, check: bool) -> dict:
    from occamlearn.trees.size_error.frontier import find_size_error_frontier

    X, y, k = binary_training_data(name)
    start = time.perf_counter()
    frontier = find_size_error_frontier(X, y, k, deadline=Deadline.after(time_limit))
    seconds = time.perf_counter() - start
    for tree, errors in zip(frontier.trees, frontier.errors, strict=True):
        if int((tree.predict(X) != y).sum()) != errors:
            return {"error": "a tree's errors differ from its point"}
    return {"rows": len(y), "features": X.shape[1], "points": len(frontier.errors),
            "proven": int(frontier.proven.sum()), "status": frontier.status,
            "seconds": seconds, "queries": frontier.stats["queries"],
            "errors": frontier.errors.tolist(), "lower": frontier.lower.tolist(),
            "check": _check(X, y, k, frontier.errors, frontier.proven) if check else "–"}


def table_path(name: str, time_limit: float):
    """(X, y, path, seconds): ``size_error_path`` of the default estimator on the raw
    training split of table ``name``, timed."""
    import warnings

    from sklearn.model_selection import train_test_split

    from occamlearn import MaxAccuracyTreeClassifier
    from occamlearn.datasets import load_dataset

    warnings.simplefilter("ignore")
    X, y = load_dataset(name)
    X, _, y, _ = train_test_split(X, y, train_size=0.64, stratify=y, random_state=0)
    start = time.perf_counter()
    path = MaxAccuracyTreeClassifier(max_depth=None, time_limit=time_limit).size_error_path(
        X, y)
    return X, y, path, time.perf_counter() - start


def run_table(name: str, time_limit: float, check: bool) -> dict:
    """``size_error_path`` of the default estimator on the raw training split."""
    import numpy as np

    X, y, path, seconds = table_path(name, time_limit)
    for model, errors in zip(path.models, path.errors, strict=True):
        if int((model.predict(X) != np.asarray(y)).sum()) != errors:
            return {"error": "a model's errors differ from its point"}
    stats = path.models[-1].solve_stats_
    features = (f"{stats['n_thresholds']} thr." if "n_thresholds" in stats
                else f"{stats.get('n_binary_features', '?')} 0/1")
    return {"rows": len(y), "features": features,
            "points": len(path), "proven": int(path.proven.sum()), "status": path.status,
            "seconds": seconds, "queries": stats.get("queries", "–"),
            "errors": path.errors.tolist(), "lower": path.errors_lower_bound.tolist(),
            "check": "–"}


def _curve(r) -> str:
    points = [str(e) if e == lo else f"{e} (≥{lo})" for e, lo in zip(r["errors"], r["lower"],
                                                                      strict=True)]
    return " ".join(points) if len(points) <= 24 else " ".join(points[:24]) + " …"


def _commit() -> str:
    import subprocess

    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    return done.stdout.strip() or "unknown"


def run_base(name: str, time_limit: float, src: str) -> dict | None:
    """``run_table`` in a subprocess with ``src`` first on ``PYTHONPATH``."""
    import json
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.abspath(src),
                                                       os.environ.get("PYTHONPATH", "")]))
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name,
                               str(time_limit)], capture_output=True, text=True, env=env,
                              timeout=time_limit * 1.1 + 90)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _row(name: str, r: dict | None, limit: float) -> tuple[list, float, bool, bool]:
    """(cells, seconds counted, certified?, disagreement?) of one run."""
    if r is None or "error" in r:
        return ([name, "–", "–", "–", (r or {}).get("error", "killed (hard limit)"), "–",
                 "–", "–", "–"], limit, False, False)
    cells = [name, f"{r['rows']} × {r['features']}", str(r["points"]), str(r["proven"]),
             r["status"], f"{r['seconds']:.2f}", str(r["queries"]),
             f"{r['errors'][0]} → {r['errors'][-1]}", r["check"]]
    return (cells, min(r["seconds"], limit), r["status"] == "optimal",
            "DISAGREEMENT" in r["check"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--base", help="src of a base checkout (with --every-threshold)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--check", action="store_true",
                        help="check one certified point against the error-budget search")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    parser.add_argument("--every-threshold", action="store_true",
                        help="the default estimator's size_error_path on the raw tables")
    args = parser.parse_args(argv)
    if args.worker:
        import json

        from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up

        warm_up()  # loaded before the clock starts, as the forked runs of the parent have it
        print(json.dumps(run_table(args.worker[0], float(args.worker[1]), False)))
        return 0
    job = run_table if args.every_threshold else run
    from occamlearn.trees.mpdt.error_budget.bnb_kernels import warm_up

    warm_up()  # compiled in the parent, so the forked runs do not pay for it
    header = ("| dataset | rows × feat. | points | proven | status | seconds | queries | "
              "errors at 1 leaf → end | check |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    curves, certified, total, bad = [], [], 0.0, []
    print(header, flush=True)
    base_certified, base_total = [], 0.0
    for name in args.datasets:
        runs = [(name, isolated(job, (name, args.time_limit, args.check),
                                args.time_limit * 1.1 + 90))]
        if args.base:
            runs.append((f"{name} @base", run_base(name, args.time_limit, args.base)))
        for label, r in runs:
            cells, seconds, proven, disagrees = _row(label, r, args.time_limit)
            if label == name:
                total += seconds
                certified += [name] if proven else []
                bad += [name] if disagrees else []
            else:
                base_total += seconds
                base_certified += [name] if proven else []
            if r is not None and "error" not in r:
                curves.append(f"- {label}: {_curve(r)}")
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    summary = (f"{len(certified)} of {len(args.datasets)} paths certified within "
               f"{args.time_limit:.0f} s each; total {total:.1f} s (an open path counts as the "
               f"limit). Disagreements with the error-budget search: {len(bad)}.")
    if args.base:
        summary += (f" Base ({args.base}): {len(base_certified)} of {len(args.datasets)} "
                    f"certified, total {base_total:.1f} s.")
    print(summary, flush=True)
    if args.out:
        what = ("the bundled tables, every threshold" if args.every_threshold
                else "the bundled binary matrices")
        text = [f"# Size-error paths on {what}", "",
                f"Command: `python {' '.join(sys.argv)}`  ", f"Commit {_commit()}, load "
                f"average {os.getloadavg()} on {os.cpu_count()} cores (a shared machine: "
                "compare within this run).", "", summary, "", *lines, "",
                "Curves (fewest training errors with at most 1, 2, … leaves; "
                "\"(≥b)\": not proven, b the proven lower bound):", "", *curves, ""]
        with open(args.out, "w") as handle:
            handle.write("\n".join(text))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
