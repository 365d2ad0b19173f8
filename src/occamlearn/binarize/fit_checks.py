"""scikit-learn's checks at ``fit``, without the parts that cost more than a small table's fit.

A default ``DecisionListClassifier().fit`` on a table of a hundred rows takes about 2 ms, and
scikit-learn's bookkeeping took a fifth of it: every ``get_params`` (parameter validation,
``clone``) reads the signature of ``__init__`` again (``inspect.signature``), and every
``validate_data`` on a DataFrame asks narwhals whether it is one (``inspect.getattr_static``
over the class) to read its column names. Both answers are fixed: the signature of a class's
``__init__`` does not change while the process runs, and a ``pandas.DataFrame``'s column
names are its ``columns``.

* ``ParamNamesOnce`` -- a mixin whose ``_get_param_names`` is scikit-learn's, computed once
  per class (a copy is returned, so a caller may change it).
* ``ParamsCheckedOnce`` -- also ``_validate_params`` (scikit-learn's check of every parameter
  against the class's ``_parameter_constraints``, at each ``fit``) once per class and set of
  plain values: the check reads nothing but those two, so values that passed pass again.
  Only values of the exact types None, bool, int, float and str are remembered (with their
  types, so ``1``, ``1.0`` and ``True`` are different values), at most ``CHECKED_MOST``
  sets; any other value (an estimator, a dict, an array) is checked every time.
* ``plain_clone`` -- ``sklearn.base.clone`` of an estimator whose parameters are all plain
  values and which carries none of the extras clone copies: a new instance of its class
  with the same values (what clone makes then, in a third of the time).
* ``record_frame_features`` -- what ``validate_data(estimator, X, skip_check_array=True,
  reset=True)`` does to ``estimator`` for a ``pandas.DataFrame`` whose column names are all
  ``str``, distinct and at least one: ``feature_names_in_`` the names as an object array (what
  scikit-learn's ``_get_feature_names`` returns for them) and ``n_features_in_`` the number
  of columns; False (nothing done) for any other input, which the caller then hands to
  ``validate_data``. Its only other effect, a ``ValueError`` when ``y`` is None for an
  estimator that requires it, is the callers' concern (they pass ``y`` or are transformers).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

__all__ = ["CHECKED_MOST", "ParamNamesOnce", "ParamsCheckedOnce", "plain_clone",
           "record_frame_features"]

CHECKED_MOST = 1024
_PLAIN = (type(None), bool, int, float, str)
_PLAIN_TYPES = frozenset(_PLAIN)
_checked: set = set()


@cache
def _param_names(cls) -> tuple:
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class ParamNamesOnce:
    """``_get_param_names`` once per class (module docstring)."""

    @classmethod
    def _get_param_names(cls) -> list:
        return list(_param_names(cls))


class ParamsCheckedOnce(ParamNamesOnce):
    """``_validate_params`` once per class and set of plain values (module docstring)."""

    def _validate_params(self):
        params = self.get_params(deep=False)  # in the class's one order of names
        key = None
        values = tuple(params.values())
        types = tuple(map(type, values))
        if _PLAIN_TYPES.issuperset(types):
            key = (type(self), types, values)
            if key in _checked:
                return
        super()._validate_params()
        if key is not None:
            if len(_checked) >= CHECKED_MOST:
                _checked.clear()
            _checked.add(key)


# what ``clone`` copies to the new instance besides its parameters
_CLONE_EXTRAS = ("_metadata_request", "_skl_callbacks", "_sklearn_output_config")


def plain_clone(estimator):
    """``clone(estimator)``, made directly when every parameter is None, a bool, an int, a
    float or a str and the estimator uses scikit-learn's own ``__sklearn_clone__`` and has
    none of ``_CLONE_EXTRAS``: clone then deep-copies each parameter, which for these
    immutable values is the value itself, calls the class with them, copies none of the
    extras, and checks that the new instance holds the very values given -- checked here
    too (any difference: ``clone`` itself, and its error)."""
    cls = type(estimator)
    params = estimator.get_params(deep=False)
    if getattr(cls, "__sklearn_clone__", None) is not BaseEstimator.__sklearn_clone__ \
            or any(type(value) not in _PLAIN for value in params.values()) \
            or any(hasattr(estimator, name) for name in _CLONE_EXTRAS):
        return clone(estimator)
    made = cls(**params)
    held = made.get_params(deep=False)
    if any(held[name] is not value for name, value in params.items()):
        return clone(estimator)
    return made


def record_frame_features(estimator, X) -> bool:
    """Set ``feature_names_in_`` and ``n_features_in_`` of ``estimator`` from the DataFrame
    ``X`` as ``validate_data(..., skip_check_array=True, reset=True)`` would; False when
    ``X`` is not a plain ``pandas.DataFrame`` with only ``str`` column names (module
    docstring)."""
    if type(X) is not pd.DataFrame or X.shape[1] == 0:
        return False
    names = X.columns.tolist()
    if any(type(name) is not str for name in names) or len(set(names)) < len(names):
        return False  # validate_data refuses repeated names (the callers check them first)
    estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.n_features_in_ = X.shape[1]
    return True
