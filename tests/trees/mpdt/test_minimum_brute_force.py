"""No wrong certificate: 540 tiny instances, each method against an independent brute force.

Each instance is drawn from its seed: thresholds of small numeric tables (what the readable
binariser makes), one-hot categories beside them, plain random bits, or tables built with
rows that differ in one value only (where the column reductions of ``trees.exact.reductions``
fire). Every ``find_minimum_tree`` method ("bnb", "maxsat", "auto", in turn by seed) must
return status "optimal", a pure tree over the original columns, and exactly the
brute-force minimum size (``bruteforce.minimum_tree_size``, which shares no code with the
library); every fifth instance also goes through ``MinimumPureTreeClassifier`` on the raw
table. The whole file takes about 10 s of CPU (30 s on a loaded 2-core machine).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from bruteforce import minimum_tree_size

from occamlearn import MinimumPureTreeClassifier
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.trees.mpdt.minimum import find_minimum_tree

N_INSTANCES = 540
METHODS = ("bnb", "maxsat", "auto")
KINDS = ("thresholds", "one-hot", "bits", "near-twins")


def _labels(table: pd.DataFrame, n_classes: int, rng) -> np.ndarray:
    """Random class indices, one per distinct row of ``table`` (no conflicting rows)."""
    codes = table.astype(str).agg("|".join, axis=1)
    _, inverse = np.unique(codes.to_numpy(), return_inverse=True)
    return rng.integers(0, n_classes, size=inverse.max() + 1)[inverse]


def instance(seed: int):
    """(table, y, n_classes, kind) of one tiny instance: 3-10 rows."""
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]
    n_rows, n_classes = int(rng.integers(3, 11)), int(rng.integers(2, 4))
    columns = {}
    if kind == "bits":
        for j in range(int(rng.integers(1, 6))):
            columns[f"b{j}"] = rng.integers(0, 2, n_rows)
    else:
        for j in range(int(rng.integers(1, 3))):
            columns[f"x{j}"] = rng.integers(0, int(rng.integers(2, 6)), n_rows)
        if kind == "one-hot":
            colour = rng.choice(["red", "green", "blue"], n_rows)
            colour[:2] = ["red", "green"]  # never constant (a constant column is dropped)
            columns["colour"] = colour
        if kind != "near-twins" and rng.random() < 0.5:
            columns["flag"] = rng.integers(0, 2, n_rows)
    table = pd.DataFrame(columns)
    if kind == "near-twins":  # copies of a few rows with one value moved by one
        base = table.iloc[: max(2, n_rows // 2)]
        moved = base.copy()
        moved["x0"] = moved["x0"] + 1
        table = pd.concat([base, moved], ignore_index=True)
        y = _labels(base, n_classes, rng)
        y = np.concatenate([y, y])  # a moved row keeps its class ...
        y = _consistent(table, y)    # ... unless it landed on another row
    else:
        y = _labels(table, n_classes, rng)
    return table, y, n_classes, kind


def _consistent(table: pd.DataFrame, y: np.ndarray) -> np.ndarray:
    codes = table.astype(str).agg("|".join, axis=1).to_numpy()
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return y[first][inverse.ravel()]


@functools.cache
def binarised(seed: int) -> tuple:
    """(table, y, n_classes, kind, X, feature names) of instance ``seed``, X from the
    readable binariser (kept for the file: both tests read every instance)."""
    table, y, n_classes, kind = instance(seed)
    binarizer = ThresholdBinarizer(drop_identifiers=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        X = np.asarray(binarizer.fit_transform(table, y), dtype=np.uint8)
    return table, y, n_classes, kind, X, [str(n) for n in binarizer.get_feature_names_out()]


@pytest.mark.parametrize("seed", range(N_INSTANCES))
def test_every_method_finds_the_brute_force_minimum(seed):
    table, y, n_classes, _, X, _ = binarised(seed)
    method = METHODS[seed % len(METHODS)]
    expected = minimum_tree_size(X, y)
    result = find_minimum_tree(X, y, n_classes, method=method)
    assert result.status == "optimal"
    assert result.tree.n_nodes == result.upper_bound == result.lower_bound == expected
    assert result.tree.n_features == X.shape[1]
    assert result.tree.is_pure_on(X, y)
    if seed % 5 == 0:
        model = MinimumPureTreeClassifier(binarizer=ThresholdBinarizer(drop_identifiers=False),
                                          method=method, on_conflict="error").fit(table, y)
        assert model.status_ == "optimal"
        assert model.n_nodes_ == expected
        assert (model.predict(table) == y).all()


def test_the_instances_cover_thresholds_one_hot_and_reductions():
    """The collection holds what it claims: threshold and one-hot columns, three classes,
    and instances where the twin rule drops columns before the search."""
    from occamlearn.trees.exact.reductions import reduce_for_pure_tree

    kinds, three_classes, twin_drops = set(), 0, 0
    for seed in range(N_INSTANCES):
        table, y, n_classes, kind, X, names = binarised(seed)
        kinds |= {kind} if any(">=" in n for n in names) or kind == "bits" else set()
        if kind == "one-hot":
            assert any("colour ==" in n for n in names)
        three_classes += n_classes == 3
        rules = [rule for rule, _, _ in reduce_for_pure_tree(X, y).dropped]
        twin_drops += "twin_covered" in rules
    assert kinds == set(KINDS)
    assert three_classes >= N_INSTANCES // 4
    assert twin_drops >= N_INSTANCES // 10, twin_drops
