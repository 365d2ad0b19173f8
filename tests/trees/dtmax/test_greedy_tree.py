"""The greedy first tree of DT(max) is scikit-learn's ``DecisionTreeClassifier(max_depth=d,
random_state=0)`` on the ranks: built by its tree builder directly (``entry._built_tree``),
the same nodes, thresholds and class values as ``fit`` builds, ties between features broken
alike; a weighted fit as well."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from occamlearn.trees.dtmax.data import OrderedData
from occamlearn.trees.dtmax.entry import _built_tree, greedy_tree


def _fitted(X, y, weight, depth):
    model = DecisionTreeClassifier(max_depth=depth, random_state=0)
    model.fit(X, y, sample_weight=weight, check_input=False)
    return model.tree_, model.classes_


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), m=st.integers(1, 7),
       values=st.integers(2, 4), n_classes=st.integers(1, 4), depth=st.integers(1, 5),
       weighted=st.booleans())
def test_built_tree_is_the_fitted_tree(seed, n, m, values, n_classes, depth, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (n, m)).astype(np.float32)    # many ties between features
    y = rng.integers(0, n_classes, n)
    weight = rng.integers(1, 4, n).astype(np.float64) if weighted else np.ones(n)
    tree, classes = _built_tree(X, y, weight, depth)
    expected, expected_classes = _fitted(X, y, weight, depth)
    assert np.array_equal(classes, expected_classes)
    for name in ("children_left", "children_right", "feature", "threshold", "value",
                 "impurity", "weighted_n_node_samples"):
        assert np.array_equal(getattr(tree, name), getattr(expected, name)), name


def test_greedy_tree_reads_the_fitted_tree():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (60, 6)).astype(np.float64)
    y = rng.integers(0, 3, 60)
    data = OrderedData.from_matrix(X, y, 3)
    tree, classes = _fitted(np.asarray(data.rank.T, dtype=np.float32), data.y, data.weight, 3)

    def node(i):
        if tree.children_left[i] < 0:
            return ("leaf", int(classes[np.argmax(tree.value[i][0])]))
        return ("test", int(tree.feature[i]), int(np.floor(tree.threshold[i])) + 1,
                node(tree.children_left[i]), node(tree.children_right[i]))

    assert greedy_tree(data, 3) == node(0)
    assert greedy_tree(data, 3, max_leaves=4)[0] == "test"      # the estimator's own path
