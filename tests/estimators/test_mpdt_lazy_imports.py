"""The pure-tree estimator imports its searches in ``fit``, under the fit's deadline: the
method names it validates are the searches' own."""

from __future__ import annotations

import subprocess
import sys

from occamlearn.estimators.mpdt import METHOD_NAMES
from occamlearn.trees.mpdt.minimum import METHODS


def test_method_names_are_the_searches_methods():
    assert METHOD_NAMES == set(METHODS)


def test_importing_the_estimator_loads_no_search():
    script = ("import sys\nfrom occamlearn import MinimumPureTreeClassifier\n"
              "print(sorted(m for m in sys.modules if m.startswith(('occamlearn.trees.mpdt.'"
              ", 'occamlearn.trees.compiling', 'sklearn.model_selection', 'numba'))))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]
