"""``print(model)`` shows the fitted model, ``repr`` stays scikit-learn's, notebooks get HTML,
``plot()`` draws the tree, the anytime curve or the list's probabilities."""

import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    load_dataset,
)

IRIS_TREE = """\
MinimumPureTreeClassifier: 5 nodes (2 decisions, 3 leaves), depth 2, status optimal \
(minimum size in [5, 5])
|--- petal-width < 1.7
|   |--- petal-length < 2.0
|   |   |--- class: setosa
|   |--- petal-length >= 2.0
|   |   |--- class: versicolor
|--- petal-width >= 1.7
|   |--- class: virginica
"""


@pytest.fixture(scope="module")
def iris_small():
    """Iris rows that two readable thresholds separate (a certified 5-node tree)."""
    X, y = load_dataset("iris")
    names = pd.Series(["setosa", "versicolor", "virginica"])[y.to_numpy()].to_numpy()
    keep = ~((X["petal-width"] >= 1.7) & (names == "versicolor")) & ~(
        (X["petal-width"] < 1.7) & (names == "virginica"))
    return X[keep].reset_index(drop=True), names[keep]


@pytest.fixture(scope="module")
def mpdt(iris_small):
    X, y = iris_small
    return MinimumPureTreeClassifier(time_limit=10).fit(X, y)


@pytest.fixture(scope="module")
def dlist():
    X, y = load_dataset("titanic")
    return DecisionListClassifier(max_rules=3).fit(X, y)


def test_print_shows_the_tree_and_repr_the_parameters(mpdt):
    assert str(mpdt) + "\n" == IRIS_TREE  # print(mpdt) ends the last line, no blank line
    assert repr(mpdt) == "MinimumPureTreeClassifier(time_limit=10)"
    unfitted = MinimumPureTreeClassifier(time_limit=3)
    assert str(unfitted) == repr(unfitted) == "MinimumPureTreeClassifier(time_limit=3)"


def test_print_shows_dtmax_tree(iris_small):
    X, y = iris_small
    model = MaxAccuracyTreeClassifier(max_depth=1).fit(X, y)
    text = str(model)
    assert text.startswith("MaxAccuracyTreeClassifier: 3 nodes (1 decisions, 2 leaves), depth 1")
    assert "|--- petal-length < 2.0\n|   |--- class: setosa\n" in text  # (ties petal-width)
    assert ", status optimal, 46 training errors\n" in text
    assert repr(model) == "MaxAccuracyTreeClassifier(max_depth=1)"


def test_print_shows_the_decision_list(dlist):
    text = str(dlist)
    assert text.startswith("DecisionListClassifier: p = P(1); direction ")
    assert "rules; log-likelihood " in text.splitlines()[0]
    assert "\nIF sex == female & class != third THEN p=0.93 (n=274)\n" in text
    assert "\nELSE p=" in text
    assert repr(dlist) == "DecisionListClassifier(max_rules=3)"
    assert str(DecisionListClassifier()) == "DecisionListClassifier()"


def test_html_has_model_status_and_bounds(mpdt, dlist):
    html = mpdt._repr_html_()
    assert "<b>MinimumPureTreeClassifier</b>" in html
    assert "status optimal (minimum size in [5, 5])" in html
    assert "petal-width &lt; 1.7" in html and "<b>class: setosa</b>" in html
    bundle = mpdt._repr_mimebundle_()
    assert bundle["text/plain"] == repr(mpdt) and bundle["text/html"] == html

    html = dlist._repr_html_()
    assert "<b>DecisionListClassifier</b>" in html and "<ol" in html
    assert "<li>IF sex == female &amp; class != third THEN p=0.93 (n=274)</li>" in html
    assert "<li>ELSE p=" in html

    unfitted = MinimumPureTreeClassifier()._repr_html_()  # scikit-learn's diagram
    assert "MinimumPureTreeClassifier" in unfitted and "occamlearn-model" not in unfitted


def test_html_escapes_category_names():
    X = pd.DataFrame({"c": ["<a>", "b&c", "<a>", "b&c"]})
    model = MinimumPureTreeClassifier().fit(X, ["x", "y", "x", "y"])
    html = model._repr_html_()
    assert ("c == b&amp;c" in html or "c == &lt;a&gt;" in html) and "<a>" not in html


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_plot_tree_trace_and_list(plt, mpdt, dlist, iris_small):
    ax = mpdt.plot()
    texts = [t.get_text() for t in ax.texts]
    assert "petal-width >= 1.7" in texts and "class: setosa" in texts
    assert ax.get_title().startswith("5 nodes")

    ax = mpdt.plot("trace")
    assert ax.get_ylabel() == "tree size (nodes)" and ax.get_xlabel() == "seconds"
    assert ax.lines and "status optimal" in ax.get_title()

    X, y = iris_small
    ax = MaxAccuracyTreeClassifier(max_depth=1).fit(X, y).plot(kind="trace")
    assert ax.get_ylabel() == "training errors"

    ax = dlist.plot()
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "default"
    assert len(ax.patches) == len(dlist.rules_) + 1
    ax = dlist.plot("likelihood")
    assert ax.get_ylabel() == "training log-likelihood"

    with pytest.raises(ValueError, match="kind must be one of"):
        dlist.plot("tree")
    with pytest.raises(NotFittedError):
        MinimumPureTreeClassifier().plot()


def test_bit_features_read_as_intervals_in_trees_and_lists():
    X, y = load_dataset("haber")
    rules = DecisionListClassifier(binarizer="binary", max_rules=2).fit(X, y)
    text = str(rules)
    assert "code(" not in text and " or " in text
    assert "IF (13.0 <= Number_of_positive_axillary_nodes_detected < 26.0 or " in text
    assert "code(" not in rules._repr_html_()
    tree = MaxAccuracyTreeClassifier(max_depth=2, binarizer="binary").fit(X, y)
    assert "code(" not in str(tree) and " <= " in str(tree)
