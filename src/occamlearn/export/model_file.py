"""Reading a JSON model file from disk, with errors that name the file.

What the file describes is rebuilt by ``occamlearn.estimators.model_files`` (the estimators'
side); this module only reads and parses.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["read_json_file"]


def read_json_file(path) -> dict:
    """The parsed content of a model file; FileNotFoundError / ValueError name the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
