"""Ctrl-C during a SAT call keeps the best tree, reaches the caller, and leaves the process
healthy.

Called from the main thread, PySAT's C solvers install a SIGINT handler that longjmps out of
the running solver (possibly out of malloc), leaving CaDiCaL's heap in an undefined state:
occasional ``free(): invalid pointer`` aborts and hangs were seen when Ctrl-C hit the CLI.
``solve.oracle.python_handles_sigint`` keeps Python's own handler during our SAT calls, so no
longjmp happens at all. The corruption is intermittent, so the behavioural test below cannot
prove its absence; the mechanism itself is checked directly. The signals are real (a timer
thread sends SIGINT) and the scenario runs in a child process, so a crash shows up as a
failed child rather than a dead test run.
"""

import subprocess
import sys
import textwrap

from pysat.solvers import MainThread, Solver

from occamlearn.maxsat.oracle import limited_solve, python_handles_sigint

SCENARIO = textwrap.dedent("""
    import os, signal, threading, time
    from occamlearn import MinimumPureTreeClassifier, load_dataset

    X, y = load_dataset("tic-tac-toe")
    fired = []

    def interrupt_soon(tree, seconds):  # first improvement: the solver is now in C
        if not fired:
            fired.append(True)
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()

    for attempt in range(2):
        fired.clear()
        clf = MinimumPureTreeClassifier(method="maxsat", binarizer="binary",
                                        callback=interrupt_soon)
        try:
            clf.fit(X, y)
            print("fit returned")
        except KeyboardInterrupt:  # reaches the caller, with the best tree kept
            pure = bool((clf.predict(X) == y).all())
            bounded = clf.lower_bound_ < clf.upper_bound_ == clf.n_nodes_
            print("fit interrupted", clf.status_, bounded, clf.solve_stats_["interrupted"], pure)
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        time.sleep(5)  # Ctrl-C in plain Python code after the solver was interrupted
        print("no interrupt")
    except KeyboardInterrupt:
        print("python interrupt")
""")


def test_sigint_in_and_after_a_sat_call():
    done = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == (["fit interrupted feasible True True True"] * 2
                                        + ["python interrupt"])


def test_pysat_never_installs_its_longjmp_handler_in_our_calls():
    assert MainThread.check()  # pytest runs tests on the main thread
    with python_handles_sigint():
        assert not MainThread.check()
    assert MainThread.check()
    seen = []

    class Watching(Solver):
        def solve_limited(self, *args, **kwargs):
            seen.append(MainThread.check())
            return super().solve_limited(*args, **kwargs)

    with Watching(name="cadical195", bootstrap_with=[[1, 2], [-1]]) as solver:
        assert limited_solve(solver, "cadical195", [], None) is True
        assert limited_solve(solver, "cadical195", [-2], 10**9) is False
    assert seen and not any(seen)
