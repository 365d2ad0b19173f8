"""The 0/1 route of ``MaxAccuracyTreeClassifier`` (``binarizer=None``) gives the recorded
answers: the same tree, errors, bound, status and node count on every bundled matrix (the
paper's bits, as ``benchmarks/dtmax_continuous.py`` makes them) at depths 2-4, and on random
0/1 matrices with and without integer weights. The answers in ``tests/data/
dtmax_binary_answers.json`` are what ``record()`` wrote (``python
tests/trees/dtmax/test_binary_route_answers.py``); the route's fixed-cost shortcuts (its
data reading, label encoding, weights and greedy first tree) must not move any of them.
Re-record only for a change of answer that is meant, and say so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ANSWERS = Path(__file__).resolve().parents[2] / "data" / "dtmax_binary_answers.json"
DEPTHS = (2, 3, 4)
N_RANDOM = 40


def bundled_matrix(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's 0/1 matrix of a bundled dataset: its 64 % stratified training split,
    binary-encoded, labels as class indices."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    X, _, y, _ = train_test_split(X, y, train_size=0.64, stratify=y, random_state=0)
    X = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X), dtype=np.float64)
    return X, np.unique(y, return_inverse=True)[1]


def random_matrix(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """(X 0/1, y of 2-3 classes, integer weights 0-3 or None, depth) of case ``seed``."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(5, 60)), int(rng.integers(1, 9))
    X = (rng.random((n, m)) < rng.uniform(0.2, 0.8)).astype(np.float64)
    y = rng.integers(0, int(rng.integers(2, 4)), n)
    weight = rng.integers(0, 4, n) if seed % 2 else None
    if weight is not None and not weight.any():
        weight[0] = 1
    return X, y, weight, int(rng.integers(1, 5))


def answer(X, y, depth: int, weight=None) -> dict:
    from occamlearn import MaxAccuracyTreeClassifier

    model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=60, binarizer=None)
    model.fit(X, y, sample_weight=weight)
    kept = slice(None) if weight is None else weight > 0
    assert model.solve_stats_["misclassified_rows"] == int(
        (model.predict(X[kept]) != y[kept]).sum())
    return {"tree": model.tree_.to_dict(), "errors": float(model.training_errors_),
            "lower": float(model.errors_lower_bound_), "status": model.status_,
            "nodes": int(model.n_nodes_)}


def cases():
    """(key, thunk giving the answer) of every recorded case."""
    from occamlearn.datasets import list_datasets

    for name in list_datasets():
        for depth in DEPTHS:
            yield f"{name}@{depth}", (lambda n=name, d=depth: answer(*bundled_matrix(n), d))
    for seed in range(N_RANDOM):
        X, y, weight, depth = random_matrix(seed)
        yield f"random{seed}@{depth}", (lambda a=(X, y, depth, weight): answer(*a))


def record() -> None:
    lines = [f"{json.dumps(key)}: {json.dumps(make(), sort_keys=True)}"
             for key, make in cases()]                   # one case a line
    ANSWERS.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def _jsonable(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("key,make", list(cases()), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_binary_route_gives_the_recorded_answer(key, make):
    recorded = json.loads(ANSWERS.read_text())
    assert _jsonable(make()) == recorded[key]


if __name__ == "__main__":
    sys.exit(record())
