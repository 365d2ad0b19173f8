"""Exports of fitted models: text, Graphviz DOT, HTML, matplotlib plots.

Every exporter reads a fitted model's record (``FittedModel``, ``occamlearn.model.fitted``;
an estimator is read through its ``to_record()``), never the estimator itself. ``describe``,
``export_text``, ``export_graphviz``, ``render_graphviz`` and ``export_html`` take any fitted
model and choose the tree or decision-list form (``by_model``); the plots are each for one
kind. Saving and loading model files is ``occamlearn.save_model`` / ``occamlearn.load_model``
(``occamlearn.estimators.model_files``).

Free functions over fitted models; optional dependencies (graphviz, matplotlib) are imported
inside the functions that need them. Names are imported lazily.
"""

from __future__ import annotations

from importlib import import_module

_PUBLIC = {
    "describe": ("occamlearn.export.describe", "describe"),
    "export_text": ("occamlearn.export.by_model", "export_text"),
    "export_graphviz": ("occamlearn.export.by_model", "export_graphviz"),
    "render_graphviz": ("occamlearn.export.by_model", "render_graphviz"),
    "export_html": ("occamlearn.export.by_model", "export_html"),
    "plot_tree": ("occamlearn.export.plot", "plot_tree"),
    "plot_trace": ("occamlearn.export.plot", "plot_trace"),
    "plot_size_error_path": ("occamlearn.export.size_error", "plot_size_error_path"),
    "readable_list": ("occamlearn.export.decision_list", "readable_list"),
    "plot_probabilities": ("occamlearn.export.decision_list", "plot_probabilities"),
    "plot_log_likelihood": ("occamlearn.export.decision_list", "plot_log_likelihood"),
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
