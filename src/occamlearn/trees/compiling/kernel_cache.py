"""Compiled kernels on first use: load them from numba's disk cache, or build that cache in a
background process while the caller searches in Python.

Why. The exact searches run numba kernels (``cache=True``), in families (``KERNEL_MODULES``:
the pure branch and bound, the error-budget bounds, the one-deletion search, DT(max)'s two
programmes). Loading a family from the disk cache takes about a second; compiling it the first
time takes CPU seconds to tens of seconds (``COMPILE_SECONDS``, measured). A fresh install
that compiled in the foreground would spend that on its first fit; one that skipped the
kernels under a time limit would never build the cache and stay slow forever.

What happens instead, for the families a fit needs (and only those):

* ``kernels_ready(name)``: already loaded here, or every public kernel of the family has an
  entry in the disk cache for these sources, this machine and numba (then ``load`` takes
  about a second);
* otherwise ``start_background_compile(names)`` starts one child process
  (``trees.compiling.compile_child``) that compiles those families into the disk cache and exits. It
  runs at low priority on one core and ends with the process that started it (within about a
  second: it never outlives a script or a command, and never slows the next one); what it
  finished is kept, so a next fit starts from there. The caller keeps searching with its
  Python engine and polls ``KernelsWhenReady``; when the family is complete it calls ``load``
  and switches to the compiled engine, carrying over what it proved. The child is reaped by a
  daemon thread (no zombie); one compile of a family runs per cache directory (a lock file).
* ``load(name)`` never leaves a broken cache behind: if loading raises (a truncated or
  foreign file), the family's index files are emptied and ``KernelsUnavailable`` is raised,
  so the caller keeps its Python engine and a later compile rebuilds the cache.

* ``compile_early(names)`` starts that child sooner, where a fit begins (before it reads and
  binarises data), without importing numba in the caller: a complete compile of a family
  leaves a stamp file whose name hashes its sources, numba, Python and ``NUMBA_CACHE_DIR``;
  with the stamps there it does nothing, else the child looks at the cache and compiles what
  is missing.

* Stale machine code. numba keys a kernel's disk cache to its own source file (date and
  size), but a cached kernel also holds the compiled code of every njit function it calls
  from other modules (``trees.exact.packed``, ``trees.exact.nesting_kernels``, the dtmax
  memo helpers): edit one of those and numba would go on loading the old code.
  ``kernel_sources.key_cache_to_sources(__name__)``, called at the end of each kernel module
  that calls another module's kernels, adds to its dispatchers' cache stamp a hash of the
  contents of every occamlearn module it imports, transitively (``sources_key``); numba then
  treats an entry built from other callee sources as absent and saves the recompiled one
  under the new stamp, with its own atomic writes. The stamps of ``compile_early`` hash the
  same files.

``occamlearn warm-up`` (``warm_up_all``) compiles every family in the foreground, e.g. right
after ``pip install``, and says how far it is; nothing is compiled at install time (no
compiler is needed). ``benchmarks/results/cold_start.md`` holds the measured costs.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from occamlearn import stopping
from occamlearn.kernel_sources import sources_key

__all__ = ["COMPILE_SECONDS", "KERNEL_MODULES", "KernelsUnavailable", "KernelsWhenReady",
           "compile_early", "compiling", "foreground_compile_fits", "kernels_ready", "load",
           "start_background_compile", "warm_up_all"]

KERNEL_MODULES = {
    "bnb": "occamlearn.trees.mpdt.bnb.kernels",
    "error-budget": "occamlearn.trees.mpdt.error_budget.bnb_kernels",
    "one-error": "occamlearn.trees.mpdt.error_budget.one_error_kernels",
    "dtmax-dp": "occamlearn.trees.dtmax.binary.kernels",
    "dtmax-ordered": "occamlearn.trees.dtmax.ordered.depth2",
}
# CPU seconds to compile each family into an empty cache, alone in its process (a family that
# calls another's helpers compiles them too, unless they are cached), and all of them in one
# process (``occamlearn warm-up``), measured on an idle machine
# (benchmarks/results/cold_start_idle7.md). For messages, never for decisions.
COMPILE_SECONDS = {"bnb": 7, "error-budget": 4, "one-error": 11, "dtmax-dp": 19,
                   "dtmax-ordered": 17}
COMPILE_ALL_SECONDS = 46
POLL_SECONDS = 0.25  # between two looks at the disk cache while a Python search runs
# A search compiles a small kernel in the foreground (the incompatibility bound: 1-2 CPU s,
# up to four times that on a loaded machine) only with at least this many seconds left
# (``foreground_compile_fits``): the compile cannot look at the deadline.
FOREGROUND_MIN_SECONDS = 10.0

_loaded: set[str] = set()
_children: dict = {"pid": None, "running": []}  # this process's compile children
_early: dict = {}
_starting = threading.Lock()


class KernelsUnavailable(RuntimeError):
    """The compiled kernels could not be loaded (broken cache, numba failure)."""


def _family_names(names) -> tuple[str, ...]:
    """``names`` (one family, several, or None for all) as a tuple of known families."""
    if names is None:
        return tuple(KERNEL_MODULES)
    names = (names,) if isinstance(names, str) else tuple(names)
    unknown = [name for name in names if name not in KERNEL_MODULES]
    if unknown:
        raise ValueError(f"name={unknown[0]!r} is not a kernel module; use one of "
                         f"{sorted(KERNEL_MODULES)}.")
    return names


def _module(name: str):
    return importlib.import_module(KERNEL_MODULES[_family_names(name)[0]])


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
    _family_names(name)  # the ValueError naming the families
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
    if not options and name not in _loaded:
        _loaded.add(name)
        _write_stamp(name)
    return stopping.CLOCK() - started


def _cache_folder(name: str) -> Path:
    """The folder of numba's cache files of family ``name`` (its locks and log go there)."""
    cache_file = _dispatchers(_module(name))[0]._cache._cache_file
    return Path(cache_file._cache_path)


