"""Exports of fitted models: text, Graphviz DOT, matplotlib plots, JSON files.

Every exporter reads a fitted model's record (``FittedModel``, ``occamlearn.model.fitted``;
an estimator is read through its ``to_record()``), never the estimator itself. Reading a model
file back into an estimator is ``occamlearn.load_model``; WCNF instances are
``occamlearn.trees.mpdt.maxsat_route.wcnf_file``.

Free functions over fitted models; optional
dependencies (graphviz, matplotlib) are imported inside the functions that need them. Names
are imported lazily. Tree exporters keep their sklearn-like names; the decision-list ones
are prefixed ``list_`` here to tell them apart.
"""

from __future__ import annotations

from importlib import import_module

_PUBLIC = {
    "describe": ("occamlearn.export.describe", "describe"),
    "export_text": ("occamlearn.export.tree_text", "export_text"),
    "export_graphviz": ("occamlearn.export.tree_dot", "export_graphviz"),
    "render_graphviz": ("occamlearn.export.tree_dot", "render_graphviz"),
    "plot_tree": ("occamlearn.export.plot", "plot_tree"),
    "plot_trace": ("occamlearn.export.plot", "plot_trace"),
    "plot_size_error_path": ("occamlearn.export.size_error", "plot_size_error_path"),
    "tree_html": ("occamlearn.export.html", "tree_html"),
    "list_html": ("occamlearn.export.html", "list_html"),
    "readable_list": ("occamlearn.export.decision_list", "readable_list"),
    "plot_probabilities": ("occamlearn.export.decision_list", "plot_probabilities"),
    "save_model": ("occamlearn.export.tree_json", "save_model"),
    "model_to_dict": ("occamlearn.export.tree_json", "model_to_dict"),
    "list_export_text": ("occamlearn.export.decision_list", "export_text"),
    "list_export_graphviz": ("occamlearn.export.decision_list", "export_graphviz"),
    "plot_log_likelihood": ("occamlearn.export.decision_list", "plot_log_likelihood"),
    "save_list": ("occamlearn.export.decision_list", "save_list"),
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__():
    return __all__
