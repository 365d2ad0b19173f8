"""Stricter stopping rules for the default decision list, on the held-out splits of dlist_accuracy.

The default charges each rule log M_k nats (``lists.cost``). On the small tables where it
falls below the majority class (hepa, spect) the question is whether a larger charge per rule
would help without losing the concept tables (mux6, corral, monks). Variants, each on every
table of ``dlist_accuracy`` with its 5 stratified 64/36 splits:

* ``base`` -- ``DecisionListClassifier()``;
* ``+half-log-n`` / ``+log-n`` -- the description cost plus 0.5 log n (a BIC charge for the
  rule's probability) or log n nats per rule, n the training rows (patched into
  ``RuleCost``: not options of the package);
* ``penalty-1.5`` / ``penalty-2`` -- ``DecisionListClassifier(penalty=...)``.

    python benchmarks/dlist_penalty_variants.py --out benchmarks/results/dlist_penalty_variants.md
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).parent))
from dlist_accuracy import SPLITS, two_class_tables  # noqa: E402

import occamlearn.lists.cost as cost_module  # noqa: E402
from occamlearn import DecisionListClassifier  # noqa: E402

_ORIGINAL = cost_module.RuleCost.__init__
_EXTRA = {"per_rule": lambda n: 0.0, "n": 1}


def _patched(self, n_features, penalty=1.0):
    _ORIGINAL(self, n_features, penalty)
    if self.penalty > 0:
        self._table = self._table.copy()
        self._table[1:] += _EXTRA["per_rule"](_EXTRA["n"])


VARIANTS = {
    "base": (lambda n: 0.0, {}),
    "+half-log-n": (lambda n: 0.5 * math.log(n), {}),
    "+log-n": (lambda n: math.log(n), {}),
    "penalty-1.5": (lambda n: 0.0, {"penalty": 1.5}),
    "penalty-2": (lambda n: 0.0, {"penalty": 2.0}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PATH.md")
    parser.add_argument("--tables", nargs="+")
    args = parser.parse_args()
    cost_module.RuleCost.__init__ = _patched
    load_before = os.getloadavg()[0]
    tables = two_class_tables()
    names = args.tables or list(tables)
    accuracy = {v: {} for v in VARIANTS}
    for name in names:
        X, y = tables[name]
        for variant, (per_rule, params) in VARIANTS.items():
            scores = []
            for seed in SPLITS:
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, train_size=0.64, stratify=y, random_state=seed)
                _EXTRA.update(per_rule=per_rule, n=len(y_train))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = DecisionListClassifier(**params).fit(X_train, y_train)
                    scores.append(float(np.mean(model.predict(X_test) == y_test)))
            accuracy[variant][name] = float(np.mean(scores))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False, cwd=Path(__file__).parent).stdout.strip()
    lines = ["# Stricter stopping rules for the default decision list", "",
             "Command: `python benchmarks/dlist_penalty_variants.py --out "
             "benchmarks/results/dlist_penalty_variants.md`", "",
             f"Commit {commit}; {os.cpu_count()} cores shared with other jobs (load average "
             f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end). Mean test "
             "accuracy over 5 stratified 64/36 splits.", "",
             "| table | " + " | ".join(VARIANTS) + " |", "|---|" + "---|" * len(VARIANTS)]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(f"{accuracy[v][name]:.3f}" for v in VARIANTS)
                     + " |")
    lines.append("| **mean** | " + " | ".join(
        f"**{np.mean(list(accuracy[v].values())):.3f}**" for v in VARIANTS) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
