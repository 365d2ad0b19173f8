"""What a pure-tree fit costs outside its search: it imports its searches in ``fit``, under
the fit's deadline (the method names it validates are the searches' own), and counts its
training errors without walking the rows again."""

from __future__ import annotations

import subprocess
import sys

import pytest

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


@pytest.mark.filterwarnings("ignore")  # memorising, rows set aside: expected on noise
def test_training_errors_count_every_row_passed_to_fit():
    """``training_errors_`` comes from the leaves' counts: it equals the rows ``predict``
    gets wrong, the rows the majority filter set aside included."""
    import numpy as np

    from occamlearn import MinimumPureTreeClassifier

    rng = np.random.default_rng(4)
    for trial in range(3):
        X = rng.integers(0, 2, (60, 7)).astype(np.uint8)
        y = rng.integers(0, 3, 60)
        for options in ({}, {"max_errors": 20}, {"on_conflict": "relax"}):
            model = MinimumPureTreeClassifier(binarizer=None, time_limit=20, **options)
            model.fit(X, y)
            assert model.training_errors_ == int((model.predict(X) != y).sum()), (trial,
                                                                                   options)
