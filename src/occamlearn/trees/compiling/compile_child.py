"""The background compile child of ``kernel_cache``:

    python -m occamlearn.trees.compiling.compile_child [--parent PID] FAMILY ...

compiles those kernel families into numba's disk cache and exits.

What it promises the fit that started it (``kernel_cache.start_background_compile``):

* it takes little from the fit: it runs at low priority (``os.nice(NICE)``), in one thread;
* it ends with the process that started it: on Linux the kernel kills it when its parent
  exits (``PR_SET_PDEATHSIG``, immediate even inside a long LLVM pass that holds the GIL);
  elsewhere a thread looks at the parent every ``PARENT_POLL_SECONDS``. What it finished is
  kept: numba writes each kernel's cache file once it is compiled, atomically;
* one compile of a family at a time per cache directory: a lock file per family holds the
  compiling pid; a lock whose process died, or older than ``LOCK_STALE_SECONDS``, is taken
  over (a child killed with its parent leaves such a lock);
* it logs what it did, one JSON line per event (with its pid and CPU seconds) in a log file
  beside the locks, for ``benchmarks/cold_start.py`` and the tests.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from occamlearn import stopping
from occamlearn.trees.compiling.kernel_cache import (
    KERNEL_MODULES,
    _cache_folder,
    _family_names,
    _module,
    _write_stamp,
    kernels_ready,
)

__all__ = ["LOCK_NAME", "LOG_NAME", "NICE"]

LOCK_NAME = "occamlearn-compile.lock"
LOG_NAME = "occamlearn-compile.log"
LOCK_STALE_SECONDS = 600.0  # a compile holding its lock longer than this is presumed dead
PARENT_POLL_SECONDS = 0.2  # between two looks at the parent
NICE = 10  # the priority step: the fit it serves comes first


def _lock_path(name: str) -> Path:
    return _cache_folder(name) / LOCK_NAME.replace(".lock", f"-{name}.lock")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _take_lock(path: Path) -> bool:
    """Create the lock holding our pid; False if a live compile holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = int(path.read_text().strip() or 0)
                age = time.time() - path.stat().st_mtime
            except (OSError, ValueError):
                holder, age = 0, LOCK_STALE_SECONDS + 1
            if holder and _alive(holder) and age < LOCK_STALE_SECONDS:
                return False
            try:  # stale: the holder died (killed mid-compile, say)
                path.unlink()
            except FileNotFoundError:
                pass
            continue
        with os.fdopen(handle, "w") as out:
            out.write(str(os.getpid()))
        return True
    return False




def _log(event: str, **data) -> None:
    """One JSON line on the child's stderr (the log file beside the lock): what it compiled
    and when, for ``benchmarks/cold_start.py``'s timeline. ``stopping.CLOCK`` (perf_counter:
    CLOCK_MONOTONIC on Linux, one clock for every process of the machine) so that the parent's
    times compare with the child's."""
    times = os.times()  # CPU seconds of this child so far
    print(json.dumps({"event": event, "at": stopping.CLOCK(), "pid": os.getpid(),
                      "cpu": round(times.user + times.system, 3), **data}),
          file=sys.stderr, flush=True)


def _open_log(name: str) -> None:
    """Point the child's stderr at its log file beside the locks (numba's cache folder)."""
    try:
        sys.stderr = open(_cache_folder(name) / LOG_NAME, "a")  # noqa: SIM115
    except OSError:
        pass


def _die_with_parent(parent: int) -> None:
    """On Linux, ask the kernel to kill this process when its parent exits
    (``PR_SET_PDEATHSIG``): at once, even inside a long LLVM pass that holds the GIL and so
    keeps the watching thread of ``_end_with_parent`` waiting. Its locks are then stale (a dead
    pid) and taken over by the next compile."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError, ValueError):
        return
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(0)


def _end_with_parent(parent: int, locks: list) -> None:
    """A daemon thread of the child: once ``parent`` has exited (this process was handed to
    another parent), release the locks held and exit at once (where ``_die_with_parent`` is
    not available, and for the locks)."""
    _die_with_parent(parent)

    def watch():
        while os.getppid() == parent and _alive(parent):
            time.sleep(PARENT_POLL_SECONDS)
        _log("parent exited: stopping")
        for lock in list(locks):
            try:
                lock.unlink()
            except OSError:
                pass
        os._exit(0)

    threading.Thread(target=watch, name="occamlearn-compile-parent-watch", daemon=True).start()


def _compile_families(names: tuple[str, ...], parent: int | None = None) -> int:
    """The child: at low priority, for each family in ``names`` not complete on disk, take its
    lock, compile it into the disk cache (its ``warm_up``), release; end with ``parent``."""
    started = stopping.CLOCK()
    try:
        os.nice(NICE)
    except (AttributeError, OSError):  # no nice here: the same priority
        pass
    locks: list[Path] = []
    if parent is not None:
        _end_with_parent(parent, locks)
    _open_log(names[0])
    _log("started", families=list(names), at=started)
    for name in names:
        if kernels_ready(name):
            _write_stamp(name)
            _log("already complete", module=name)
            continue
        lock = _lock_path(name)
        if not _take_lock(lock):
            _log("another compile holds the lock", module=name)
            continue
        locks.append(lock)
        try:
            _module(name).warm_up()
            _write_stamp(name)
            _log("compiled", module=name)
        finally:
            try:
                locks.remove(lock)
                lock.unlink()
            except (ValueError, FileNotFoundError):
                pass
    return 0


def _main(argv: list[str]) -> int:
    usage = ("usage: python -m occamlearn.trees.compiling.compile_child [--parent PID] FAMILY ...; "
             f"families: {', '.join(KERNEL_MODULES)}")
    parent = None
    if argv[:1] == ["--parent"]:
        if len(argv) < 2 or not argv[1].isdigit():
            sys.exit(usage)
        parent, argv = int(argv[1]), argv[2:]
    try:
        names = _family_names(argv or None)
    except ValueError as error:
        sys.exit(f"{usage}; {error}")
    return _compile_families(names, parent)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
