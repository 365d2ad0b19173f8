"""The Alg. 3 attributes of a fitted ``MinimumPureTreeClassifier``, set in one place for a fit
and for a model read back from its record: ``candidate_trees_`` (tree, selection accuracy),
``best_trees_`` (the candidates within ``delta`` of the best), ``selection_stratified_`` and
``n_minimum_trees_``. Without Alg. 3 the single ``tree_`` is the one candidate.
"""

from __future__ import annotations

from occamlearn.model.tree import Tree

__all__ = ["set_selection", "store_selection"]


def set_selection(estimator, trees=None, accuracies=(), best=(), stratified=True,
                  count=None) -> None:
    """Set the attributes from the candidate ``trees`` (None: no Alg. 3, ``tree_`` alone)."""
    estimator.n_minimum_trees_ = count
    if trees is None:
        estimator.candidate_trees_ = [(estimator.tree_, 1.0)]
        estimator.best_trees_ = [estimator.tree_]
        estimator.selection_stratified_ = True
        return
    estimator.candidate_trees_ = [(tree, float(acc))
                                  for tree, acc in zip(trees, accuracies, strict=True)]
    estimator.best_trees_ = [trees[i] for i in best]
    estimator.selection_stratified_ = bool(stratified)


def store_selection(estimator, selected, data) -> None:
    """After a fit (``tree_`` stored): the candidates of Alg. 3's ``selected`` (or None), each
    carrying the binary feature names and counts over all training rows (set-aside ones
    too), like ``tree_``; the enumeration's facts go to ``solve_stats_``."""
    if selected is None:
        set_selection(estimator)
        return
    names = estimator.tree_.feature_names

    def named(tree):
        if tree is selected.result.tree:
            return estimator.tree_
        return Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                    tree.n_features, names).with_counts(data.all_X_bin, data.all_y)

    trees = [named(tree) for tree in selected.candidates]
    set_selection(estimator, trees, selected.accuracies, selected.best, selected.stratified,
                  selected.count)
    estimator.solve_stats_.update(n_candidates=len(trees), n_best=len(selected.best),
                                  enumeration_complete=bool(selected.complete),
                                  n_train_rows=selected.n_train,
                                  n_selection_rows=selected.n_selection)
