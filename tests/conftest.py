"""Fixtures shared by the test files: small data, the bundled datasets as binary matrices,
model-file paths, and the time-limit rule.

Factories rather than plain values, so each test says what size and seed it uses:

* ``random_binary(n_rows, n_columns, seed=0, n_classes=2, distinct=False)`` -> (X, y):
  uniform random bits and labels (no structure: the minimum trees are large; ``distinct``
  drops repeated rows, so no two rows conflict);
* ``bundled_binary(name, unique=False)`` -> (X, y, n_classes): a bundled dataset through the
  paper's binary encoding, labels as class indices; ``unique`` keeps one row per distinct
  binary row (for data without conflicting rows, such as monks-1). Cached per session;
* ``model_file(name="model.json")`` -> a path under the test's ``tmp_path``;
* ``within_time_limit(limit, elapsed)``: the rule every time-limit test applies,
  ``elapsed < limit * 1.1 + 1`` (10 % and one second for what cannot be interrupted).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest


def random_binary_data(n_rows: int, n_columns: int, seed: int = 0, n_classes: int = 2, *,
                       distinct: bool = False):
    """Random bits and labels; ``distinct`` keeps the first row of each distinct row (no
    conflicting rows: a pure tree exists)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_columns))
    y = rng.integers(0, n_classes, size=n_rows)
    if distinct:
        keep = np.sort(np.unique(X, axis=0, return_index=True)[1])
        X, y = X[keep], y[keep]
    return X, y


@functools.cache
def _bundled_binary(name: str, unique: bool):
    from occamlearn.binarize import FeatureBinarizer
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    X = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, y))
    y = np.asarray(y)
    if unique:
        X, rows = np.unique(X, axis=0, return_index=True)
        y = y[rows]
    classes, y = np.unique(y, return_inverse=True)
    return X, y.astype(np.int64), len(classes)


def within_time_limit(limit: float, elapsed: float) -> bool:
    return elapsed < limit * 1.1 + 1


@pytest.fixture
def random_binary():
    return random_binary_data


@pytest.fixture
def bundled_binary():
    def load(name: str, unique: bool = False):
        X, y, n_classes = _bundled_binary(name, unique)
        return X.copy(), y.copy(), n_classes

    return load


@pytest.fixture
def model_file(tmp_path):
    def path(name: str = "model.json"):
        return tmp_path / name

    return path


@pytest.fixture
def within():
    return within_time_limit
