"""A fitted process ends without the garbage collector's exit passes.

Why. Between a script's last statement and the end of its process, CPython tears the
interpreter down, and nearly all of that time is the cyclic garbage collector: finalisation
runs several full collections, each walking every object the process still holds. After a
fit that is scikit-learn, scipy, pandas, numba and the loaded kernels, 150,000-200,000
objects, and the walk took most of the wall between the script's last line and the end of
its process, outside any ``time_limit`` the user gave, and more under load. With the
collector frozen at exit the same teardown takes about a tenth of that
(``benchmarks/results/limits_exit_ab.md``, base against head).

What ``freeze_collector_at_exit`` changes, and what it keeps. Once per process (the first
fit) it registers an ``atexit`` handler that calls ``gc.freeze()``:

* every ``atexit`` handler still runs, in the usual order (last registered, first run); those
  registered before the first fit run after this one, with the collector frozen;
* the teardown still releases every object by its reference count, as before (a file that
  only a module refers to is closed and flushed);
* what is skipped is the search for reference cycles among objects still alive at exit.
  Their memory returns to the system with the process, and the ``__del__`` of an object in
  such a cycle does not run, which Python does not promise at exit either (the data model,
  ``object.__del__``: "It is not guaranteed that ``__del__()`` methods are called for objects
  that still exist when the interpreter exits").

Nothing changes while the process runs: the collector is frozen only once exiting has begun.
"""

from __future__ import annotations

import atexit
import gc
import threading

__all__ = ["freeze_collector_at_exit"]

_registered = threading.Event()
_lock = threading.Lock()


def _freeze() -> None:
    gc.freeze()


def freeze_collector_at_exit() -> None:
    """Make this process skip the collector's passes when it exits (once per process; see
    the module docstring)."""
    if _registered.is_set():
        return
    with _lock:
        if not _registered.is_set():
            atexit.register(_freeze)
            _registered.set()
