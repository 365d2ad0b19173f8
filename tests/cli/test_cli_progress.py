"""``occamlearn fit``'s progress display: a live tqdm line on a terminal, plain lines elsewhere."""

import io

import pytest

from occamlearn.cli.progress import FitProgress
from occamlearn.model.tree import Tree


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _tree(n_nodes):
    if n_nodes == 1:
        return Tree([-1], [-1], [-1], [0], [[1, 0]], 1)
    return Tree([0, -1, -1], [1, -1, -1], [2, -1, -1], [-1, 0, 1], [[1, 1], [1, 0], [0, 1]], 1)


def test_live_line_on_a_terminal_shows_best_size_bound_and_time():
    stream = Terminal()
    progress = FitProgress(quiet=False, stream=stream)
    assert progress.live and progress.estimator_verbose == 0
    progress.sink.report(3, None, 0.5, _tree(3))
    progress.sink.report(None, 3, 0.7)  # a live lower bound
    progress.close(lower_bound=3)
    text = stream.getvalue()
    assert "occamlearn fit: searching" in text
    assert "best 3 nodes, proven lower bound 3 [00:0" in text


def test_plain_lines_elsewhere_and_nothing_with_quiet():
    stream = io.StringIO()
    progress = FitProgress(quiet=False, stream=stream)
    assert not progress.live and progress.estimator_verbose == 1
    progress.sink.report(1, 1, 0.1, _tree(1))
    progress.close(lower_bound=1)
    assert stream.getvalue() == ""  # the estimator's own lines are the plain progress
    quiet = FitProgress(quiet=True, stream=Terminal())
    assert not quiet.live
    quiet.close()


@pytest.mark.slow  # a child process (pty.fork)
def test_fit_on_a_pseudo_terminal_draws_the_live_line():
    import os
    import pty
    import sys

    pid, fd = pty.fork()  # the pty reports its size as 0 x 0: the line must still show
    if pid == 0:  # pragma: no cover - the child
        os.execv(sys.executable, [sys.executable, "-m", "occamlearn", "fit", "--dataset",
                                  "corral", "--time-limit", "30"])
    output = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    text = output.decode(errors="replace").replace("\r", "\n")
    assert os.WEXITSTATUS(status) == 0
    assert "occamlearn fit: best 13 nodes, proven lower bound 13 [" in text
    assert "[MinimumPureTreeClassifier]" not in text  # the live line replaces the plain lines
    assert "size: 13 nodes, status optimal" in text
