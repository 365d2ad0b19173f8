"""MinimumPureTreeClassifier with an error budget (``max_errors``) and ``on_conflict="relax"``."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest

from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.encode.error_budget import relax_errors_needed


def _noisy(seed=3, n_rows=24, n_features=4):
    """Random 0/1 rows with random labels: identical rows with different labels are certain."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    y = rng.integers(0, 2, size=n_rows)
    return X, y


def test_zero_budget_gives_the_pure_minimum():
    X, y = load_dataset("corral")
    pure = MinimumPureTreeClassifier().fit(X, y)
    budget = MinimumPureTreeClassifier(max_errors=0).fit(X, y)
    assert budget.status_ == pure.status_ == "optimal"
    assert budget.n_nodes_ == pure.n_nodes_ == 13
    assert budget.training_errors_ == pure.training_errors_ == 0


def test_relax_makes_only_the_forced_errors_and_is_no_larger_than_the_majority_tree():
    X, y = _noisy()
    forced = relax_errors_needed(X, y)
    assert forced > 0
    with pytest.raises(ValueError, match="on_conflict='relax'"):
        MinimumPureTreeClassifier(binarizer=None).fit(X, y)
    relaxed = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax").fit(X, y)
    majority = MinimumPureTreeClassifier(binarizer=None, on_conflict="majority").fit(X, y)
    assert relaxed.status_ == majority.status_ == "optimal"
    assert relaxed.training_errors_ == forced
    assert (relaxed.predict(X) != y).sum() == forced
    assert relaxed.conflict_rows_.size == 0 and majority.conflict_rows_.size > 0
    assert relaxed.n_nodes_ <= majority.n_nodes_


def test_relax_on_a_handmade_conflict():
    # XOR of a and b, plus a copy of row (1, 1) labelled 1: one error is forced.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [1, 1]])
    y = np.array([0, 1, 1, 0, 0, 1])
    clf = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax").fit(X, y)
    assert (clf.n_nodes_, clf.training_errors_, clf.status_) == (7, 1, "optimal")
    assert clf.predict([[1, 1]]).tolist() == [0]  # the majority of the conflicting group
    # budget 2: one side of a single decision leaves a 1-error leaf, the other needs a second
    # decision (any single decision makes 3 errors); budget 3: the single leaf (3 errors)
    sizes = [MinimumPureTreeClassifier(binarizer=None, max_errors=e).fit(X, y).n_nodes_
             for e in (1, 2, 3)]
    assert sizes == [7, 5, 1]


def test_bigger_budget_never_gives_a_bigger_tree():
    X, y = _noisy(seed=5, n_rows=30)
    forced = relax_errors_needed(X, y)
    fits = [MinimumPureTreeClassifier(binarizer=None, max_errors=e).fit(X, y)
            for e in range(forced, forced + 5)]
    sizes = [clf.n_nodes_ for clf in fits]
    assert all(a >= b for a, b in pairwise(sizes)) and sizes[0] > sizes[-1]
    for budget, clf in zip(range(forced, forced + 5), fits):
        assert clf.status_ == "optimal" and clf.training_errors_ <= budget
    relax_more = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax",
                                           max_errors=forced + 4).fit(X, y)
    assert relax_more.n_nodes_ == sizes[-1]  # relax takes the larger of the two budgets


def test_majority_filter_then_budget():
    X = pd.DataFrame({"a": [0, 0, 1, 1, 1, 1], "b": [0, 1, 0, 1, 1, 1]})
    y = np.array([0, 1, 1, 0, 0, 1])
    clf = MinimumPureTreeClassifier(on_conflict="majority", max_errors=0).fit(X, y)
    assert clf.conflict_rows_.tolist() == [5] and clf.training_errors_ == 0


@pytest.mark.parametrize("params, match", [
    ({"max_errors": -1}, "'max_errors' parameter"),
    ({"max_errors": 1.5}, "'max_errors' parameter"),
    ({"max_errors": "2"}, "'max_errors' parameter"),
    ({"max_errors": 1, "n_solutions": 3}, "max_errors=1 is not supported with Algorithm 3"),
    ({"on_conflict": "relax", "selection_size": 0.2},
     "on_conflict='relax' is not supported with Algorithm 3"),
    ({"max_errors": 0, "solver": "mindt"}, "needs a MaxSAT solver"),
])
def test_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        MinimumPureTreeClassifier(binarizer=None, **params).fit([[0, 1], [1, 0]], [0, 1])


def test_budget_below_the_forced_errors_is_an_error():
    X = np.array([[0], [0], [1]])
    with pytest.raises(ValueError, match="max_errors=0 is below the 1 errors"):
        MinimumPureTreeClassifier(binarizer=None, max_errors=0).fit(X, [0, 1, 1])
