"""MinimumPureTreeClassifier with an error budget (``max_errors``) and ``on_conflict="relax"``."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from bruteforce import minimum_trees_with_errors, nested_tree

from occamlearn import MinimumPureTreeClassifier, load_dataset
from occamlearn.trees.mpdt.all_minimum.enumerate import canonical_key
from occamlearn.trees.mpdt.error_budget.encoding import relax_errors_needed


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
        MinimumPureTreeClassifier(binarizer=None, on_conflict="error").fit(X, y)
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
    # pure on the kept rows; the row the filter set aside is still a training row, and the
    # tree (which follows the majority of its group) misclassifies it
    assert clf.conflict_rows_.tolist() == [5] and clf.training_errors_ == 1
    assert clf.training_errors_ == int((clf.predict(X) != y).sum())


@pytest.mark.parametrize("params, match", [
    ({"max_errors": -1}, "'max_errors' parameter"),
    ({"max_errors": 1.5}, "'max_errors' parameter"),
    ({"max_errors": "2"}, "'max_errors' parameter"),
    ({"max_errors": 0, "method": "mindt"}, "needs method 'auto', 'bnb' or 'maxsat'"),
])
def test_parameter_errors(params, match):
    with pytest.raises(ValueError, match=match):
        MinimumPureTreeClassifier(binarizer=None, **params).fit([[0, 1], [1, 0]], [0, 1])


def test_budget_below_the_forced_errors_is_an_error():
    X = np.array([[0], [0], [1]])
    with pytest.raises(ValueError, match="max_errors=0 is below the 1 errors"):
        MinimumPureTreeClassifier(binarizer=None, max_errors=0).fit(X, [0, 1, 1])


# -- Algorithm 3 with a budget: many smallest trees within it, then selection ----------------
def _check_candidates(clf, X, y, budget):
    trees = [tree for tree, _ in clf.candidate_trees_]
    assert len({canonical_key(t) for t in trees}) == len(trees)
    assert all(t.n_nodes == clf.n_nodes_ for t in trees)
    assert all(int((t.predict(X) != y).sum()) <= budget for t in trees)
    assert any(t is clf.tree_ for t in clf.best_trees_)
    return trees


@pytest.mark.parametrize("diverse", [True, False])
def test_many_trees_within_a_budget_of_one(diverse):
    rng = np.random.default_rng(5)
    X = np.unique(rng.integers(0, 2, (10, 5)), axis=0)   # 9 distinct rows, no conflict
    y = rng.integers(0, 2, len(X))
    budget = 1
    clf = MinimumPureTreeClassifier(binarizer=None, n_solutions=5, max_errors=budget,
                                    diverse=diverse).fit(X, y)
    size, everyone = minimum_trees_with_errors(X, y, 2, budget)
    assert clf.status_ == "optimal" and clf.n_nodes_ == size and len(everyone) > 5
    trees = _check_candidates(clf, X, y, budget)
    assert len(trees) == 5 and {nested_tree(t) for t in trees} <= everyone
    assert clf.training_errors_ == clf.solve_stats_["training_errors"] <= budget
    assert not clf.solve_stats_["enumeration_complete"]
    every = MinimumPureTreeClassifier(binarizer=None, n_solutions=1000, max_errors=budget,
                                      diverse=diverse).fit(X, y)
    assert {nested_tree(t) for t, _ in every.candidate_trees_} == everyone
    assert every.solve_stats_["enumeration_complete"]


def test_relax_with_selection_keeps_every_row_and_picks_on_the_held_out_part():
    X, y = _noisy(seed=3, n_rows=24)
    clf = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax", n_solutions=5,
                                    selection_size=0.25, random_state=0).fit(X, y)
    n_train = clf.solve_stats_["n_train_rows"]
    assert n_train + clf.solve_stats_["n_selection_rows"] == len(y) == 24
    assert clf.status_ == "optimal" and 1 <= len(clf.candidate_trees_) <= 5
    # candidates were learnt on the training part with its own forced errors as the budget
    stats = clf.solve_stats_
    assert stats["max_errors"] == stats["forced_errors"] <= relax_errors_needed(X, y)
    assert stats["training_errors"] <= stats["max_errors"]       # on the training part
    trees = [tree for tree, _ in clf.candidate_trees_]
    assert all(t.n_nodes == clf.n_nodes_ for t in trees)
    assert len({canonical_key(t) for t in trees}) == len(trees)
    best = max(accuracy for _, accuracy in clf.candidate_trees_)
    assert all(accuracy == best for t, accuracy in clf.candidate_trees_
               if any(t is b for b in clf.best_trees_))
    assert clf.training_errors_ == int((clf.predict(X) != y).sum())
    again = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax", n_solutions=5,
                                      selection_size=0.25, random_state=0).fit(X, y)
    assert again.tree_ == clf.tree_


def test_relax_without_selection_draws_the_trees_with_only_the_forced_errors():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [1, 1]])
    y = np.array([0, 1, 1, 0, 0, 1])
    clf = MinimumPureTreeClassifier(binarizer=None, on_conflict="relax", n_solutions=10,
                                    diverse=False).fit(X, y)
    size, everyone = minimum_trees_with_errors(X, y, 2, 1)
    assert {nested_tree(t) for t, _ in clf.candidate_trees_} == everyone and size == 7
    assert clf.solve_stats_["enumeration_complete"] and clf.training_errors_ == 1


@pytest.mark.parametrize("budget", [0, 1, 3])
def test_error_budget_methods_agree(budget):
    """max_errors with "auto"/"bnb" (branch and bound with a budget) and "maxsat" (the
    error-budget encoding): the same proven smallest size, within the budget."""
    X, y = _noisy()
    forced = relax_errors_needed(X, y)
    fits = {method: MinimumPureTreeClassifier(binarizer=None, method=method,
                                              max_errors=forced + budget).fit(X, y)
            for method in ("auto", "bnb", "maxsat")}
    assert {m.status_ for m in fits.values()} == {"optimal"}
    assert len({m.n_nodes_ for m in fits.values()}) == 1
    assert all(m.training_errors_ <= forced + budget for m in fits.values())
