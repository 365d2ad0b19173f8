"""Compiled kernels on first use: load them from numba's disk cache, or build that cache in a
background process while the caller searches in Python.

Why. The exact searches run numba kernels (``cache=True``). Loading them from the on-disk
cache takes about a second; compiling them the first time takes seconds to tens of seconds
(the branch and bound's ``solve`` alone is a large recursive function). A fresh install that
compiled in the foreground would spend that on its first fit; one that skipped the kernels
under a time limit would never build the cache and stay slow forever.

What happens instead, on a process that needs a family of kernels (``KERNEL_MODULES``):

* ``kernels_ready(name)``: already loaded here, or every public kernel of the module has an
  entry in the disk cache for this source file, this machine and numba (then ``load`` takes
  about a second);
* otherwise ``start_background_compile()`` starts one child process (``python -m
  occamlearn.trees.kernel_cache``) that compiles every kernel module into the disk cache and
  exits. The caller keeps searching with its Python engine and polls ``KernelsWhenReady``;
  when the cache is complete it calls ``load`` and switches to the compiled engine, carrying
  over what it proved. The child is reaped by a daemon thread (no zombie) and, if the caller
  ends first, it finishes on its own (new session: Ctrl-C in the terminal does not cut it
  short) so the next process starts warm.
* Only one compile runs per cache directory: the child holds a lock file (its pid); a lock
  whose process died, or older than ``LOCK_STALE_SECONDS``, is taken over. numba writes each
  cache file to a temporary name and renames it, so a killed child leaves whole files or none.
* ``load(name)`` never leaves a broken cache behind: if loading raises (a truncated or
  foreign file), the module's index files are emptied and ``KernelsUnavailable`` is raised,
  so the caller keeps its Python engine and a later compile rebuilds the cache.

``occamlearn warm-up`` (``warm_up_all``) compiles everything in the foreground, e.g. right
after ``pip install``; nothing is compiled at install time (no compiler is needed).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from occamlearn import stopping

__all__ = ["KERNEL_MODULES", "KernelsUnavailable", "KernelsWhenReady", "kernels_ready", "load",
           "start_background_compile", "warm_up_all"]

KERNEL_MODULES = {
    "bnb": "occamlearn.trees.mpdt.bnb.kernels",
    "error-budget": "occamlearn.trees.mpdt.error_budget.bnb_kernels",
    "dtmax-dp": "occamlearn.trees.dtmax.dp_kernels",
}
LOCK_NAME = "occamlearn-compile.lock"
LOG_NAME = "occamlearn-compile.log"
LOCK_STALE_SECONDS = 600.0  # a compile holding its lock longer than this is presumed dead
POLL_SECONDS = 0.25  # between two looks at the disk cache while a Python search runs

_loaded: set[str] = set()
_background: dict = {"process": None, "pid": None}


class KernelsUnavailable(RuntimeError):
    """The compiled kernels could not be loaded (broken cache, numba failure)."""


def _module(name: str):
    if name not in KERNEL_MODULES:
        raise ValueError(f"name={name!r} is not a kernel module; use one of "
                         f"{sorted(KERNEL_MODULES)}.")
    return importlib.import_module(KERNEL_MODULES[name])


def _dispatchers(module, public_only: bool = True) -> list:
    """The numba dispatchers of ``module`` (its entry points, or all with ``public_only``)."""
    from numba.core.dispatcher import Dispatcher

    return [value for key, value in vars(module).items() if isinstance(value, Dispatcher)
            and not (public_only and key.startswith("_"))]


def _on_disk(dispatcher) -> bool:
    """Whether numba's disk cache holds a usable compile of ``dispatcher``: an index entry for
    this source file (its stamp), bytecode and machine, and the data file it names."""
    try:
        cache = dispatcher._cache
        cache_file = cache._cache_file
        index = cache_file._load_index()
        codegen = dispatcher.targetctx.codegen()
        return any(key == cache._index_key(key[0], codegen)
                   and os.path.exists(os.path.join(cache_file._cache_path, data_name))
                   for key, data_name in index.items())
    except Exception:  # unreadable index, or numba internals moved: not usable
        return False


def kernels_ready(name: str) -> bool:
    """True if the kernels of ``name`` are loaded in this process or complete on disk."""
    if name in _loaded:
        return True
    try:
        module = _module(name)
        return all(_on_disk(dispatcher) for dispatcher in _dispatchers(module))
    except ImportError:  # numba missing or broken: never ready
        return False


def _flush(module) -> None:
    """Empty the cache index of every kernel of ``module`` (numba then recompiles them)."""
    for dispatcher in _dispatchers(module, public_only=False):
        try:
            dispatcher._cache.flush()
        except Exception:
            index = getattr(getattr(dispatcher._cache, "_cache_file", None), "_index_path", None)
            if index is not None and os.path.exists(index):
                os.remove(index)


def load(name: str, **options) -> float:
    """Load (or, if the cache is missing, compile in the foreground) the kernels of ``name``
    by running its ``warm_up(**options)``; seconds taken. A failure empties the module's
    cache index and raises ``KernelsUnavailable``."""
    if name not in KERNEL_MODULES:
        _module(name)  # the ValueError naming the modules
    started = stopping.CLOCK()
    module = None
    try:
        module = _module(name)
        module.warm_up(**options)
    except Exception as error:
        try:
            if module is not None:
                _flush(module)
        except Exception:
            pass
        raise KernelsUnavailable(f"the {name} kernels failed to load ({type(error).__name__}: "
                                 f"{error}); their disk cache was reset") from error
    if not options:
        _loaded.add(name)
    return stopping.CLOCK() - started


def _lock_path() -> Path:
    """The lock file, in the cache directory of the first kernel module."""
    module = _module(next(iter(KERNEL_MODULES)))
    cache_file = _dispatchers(module)[0]._cache._cache_file
    return Path(cache_file._cache_path) / LOCK_NAME


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


def start_background_compile() -> bool:
    """Start the child that compiles every kernel module into the disk cache, unless this
    process already started one that is still running. True if a compile is (now) running
    from here; False if it could not start (then the caller stays on its Python engine)."""
    process = _background["process"]
    if process is not None and _background["pid"] == os.getpid() and process.poll() is None:
        return True
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        log = open(_lock_path().with_name(LOG_NAME), "w")  # noqa: SIM115 (child's stderr)
    except ImportError:  # no numba: nothing to compile
        return False
    except OSError:
        log = subprocess.DEVNULL
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "occamlearn.trees.kernel_cache"], env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            close_fds=True)
    except OSError:
        return False
    finally:
        if log is not subprocess.DEVNULL:
            log.close()
    _background.update(process=process, pid=os.getpid())
    threading.Thread(target=process.wait, name="occamlearn-kernel-compile-reaper",
                     daemon=True).start()
    return True


def background_process():
    """The compile child started by this process (a ``subprocess.Popen``), or None."""
    return _background["process"] if _background["pid"] == os.getpid() else None


class KernelsWhenReady:
    """A cheap poll for a Python search: call it (it looks at the disk at most every
    ``POLL_SECONDS``); True once the kernels of ``name`` are complete on disk. Starts the
    background compile if needed; ``started`` says whether one runs (else it stays False)."""

    def __init__(self, name: str):
        self.name = name
        self.ready = kernels_ready(name)
        self.started = self.ready or start_background_compile()
        self._next_look = stopping.CLOCK() + POLL_SECONDS

    def __call__(self) -> bool:
        if self.ready or not self.started:
            return self.ready
        now = stopping.CLOCK()
        if now >= self._next_look:
            self._next_look = now + POLL_SECONDS
            self.ready = kernels_ready(self.name)
        return self.ready


def warm_up_all() -> dict:
    """Compile (or load) every kernel module in this process; seconds per module."""
    return {name: load(name) for name in KERNEL_MODULES}


def _compile_main() -> int:
    """The child: take the lock, compile every module into the disk cache, release."""
    lock = _lock_path()
    if not _take_lock(lock):
        return 0  # another process is compiling the same cache
    try:
        for name in KERNEL_MODULES:
            _module(name).warm_up()
    finally:
        try:
            lock.unlink()
        except FileNotFoundError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(_compile_main())
