"""Showing a fitted model: ``print(model)``, notebook HTML and ``model.plot()``.

``repr(model)`` stays scikit-learn's (the parameters); ``str(model)`` is the fitted tree or
list as text, ``export.describe`` of the model's record -- the same text ``occamlearn show``
prints (the parameters again while unfitted); in a notebook a fitted model displays as
HTML with its status and bounds (scikit-learn's diagram while unfitted); ``plot()`` draws it
with matplotlib. Every one reads the record (``RecordMixin.to_record``). Put
``ModelDisplayMixin`` before ``BaseEstimator`` in the bases.
"""

from __future__ import annotations

from occamlearn.estimators._record import RecordMixin

__all__ = ["ModelDisplayMixin"]


class ModelDisplayMixin(RecordMixin):
    """``__str__``, ``_repr_html_``, ``_repr_mimebundle_`` and ``plot`` for fitted models.

    A tree estimator has ``tree_`` once fitted, a decision list ``list_``.
    """

    def _shown_model(self) -> str | None:
        if hasattr(self, "tree_"):
            return "tree"
        if hasattr(self, "list_"):
            return "list"
        return None

    def __str__(self) -> str:
        if self._shown_model() is None:
            return repr(self)
        from occamlearn.export.describe import describe

        return describe(self)

    def set_params(self, **params):
        """As scikit-learn's, but an unknown parameter's error names the class, not the
        printed model (scikit-learn's message embeds ``str(self)``, here the whole tree)."""
        valid = self.get_params(deep=False)
        for key in params:
            name = key.split("__", 1)[0]
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator "
                                 f"{type(self).__name__}. Valid parameters are: "
                                 f"{sorted(valid)!r}.")
        return super().set_params(**params)

    def _model_html(self) -> str:
        from occamlearn.export.html import list_html, tree_html

        return tree_html(self) if self._shown_model() == "tree" else list_html(self)

    def _repr_html_(self) -> str:
        """The fitted tree or list as HTML (with status and bounds); while unfitted,
        scikit-learn's estimator diagram."""
        if self._shown_model() is None:
            return super()._repr_html_()
        return self._model_html()

    def _repr_mimebundle_(self, **kwargs) -> dict:
        if self._shown_model() is None:
            return super()._repr_mimebundle_(**kwargs)
        return {"text/plain": repr(self), "text/html": self._model_html()}

    def plot(self, kind: str | None = None, *, ax=None, **kwargs):
        """Draw the fitted model with matplotlib and return the axes.

        kind : for trees "tree" (default, ``export.plot.plot_tree``: a big tree is folded
            below a depth, ``max_depth=`` chooses it) or "trace" (the anytime
            curve of ``solve_stats_["trace"]``: best size or errors against seconds, with the
            lower bound); for decision lists "probabilities" (default, each rule's
            probability) or "likelihood" (training log-likelihood per number of rules).
        """
        shown = self._shown_model()
        if shown is None:
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; "
                                 "call fit before plot.")
        kinds = ("tree", "trace") if shown == "tree" else ("probabilities", "likelihood")
        kind = kinds[0] if kind is None else kind
        if kind not in kinds:
            raise ValueError(f"kind must be one of {kinds} for {type(self).__name__}; "
                             f"got {kind!r}")
        if kind == "tree":
            from occamlearn.export.plot import plot_tree

            return plot_tree(self, ax=ax, **kwargs)
        if kind == "trace":
            from occamlearn.export.plot import plot_trace

            return plot_trace(self, ax=ax, **kwargs)
        from occamlearn.export.decision_list import plot_log_likelihood, plot_probabilities

        if kind == "likelihood":
            return plot_log_likelihood(self, ax=ax, **kwargs)
        return plot_probabilities(self, ax=ax, **kwargs)
