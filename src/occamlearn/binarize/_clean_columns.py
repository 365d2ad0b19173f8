"""Transform-time values of one column, checked against what the binariser's ``fit`` saw.

Numeric columns are ordered: every condition on them is a threshold or an interval, so a value
unseen in fit falls where its order puts it and is never an error. Only an unseen *category*
needs a policy (``handle_unknown``): ``"ignore"`` makes its conditions false and warns, naming
the column and the value; ``"error"`` raises.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from occamlearn.binarize._columns import ColumnSpec, _to_float, _to_objects
from occamlearn.binarize._values import to_days, to_text, warn_new_missing
from occamlearn.binarize._values import where as _where
from occamlearn.model.conditions import missing_mask

__all__ = ["clean_column"]


def clean_column(spec: ColumnSpec, column, *, handle_unknown: str) -> np.ndarray:
    """Transform-time values of one column, checked against what ``fit`` saw.

    Numeric values are never unknown (their conditions compare by order; +-inf is simply
    beyond every threshold). A category unseen in fit raises with ``handle_unknown="error"``;
    with ``"ignore"`` it passes (its conditions evaluate as false) with a ``UserWarning``
    naming the column and the value. Missing values are never an error: a column that had
    none in fit warns, naming the rows (its conditions are false there).
    """
    if spec.kind != "categorical":
        values = (to_days(spec.name, column) if spec.dates
                  else _to_float(spec.name, column, allow_inf=True))
        warn_new_missing(spec, np.isnan(values))
        return values
    values = _to_objects(spec.name, column)
    absent = missing_mask(values)
    warn_new_missing(spec, absent)
    if spec.domain and all(isinstance(v, str) for v in spec.domain):
        values = to_text(values)  # a number reads as its text, as printed: 2 is '2'
    known = (pd.Index(spec.domain).get_indexer(pd.Index(values)) >= 0) | absent
    if known.all():
        return values
    row = int(np.flatnonzero(~known)[0])
    value = values[row]
    value = value.item() if isinstance(value, np.generic) else value
    unseen = pd.unique(values[~known])
    shown = ", ".join(map(repr, unseen[:5])) + (", ..." if len(unseen) > 5 else "")
    if handle_unknown == "error":
        known_text = ", ".join(map(str, spec.domain[:10])) + (
            ", ..." if len(spec.domain) > 10 else ""
        )
        raise ValueError(
            f"{_where(spec.name, row)} has value {value!r}, unseen in fit (known: {known_text});"
            " pass handle_unknown='ignore' to evaluate its conditions as false"
        )
    warnings.warn(
        f"column {spec.name!r} has categories unseen in fit ({shown}; first at row {row}): "
        "their conditions evaluate as false",
        UserWarning,
        stacklevel=4,
    )
    return values
