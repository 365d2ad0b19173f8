"""Conflicting examples and the paper's majority filter."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.binarize import find_conflicts, resolve_conflicts
from occamlearn.binarize.conflicts import conflict_message
from occamlearn.datasets import load_dataset

X_SMALL = np.array([[0, 1], [1, 1], [0, 1], [1, 0], [0, 1], [1, 1]])
Y_SMALL = np.array([0, 1, 1, 0, 1, 0])  # rows 0,2,4 share a vector (labels 0,1,1); 1,5 (1,0)


def test_find_conflicts_groups_rows():
    groups = find_conflicts(X_SMALL, Y_SMALL)
    assert [g.tolist() for g in groups] == [[0, 2, 4], [1, 5]]
    assert find_conflicts(X_SMALL, X_SMALL[:, 0]) == []  # labels a function of the features


def test_majority_keeps_most_frequent_label_and_smallest_on_ties():
    X, y = resolve_conflicts(X_SMALL, Y_SMALL)
    # group {0,2,4}: label 1 (2 of 3) wins; group {1,5}: tie 1-1, the smaller label 0 (row 5)
    assert X.tolist() == [[0, 1], [1, 0], [0, 1], [1, 1]]
    assert y.tolist() == [1, 0, 1, 0]
    order = np.array([5, 4, 3, 2, 1, 0])  # the tie-break does not depend on row order
    X_rev, y_rev = resolve_conflicts(X_SMALL[order], Y_SMALL[order])
    assert sorted(zip(map(tuple, X_rev.tolist()), y_rev.tolist())) == \
        sorted(zip(map(tuple, X.tolist()), y.tolist()))
    X_drop, y_drop = resolve_conflicts(X_SMALL, Y_SMALL, strategy="drop")
    assert X_drop.tolist() == [[1, 0]] and y_drop.tolist() == [0]


def test_dataframes_keep_their_index():
    X = pd.DataFrame(
        {"c": pd.Categorical(["a", "b", "a", "a"]), "v": [1.0, 2.0, 1.0, 1.0]},
        index=[10, 11, 12, 13])
    y = pd.Series(["no", "yes", "yes", "yes"], index=X.index)
    groups = find_conflicts(X, y)
    assert [g.tolist() for g in groups] == [[0, 2, 3]]
    X_kept, y_kept = resolve_conflicts(X, y)
    assert X_kept.index.tolist() == [11, 12, 13] and y_kept.index.tolist() == [11, 12, 13]
    assert conflict_message(groups, y, index=X.index) == (
        "1 group of conflicting rows (3 rows): rows 10, 12, 13 have identical features and "
        "labels no, yes (resolve_conflicts(X, y) keeps each group's majority label)"
    )


def test_conflict_message_limits_groups():
    groups = [np.array([i, i + 10]) for i in range(5)]
    y = np.arange(20) % 2
    message = conflict_message(groups, y, limit=2)
    assert message.startswith("5 groups of conflicting rows (10 rows): rows 0, 10 have")
    assert "; and 3 more groups" in message


@pytest.mark.parametrize(
    "name, rows, expected",
    [("spect", None, 251), ("monks-3", None, 548), ("hayes-r", 132, 120)],
)
def test_majority_filter_reproduces_paper_row_counts(name, rows, expected):
    X, y = load_dataset(name)
    if rows is not None:  # hayes-r: the first 132 rows are the UCI training file
        X, y = X.iloc[:rows], y.iloc[:rows]
    X_kept, y_kept = resolve_conflicts(X, y)
    assert len(X_kept) == len(y_kept) == expected
    assert find_conflicts(X_kept, y_kept) == []


def test_conflicting_rows_match_the_dataset_sidecars():
    from occamlearn.datasets import dataset_info

    for name in ("spect", "monks-3", "titanic", "iris"):
        X, y = load_dataset(name)
        found = sum(len(g) for g in find_conflicts(X, y))
        assert found == dataset_info(name).conflicting_rows


def test_bad_inputs():
    with pytest.raises(ValueError, match="strategy must be one of \\['drop', 'majority'\\]"):
        resolve_conflicts(X_SMALL, Y_SMALL, strategy="minority")
    with pytest.raises(ValueError, match="X has 6 rows but y has 2 labels"):
        find_conflicts(X_SMALL, [0, 1])
    with pytest.raises(ValueError, match="X must be 2-D"):
        find_conflicts(np.zeros(3), [0, 1, 0])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 2)), min_size=1,
             max_size=30)
)  # fmt: skip
def test_majority_filter_against_brute_force(rows):
    X = np.array([r[:2] for r in rows])
    y = np.array([r[2] for r in rows])
    keep = []
    for i, row in enumerate(X):
        same = [j for j in range(len(X)) if (X[j] == row).all()]
        labels = [y[j] for j in same]
        counts = {lab: labels.count(lab) for lab in sorted(labels)}
        best = max(counts, key=counts.get)  # max keeps the first (smallest) of equal counts
        if y[i] == best:
            keep.append(i)
    X_kept, y_kept = resolve_conflicts(X, y)
    assert X_kept.tolist() == X[keep].tolist() and y_kept.tolist() == y[keep].tolist()
    assert find_conflicts(X_kept, y_kept) == []
    conflicting = {i for g in find_conflicts(X, y) for i in g.tolist()}
    assert conflicting == {
        i for i in range(len(X)) if len({y[j] for j in range(len(X)) if (X[j] == X[i]).all()}) > 1
    }
