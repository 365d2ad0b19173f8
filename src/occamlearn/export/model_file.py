"""Reading any occamlearn JSON model file: one door for ``predict`` and ``show``.

Every family writes ``{"format": "occamlearn-model", "model": NAME, ...}``; ``MODEL_READERS``
maps NAME to the function (``module:function``) that rebuilds the fitted estimator, so a new
family plugs in with one line.
"""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path

__all__ = ["MODEL_READERS", "load_model", "model_from_data"]

FORMAT = "occamlearn-model"
MODEL_READERS = {
    "MinimumPureTreeClassifier": "occamlearn.export.tree_json:model_from_dict",
    "MaxAccuracyTreeClassifier": "occamlearn.export.tree_json:model_from_dict",
    "DecisionListClassifier": "occamlearn.export.decision_list:list_from_dict",
    "DecisionList": "occamlearn.export.decision_list:list_from_dict",
}


def model_from_data(data: dict):
    """The fitted model described by a parsed model file."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'not an occamlearn model file (expected "format": "{FORMAT}")')
    name = data.get("model")
    if name not in MODEL_READERS:
        raise ValueError(f"unknown model {name!r} in the file; this occamlearn reads "
                         f"{', '.join(sorted(MODEL_READERS))}")
    module, _, function = MODEL_READERS[name].partition(":")
    return getattr(import_module(module), function)(data)


def read_json_file(path) -> dict:
    """The parsed content of a model file; FileNotFoundError / ValueError name the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None


def load_model(path):
    """Read any occamlearn JSON model file; ValueError if it is not one."""
    return model_from_data(read_json_file(path))
