"""The anytime state of an exact search's driver: best tree, proven bound, progress, status.

Every branch and bound driver runs the same outer loop: offer an incumbent (a greedy tree),
then raise a proven lower bound until it meets the incumbent's size, each step reported to
the ``occamlearn.stopping.ProgressSink`` as ``(upper, lower, seconds, model)``. A ``Stop``
(deadline, stop request) or Ctrl-C ends the loop; the best tree comes back "feasible" with
the bound proven so far (a Ctrl-C is recorded, ``interrupted``, and not re-raised, so a
script gets a result). ``Anytime`` holds that state and runs the loop's body.
"""

from __future__ import annotations

from collections.abc import Callable

from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.exact.stop import Stop

__all__ = ["NO_TREE", "Anytime"]

NO_TREE = 2**31 - 1  # upper bound while no tree is known


class Anytime:
    """Best tree (by ``size``), proven lower bound, trace and stop outcome of one search."""

    def __init__(self, deadline: Deadline | None, progress: ProgressSink | None,
                 size: Callable = lambda tree: tree.n_nodes):
        self.deadline = deadline  # None: no limit
        self.progress = progress
        self.size = size
        self.started = CLOCK()
        self.tree = None
        self.upper, self.lower = NO_TREE, 1
        self.trace: list = []          # (seconds, upper, lower) at each move
        self.improvements: list = []   # (seconds, upper) at each better tree
        self.stopped = self.interrupted = False

    def seconds(self) -> float:
        """Seconds since the deadline was made (the start of ``fit``): the progress clock."""
        return self.duration() if self.deadline is None else self.deadline.elapsed()

    def duration(self) -> float:
        """Seconds since this search started."""
        return CLOCK() - self.started

    def offer(self, tree=None, lower: int | None = None) -> None:
        """A candidate tree (kept if smaller) and/or a proven lower bound (kept if higher)."""
        seconds = self.seconds()
        if tree is not None and self.size(tree) < self.upper:
            self.tree, self.upper = tree, self.size(tree)
            self.improvements.append((seconds, self.upper))
        else:
            tree = None
        if lower is not None and lower > self.lower:
            self.lower = lower
        elif tree is None:
            return
        self.trace.append((seconds, self.upper, self.lower))
        if self.progress is not None:
            self.progress.report(self.upper, self.lower, seconds, tree)

    def run(self, body: Callable[[], None]) -> None:
        """``body()``, ended early by ``Stop`` or Ctrl-C (recorded, not re-raised)."""
        try:
            body()
        except Stop:
            self.stopped = True
        except KeyboardInterrupt:
            self.interrupted = True
            if self.progress is not None:
                self.progress.interrupted(self.seconds())

    @property
    def proven(self) -> int:
        """The proven lower bound, never above the best tree's size."""
        return min(self.lower, self.upper)

    @property
    def status(self) -> str:
        if self.tree is None:
            return "unknown"
        return "optimal" if self.proven == self.upper else "feasible"
