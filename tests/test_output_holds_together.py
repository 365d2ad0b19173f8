"""Output that holds together (the "WEAK: output" findings of the newcomer trial, each a test).

* ``occamlearn show`` printed a decision list without its header and ``(n=)`` counts: it now
  prints exactly what ``print(model)`` prints, for every kind of model.
* An 83-node tree plotted at 6720 x 1440 px: big trees fold below a depth, in a bounded figure.
* The decision-list bar plot said "rule 1 ... 4": its labels are the rules' conditions.
* Saved trace and likelihood plots clipped their axis labels.
* The decision-list HTML dropped the "ELSE" of "ELSE IF".
* The minimum tree's ``predict_proba`` was always 0/1, ignoring the rows the majority filter
  set aside.
"""

from __future__ import annotations

import warnings
from html import escape
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    load_dataset,
    load_model,
    save_model,
)
from occamlearn.cli import main
from occamlearn.export.decision_list import export_text as list_text
from occamlearn.export.html import list_html
from occamlearn.export.plot import MAX_FIGURE_INCHES, plot_tree
from occamlearn.model.tree import Tree


def _table(n=60, seed=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 4, n),
                      "c": rng.choice(["x", "y"], n)})
    y = np.where((X.a > 0) ^ (X.c == "y"), "yes", "no")
    return X, y


@pytest.fixture(scope="module")
def models():
    X, y = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "mpdt": MinimumPureTreeClassifier(time_limit=30).fit(X, y),
            "alg3": MinimumPureTreeClassifier(n_solutions=2, selection_size=0.25,
                                              random_state=0, time_limit=30).fit(X, y),
            "dtmax": MaxAccuracyTreeClassifier(max_depth=2).fit(X, y),
            "dlist": DecisionListClassifier(max_rules=3).fit(X, y),
            "dlist-classification": DecisionListClassifier(
                max_rules=2, direction="positive", mode="classification").fit(X, y),
        }


# -- show prints what print(model) prints ---------------------------------------------------
@pytest.mark.parametrize("name", ["mpdt", "alg3", "dtmax", "dlist", "dlist-classification"])
def test_show_prints_exactly_what_print_prints(models, name, tmp_path, capsys):
    model = models[name]
    save_model(model, tmp_path / "m.json")
    capsys.readouterr()
    print(model)
    printed = capsys.readouterr().out
    assert main(["show", str(tmp_path / "m.json")]) == 0
    shown = capsys.readouterr().out
    assert shown == printed
    assert shown.startswith(f"{type(model).__name__}: ") and not shown.endswith("\n\n")


