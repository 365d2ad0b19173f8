"""Does a compiled AND+popcount kernel pay for the default decision-list fit on 100,000 x 2,000?

``lists.bits.count_covered`` counts in numpy: per block of candidate columns and row set, an
AND, a popcount and a sum for the covered rows, the same for the positives. A numba kernel
fusing them reads each word once. This script measures, each part in its own process:

* ``load``: CPU seconds to import numba and load the kernel from numba's disk cache (compiled
  once beforehand into a temporary ``NUMBA_CACHE_DIR``) -- what a fresh process would pay;
* ``fit``: the default ``DecisionListClassifier(binarizer=None)`` fit on the benchmark's planted
  100,000 x 2,000 table (``dlist_accuracy.planted_binary``): its CPU seconds, and the CPU
  seconds and words of its ``count_covered`` calls;
* ``kernel``: CPU seconds per word of numpy and of the fused kernel on the same shapes (5 row
  sets x 2,000 columns x 1,563 words).

The kernel pays for one fit when the fit's counting time times (1 - fused/numpy) exceeds the
load. The kernel is written here only to be measured; it is not part of the package.

    python benchmarks/dlist_fused_count.py --out benchmarks/results/dlist_fused_count.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = '''
import numpy as np
from numba import njit

@njit(cache=True, nogil=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)

@njit(cache=True, nogil=True)
def fused_counts(columns, rows, positives, covered, positive):
    m, w = columns.shape
    for j in range(m):
        for i in range(rows.shape[0]):
            c = np.uint64(0)
            p = np.uint64(0)
            for k in range(w):
                a = columns[j, k] & rows[i, k]
                c += _popcount(a)
                p += _popcount(a & positives[i, k])
            covered[i, j] = c
            positive[i, j] = p

def warm_up():
    words = np.zeros((1, 1), dtype=np.uint64)
    counts = np.zeros((1, 1), dtype=np.int64)
    fused_counts(words, words, words, counts, counts.copy())
'''


def part_load(folder: str) -> dict:
    cpu = time.process_time()
    sys.path.insert(0, folder)
    import fused_kernel

    fused_kernel.warm_up()
    return {"load_cpu": time.process_time() - cpu}


def part_fit() -> dict:
    import numpy as np

    sys.path.insert(0, str(Path(__file__).parent))
    from dlist_accuracy import planted_binary

    from occamlearn import DecisionListClassifier
    from occamlearn.lists import problem

    X, y = planted_binary()
    DecisionListClassifier(binarizer=None, max_rules=2).fit(X[:2000], y[:2000])  # warm
    spent = {"cpu": 0.0, "words": 0, "calls": 0}
    original = problem.count_covered

    def timed(columns, rows, positives, index=None):
        cpu = time.process_time()
        out = original(columns, rows, positives, index)
        spent["cpu"] += time.process_time() - cpu
        m = len(columns) if index is None else len(index)
        spent["words"] += int(np.atleast_2d(rows).shape[0] * m * columns.shape[1])
        spent["calls"] += 1
        return out

    problem.count_covered = timed
    cpu = time.process_time()
    DecisionListClassifier(binarizer=None).fit(X, y)
    return {"fit_cpu": time.process_time() - cpu, "count_cpu": spent["cpu"],
            "count_words": spent["words"], "count_calls": spent["calls"]}


def part_kernel(folder: str) -> dict:
    import numpy as np

    sys.path.insert(0, folder)
    import fused_kernel

    from occamlearn.lists.bits import count_covered

    rng = np.random.default_rng(0)
    columns = rng.integers(0, 2**63, size=(2000, 1563), dtype=np.uint64)
    rows = rng.integers(0, 2**63, size=(5, 1563), dtype=np.uint64)
    positives = rows & rng.integers(0, 2**63, size=(5, 1563), dtype=np.uint64)
    covered, positive = np.empty((5, 2000), np.int64), np.empty((5, 2000), np.int64)
    fused_kernel.fused_counts(columns, rows, positives, covered, positive)
    times = {"numpy": [], "fused": []}
    for _ in range(5):  # alternating
        cpu = time.process_time()
        expected = count_covered(columns, rows, positives)
        times["numpy"].append(time.process_time() - cpu)
        cpu = time.process_time()
        fused_kernel.fused_counts(columns, rows, positives, covered, positive)
        times["fused"].append(time.process_time() - cpu)
    assert (expected[0] == covered).all() and (expected[1] == positive).all()
    words = 5 * 2000 * 1563
    return {f"{k}_ns_per_word": 1e9 * min(v) / words for k, v in times.items()}


def run(part: str, folder: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "cache")}
    out = subprocess.run([sys.executable, __file__, "--part", part, "--folder", folder],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PATH.md")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        parts = {"load": lambda: part_load(args.folder), "fit": part_fit,
                 "kernel": lambda: part_kernel(args.folder)}
        print(json.dumps(parts[args.part]()))
        return
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "fused_kernel.py").write_text(KERNEL)
        run("load", folder)  # compiles into the cache
        result = {**run("load", folder), **run("fit", folder), **run("kernel", folder)}
    saved = result["count_cpu"] * (1 - result["fused_ns_per_word"]
                                   / result["numpy_ns_per_word"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False, cwd=Path(__file__).parent).stdout.strip()
    text = "\n".join([
        "# A fused AND+popcount kernel for the decision-list counts: does it pay?", "",
        "Command: `python benchmarks/dlist_fused_count.py --out "
        "benchmarks/results/dlist_fused_count.md`", "",
        f"Commit {commit}; {os.cpu_count()} cores shared with other jobs (load average "
        f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end).", "",
        "| measure | value |", "|---|---|",
        *(f"| {k} | {v:.4g} |" for k, v in result.items()),
        f"| counting CPU s the kernel would save in the fit | {saved:.3f} |",
        f"| net CPU s for one fit in a fresh process (load - saved) | "
        f"{result['load_cpu'] - saved:+.3f} |", ""])
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