def _spawn(names: tuple[str, ...]):
    """Start a compile child for the families ``names``; its ``Popen`` or None. The parent
    imports nothing for this (no numba): the child opens its own log."""
    package_root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["NUMBA_NUM_THREADS"] = "1"  # one core
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "occamlearn.trees.compiling.compile_child", "--parent",
             str(os.getpid()), *names], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            close_fds=True)
    except OSError:
        return None
    threading.Thread(target=process.wait, name="occamlearn-kernel-compile-reaper",
                     daemon=True).start()
    return process


def _running() -> list:
    """This process's compile children still running, as (names, Popen)."""
    if _children["pid"] != os.getpid():  # a forked child inherits none of them
        _children.update(pid=os.getpid(), running=[])
    _children["running"] = [(names, process) for names, process in _children["running"]
                            if process.poll() is None]
    return _children["running"]


def start_background_compile(names=None) -> bool:
    """Start a child that readies the kernel families ``names`` (one name, several, or None
    for all) in the disk cache (it exits at once if they are complete), unless a child of
    this process already compiles them. True if a compile is (now) running from here; False
    if it could not start (then the caller stays on its Python engine)."""
    names = _family_names(names)
    with _starting:  # an early start and a search may ask at the same moment
        covered = {name for running, _ in _running() for name in running}
        missing = tuple(name for name in names if name not in covered)
        if not missing:
            return True
        process = _spawn(missing)
        if process is None:
            return False
        _children["running"].append((missing, process))
        return True


def compiling() -> dict:
    """The families this process's compile children are still compiling, with the CPU
    seconds a compile of each takes (``COMPILE_SECONDS``): what a command may say on exit."""
    return {name: COMPILE_SECONDS[name] for names, _ in _running() for name in names
            if not kernels_ready(name)}


