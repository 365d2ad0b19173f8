"""The one deadline and the one progress sink of a ``fit``, and what the user sees of them.

``fit`` makes a ``stopping.Deadline`` from ``time_limit`` as its first step (so reading and
binarising count) and one ``stopping.ProgressSink``; both go down to the innermost search
loops unchanged. The sink's callback is a ``UserProgress``: it names each reported tree's
features and passes the news on to the user's ``callback`` and, with ``verbose``, to stderr.
The sink's ``trace`` is what ``solve_stats_["trace"]`` / ``["bound_trace"]`` and
``plot("trace")`` show.

Ctrl-C: ``watching_interrupts`` tells the sink (``interrupted``) and the deadline
(``request_stop``, so that whatever runs on stops at its next poll) and raises
``KeyboardInterrupt`` as before; the estimators keep the best tree, mark it "feasible" and
re-raise once it is stored.
"""

from __future__ import annotations

import inspect
import signal
import sys
import threading
from collections.abc import Callable
from contextlib import contextmanager

from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline, ProgressSink

__all__ = ["UserProgress", "fit_progress", "watching_interrupts"]


def _accepts_lower_bound(callback) -> bool:
    """Whether ``callback`` can be called as ``callback(tree, seconds, lower_bound)``."""
    try:
        inspect.signature(callback).bind(None, 0.0, 1)
    except (TypeError, ValueError):
        return False
    return True


class UserProgress:
    """The callback of a fit's ``ProgressSink`` (``(upper, lower, seconds, tree)``).

    The user's ``callback`` is called as ``callback(tree, seconds)`` with each better tree
    (binary feature names attached), or -- when it takes a third argument -- as
    ``callback(tree, seconds, lower_bound)``, also when only the proven bound improved. A
    ``ProgressSink`` given as ``callback`` receives every report itself (the CLI's progress
    line is one). ``tree_line(tree, upper)`` and ``bound_line(lower)`` are the ``verbose``
    lines (``bound_line`` None: bounds are not printed).
    """

    def __init__(self, estimator, feature_names, tree_line: Callable[[Tree, float], str],
                 bound_line: Callable[[int], str] | None = None):
        self.name = type(estimator).__name__
        self.verbose = estimator.verbose
        self.callback = estimator.callback
        self.feature_names = tuple(str(n) for n in feature_names)
        self.tree_line, self.bound_line = tree_line, bound_line
        self.best: Tree | None = None
        self.upper = self.lower = None
        self.with_bound = (callable(self.callback) and not isinstance(self.callback, ProgressSink)
                           and _accepts_lower_bound(self.callback))

    def __call__(self, upper, lower, seconds: float, tree) -> None:
        better_tree = tree is not None and upper is not None and (
            self.upper is None or upper < self.upper)
        better_bound = lower is not None and (self.lower is None or lower > self.lower)
        if better_tree:
            tree = Tree(tree.feature, tree.left, tree.right, tree.label, tree.counts,
                        tree.n_features, self.feature_names)
            self.best, self.upper = tree, upper
            self._say(self.tree_line(tree, upper), seconds)
        if better_bound:
            self.lower = lower
            if self.bound_line is not None:
                self._say(self.bound_line(lower), seconds)
        if isinstance(self.callback, ProgressSink):
            self.callback.report(upper, lower, seconds, tree if better_tree else None)
        elif self.with_bound and (better_tree or better_bound) and self.best is not None:
            self.callback(self.best, seconds, self.lower)
        elif self.callback is not None and better_tree:
            self.callback(tree, seconds)

    def _say(self, text: str, seconds: float) -> None:
        if self.verbose:
            print(f"[{self.name}] {seconds:8.2f} s: {text}", file=sys.stderr, flush=True)


def fit_progress(user: UserProgress, *, lower: float | None = None) -> ProgressSink:
    """The sink of one fit, forwarding to ``user``; ``lower`` is the bound known from the
    start (one node, no errors), so that every trace entry has one."""
    return ProgressSink(user, lower=lower)


@contextmanager
def watching_interrupts(deadline: Deadline, progress: ProgressSink):
    """Tell ``progress`` and ``deadline`` when Ctrl-C arrives while the block runs, even where
    a search swallows the ``KeyboardInterrupt``.

    The exact searches stop on Ctrl-C and return their best tree (the MaxSAT loop, the branch
    and bound and the dynamic programme each catch ``KeyboardInterrupt`` for that). The
    estimators then keep that tree *and* re-raise the interrupt (``progress.interrupted_at``
    says it came), so that a script fitting in a loop, or a grid search, can still be
    stopped. The deadline's stop is requested too, so that nothing after the search that
    caught it (a later portfolio turn, Algorithm 3's drawing of trees) starts work. SIGINT is
    only watched on the main thread (Python delivers it nowhere else); the handler then
    behaves as the previous one did.
    """
    if threading.current_thread() is not threading.main_thread():
        yield progress
        return
    previous = signal.getsignal(signal.SIGINT)

    def note_and_interrupt(signum, frame):
        progress.interrupted(deadline.elapsed())
        deadline.request_stop()
        if callable(previous):
            previous(signum, frame)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note_and_interrupt)
    try:
        yield progress
    finally:
        signal.signal(signal.SIGINT, previous)