def test_show_of_a_list_keeps_its_header_and_counts(models, tmp_path, capsys):
    model = models["dlist"]
    save_model(model, tmp_path / "dl.json")
    assert main(["show", str(tmp_path / "dl.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("DecisionListClassifier: p = P(yes); direction ")
    assert all("(n=" in line for line in lines[1:])
    assert lines[-1].startswith("ELSE p=")


def test_show_counts_adds_the_leaf_counts_to_the_same_header(models, tmp_path, capsys):
    save_model(models["mpdt"], tmp_path / "t.json")
    assert main(["show", str(tmp_path / "t.json"), "--counts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MinimumPureTreeClassifier: ") and "class: yes [" in out


# -- big trees plot legibly --------------------------------------------------------------------
def _random_tree(n_leaves: int, seed: int = 0) -> Tree:
    rng = np.random.default_rng(seed)

    def grow(leaves):
        if leaves == 1:
            return ("leaf", int(rng.integers(2)))
        k = int(rng.integers(1, leaves))
        return (int(rng.integers(20)), grow(k), grow(leaves - k))

    return Tree.from_nested(grow(n_leaves), 20, 2,
                            [f"income_{j} < {30900 + j}" for j in range(20)])


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _boxes(ax, renderer):
    return [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts
            if t.get_bbox_patch() is not None and t.get_text() not in ("", "no", "yes")]


def test_an_83_node_tree_plots_in_a_bounded_figure_without_overlaps(plt, tmp_path):
    tree = _random_tree(42)
    assert tree.n_nodes == 83
    ax = plot_tree(tree)
    figure = ax.figure
    width, height = figure.get_size_inches()
    assert width <= MAX_FIGURE_INCHES[0] and height <= MAX_FIGURE_INCHES[1]  # was 67.2 x 13.2
    figure.savefig(tmp_path / "tree.png")
    boxes = _boxes(ax, figure.canvas.get_renderer())
    assert not any(a.overlaps(b) for a, b in combinations(boxes, 2))
    folded = [t.get_text() for t in ax.texts if t.get_text().startswith("... ")]
    assert folded and "drawn to depth" in ax.get_title()
    # every node is accounted for: drawn, or inside a folded box
    drawn = len(boxes) - len(folded)
    assert drawn + sum(int(text.split()[1]) for text in folded) == tree.n_nodes


def test_a_small_tree_is_drawn_whole_and_max_depth_folds_on_request(plt):
    tree = _random_tree(6, seed=1)
    ax = plot_tree(tree)
    assert not [t for t in ax.texts if t.get_text().startswith("... ")]
    plt.close("all")
    ax = plot_tree(tree, max_depth=1)
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("... ")]


# -- the bar plot shows the rules ----------------------------------------------------------
def test_the_probability_bars_are_labelled_with_the_rules(plt, models):
    model = models["dlist"]
    ax = model.plot()
    labels = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    rules = list_text(model, show_counts=False).splitlines()
    assert labels[-1] == "default" and len(labels) == len(model.rules_) + 1
    for label, rule in zip(labels[:-1], rules, strict=False):
        assert label in rule and not label.startswith("rule ")


# -- saved figures keep their labels -------------------------------------------------------------
def _labels_inside_saved_figure(ax, path) -> list[str]:
    """The axis labels (and visible tick labels) lying outside the saved figure."""
    figure = ax.figure
    figure.savefig(path)
    renderer = figure.canvas.get_renderer()
    frame = figure.bbox
    outside = []
    low, high = ax.get_xlim()
    texts = [ax.xaxis.label, ax.yaxis.label] + [
        t for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
    for text in texts:
        if not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < frame.x0 or box.y0 < frame.y0 or box.x1 > frame.x1 or box.y1 > frame.y1:
            outside.append(text.get_text())
    return outside


def test_saved_trace_likelihood_and_bar_plots_keep_their_labels(plt, models, tmp_path):
    X, y = load_dataset("titanic")
    titanic = DecisionListClassifier(max_rules=3).fit(X, y)  # log-likelihoods near -1100
    for name, ax in (("likelihood", titanic.plot("likelihood")),
                     ("trace", models["mpdt"].plot("trace")),
                     ("dtmax-trace", models["dtmax"].plot("trace")),
                     ("bars", titanic.plot())):
        assert _labels_inside_saved_figure(ax, tmp_path / f"{name}.png") == [], name


# -- the HTML keeps ELSE --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["dlist", "dlist-classification"])
def test_the_list_html_reads_as_the_text(models, name):
    model = models[name]
    html = list_html(model)
    lines = list_text(model).splitlines()
    assert lines[-1].startswith("ELSE") and f"<li>{escape(lines[-1])}</li>" in html
    for line in lines:
        assert f"<li>{escape(line.strip())}</li>" in html
    if name == "dlist":
        assert "<li>ELSE IF " in html


# -- predict_proba of the minimum tree counts the rows set aside -----------------------------------
def _conflicting_table():
    X = pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 1, 1, 1],
                      "b": [0, 0, 0, 1, 0, 0, 1, 1, 1]})
    y = np.array([0, 0, 1, 1, 1, 1, 0, 0, 1])  # (0,0): 2 vs 1, (1,1): 2 vs 1
    return X, y


def test_predict_proba_counts_the_rows_the_majority_filter_set_aside(tmp_path):
    X, y = _conflicting_table()
    with pytest.warns(UserWarning, match="set aside"):
        model = MinimumPureTreeClassifier().fit(X, y)
    assert sorted(model.conflict_rows_.tolist()) == [2, 8]
    proba = model.predict_proba(X)
    assert np.allclose(proba[[0, 1, 2]], [2 / 3, 1 / 3])  # the leaf of the first group
    assert np.allclose(proba[[6, 7, 8]], [2 / 3, 1 / 3])
    assert np.allclose(proba[[3, 4, 5]].max(axis=1), 1.0)
    leaves = model.tree_.counts[model.tree_.is_leaf]
    assert leaves.sum() == len(y)  # every training row falls in one leaf
    # predict is the printed leaf class, and it has the largest probability in its leaf
    predicted = np.searchsorted(model.classes_, model.predict(X))
    assert np.all(proba[np.arange(len(y)), predicted] == proba.max(axis=1))
    assert f"class: 0 {[2, 1]}" in model.export_text(show_counts=True)
    save_model(model, tmp_path / "m.json")
    assert np.array_equal(load_model(tmp_path / "m.json").predict_proba(X), proba)


def test_predict_proba_of_a_tie_keeps_the_trees_class():
    X = pd.DataFrame({"a": [0, 0, 1, 1]})
    y = np.array([0, 1, 1, 1])  # row 0 and 1 conflict 1 vs 1: the filter keeps one
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MinimumPureTreeClassifier().fit(X, y)
    proba = model.predict_proba(X)
    predicted = np.searchsorted(model.classes_, model.predict(X))
    assert np.allclose(proba[0], [0.5, 0.5])
    assert np.all(proba[np.arange(len(y)), predicted] == proba.max(axis=1))
