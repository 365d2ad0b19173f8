"""Peak memory and wall of the size-error and DT(max) fits on wide tables, each in a fresh
process (``getrusage(RUSAGE_SELF).ru_maxrss`` of the child: imports and data included).

Cases (``CASES``): the depth-bounded size-error frontier on a 0/1 matrix as given
(``binarizer=None``, rows x columns uint8) and on 6,000 x 3,000 uniform floats (every
threshold, capped by ``trees.dtmax.entry.FRONTIER_CELLS``), DT(max) at depth 2 on the floats
(``ordered.depth2``'s pair-count mode), the minimum pure tree on the floats. ``--src A B``
runs each case once per source tree, alternated (base against head in one sitting).

    python benchmarks/memory_wide.py --src /tmp/base_mem10/src src \
        --out benchmarks/results/memory_mem10.md

The ``data MB`` column is the peak RSS of a process that only imports and builds the data:
what the fit adds is the difference.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LIMIT = 10.0


def _binary(rows: int, columns: int, seed: int = 0):
    """A 0/1 matrix (uint8, made 500 rows at a time) with y a noisy function of three
    columns."""
    rng = np.random.default_rng(seed)
    X = np.empty((rows, columns), dtype=np.uint8)
    for start in range(0, rows, 500):
        X[start:start + 500] = rng.random((min(500, rows - start), columns)) < 0.3
    y = (X[:, 0] ^ X[:, 1] | (X[:, 2] & (rng.random(rows) < 0.8))).astype(int)
    return X, y


def _floats(rows: int = 6_000, columns: int = 3_000, seed: int = 0):
    """Uniform floats, y the xor of three thresholds (``limits_cases._xor_floats``)."""
    rng = np.random.default_rng(seed)
    X = rng.random((rows, columns))
    return X, ((X[:, 0] > .5) ^ (X[:, 1] > .5) ^ (X[:, 2] > .5)).astype(int)


# name -> (data, estimator, its options, what is fitted: "fit" or "path")
CASES = {
    "path-binary-20k-d2": (lambda: _binary(6_000, 20_000), "MaxAccuracyTreeClassifier",
                           {"binarizer": None, "max_depth": 2, "max_leaves": 3}, "path"),
    "path-binary-20k-d3": (lambda: _binary(6_000, 20_000), "MaxAccuracyTreeClassifier",
                           {"binarizer": None, "max_depth": 3, "max_leaves": 4}, "path"),
    "path-floats-d3": (_floats, "MaxAccuracyTreeClassifier", {"max_depth": 3, "max_leaves": 8},
                       "path"),
    "fit-floats-d2": (_floats, "MaxAccuracyTreeClassifier", {"max_depth": 2}, "fit"),
    "mpdt-floats": (_floats, "MinimumPureTreeClassifier", {}, "fit"),
}


def run_case(name: str, data_only: bool) -> dict:
    import occamlearn

    make, estimator, options, what = CASES[name]
    X, y = make()
    if data_only:
        return {"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    model = getattr(occamlearn, estimator)(time_limit=LIMIT, **options)
    started, cpu = time.perf_counter(), time.process_time()
    error = None
    try:
        if what == "path":
            path = model.size_error_path(X, y)
            summary = f"{path.status}, errors {list(path.errors)}"
        else:
            model.fit(X, y)
            summary = f"{model.status_}, {model.n_nodes_} nodes"
    except MemoryError as caught:
        error, summary = type(caught).__name__, str(caught)[:120]
    return {"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "wall": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "summary": summary, "error": error}


def _child(name: str, src: str, data_only: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    command = [sys.executable, os.path.abspath(__file__), "--case", name]
    done = subprocess.run(command + (["--data-only"] if data_only else []), env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode:
        return {"peak_mb": float("nan"), "wall": float("nan"), "cpu": float("nan"),
                "summary": f"rc {done.returncode}: {done.stderr.strip()[-160:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--data-only", action="store_true")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--src", nargs="+", default=["src"])
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.data_only)))
        return
    from result_file import publish_run

    def work() -> str:
        lines = [f"time_limit {LIMIT:g} s per fit.", "",
                 "| case | src | data MB | peak MB | wall s | CPU s | result |",
                 "|---|---|---:|---:|---:|---:|---|"]
        for name in args.cases:
            data = _child(name, args.src[0], True)["peak_mb"]
            for src in args.src:
                row = _child(name, src, False)
                lines.append(f"| {name} | {src} | {data:.0f} | {row['peak_mb']:.0f} | "
                             f"{row['wall']:.2f} | {row['cpu']:.2f} | {row['summary']} |")
                print(lines[-1], file=sys.stderr, flush=True)
        return "\n".join(lines) + "\n"

    publish_run("Peak memory of fits on wide tables", "memory_wide.py", args.out, work)


if __name__ == "__main__":
    main()
