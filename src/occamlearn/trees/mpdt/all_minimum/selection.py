"""Choosing one tree among many minimum trees on held-out data (Alg. 3, lines 1 and 7-10).

Algorithm 3 of Alós, Ansótegui and Torres splits the training data into a part the minimum trees are
computed on and a *selection* part; every candidate tree is evaluated on the selection part,
the trees whose selection accuracy is at least the best accuracy minus ``delta`` are kept
(``best_dts``) and one of them is taken at random. These functions are that procedure, kept
free of any estimator so that the Table 6 experiment (which selects on an external split)
and ``MinimumPureTreeClassifier`` share one implementation. The candidates may be minimum
pure trees or, with an error budget (``max_errors`` / ``relax_conflicts``), the smallest trees
misclassifying at most that many rows of the training part; the selection is the same.

Splits are stratified when every class can be represented on both sides; otherwise (e.g. zoo,
whose smallest classes have one or two rows, so that a 16 %/20 % split cannot hold each class
on both sides) they fall back to an
unstratified split and say so in the returned ``Split.stratified``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

__all__ = [
    "SelectedTrees",
    "Selection",
    "Split",
    "find_minimum_trees_with_selection",
    "pick_one",
    "select_tree",
    "selection_accuracies",
    "split_indices",
    "within_delta",
]


@dataclass(frozen=True)
class Split:
    """Row indices of the two parts of a split and whether it could be stratified."""

    first: np.ndarray
    second: np.ndarray
    stratified: bool


def _check_fraction(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in [0, 1); got {value!r}")
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{name} must be in [0, 1); got {value!r}")
    return float(value)


def _can_stratify(y: np.ndarray, n_second: int) -> bool:
    """Whether a stratified split with ``n_second`` rows in the second part is possible."""
    _, counts = np.unique(y, return_counts=True)
    n_first = len(y) - n_second
    return bool(counts.min() >= 2 and n_second >= len(counts) and n_first >= len(counts))


def split_indices(y, second_size, random_state=None) -> Split:
    """Split rows ``0..len(y)-1`` into two parts, the second holding ``second_size`` of them.

    ``second_size`` is a fraction in [0, 1) (rounded up to whole rows, as scikit-learn does)
    or, as an int, a number of rows. Stratified on ``y`` when every class has at least two
    rows and both parts can hold one row of each class; otherwise unstratified
    (``Split.stratified`` is False). A size of 0 gives an empty second part.
    """
    y = np.asarray(y)
    rows = np.arange(len(y))
    if isinstance(second_size, (int, np.integer)) and not isinstance(second_size, bool):
        if second_size < 0:
            raise ValueError(f"second_size as a row count must be >= 0; got {second_size}")
        n_second = int(second_size)
    else:
        n_second = int(np.ceil(_check_fraction("second_size", second_size) * len(y)))
    if n_second == 0:
        return Split(rows, rows[:0], True)
    if n_second >= len(y):
        raise ValueError(
            f"second_size={second_size} leaves no row in the first part of {len(y)} rows"
        )
    stratified = _can_stratify(y, n_second)
    first, second = train_test_split(
        rows, test_size=n_second, random_state=random_state,
        stratify=y if stratified else None,
    )
    return Split(np.sort(first), np.sort(second), stratified)


def selection_accuracies(predictors, X, y) -> np.ndarray:
    """Accuracy of each predictor (anything with ``predict(X)``) on ``(X, y)``.

    With no rows every accuracy is 1.0: nothing tells the candidates apart.
    """
    y = np.asarray(y)
    if len(y) == 0:
        return np.ones(len(predictors))
    return np.array([float(np.mean(p.predict(X) == y)) for p in predictors])


def within_delta(accuracies, delta: float) -> np.ndarray:
    """Indices of the accuracies that are at least ``max(accuracies) - delta`` (Alg. 3, l. 10).

    ``delta`` is in accuracy units (0.02 = two points). A tiny tolerance keeps ties that
    floating-point division would otherwise split.
    """
    accuracies = np.asarray(accuracies, dtype=float)
    if accuracies.size == 0:
        raise ValueError("accuracies is empty: there is no candidate to select from")
    delta = _check_fraction("delta", delta)
    return np.flatnonzero(accuracies >= accuracies.max() - delta - 1e-12)


def pick_one(indices, random_state=None) -> int:
    """One element of ``indices`` drawn uniformly, reproducibly for a fixed ``random_state``."""
    indices = np.asarray(indices)
    if indices.size == 0:
        raise ValueError("indices is empty: there is nothing to pick from")
    rng = check_random_state(random_state)
    return int(indices[rng.randint(indices.size)])


@dataclass(frozen=True)
class Selection:
    """Outcome of selecting among candidates: all accuracies, the kept set and the pick."""

    accuracies: np.ndarray
    best: np.ndarray
    chosen: int


def select_tree(predictors, X_selection, y_selection, *, delta: float = 0.0,
                random_state=None) -> Selection:
    """Alg. 3, lines 7-10 plus the random pick: evaluate, keep within ``delta``, choose."""
    if len(predictors) == 0:
        raise ValueError("predictors is empty: there is no candidate to select from")
    accuracies = selection_accuracies(predictors, X_selection, y_selection)
    best = within_delta(accuracies, delta)
    return Selection(accuracies, best, pick_one(best, random_state))


@dataclass(frozen=True)
class SelectedTrees:
    """Alg. 3's outcome: the chosen tree's search result and everything the choice saw.

    result : ``MinimumTreeResult`` of the search, with ``tree`` replaced by the chosen tree;
    candidates : the minimum trees of the training part; accuracies : their selection
    accuracy; best : indices kept within ``delta``; chosen : the index picked;
    stratified : whether the train/selection split was stratified; complete : whether the
    enumeration produced every minimum tree.
    """

    result: object
    candidates: list
    accuracies: np.ndarray
    best: np.ndarray
    chosen: int
    stratified: bool
    complete: bool
    n_train: int
    n_selection: int
    count: int | None = None  # every minimum tree of the training part, when counted


def find_minimum_trees_with_selection(X_bin, y, n_classes: int, *, n_solutions: int = 1,
                                      diverse: bool = True, layouts: bool = False,
                                      selection_size: float = 0.0, delta: float = 0.0,
                                      random_state=None, enumeration_time_limit=None,
                                      **search) -> SelectedTrees:
    """Algorithm 3: split, compute up to ``n_solutions`` minimum trees on the training part
    (MDSOL if ``diverse``, per layout if ``layouts``), evaluate them on the selection part,
    keep those within ``delta`` of the best and pick one at random.

    ``search`` goes to ``find_minimum_trees`` (solver, sat_solver, deadline, progress,
    max_errors, relax_conflicts); an error budget counts errors on the training part, and
    ``result.stats["training_errors"]`` is then the chosen tree's count there.
    One ``random_state`` seeds both the split and the pick, so a fit is reproducible.
    """
    from dataclasses import replace

    from occamlearn.trees.mpdt.all_minimum.minimum_trees import find_minimum_trees

    rng = check_random_state(random_state)
    split_seed, pick_seed = rng.randint(2**31 - 1, size=2)
    split = split_indices(y, selection_size, random_state=int(split_seed))
    found = find_minimum_trees(X_bin[split.first], y[split.first], n_classes, n_solutions,
                               diverse=diverse, layouts=layouts,
                               enumeration_time_limit=enumeration_time_limit,
                               random_state=int(pick_seed), **search)
    choice = select_tree(found.trees, X_bin[split.second], y[split.second], delta=delta,
                         random_state=int(pick_seed))
    chosen = found.trees[choice.chosen]
    stats = dict(found.result.stats)
    if "training_errors" in stats:  # error budget: the search's count was for its own tree
        train_X, train_y = X_bin[split.first], y[split.first]
        stats["training_errors"] = int((chosen.predict(train_X) != train_y).sum())
    result = replace(found.result, tree=chosen, stats=stats)
    return SelectedTrees(result, found.trees, choice.accuracies, choice.best, choice.chosen,
                         split.stratified, found.complete, len(split.first), len(split.second),
                         found.count)
