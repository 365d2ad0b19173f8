"""Two remedies for selection-biased rule rates, measured on the held-out splits of
``dlist_accuracy.py``.

On hepa and spect the default list scores below the majority class: a region the search
picked has a training rate biased by being picked (issue 34). This script measures two
remedies on the 16 tables and 5 stratified 64/36 splits of ``dlist_accuracy.py``:

1. **Shrunk rates** (m-estimates). The list is the default one; only the probabilities it
   predicts with change: region k's rate becomes (positives + m * prior) / (rows + m), with
   the prior either the rate of the rows left when the rule was chosen ("parent": region k
   and every later region) or the training rate ("all"), for m in ``M_VALUES``.
2. **A selection-aware charge.** The best single rule's log-likelihood gain that the default
   search (up to 4 literals, both directions) finds on *permuted* labels is what the best of
   all candidate conditions gains on noise. The script reports it (3 permutations per split)
   next to the MDL charge of a 4-literal rule (``RuleCost(d)(4)``, ``lists.cost``), and the
   test accuracy of the default refitted with ``penalty = max(1, noise gain / charge)``: a
   charge at least what noise gains.

Best-peer accuracies are read from ``dlist_accuracy.jsonl`` (the peers' rows of that run).

    python benchmarks/dlist_selection_bias.py --out benchmarks/results/dlist_selection_bias.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from occamlearn import DecisionListClassifier
from occamlearn.lists import RuleCost

sys.path.insert(0, os.path.dirname(__file__))
from dlist_accuracy import SPLITS, _commit, two_class_tables  # noqa: E402

M_VALUES = (1, 2, 4, 8)
PERMUTATIONS = 3
PEERS_LOG = Path(__file__).parent / "results" / "dlist_accuracy.jsonl"


def region_counts(decision_list):
    """(rows, positives) of each region: the rules in order, then the default."""
    n = np.array([r.n_covered for r in decision_list.rules] + [decision_list.n_default], float)
    pos = np.array([r.n_positive for r in decision_list.rules]
                   + [decision_list.n_default_positive], float)
    return n, pos


def shrunk_rates(decision_list, m: float, prior: str) -> np.ndarray:
    """Each region's m-estimate toward the parent's rate or the training rate."""
    n, pos = region_counts(decision_list)
    if prior == "all":
        toward = np.full(len(n), pos.sum() / n.sum())
    else:  # the rows left when region k's rule was chosen: region k and every later one
        toward = np.cumsum(pos[::-1])[::-1] / np.cumsum(n[::-1])[::-1]
    return (pos + m * toward) / (n + m)


def noise_gain(X, y, seed: int) -> list:
    """The best first rule's gain on ``PERMUTATIONS`` permutations of ``y``."""
    rng = np.random.default_rng(seed)
    gains = []
    for _ in range(PERMUTATIONS):
        model = DecisionListClassifier(penalty=None, max_rules=1).fit(X, rng.permutation(y))
        ll = model.log_likelihoods_
        gains.append(float(ll[1] - ll[0]) if len(ll) > 1 else 0.0)
    return gains


def run_split(X, y, seed: int) -> dict:
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.64, stratify=y,
                                                        random_state=seed)
    model = DecisionListClassifier().fit(X_train, y_train)
    region = model.list_.apply(model._binary(X_test))
    truth = y_test == model.positive_class_
    out = {"base": float(np.mean(model.predict(X_test) == y_test))}
    for prior in ("parent", "all"):
        for m in M_VALUES:
            rates = shrunk_rates(model.list_, m, prior)
            out[f"{prior}-m{m}"] = float(np.mean((rates[region] >= 0.5) == truth))
    gains = noise_gain(X_train, np.asarray(y_train), seed)
    charge = RuleCost(len(model.feature_names_))(4)
    penalty = max(1.0, float(np.mean(gains)) / charge)
    aware = DecisionListClassifier(penalty=penalty).fit(X_train, y_train)
    out["noise-charge"] = float(np.mean(aware.predict(X_test) == y_test))
    out["noise gain"], out["MDL charge"] = float(np.mean(gains)), charge
    out["noise gain max"] = float(np.max(gains))
    return out


def best_peers() -> pd.Series:
    rows = [json.loads(line) for line in PEERS_LOG.read_text().splitlines()]
    frame = pd.DataFrame(rows)
    frame = frame[~frame["learner"].str.startswith("ours") & (frame["learner"] != "majority")]
    return frame.groupby(["table", "learner"])["accuracy"].mean().groupby("table").max()


def markdown(frame: pd.DataFrame, peers: pd.Series, load_before: float, seconds: float) -> str:
    accuracy = [c for c in frame.columns if c not in ("noise gain", "MDL charge",
                                                      "noise gain max")]
    frame = frame.assign(**{"best peer": peers.reindex(frame.index)})
    lines = ["| table | " + " | ".join(accuracy) + " | best peer |",
             "|" + "---|" * (len(accuracy) + 2)]
    for table, row in frame.iterrows():
        lines.append(f"| {table} | " + " | ".join(f"{row[c]:.3f}" for c in accuracy)
                     + f" | {row['best peer']:.3f} |")
    means = frame[accuracy].mean()
    gaps = frame[accuracy].sub(frame["best peer"], axis=0).min()
    lines.append("| **mean** | " + " | ".join(f"**{means[c]:.3f}**" for c in accuracy) + " | |")
    lines.append("| **worst gap to best peer** | "
                 + " | ".join(f"**{gaps[c]:+.3f}**" for c in accuracy) + " | |")
    noise = ["| table | noise gain (mean of 3) | noise gain (max of 3) | MDL charge, 4 literals |",
             "|---|---|---|---|"]
    for table, row in frame.iterrows():
        noise.append(f"| {table} | {row['noise gain']:.1f} | {row['noise gain max']:.1f} | "
                     f"{row['MDL charge']:.1f} |")
    return "\n".join([
        "# Selection-biased rates: shrinkage and a selection-aware charge",
        "",
        f"Command: `python benchmarks/dlist_selection_bias.py {' '.join(sys.argv[1:])}`",
        "",
        f"Commit {_commit()}; {os.cpu_count()} cores shared with other jobs (load average "
        f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end); "
        f"{seconds:.0f} s in all. Mean test accuracy over 5 stratified 64/36 splits; best peer "
        f"from `{PEERS_LOG.name}`.",
        "",
        *lines,
        "",
        "Log-likelihood gain (nats) of the best first rule on permuted labels, against the "
        "default's charge for a rule of 4 literals (mean over splits):",
        "",
        *noise,
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PATH.md")
    parser.add_argument("--tables", nargs="+", help="only these tables (default: all)")
    args = parser.parse_args()
    load_before, started = os.getloadavg()[0], time.perf_counter()
    tables = two_class_tables()
    rows = {}
    for name, (X, y) in tables.items():
        if args.tables and name not in args.tables:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            splits = [run_split(X, y, seed) for seed in SPLITS]
        rows[name] = pd.DataFrame(splits).mean()
        print(name, rows[name].round(3).to_dict(), flush=True)
    frame = pd.DataFrame(rows).T
    text = markdown(frame, best_peers(), load_before, time.perf_counter() - started)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
