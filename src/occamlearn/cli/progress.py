"""What ``occamlearn fit`` shows while it searches.

On a terminal: one live line (tqdm) with the best tree so far, the proven lower bound when
one is known, and the elapsed time, refreshed every half second. Elsewhere (a file, a pipe,
a CI log): the estimator's plain lines, one per better tree; with ``-q`` nothing.

The display is an ``occamlearn.stopping.ProgressSink`` (``FitProgress.sink``) given to the
estimator as its ``callback``: the fit's own sink passes every report on to it, so the line
shows each better tree and each better proven lower bound as the search finds them, with
the same ``(upper, lower, seconds, tree)`` every engine reports.
"""

from __future__ import annotations

import shutil
import sys
import threading

from occamlearn.stopping import ProgressSink


class FitProgress:
    """The progress display of one fit; ``live`` is True when it draws a tqdm line."""

    def __init__(self, quiet: bool, what: str = "nodes", stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.what = what
        self.best = None
        self.lower_bound = None
        self.bar = None
        self._stop = threading.Event()
        self._thread = None
        self.live = False
        self.sink = ProgressSink(self.report)  # the estimator's ``callback``
        if quiet or not _is_terminal(self.stream):
            return
        try:
            from tqdm import tqdm
        except ImportError:  # plain lines then
            return
        self.live = True
        # a terminal that reports its size as 0 x 0 (a fresh pty) would get an empty line
        size = shutil.get_terminal_size((80, 24))
        self.bar = tqdm(total=None, file=self.stream, bar_format="{desc} [{elapsed}]",
                        ncols=size.columns or 80, nrows=size.lines or 24, leave=True)
        self._describe()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()

    @property
    def estimator_verbose(self) -> int:
        """``verbose`` for the estimator: its plain lines unless the live line replaces them
        (the caller passes 0 with ``-q``)."""
        return 0 if self.live else 1

    def report(self, upper, lower, seconds, tree) -> None:
        """The sink's callback: a better tree (its size is shown, also for DT(max), whose
        ``upper`` is the errors) and/or a better proven lower bound on the size."""
        if tree is not None:
            self.best = tree.n_nodes
        if lower is not None:
            self.lower_bound = int(lower)
        self._describe()

    def _describe(self) -> None:
        if self.bar is None:
            return
        best = "searching" if self.best is None else f"best {self.best} {self.what}"
        bound = "" if self.lower_bound is None else f", proven lower bound {self.lower_bound}"
        self.bar.set_description_str(f"occamlearn fit: {best}{bound}", refresh=True)

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.bar.refresh()
            except Exception:  # noqa: BLE001 - a display hiccup must not end the fit
                return

    def close(self, lower_bound=None) -> None:
        """Stop the live line, showing the final lower bound if known."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self.bar is not None:
            if lower_bound is not None:
                self.lower_bound = int(lower_bound)
            self._describe()
            self.bar.close()
            self.bar = None


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
