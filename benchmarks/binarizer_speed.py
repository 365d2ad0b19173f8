"""Readable binariser and prediction cost on a wide table: base against head, side by side.

The table of issue 31: 300 rows x 3,000 standard-normal columns, y = (x0 > 0). For each
source tree (``--base``, e.g. a checkout of main, and ``--head``, this one), each in its own
process and alternating base/head ``--rounds`` times (the machine may be shared: compare the
ratio of one round, not seconds across runs), we time

* ``ThresholdBinarizer().fit(X)`` (no labels: 32 cuts per column at quantiles, as a decision
  list fits it) and ``transform(X)`` of the 96,000 conditions;
* ``ThresholdBinarizer().fit(X, y)`` (with labels, as the minimum trees fit it; base ignores y);
* ``MinimumPureTreeClassifier(time_limit=20).fit(X, y)`` and ``predict(X)`` on the fitted
  tree (head reads only the conditions the tree tests).

Run by hand (not part of the tests)::

    python benchmarks/binarizer_speed.py --base /work/main/src --head src \\
        --out benchmarks/results/binarizer_speed.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, time, warnings
import numpy as np
from occamlearn import MinimumPureTreeClassifier
from occamlearn.binarize import ThresholdBinarizer
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3000))
y = (X[:, 0] > 0).astype(int)
out = {}
def timed(name, run):
    start = time.perf_counter()
    value = run()
    out[name] = time.perf_counter() - start
    return value
blind = timed("fit(X)", lambda: ThresholdBinarizer().fit(X))
out["features(X)"] = len(blind.conditions_)
timed("transform(X)", lambda: blind.transform(X))
labelled = timed("fit(X, y)", lambda: ThresholdBinarizer().fit(X, y))
out["features(X, y)"] = len(labelled.conditions_)
model = timed("tree fit", lambda: MinimumPureTreeClassifier(time_limit=20).fit(X, y))
out["tree nodes"] = model.n_nodes_
timed("predict", lambda: model.predict(X))
print(json.dumps(out))
"""

TIMES = ("fit(X)", "transform(X)", "fit(X, y)", "tree fit", "predict")


def run_child(source: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(source))
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="src folder of the base occamlearn")
    parser.add_argument("--head", default="src", help="src folder of this occamlearn")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", help="write the markdown table here")
    args = parser.parse_args()
    head_commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
    lines = [f"    {' '.join([os.path.basename(sys.executable)] + sys.argv)}", "",
             f"head commit {head_commit}; load average {os.getloadavg()[0]:.1f} at the start "
             f"on {os.cpu_count()} cores (shared machine: compare the ratios of one round)", "",
             "| round | code | " + " | ".join(f"{t} s" for t in TIMES)
             + " | features (no labels / labels) | tree nodes |",
             "|---" * (len(TIMES) + 4) + "|"]
    for round_ in range(1, args.rounds + 1):
        for name, source in (("base", args.base), ("head", args.head)):
            result = run_child(source)
            cells = [f"{result[t]:.2f}" for t in TIMES]
            lines.append(f"| {round_} | {name} | " + " | ".join(cells)
                         + f" | {result['features(X)']} / {result['features(X, y)']} | "
                         f"{result['tree nodes']} |")
            print(lines[-1], flush=True)
    lines.append("")
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end; "
                 f"{time.strftime('%Y-%m-%d %H:%M')}")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("# Readable binariser and prediction on 300 x 3,000\n\n" + text)
    print(text)


if __name__ == "__main__":
    main()
