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


def test_a_fit_freezes_the_collector_only_at_exit():
    assert _run("MinimumPureTreeClassifier", "time_limit=20") == [
        "after the fits, frozen: False", "registered last, ran", "at exit, frozen: True",
    ]


def test_every_fit_asks_for_it(monkeypatch):
    import numpy as np

    from occamlearn import DecisionListClassifier, MaxAccuracyTreeClassifier
    from occamlearn.estimators import decision_list, dtmax, size_error_path

    calls = []
    for module in (decision_list, dtmax, size_error_path):
        monkeypatch.setattr(module, "freeze_collector_at_exit", lambda: calls.append(1))
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    y = X[:, 0] ^ X[:, 1]
    MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    MaxAccuracyTreeClassifier(max_depth=2).size_error_path(X, y)
    DecisionListClassifier().fit(X, y)
    assert len(calls) == 3


def test_no_fit_no_freeze():
    script = "import atexit, gc\nimport occamlearn.estimators\n" \
             "atexit.register(lambda: print(gc.get_freeze_count() > 0))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["False"]
