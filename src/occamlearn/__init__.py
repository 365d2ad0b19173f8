"""occamlearn: provably small interpretable classifiers.

Two model families, each a scikit-learn estimator:

* ``MinimumPureTreeClassifier`` -- the decision tree with the fewest nodes that classifies
  every training example correctly, certified minimum by a branch and bound over row sets and
  a MaxSAT solver working together (Josep Alós, Carlos Ansótegui and Eduard Torres,
  "Interpretable decision trees through MaxSAT", Artificial Intelligence Review, 2023).
* ``MaxAccuracyTreeClassifier`` -- the most accurate tree of bounded depth (DT(max)).
* ``DecisionListClassifier`` -- ordered probabilistic rule lists learned greedily, optionally
  directional (every rule points to the same class; Marc Goessling and Shan Kang,
  "Directional decision lists", 2015).

Data flows one way: table -> binariser -> binary matrix -> encoding -> solver -> decoded
model -> predictions and exports. Public names are imported lazily so that ``import
occamlearn`` stays cheap for the command line.
"""

from __future__ import annotations

from importlib import import_module

from occamlearn._version import __version__

_PUBLIC = {
    "list_datasets": "occamlearn.datasets",
    "load_dataset": "occamlearn.datasets",
    "dataset_info": "occamlearn.datasets",
    "FeatureBinarizer": "occamlearn.binarize",
    "QuantileBinarizer": "occamlearn.binarize",
    "ThresholdBinarizer": "occamlearn.binarize",
    "find_conflicts": "occamlearn.binarize",
    "resolve_conflicts": "occamlearn.binarize",
    "Tree": "occamlearn.model.tree",
    "DecisionList": "occamlearn.model.decision_list",
    "MinimumPureTreeClassifier": "occamlearn.estimators",
    "MaxAccuracyTreeClassifier": "occamlearn.estimators",
    "DecisionListClassifier": "occamlearn.estimators",
    "FittedModel": "occamlearn.model.fitted",
    "load_model": "occamlearn.estimators.model_files",
    "save_model": "occamlearn.estimators.model_files",
}

__all__ = sorted(_PUBLIC) + ["__version__"]


def __getattr__(name: str):
    try:
        module = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'occamlearn' has no attribute {name!r}") from None
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
