"""The paper's bit encoding against the readable default binariser, by tree size and accuracy.

Protocol. Every bundled dataset is split 64/36 (``train_test_split(random_state=0)``, not
stratified); ``MinimumPureTreeClassifier(on_conflict="majority", time_limit=T)`` is fitted on
the 64 % with ``binarizer="binary"`` (the paper's encoding, ``FeatureBinarizer``) and with the
default ``binarizer="readable"`` (``ThresholdBinarizer``: thresholds between adjacent
training values, at most 32 per column, one-hot categories), and the test accuracy is taken
on the 36 %. Then scikit-learn's breast_cancer and wine (70/30, ``random_state=0``): the
default MPDT's size against ``DecisionTreeClassifier(random_state=0)`` grown until pure.

Size is the number of nodes; "optimal" means proven minimum on the (majority-filtered)
training rows, "feasible" the best found in the time limit (then [lower, upper] bounds).

    python benchmarks/binarizer_comparison.py --time-limit 10 \
        --out benchmarks/results/binarizer_comparison.md
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np


def fit_one(X_train, y_train, X_test, y_test, binarizer, time_limit):
    from occamlearn import MinimumPureTreeClassifier

    start = time.perf_counter()
    model = MinimumPureTreeClassifier(binarizer=binarizer, on_conflict="majority",
                                      time_limit=time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unseen categories in the test split
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        accuracy = float(np.mean(model.predict(X_test) == np.asarray(y_test)))
    return {
        "features": len(model.feature_names_),
        "size": model.n_nodes_,
        "status": model.status_,
        "bounds": (model.lower_bound_, model.upper_bound_),
        "accuracy": accuracy,
        "seconds": seconds,
    }


def size_text(result) -> str:
    if result["status"] == "optimal":
        return f"{result['size']}"
    low, high = result["bounds"]
    return f"{result['size']} (feasible, [{low}, {high}])"


def bundled(time_limit, names, emit):
    from sklearn.model_selection import train_test_split

    from occamlearn import list_datasets, load_dataset

    emit("| dataset | rows (train/test) | bit features | bit size | bit accuracy | "
         "readable features | readable size | readable accuracy |")
    emit("|---|---|---|---|---|---|---|---|")
    totals = {"binary": [], "readable": []}
    for name in names or list_datasets():
        X, y = load_dataset(name)
        X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.64,
                                                            random_state=0)
        row = [name, f"{len(X_train)}/{len(X_test)}"]
        for binarizer in ("binary", "readable"):
            r = fit_one(X_train, y_train, X_test, y_test, binarizer, time_limit)
            totals[binarizer].append(r)
            row += [str(r["features"]), size_text(r), f"{r['accuracy']:.3f}"]
        emit("| " + " | ".join(row) + " |")
    n = len(totals["binary"])
    smaller = sum(r["size"] < b["size"] for r, b in zip(totals["readable"], totals["binary"]))
    larger = sum(r["size"] > b["size"] for r, b in zip(totals["readable"], totals["binary"]))
    mean = {k: np.mean([r["accuracy"] for r in v]) for k, v in totals.items()}
    optimal = {k: sum(r["status"] == "optimal" for r in v) for k, v in totals.items()}
    emit("")
    emit(f"Over {n} datasets: readable trees smaller on {smaller}, larger on {larger}, equal "
         f"on {n - smaller - larger}; mean test accuracy {mean['binary']:.3f} (bits) vs "
         f"{mean['readable']:.3f} (readable); proven minimum on {optimal['binary']} (bits) "
         f"and {optimal['readable']} (readable).")


def sklearn_sets(time_limit, emit):
    import pandas as pd
    from sklearn.datasets import load_breast_cancer, load_wine
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    emit("| dataset | rows (train/test) | readable features | MPDT size | MPDT accuracy | "
         "sklearn tree size | sklearn accuracy |")
    emit("|---|---|---|---|---|---|---|")
    for name, loader in (("breast_cancer", load_breast_cancer), ("wine", load_wine)):
        data = loader(as_frame=True)
        X, y = data.data, pd.Series(data.target)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                            random_state=0)
        r = fit_one(X_train, y_train, X_test, y_test, "readable", time_limit)
        tree = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
        accuracy = float(np.mean(tree.predict(X_test) == y_test.to_numpy()))
        emit(f"| {name} | {len(X_train)}/{len(X_test)} | {r['features']} | {size_text(r)} | "
             f"{r['accuracy']:.3f} | {tree.tree_.node_count} | {accuracy:.3f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    lines = []

    def emit(line=""):
        lines.append(line)
        print(line, flush=True)

    command = "python benchmarks/binarizer_comparison.py --time-limit " + f"{args.time_limit:g}"
    if args.datasets:
        command += " --datasets " + " ".join(args.datasets)
    if args.out:
        command += f" --out {args.out}"
    emit("# Binarisers: the paper's bit encoding vs the readable default")
    emit("")
    emit(f"    {command}")
    emit("")
    emit(__doc__.split("\n\n")[1].replace("\n", " "))
    emit("")
    emit(f"MinimumPureTreeClassifier(on_conflict='majority', time_limit={args.time_limit:g}); "
         "default method ('auto'). Accuracy on the held-out split.")
    emit("")
    start = time.perf_counter()
    bundled(args.time_limit, args.datasets, emit)
    emit("")
    emit("## scikit-learn datasets (70/30 split): minimum pure tree vs CART grown until pure")
    emit("")
    sklearn_sets(args.time_limit, emit)
    emit("")
    emit(f"Total {time.perf_counter() - start:.0f} s on this machine.")
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
