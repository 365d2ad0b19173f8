"""Fitted estimators from model files: one door for ``load_model``, ``predict`` and ``show``.

Every family writes ``{"format": "occamlearn-model", "model": NAME, ...}`` (trees:
``export.tree_json``; decision lists: ``export.decision_list``). Reading a file back means
rebuilding a fitted *estimator*, so it lives here, beside the estimators, and ``export`` never
imports them. ``READERS`` maps NAME to the function that rebuilds that model.
"""

from __future__ import annotations

from importlib import import_module

import numpy as np

from occamlearn.binarize.conditions import condition_binarizer_from_dict
from occamlearn.estimators.decision_list import DecisionListClassifier
from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier
from occamlearn.estimators.mpdt import MinimumPureTreeClassifier
from occamlearn.export import decision_list as list_json
from occamlearn.export import tree_json
from occamlearn.export.model_file import read_json_file
from occamlearn.model.decision_list import DecisionList
from occamlearn.model.tree import Tree
from occamlearn.trees.mpdt.wcnf_file import decoded_model_file

__all__ = ["READERS", "decode_solution", "load_model", "model_from_dict"]

TREE_ESTIMATORS = {"MinimumPureTreeClassifier": MinimumPureTreeClassifier,
                   "MaxAccuracyTreeClassifier": MaxAccuracyTreeClassifier}


def _check_version(data: dict, version: int) -> None:
    if data.get("version") != version:
        raise ValueError(f"unsupported model file: model {data.get('model')!r} version "
                         f"{data.get('version')!r} (this occamlearn reads version {version})")


def _set_input_signature(estimator, data: dict) -> None:
    estimator.n_features_in_ = data["n_features_in"]
    if data["feature_names_in"] is not None:
        estimator.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)


def _binarizer_param(spec, fitted):
    """The estimator's ``binarizer`` parameter: a string, None, one of occamlearn's binariser
    classes rebuilt from its parameters, or (not rebuildable) the stored conditions."""
    if spec is None or isinstance(spec, str):
        return spec
    if spec.get("class") and spec["class"].startswith("occamlearn."):
        module, _, name = spec["class"].rpartition(".")
        return getattr(import_module(module), name)(**spec["params"])
    return fitted


def tree_model_from_dict(data: dict):
    """A fitted tree estimator from ``export.tree_json.model_to_dict``'s output."""
    _check_version(data, tree_json.VERSION)
    estimator = TREE_ESTIMATORS[data["model"]]
    tree = Tree.from_dict(data["tree"])
    binarizer_ = condition_binarizer_from_dict(data)
    accepted = estimator().get_params(deep=False)
    params = {k: v for k, v in data["params"].items() if k in accepted and k != "binarizer"}
    model = estimator(binarizer=_binarizer_param(data["params"]["binarizer"], binarizer_),
                      **params)
    _set_input_signature(model, data)
    model.binarizer_ = binarizer_
    model.classes_ = tree_json.array_from_json(data["classes"])
    model.feature_names_ = np.asarray(data["binary_feature_names"], dtype=object)
    model.tree_ = tree
    model.n_nodes_, model.depth_ = tree.n_nodes, tree.depth
    model.status_ = data["status"]
    model.lower_bound_, model.upper_bound_ = data["lower_bound"], data["upper_bound"]
    model.training_errors_ = int(data.get("training_errors", 0))  # older files: pure trees
    if "errors_lower_bound" in data:
        model.errors_lower_bound_ = int(data["errors_lower_bound"])
    if data["model"] == "MinimumPureTreeClassifier":
        model.conflict_rows_ = np.asarray(data["conflict_rows"], dtype=np.int64)
        model.n_conflicts_removed_ = len(model.conflict_rows_)
    if "candidate_trees" in data:
        model.candidate_trees_ = [(Tree.from_dict(t), float(a))
                                  for t, a in data["candidate_trees"]]
        model.best_trees_ = [Tree.from_dict(t) for t in data["best_trees"]]
        model.selection_stratified_ = bool(data["selection_stratified"])
    model.solve_stats_ = dict(data["solve_stats"])
    return model


def list_model_from_dict(data: dict):
    """A fitted ``DecisionListClassifier`` (or a bare ``DecisionList``) from
    ``export.decision_list.list_to_dict``'s output."""
    _check_version(data, list_json.VERSION)
    decision_list = DecisionList.from_dict(data["list"])
    if data["model"] == "DecisionList":
        return decision_list
    params = dict(data["params"])
    binarizer_ = condition_binarizer_from_dict(data)
    spec = params.pop("binarizer")
    if isinstance(spec, dict) and spec.get("class") and not spec["class"].startswith(
            "occamlearn."):
        raise ValueError(f"refusing to rebuild binariser class {spec['class']!r} from a file")
    model = DecisionListClassifier(binarizer=_binarizer_param(spec, binarizer_), **params)
    _set_input_signature(model, data)
    dtype = np.dtype(object) if data["classes_dtype"] == "object" else np.dtype(
        data["classes_dtype"])
    model.classes_ = np.asarray(data["classes"], dtype=dtype)
    model._positive_index_ = data["positive_index"]
    model.positive_class_ = model.classes_[model._positive_index_]
    model.binarizer_ = binarizer_
    model.feature_names_ = np.asarray(data["binary_feature_names"], dtype=object)
    model.list_ = decision_list
    model.rules_ = decision_list.rules
    model.default_probability_ = decision_list.default_probability
    model.direction_ = data["direction_chosen"]
    model.log_likelihoods_ = tuple(data["log_likelihoods"])
    model.log_likelihood_ = model.log_likelihoods_[-1]
    model.stop_reason_ = data["stop_reason"]
    return model


READERS = {
    "MinimumPureTreeClassifier": tree_model_from_dict,
    "MaxAccuracyTreeClassifier": tree_model_from_dict,
    "DecisionListClassifier": list_model_from_dict,
    "DecisionList": list_model_from_dict,
}


def model_from_dict(data: dict):
    """The fitted model a parsed model file describes; ValueError if it is not one."""
    if not isinstance(data, dict) or data.get("format") != tree_json.FORMAT:
        raise ValueError(f'not an occamlearn model file (expected "format": '
                         f'"{tree_json.FORMAT}")')
    name = data.get("model")
    if name not in READERS:
        raise ValueError(f"unknown model {name!r} in the file; this occamlearn reads "
                         f"{', '.join(sorted(READERS))}")
    return READERS[name](data)


def load_model(path):
    """Read any occamlearn JSON model file; FileNotFoundError / ValueError name the file."""
    return model_from_dict(read_json_file(path))


def decode_solution(sidecar: dict, solver_text: str):
    """Fitted ``MinimumPureTreeClassifier`` from a WCNF sidecar and an external solver's
    output text (``trees.mpdt.wcnf_file``)."""
    data = decoded_model_file(sidecar, solver_text)
    return model_from_dict({"format": tree_json.FORMAT, "version": tree_json.VERSION,
                            "model": "MinimumPureTreeClassifier", **data})
