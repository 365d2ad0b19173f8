"""A process that fitted skips the garbage collector's passes at exit (``_process_exit``):
the collector is frozen once exiting has begun, never before, and every ``atexit`` handler
still runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import atexit, gc
    import numpy as np
    from occamlearn import {estimator}

    # registered before the first fit: runs after the fit's handler
    atexit.register(lambda: print("at exit, frozen:", gc.get_freeze_count() > 0, flush=True))
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    y = X[:, 0] ^ X[:, 1]
    {estimator}({options}).fit(X, y)
    {estimator}({options}).fit(X, y)  # a second fit registers nothing more
    print("after the fits, frozen:", gc.get_freeze_count() > 0, flush=True)
    atexit.register(lambda: print("registered last, ran", flush=True))
""")


def _run(estimator: str, options: str = "") -> list[str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(estimator=estimator,
                                                               options=options)],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_every_fit_freezes_the_collector_only_at_exit():
    for estimator, options in (("MinimumPureTreeClassifier", "time_limit=20"),
                               ("MaxAccuracyTreeClassifier", "max_depth=2"),
                               ("DecisionListClassifier", "")):
        assert _run(estimator, options) == [
            "after the fits, frozen: False", "registered last, ran", "at exit, frozen: True",
        ], estimator


def test_no_fit_no_freeze():
    script = "import atexit, gc\nimport occamlearn.estimators\n" \
             "atexit.register(lambda: print(gc.get_freeze_count() > 0))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["False"]
