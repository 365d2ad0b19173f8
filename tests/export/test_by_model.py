"""The exporters that choose by the model give what the tree or decision-list exporter gives."""

import numpy as np
import pytest

from occamlearn import DecisionListClassifier, MinimumPureTreeClassifier, load_dataset
from occamlearn.export import (
    decision_list,
    export_graphviz,
    export_html,
    export_text,
    html,
    tree_dot,
    tree_text,
)


@pytest.fixture(scope="module")
def models():
    X, y = load_dataset("mux6")
    rules = DecisionListClassifier(max_rules=3).fit(X, np.asarray(y))
    return MinimumPureTreeClassifier().fit(X, y), rules


def test_each_kind_goes_to_its_exporter(models):
    tree, rules = models
    for model, text, dot, page in (
            (tree, tree_text.export_text, tree_dot.export_graphviz, html.tree_html),
            (rules, decision_list.export_text, decision_list.export_graphviz, html.list_html)):
        for given in (model, model.to_record()):
            assert export_text(given) == text(model)
            assert export_graphviz(given) == dot(model)
            assert export_html(given) == page(model)
    assert export_text(tree.tree_) == tree_text.export_text(tree.tree_)
    assert export_text(rules.list_) == decision_list.export_text(rules.list_)


def test_options_are_the_chosen_exporters(models):
    tree, rules = models
    assert export_text(rules, decimals=3) == decision_list.export_text(rules, decimals=3)
    with pytest.raises(TypeError):
        export_text(tree, decimals=3)  # a tree's text has no decimals
