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
  exits; on a machine with ``SIDE_COMPILE_MIN_CORES`` cores (and without
  ``OCCAMLEARN_COMPILE_PROCESSES=1`` in the environment) it first starts a side child
  that compiles one share of ``solve``'s helper kernels while the main child compiles the
  other (``bnb.callee_signatures``), then the memo-table and error-budget kernels; what one
  child saved the other loads instead of compiling (``benchmarks/results/cold_compile.md``,
  ``cold_typing.md``). Once past what a first fit
  waits for (``FIRST_FIT_NEEDS``) both children lower their priority. The caller keeps searching with its Python engine and polls ``KernelsWhenReady``;
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

* ``compile_early()`` starts that child sooner, where a fit begins (before it reads and
  binarises data), without importing numba in the caller: a complete compile leaves a stamp
  file whose name hashes the kernel sources, numba, Python and ``NUMBA_CACHE_DIR``; with the
  stamp there it does nothing, else the child looks at the cache and compiles what is missing.

* Stale machine code. numba keys a kernel's disk cache to its own source file (date and
  size), but a cached kernel also holds the compiled code of every njit function it calls
  from other modules (``trees.exact.packed``, ``trees.exact.nesting_kernels``, the dtmax
  memo helpers): edit one of those and numba would go on loading the old code.
  ``kernel_sources.key_cache_to_sources(__name__)``, called at the end of each kernel module
  that calls another module's kernels, adds to its dispatchers' cache stamp a hash of the contents of
  every occamlearn module it imports, transitively (``sources_key``); numba then treats an
  entry built from other callee sources as absent and saves the recompiled one under the new
  stamp, with its own atomic writes (no flush, so no race with a compile in another process).
  The stamp of ``compile_early`` hashes the same files.

``occamlearn warm-up`` (``warm_up_all``) compiles everything in the foreground, e.g. right
after ``pip install``; nothing is compiled at install time (no compiler is needed). Compiling
costs about 6-8 CPU seconds for the branch and bound (numba's typing, and LLVM's optimising
of each kernel together with the kernels it calls; ``benchmarks/results/cold_start.md``,
``cold_typing.md``), so a cold first fit is that much slower than a warm one.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from occamlearn import stopping
from occamlearn.trees.kernel_sources import sources_key

__all__ = ["KERNEL_MODULES", "KernelsUnavailable", "KernelsWhenReady", "compile_early",
           "kernels_ready", "load", "start_background_compile", "warm_up_all"]

KERNEL_MODULES = {
    "bnb": "occamlearn.trees.mpdt.bnb.kernels",
    "error-budget": "occamlearn.trees.mpdt.error_budget.bnb_kernels",
    "dtmax-dp": "occamlearn.trees.dtmax.binary.kernels",
    "dtmax-ordered": "occamlearn.trees.dtmax.ordered.depth2",
    "one-error": "occamlearn.trees.mpdt.error_budget.one_error_kernels",
}
LOCK_NAME = "occamlearn-compile.lock"
LOG_NAME = "occamlearn-compile.log"
LOCK_STALE_SECONDS = 600.0  # a compile holding its lock longer than this is presumed dead
POLL_SECONDS = 0.25  # between two looks at the disk cache while a Python search runs

# The side child runs only with this many cores or more: with fewer it would take CPU from
# the main compile, which the switch waits for.
SIDE_COMPILE_MIN_CORES = 2
# What the side child compiles, in order: functions (module name, function) whose kernels
# the main child would otherwise compile itself; it then loads them from the disk cache.
# First its share of the helpers of ``solve`` (``bnb.callee_signatures``: the main child
# compiles the other share, ``MAIN_FIRST_WARM_UPS``, before ``solve``), then the memo-table
# kernels, then the error-budget bound.
SIDE_WARM_UPS = (("bnb-callees", "warm_up_callees"), ("bnb", "warm_up_table"),
                 ("error-budget", "warm_up"))
