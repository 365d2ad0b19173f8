"""What importing the package and an estimator costs: only what scikit-learn's estimator base
imports itself, never the searches, their compiled kernels or scikit-learn's own trees.

Why it matters: a user's script, and each process of ``benchmarks/limits.py``, pays these
imports before ``fit`` starts, outside its ``time_limit``; under load every CPU-second of
them is several seconds of wall. ``sklearn.base`` imports scipy.stats, scipy.optimize and
pandas itself (through ``sklearn.utils.fixes``), so those are the floor of any estimator.
Each check runs in a fresh interpreter and reads ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# never imported by ``import occamlearn`` (the command line starts from it)
HEAVY = ("numpy", "pandas", "scipy", "sklearn", "numba", "llvmlite", "pysat")
# never imported by importing an estimator: the searches' engines and kernels, and what only
# they need
SEARCH_ONLY = ("numba", "llvmlite", "sklearn.tree", "sklearn.neighbors", "sklearn.datasets",
               "sklearn.model_selection", "occamlearn.trees.compiling",
               "occamlearn.trees.mpdt.", "occamlearn.trees.dtmax.entry",
               "occamlearn.trees.size_error")
ESTIMATORS = ("MinimumPureTreeClassifier", "MaxAccuracyTreeClassifier",
              "DecisionListClassifier")


def _modules_after(statement: str) -> list[str]:
    """``sys.modules`` after ``import sklearn.base`` (the floor) is recorded and then
    ``statement`` runs: (modules before ``statement``, modules after) in a new process."""
    script = (f"import sys, json\nbefore = sorted(sys.modules)\n{statement}\n"
              f"print(json.dumps([before, sorted(sys.modules)]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _named(modules, prefixes) -> list[str]:
    return sorted(m for m in modules
                  if any(m == p or m.startswith(p if p.endswith(".") else p + ".")
                         for p in prefixes))


def test_importing_the_package_and_its_command_imports_nothing_heavy():
    for statement in ("import occamlearn", "import occamlearn.cli",
                      "import occamlearn.estimators"):
        _, after = _modules_after(statement)
        assert _named(after, HEAVY) == [], statement


@pytest.mark.parametrize("name", ESTIMATORS)
def test_an_estimator_imports_no_search_and_nothing_past_sklearn_base(name):
    _, floor = _modules_after("import sklearn.base")
    _, after = _modules_after(f"from occamlearn import {name}")
    assert _named(after, SEARCH_ONLY) == []
    # pandas, scipy.stats and scipy.optimize come with sklearn.base, and no further scipy,
    # pandas or numba module comes with the estimator
    new = set(after) - set(floor)
    assert _named(new, ("pandas", "scipy", "numba", "llvmlite")) == []
    assert {"pandas", "scipy.optimize"} <= set(floor)  # the floor this test names


def test_dtmax_names_written_in_the_estimator_are_the_engines():
    """``estimators.dtmax`` writes the engine's method names and automatic solver name
    instead of importing the engine; they must stay the engine's."""
    from occamlearn.estimators.dtmax import METHOD_NAMES, SOLVER_AUTO
    from occamlearn.trees.dtmax.entry import METHODS
    from occamlearn.trees.dtmax.maxsat.solve import BACKEND_AUTO

    assert METHOD_NAMES == set(METHODS)
    assert SOLVER_AUTO == BACKEND_AUTO