def background_process():
    """The first compile child started by this process that still runs (a ``Popen``), or
    None."""
    running = _running()
    return running[0][1] if running else None


def _stamp_path(name: str) -> Path:
    """Where a complete compile of family ``name`` leaves its stamp: a name that changes with
    everything numba's cache depends on (the family's sources and every module they call, by
    content, as ``key_cache_to_sources`` keys numba's entries; numba; Python;
    ``NUMBA_CACHE_DIR``), found without importing numba (a few milliseconds)."""
    import importlib.util

    numba = importlib.util.find_spec("numba")  # finds the package without importing it
    version = Path(numba.origin).with_name("_version.py") if numba and numba.origin else None
    try:
        sources = sources_key(KERNEL_MODULES[name])
    except (ValueError, SyntaxError) as error:  # unreadable sources: no stamp to trust
        raise OSError(f"kernel sources unreadable: {error}") from error
    key = json.dumps([name, sys.version, sys.executable, os.environ.get("NUMBA_CACHE_DIR", ""),
                      sources,
                      # numba's version file: changes with an upgrade
                      version.read_text() if version is not None and version.exists() else ""])
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "occamlearn" / f"kernels-ready-{hashlib.sha1(key.encode()).hexdigest()}"


def _write_stamp(name: str) -> None:
    try:
        path = _stamp_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:  # no writable cache home: every early start spawns the (quick) check
        pass


def compile_early(names=None) -> None:
    """Begin readying the kernel families ``names`` (None: all) now, without waiting and
    without importing numba here: unless the stamps of complete compiles of them are there
    (a few file look-ups), start the background child, which exits at once if the kernels
    are complete and else compiles them. Called where a search is certain to follow some
    other work (a fit reading and binarising its data), so that the compile gets a head
    start; once per process and families. The search still checks the cache itself
    (``KernelsWhenReady``)."""
    names = _family_names(names)
    asked = _early.setdefault(os.getpid(), set())
    missing = []
    for name in names:
        if name in asked:
            continue
        asked.add(name)
        try:
            if _stamp_path(name).exists():
                continue
        except OSError:
            pass
        missing.append(name)
    if missing:
        start_background_compile(missing)


def foreground_compile_fits(deadline) -> bool:
    """Whether a small kernel may be compiled in the foreground before ``deadline`` (a
    ``stopping.Deadline`` or None): at least ``FOREGROUND_MIN_SECONDS`` are left."""
    return deadline is None or deadline.remaining() >= FOREGROUND_MIN_SECONDS


class KernelsWhenReady:
    """A cheap poll for a Python search: call it (it looks at the disk at most every
    ``POLL_SECONDS``); True once the kernels of ``name`` are complete on disk. Starts the
    background compile if needed; ``started`` says whether one runs (else it stays False)."""

    def __init__(self, name: str):
        self.name = name
        self.ready = kernels_ready(name)
        self.started = self.ready or start_background_compile(name)
        self._next_look = stopping.CLOCK() + POLL_SECONDS

    def __call__(self) -> bool:
        if self.ready or not self.started:
            return self.ready
        now = stopping.CLOCK()
        if now >= self._next_look:
            self._next_look = now + POLL_SECONDS
            self.ready = kernels_ready(self.name)
        return self.ready


def warm_up_all(report=None) -> dict:
    """Compile (or load) every kernel family in this process, in order; seconds per family.
    ``report(name, index, count, seconds)`` is called before each family (seconds None) and
    after it (its seconds): ``occamlearn warm-up`` prints it as progress."""
    seconds = {}
    for index, name in enumerate(KERNEL_MODULES):
        if report is not None:
            report(name, index, len(KERNEL_MODULES), None)
        seconds[name] = load(name)
        _write_stamp(name)
        if report is not None:
            report(name, index, len(KERNEL_MODULES), seconds[name])
    return seconds