MAIN_FIRST_WARM_UPS = (("bnb-callees", "warm_up_main_part"),)
SIDE_MODULES = {"bnb-callees": "occamlearn.trees.mpdt.bnb.callee_signatures"}
# What a first minimum-tree fit waits for (its switch to the compiled branch and bound); the
# children compile these first, then the rest (the error-budget bound, DT(max)'s dynamic
# programme) at this lower priority.
FIRST_FIT_NEEDS = frozenset({"bnb", "bnb-callees"})
NICE_AFTER_FIRST_FIT_NEEDS = 10

_loaded: set[str] = set()
_background: dict = {"process": None, "pid": None}
_early: dict = {}
_niced: dict = {}
_starting = threading.Lock()


class KernelsUnavailable(RuntimeError):
    """The compiled kernels could not be loaded (broken cache, numba failure)."""


def _module(name: str):
    if name in SIDE_MODULES:
        return importlib.import_module(SIDE_MODULES[name])
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


def _names(part: str) -> tuple[str, str]:
    """(lock file, log file) names of the compile child ``part``."""
    if part == "main":
        return LOCK_NAME, LOG_NAME
    return LOCK_NAME.replace(".lock", f"-{part}.lock"), LOG_NAME.replace(".log", f"-{part}.log")


def _lock_path(part: str = "main") -> Path:
    """The lock file of ``part``, in the cache directory of the first kernel module."""
    module = _module(next(iter(KERNEL_MODULES)))
    cache_file = _dispatchers(module)[0]._cache._cache_file
    return Path(cache_file._cache_path) / _names(part)[0]


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


def _spawn(part: str):
    """Start the compile child of ``part`` ("main" or "side"); its ``Popen`` or None. The
    parent imports nothing for this (no numba): the child opens its own log."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "occamlearn.trees.kernel_cache"]
            + ([] if part == "main" else [part]), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            close_fds=True)
    except OSError:
        return None
    threading.Thread(target=process.wait, name="occamlearn-kernel-compile-reaper",
                     daemon=True).start()
    return process


def start_background_compile() -> bool:
    """Start the child that readies every kernel module in the disk cache (it exits at once
    if they are complete), unless this process already started one that still runs. True if
    a compile is (now) running from here; False if it could not start (then the caller stays
    on its Python engine)."""
    with _starting:  # an early start and a search may ask at the same moment
        process = _background["process"]
        if process is not None and _background["pid"] == os.getpid() and process.poll() is None:
            return True
        process = _spawn("main")
        if process is None:
            return False
        _background.update(process=process, pid=os.getpid())
        return True


def background_process():
    """The main compile child started by this process (a ``subprocess.Popen``), or None."""
    return _background["process"] if _background["pid"] == os.getpid() else None


def _stamp_path() -> Path:
    """Where a complete compile leaves its stamp: a name that changes with everything numba's
    cache depends on (the kernel sources and every module they call, by content, as
    ``key_cache_to_sources`` keys numba's entries; numba; Python; ``NUMBA_CACHE_DIR``), found
    without importing numba (a few milliseconds)."""
    import importlib.util

    numba = importlib.util.find_spec("numba")  # finds the package without importing it
    version = Path(numba.origin).with_name("_version.py") if numba and numba.origin else None
    try:
        sources = [sources_key(module) for module in KERNEL_MODULES.values()]
    except (ValueError, SyntaxError) as error:  # unreadable sources: no stamp to trust
        raise OSError(f"kernel sources unreadable: {error}") from error
    key = json.dumps([sys.version, sys.executable, os.environ.get("NUMBA_CACHE_DIR", ""),
                      sources,
                      # numba's version file: changes with an upgrade
                      version.read_text() if version is not None and version.exists() else ""])
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "occamlearn" / f"kernels-ready-{hashlib.sha1(key.encode()).hexdigest()}"


def _write_stamp() -> None:
    try:
        path = _stamp_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:  # no writable cache home: every early start spawns the (quick) check
        pass


def compile_early() -> None:
    """Begin readying the kernels now, without waiting and without importing numba here:
    unless the stamp of a complete compile for these sources is there (a few file look-ups),
    start the background child, which exits at once if the kernels are complete and else
    compiles them. Called where a search is certain to follow some other work (a fit
    reading and binarising its data), so that the compile gets a head start; at most once
    per process. The search still checks the cache itself (``KernelsWhenReady``)."""
    if _early.get("pid") == os.getpid():
        return
    _early["pid"] = os.getpid()
    try:
        if _stamp_path().exists():
            return
    except OSError:
        pass
    start_background_compile()


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
    seconds = {name: load(name) for name in KERNEL_MODULES}
    _write_stamp()
    return seconds


def _log(event: str, **data) -> None:
    """One JSON line on the child's stderr (the log file beside the lock): what it compiled
    and when, for ``benchmarks/cold_start.py``'s timeline. ``stopping.CLOCK`` (perf_counter:
    CLOCK_MONOTONIC on Linux, one clock for every process of the machine) so that the parent's
    times compare with the child's."""
    times = os.times()  # CPU seconds of this child so far
    print(json.dumps({"event": event, "at": stopping.CLOCK(),
                      "cpu": round(times.user + times.system, 3), **data}),
          file=sys.stderr, flush=True)


