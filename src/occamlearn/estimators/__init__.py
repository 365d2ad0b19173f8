"""scikit-learn facades: the only place where the stages (binarise, encode, solve, decode) are
chained. Each estimator lives in its own module; names are imported lazily."""

from __future__ import annotations

from importlib import import_module

_ESTIMATORS = {
    "MinimumPureTreeClassifier": "occamlearn.estimators.mpdt",
    "MaxAccuracyTreeClassifier": "occamlearn.estimators.dtmax",
    "DecisionListClassifier": "occamlearn.estimators.decision_list",
}

__all__ = sorted(_ESTIMATORS)


def __getattr__(name: str):
    try:
        module = _ESTIMATORS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(import_module(module), name)
