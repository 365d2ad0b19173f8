"""The readable-default training matrices, frozen: what ``MinimumPureTreeClassifier()`` searches.

Users do not take the paper's bit encoding: the default binariser is ``ThresholdBinarizer()``
(cuts between adjacent training values at the shortest-printing number, at most 32 per numeric
column; one-hot categories). These are the matrices that path produces, built once and saved
so that later changes to the binariser cannot move the benchmark under our feet.

Protocol: every bundled dataset and scikit-learn's breast_cancer; a 64 % training split,
stratified when every class has two rows or more (else plain), ``random_state=0``;
``ThresholdBinarizer()`` with its defaults fitted on the training part; then the majority
filter (``resolve_conflicts(strategy="majority")``) on the binary rows. Saved as
``benchmarks/data/readable/<name>.npz`` (``X`` uint8, ``y`` class indices, ``features`` the
printed condition of each column).

    python benchmarks/readable_matrices.py            # (re)build every matrix
    python benchmarks/readable_matrices.py --check    # rebuild in memory, compare to the files

``load(name)`` gives ``(X, y, n_classes, features)`` to the runtime benchmarks.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

FOLDER = Path(__file__).resolve().parent / "data" / "readable"
EXTRA = ("breast_cancer",)


def names() -> list[str]:
    from occamlearn import list_datasets

    return [*list_datasets(), *EXTRA]


def _table(name: str):
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        data = load_breast_cancer(as_frame=True)
        return data.data, data.target
    from occamlearn import load_dataset

    return load_dataset(name)


def build(name: str) -> dict:
    """The readable-default training matrix of ``name`` by the protocol above."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import ThresholdBinarizer, resolve_conflicts

    X, y = _table(name)
    y = np.asarray(y)
    stratify = y if np.unique(y, return_counts=True)[1].min() >= 2 else None
    X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=stratify,
                                              random_state=0)
    binarizer = ThresholdBinarizer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        X_bin = np.asarray(binarizer.fit_transform(X_train, y_train), dtype=np.uint8)
    X_bin, y_kept = resolve_conflicts(X_bin, np.asarray(y_train), strategy="majority")
    classes, y_index = np.unique(y_kept, return_inverse=True)
    return {"X": np.asarray(X_bin, dtype=np.uint8), "y": y_index.astype(np.int64),
            "n_classes": np.int64(len(classes)),
            "features": np.array([str(f) for f in binarizer.get_feature_names_out()]),
            "stratified": np.bool_(stratify is not None)}


def load(name: str):
    """``(X, y, n_classes, features)`` of a frozen matrix."""
    with np.load(FOLDER / f"{name}.npz", allow_pickle=False) as data:
        return data["X"], data["y"], int(data["n_classes"]), list(data["features"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="rebuild in memory and report matrices that differ from the files")
    parser.add_argument("--datasets", default="all")
    args = parser.parse_args(argv)
    chosen = names() if args.datasets == "all" else args.datasets.split(",")
    FOLDER.mkdir(parents=True, exist_ok=True)
    differ = 0
    for name in chosen:
        matrix = build(name)
        shape = "x".join(map(str, matrix["X"].shape))
        if args.check:
            X, y, _, _ = load(name)
            same = np.array_equal(X, matrix["X"]) and np.array_equal(y, matrix["y"])
            differ += not same
            print(f"{name}: {shape} {'same' if same else 'DIFFERS'}")
        else:
            np.savez_compressed(FOLDER / f"{name}.npz", **matrix)
            print(f"{name}: {shape}, {int(matrix['n_classes'])} classes")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
