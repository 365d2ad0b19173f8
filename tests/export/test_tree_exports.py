"""Tree exporters: golden text and DOT of a hand-built tree, condition wording, plot."""

import numpy as np
import pytest

from occamlearn.export._view import branch_texts
from occamlearn.export.tree_dot import export_graphviz, render_graphviz
from occamlearn.export.tree_text import export_text
from occamlearn.model.conditions import Condition
from occamlearn.model.tree import LEAF, Tree


@pytest.fixture
def tree():
    """outlook = 1 ? (windy = 1 ? no : yes) : yes, with training counts per class."""
    return Tree(feature=[0, LEAF, 1, LEAF, LEAF], left=[1, -1, 3, -1, -1],
                right=[2, -1, 4, -1, -1], label=[-1, 1, -1, 1, 0],
                counts=[[2, 5], [0, 3], [2, 2], [0, 2], [2, 0]], n_features=2,
                feature_names=("sunny", "windy"))


GOLDEN_TEXT = """\
5 nodes (2 decisions, 3 leaves), depth 2
|--- sunny = 0
|   |--- class: yes [0, 3]
|--- sunny = 1
|   |--- windy = 0
|   |   |--- class: yes [0, 2]
|   |--- windy = 1
|   |   |--- class: no [2, 0]
"""

GOLDEN_DOT = """\
digraph Tree {
node [shape=box, style="rounded", fontname="helvetica"] ;
edge [fontname="helvetica"] ;
label="5 nodes (2 decisions, 3 leaves), depth 2" ;
labelloc=t ;
0 [label="sunny = 1"] ;
0 -> 1 [label="no"] ;
0 -> 2 [label="yes"] ;
1 [label="class: yes\\n[0, 3]", shape=ellipse] ;
2 [label="windy = 1"] ;
2 -> 3 [label="no"] ;
2 -> 4 [label="yes"] ;
3 [label="class: yes\\n[0, 2]", shape=ellipse] ;
4 [label="class: no\\n[2, 0]", shape=ellipse] ;
}
"""


def test_export_text_golden(tree):
    assert export_text(tree, class_names=["no", "yes"], show_counts=True) == GOLDEN_TEXT


def test_export_text_options(tree):
    text = export_text(tree, feature_names=["a", "b"], show_summary=False, spacing=1)
    assert text == "|- a = 0\n| |- class: 1\n|- a = 1\n| |- b = 0\n| | |- class: 1\n" \
                   "| |- b = 1\n| | |- class: 0\n"
    single = Tree([LEAF], [-1], [-1], [0], [[4]], 3)
    assert export_text(single, show_summary=False) == "class: 0\n"


def test_export_graphviz_golden(tree):
    assert export_graphviz(tree, class_names=["no", "yes"]) == GOLDEN_DOT


def test_dot_quotes_names():
    tree = Tree([0, LEAF, LEAF], [1, -1, -1], [2, -1, -1], [-1, 0, 1], [[1, 1], [1, 0], [0, 1]],
                1, ('say "hi"',))
    assert '0 [label="say \\"hi\\" = 1"] ;' in export_graphviz(tree)


def test_render_graphviz_returns_source(tree):
    graphviz = pytest.importorskip("graphviz")
    source = render_graphviz(tree, title=False)
    assert isinstance(source, graphviz.Source)
    assert source.source == export_graphviz(tree, title=False)


@pytest.mark.parametrize("condition, expected", [
    (Condition("age", "<=", 30.5), ("age > 30.5", "age <= 30.5")),
    (Condition("colour", "==", "red"), ("colour != red", "colour == red")),
    (Condition("x", "bit", 1, domain=("a", "b", "c")), ("x != c", "x == c")),
    (Condition("x", "bit", 0, domain=("a", "b", "c", "d")),
     ("x not in {b, d}", "x in {b, d}")),
    (Condition("w", "bit", 0, edges=(2.5, 3.0, 4.5)),
     ("w < 2.5 or 3.0 <= w < 4.5", "2.5 <= w < 3.0 or w >= 4.5")),
    (Condition("w", "bit", 1, edges=(2.5, 3.0, 4.5)), ("w < 3.0", "w >= 3.0")),
    (Condition("t", "in", (1.0, 2.0)), ("t < 1.0 or t >= 2.0", "1.0 <= t < 2.0")),
])
def test_branch_texts_use_the_condition(condition, expected):
    assert branch_texts("ignored", condition) == expected


def test_names_must_match_the_tree(tree):
    with pytest.raises(ValueError, match="feature_names must have 2 entries; got 1"):
        export_text(tree, feature_names=["a"])
    with pytest.raises(ValueError, match="class_names must have 2 entries; got 3"):
        export_graphviz(tree, class_names=["a", "b", "c"])
    with pytest.raises(TypeError, match="expected a fitted tree classifier"):
        export_text("not a tree")


def test_fitted_classifier_text_has_status_and_readable_bits():
    import pandas as pd

    from occamlearn import MinimumPureTreeClassifier

    X = pd.DataFrame({"colour": pd.Categorical(["red", "green", "blue", "red", "green", "blue"]),
                      "size": [1, 1, 1, 2, 2, 2]})
    y = ["a", "b", "a", "b", "b", "a"]
    clf = MinimumPureTreeClassifier(binarizer="binary").fit(X, y)
    text = clf.export_text()
    assert text.startswith(f"{clf.n_nodes_} nodes") and "status optimal" in text
    assert "code(" not in text  # each bit test reads as the values it selects
    assert "colour in {green, red}" in text or "colour == green" in text
    legend = clf.export_text(show_codes=True)
    assert "code(colour): 0=blue, 1=green, 2=red" in legend


def test_plot_tree_draws_every_node(tree):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from occamlearn.export.plot import node_positions, plot_tree

    ax = plot_tree(tree, class_names=["no", "yes"])
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("class: yes") == 2 and "windy = 1" in texts
    assert ax.get_title().startswith("5 nodes")
    xy = node_positions(tree)
    assert np.allclose(xy[[1, 3, 4], 0], [0, 0.5, 1]) and xy[0, 1] == 1
    plt.close("all")
