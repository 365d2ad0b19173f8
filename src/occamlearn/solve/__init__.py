"""WCNF -> result: our Linear SAT-UNSAT loop (Alg. 1), PySAT's RC2, the minimum-tree driver.

``find_minimum_tree`` (``solve.minimum_tree``) is the entry point the estimators use;
``BACKENDS`` / ``make_backend`` (``solve.backends``) the back-end registry. Names are imported
lazily so that importing the package does not load PySAT.
"""

from __future__ import annotations

from importlib import import_module

_PUBLIC = {
    "BACKENDS": "occamlearn.solve.backends",
    "make_backend": "occamlearn.solve.backends",
    "TREE_SEARCHES": "occamlearn.solve.backends",
    "MaxSATBackend": "occamlearn.solve.base",
    "MaxSATResult": "occamlearn.solve.base",
    "LinearSatUnsat": "occamlearn.solve.lsu",
    "RC2Backend": "occamlearn.solve.rc2",
    "find_minimum_tree": "occamlearn.solve.minimum_tree",
    "MinimumTreeResult": "occamlearn.solve.minimum_tree",
    "MinimumTreeSearch": "occamlearn.solve.minimum_tree",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    try:
        module = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(import_module(module), name)
