"""Where a decision-list fit spends its CPU on small tables, against RIPPER's whole fit.

Issue 34 asks the default ``DecisionListClassifier()`` to fit >= 10x faster than
wittgenstein's RIPPER (CPU) on every table of ``dlist_accuracy.py``. This script splits our
fit into its parts and times each, interleaved with RIPPER on the same training rows, so that
the ratios come from one run on one (possibly shared) machine:

* ``fit`` -- ``DecisionListClassifier().fit`` in full;
* ``validate`` -- ``validate_table`` (scikit-learn's ``validate_data`` and the label checks);
* ``binarise`` -- ``RuleLiterals(ThresholdBinarizer()).fit_transform`` (the default literals);
* ``search`` -- ``learn_decision_list`` on the already binary matrix with the default's
  options (both directions, beam-grown rules, MDL penalty);
* ``folds`` -- the shrinkage's held-out folds (``lists.shrinkage.shrinkage_factor`` over a
  ``lists.folds.FoldSearch`` on the same packed problem: 5 searches in the chosen direction,
  stopped at the list's length);
* ``rest`` -- ``fit`` less the four parts above (scikit-learn's parameter checks, cloning,
  label encoding, packing, the fitted attributes);
* ``ripper`` -- ``wittgenstein.RIPPER(random_state=s).fit`` as in ``dlist_accuracy.py``.

Each is the mean CPU time of ``--repeats`` calls per split (after one warm-up call), on the
training rows of the 5 stratified 64/36 splits. ``ripper / (search + folds)`` is the ratio
our fit could reach if everything but its searches cost nothing: where it is below 10, 10x
is out of reach for these searches whatever is done to the fixed cost.

    python benchmarks/dlist_fixed_cost.py --out benchmarks/results/dlist_fixed_cost.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from occamlearn import DecisionListClassifier
from occamlearn.estimators._inputs import validate_table
from occamlearn.estimators.decision_list import LIST_BINARIZERS
from occamlearn.lists import learn_decision_list, prepare
from occamlearn.lists.folds import FoldSearch
from occamlearn.lists.levels import load_kernels
from occamlearn.lists.shrinkage import SHRINKAGE_FOLDS, shrinkage_factor

sys.path.insert(0, os.path.dirname(__file__))
from dlist_accuracy import SPLITS, _commit, _versions, two_class_tables  # noqa: E402

PARTS = ("fit", "validate", "binarise", "search", "folds", "ripper")


def _cpu(call, repeats: int) -> float:
    call()  # warm-up: caches, first-call imports
    started = time.process_time()
    for _ in range(repeats):
        call()
    return (time.process_time() - started) / repeats


def _calls(X, y) -> dict:
    """part -> a no-argument call doing that part on (X, y)."""
    import wittgenstein

    model = DecisionListClassifier().fit(X, y)
    binary = LIST_BINARIZERS["readable"]().fit_transform(X)
    positive = (y == model.positive_class_).astype(np.uint8)
    options = {"direction": "both", "max_rules": 10, "max_conjunction": 4,
               "rule_search": "beam", "penalty": 1.0}
    values, counts = np.unique(y, return_counts=True)
    searches = FoldSearch(prepare(binary, positive, 1, options["max_conjunction"]), binary,
                          positive, None, {**{k: v for k, v in options.items() if k != "max_rules"},
                                           "direction": model.direction_, "deadline": None})
    frame = X.astype({c: str for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)})
    return {
        "fit": lambda: DecisionListClassifier().fit(X, y),
        "validate": lambda: validate_table(DecisionListClassifier(), X, y, reset=True),
        "binarise": lambda: LIST_BINARIZERS["readable"]().fit_transform(X),
        "search": lambda: learn_decision_list(binary, positive, **options),
        "folds": lambda: shrinkage_factor(searches, len(model.rules_), SHRINKAGE_FOLDS, 0),
        "ripper": lambda: wittgenstein.RIPPER(random_state=0).fit(
            frame, y, pos_class=values[np.argmin(counts)]),
    }


def run(tables, repeats: int) -> pd.DataFrame:
    rows = []
    for name, (X, y) in tables.items():
        times = {part: [] for part in PARTS}
        for seed in range(SPLITS):
            X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                                      random_state=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for part, call in _calls(X_train, y_train).items():  # interleaved per split
                    times[part].append(_cpu(call, repeats))
        row = {"table": name, "rows": int(0.64 * len(y))}
        row.update({part: 1e3 * float(np.mean(t)) for part, t in times.items()})
        print(row, flush=True)
        rows.append(row)
    frame = pd.DataFrame(rows).set_index("table")
    frame.insert(list(frame.columns).index("ripper"), "rest", frame["fit"] - frame["validate"]
                 - frame["binarise"] - frame["search"] - frame["folds"])
    frame["ripper / fit"] = frame["ripper"] / frame["fit"]
    frame["ripper / (search + folds)"] = frame["ripper"] / (frame["search"] + frame["folds"])
    frame["ripper / (validate + binarise)"] = frame["ripper"] / (frame["validate"]
                                                                 + frame["binarise"])
    return frame


def markdown(args, frame, load_before, seconds, kernel_seconds) -> str:
    table = frame.reset_index()
    header = "| " + " | ".join(table.columns) + " |"
    lines = [header, "|" + "---|" * len(table.columns)]
    for _, row in table.iterrows():
        cells = [row["table"], str(row["rows"])] + [f"{v:.2f}" for v in row.iloc[2:]]
        lines.append("| " + " | ".join(cells) + " |")
    short = frame[frame["ripper / (search + folds)"] < 10].index.tolist()
    return "\n".join([
        "# Decision-list fit CPU by part, against RIPPER's whole fit",
        "",
        f"Command: `python benchmarks/dlist_fixed_cost.py {' '.join(sys.argv[1:])}`",
        "",
        f"Commit {_commit()}; {platform.machine()}, {os.cpu_count()} cores shared with other "
        f"jobs (load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the "
        f"end); Python {platform.python_version()}; {_versions()}. {seconds:.0f} s in all. "
        f"The rule growing's compiled kernels were loaded (compiled if not in numba's disk "
        f"cache) before any timing, in {kernel_seconds:.1f} s wall.",
        "",
        f"Milliseconds of CPU per call (mean over {args.repeats} calls on each of the 5 "
        "training splits, parts interleaved per split); ratios are RIPPER's fit over ours.",
        "",
        *lines,
        "",
        f"Tables where RIPPER's fit is under 10x our searches alone (10x out of reach even "
        f"with free validation, binarising and set-up): {', '.join(short) if short else 'none'}.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PATH.md")
    parser.add_argument("--tables", nargs="+", help="only these tables (default: all)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    load_before, started = os.getloadavg()[0], time.perf_counter()
    kernel_seconds = time.perf_counter()
    load_kernels()  # compiled here if not in the disk cache, not timed
    kernel_seconds = time.perf_counter() - kernel_seconds
    tables = two_class_tables()
    if args.tables:
        tables = {name: tables[name] for name in args.tables}
    frame = run(tables, args.repeats)
    text = markdown(args, frame, load_before, time.perf_counter() - started, kernel_seconds)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