def _after_the_first_fit_needs(name: str) -> None:
    """Before compiling ``name``: once past what a first fit waits for (``FIRST_FIT_NEEDS``),
    lower this child's CPU priority (``os.nice``), so that the fit, by then on its compiled
    engine, is not slowed by the compile of kernels it does not use."""
    if name not in FIRST_FIT_NEEDS and not _niced.get(os.getpid()):
        _niced[os.getpid()] = True
        try:
            os.nice(NICE_AFTER_FIRST_FIT_NEEDS)
        except (AttributeError, OSError):  # no nice here: the same priority
            pass


def _side_wanted() -> bool:
    """A side child: with ``SIDE_COMPILE_MIN_CORES`` cores or more, unless the environment
    says ``OCCAMLEARN_COMPILE_PROCESSES=1``."""
    if os.environ.get("OCCAMLEARN_COMPILE_PROCESSES", "").strip() == "1":
        return False
    return (os.cpu_count() or 1) >= SIDE_COMPILE_MIN_CORES


def _open_log(part: str) -> None:
    """Point the child's stderr at its log file beside the lock (numba's cache folder)."""
    try:
        sys.stderr = open(_lock_path(part).with_name(_names(part)[1]), "w")  # noqa: SIM115
    except OSError:
        pass


def _compile_main(part: str = "main") -> int:
    """The child: take the lock of ``part``, compile its kernels into the disk cache (main:
    every module, after starting the side child, first thing, when the machine has the
    cores, and then its share of ``solve``'s helpers, ``MAIN_FIRST_WARM_UPS``; side:
    ``SIDE_WARM_UPS``), release. Each child first looks at the cache and, when
    every kernel is there, stops (the main child leaving the stamp ``compile_early`` looks
    for)."""
    started = stopping.CLOCK()
    side = part == "main" and _side_wanted()
    if side:
        _spawn("side")  # first thing: its numba import and ours overlap
    _open_log(part)
    _log("started", part=part, at=started)
    _log("numba imported", part=part)
    if all(kernels_ready(name) for name in KERNEL_MODULES):
        if part == "main":
            _write_stamp()
        _log("already complete", part=part)
        return 0
    lock = _lock_path(part)
    if not _take_lock(lock):
        _log("another compile holds the lock", part=part)
        return 0  # another process is compiling the same cache
    _log("locked", part=part)
    try:
        if part == "main":
            for name, function in MAIN_FIRST_WARM_UPS if side else ():
                getattr(_module(name), function)()
                _log("compiled", module=f"{name}.{function}")
            for name in KERNEL_MODULES:
                _after_the_first_fit_needs(name)
                _module(name).warm_up()
                _log("compiled", module=name)
            _write_stamp()
        else:
            for name, function in SIDE_WARM_UPS:
                _after_the_first_fit_needs(name)
                getattr(_module(name), function)()
                _log("compiled", module=f"{name}.{function}")
    finally:
        try:
            lock.unlink()
        except FileNotFoundError:
            pass
    return 0


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["side"]):
        sys.exit(f"usage: python -m occamlearn.trees.kernel_cache [side]; got {sys.argv[1:]}")
    sys.exit(_compile_main(*sys.argv[1:]))
