"""``deep_recursion``: Python's recursion limit raised while a search runs, and restored after.

The pure-Python engines of the branch and bound recurse once per tree level and per node of
the subset search, which can pass Python's default limit of 1,000 frames on deep trees.
The limit is process-wide, so it is raised for the time a search runs, not at import:
``with deep_recursion():`` (or ``@deep_recursion()`` on a search's entry point) raises it to
at least ``frames`` and the last search to leave puts back the limit found by the first to
enter (a count under a lock keeps concurrent or nested searches from lowering it under one
another).
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

__all__ = ["SEARCH_FRAMES", "deep_recursion"]

SEARCH_FRAMES = 20_000

_lock = threading.Lock()
_active = {"count": 0, "restore": None}


@contextmanager
def deep_recursion(frames: int = SEARCH_FRAMES):
    """Run the block with ``sys.getrecursionlimit() >= frames``; restore the limit after."""
    with _lock:
        if _active["count"] == 0:
            _active["restore"] = sys.getrecursionlimit()
        _active["count"] += 1
        sys.setrecursionlimit(max(sys.getrecursionlimit(), frames))
    try:
        yield
    finally:
        with _lock:
            _active["count"] -= 1
            if _active["count"] == 0:
                sys.setrecursionlimit(_active["restore"])
