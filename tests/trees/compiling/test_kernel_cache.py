"""First use of the compiled kernels: the switch from the Python to the compiled engine, the
memo carried over, and a missing, broken or half-built disk cache (``kernel_cache``).

The subprocess tests give each fresh process its own ``NUMBA_CACHE_DIR``; a complete cache is
copied from this process's (after ``warm_up_all``) so that no test pays a full compile.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba.core.caching import _CacheLocator

from occamlearn.trees.compiling import compile_child, kernel_cache
from occamlearn.trees.mpdt.bnb import branch_and_bound, engine_switch
from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch, prepare_rows

SRC = str(Path(kernel_cache.__file__).resolve().parents[3])


def _random_instance(seed: int, n_rows: int = 40, n_features: int = 9):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    X = np.unique(X, axis=0)
    y = rng.integers(0, 3, size=X.shape[0])
    return X, y


class _ReadyAfter:
    """A stand-in for ``KernelsWhenReady`` that says "ready" at its ``after``-th poll."""

    def __init__(self, after: int):
        self.after, self.polls, self.ready = after, 0, False

    def __call__(self) -> bool:
        self.polls += 1
        self.ready = self.polls >= self.after
        return self.ready


@pytest.fixture(scope="module")
def warm():
    kernel_cache.warm_up_all()


@pytest.mark.parametrize("seed", range(4))
def test_switch_to_compiled_gives_the_certified_size_of_each_engine(warm, seed, monkeypatch):
    X, y = _random_instance(seed, n_rows=100, n_features=12)
    expected = {engine: branch_and_bound._run(X, y, 3, engine=engine, quick_calls=0)
                for engine in ("python", "compiled")}
    ready = _ReadyAfter(after=2)
    monkeypatch.setattr(branch_and_bound, "choose_engine", lambda: ("python", ready))
    switched = branch_and_bound._run(X, y, 3, quick_calls=0, improve_calls=0)
    assert switched.status == "optimal"
    assert switched.tree.is_pure_on(X, y)
    assert {result.upper_bound for result in expected.values()} == {switched.upper_bound}
    assert ready.ready  # the Python search polled twice (thousands of calls) and switched
    assert switched.stats["engine"] == "compiled"
    assert switched.stats["switched_to_compiled_at"] is not None
    assert switched.stats["memo_carried_over"] > 0


def test_carried_over_memo_matches_a_fresh_compiled_search(warm):
    X, y = _random_instance(11, n_rows=60, n_features=10)
    rows, labels, n_classes, kept = prepare_rows(X, y, 3)
    python = RowSetSearch(rows, labels, n_classes, kept)
    root = (1 << python.n_rows) - 1
    python.solve(root, 3)  # a failed budget: lower bounds and some exact subtrees
    carried = CompiledRowSetSearch(rows, labels, n_classes, kept)
    assert engine_switch.carry_over(python, carried) == len(python.exact) + len(python.lower)
    for row_set, value in list(python.exact.items())[:200]:
        assert carried.kernels.lookup(carried.table, carried.to_words(row_set))[:2] == (
            value, True)
    fresh = CompiledRowSetSearch(rows, labels, n_classes, kept)

    def minimum(search):
        budget = search.root_bound(root)
        while (value := search.solve(root, budget)) > budget:
            budget = value
        return value, search.nested(root)

    (value, nested), (fresh_value, _) = minimum(carried), minimum(fresh)
    assert value == fresh_value
    tree = branch_and_bound.Tree.from_nested(nested, X.shape[1], 3)
    assert tree.is_pure_on(X, y) and (tree.n_nodes + 1) // 2 == value


# -- fresh processes with their own cache -------------------------------------------------------

def _copy_warm_cache(target: Path) -> None:
    """This process's cache files of every kernel module, laid out as NUMBA_CACHE_DIR=target
    (a family may gather kernels of several source files: each file's cache is copied)."""
    for name in kernel_cache.KERNEL_MODULES:
        for dispatcher in kernel_cache._dispatchers(kernel_cache._module(name)):
            source = Path(dispatcher._cache._cache_path)
            file = dispatcher.py_func.__code__.co_filename
            destination = target / _CacheLocator.get_suitable_cache_subpath(file)
            destination.mkdir(parents=True, exist_ok=True)
            stem = Path(file).stem + "."
            for path in source.iterdir():
                if path.name.startswith(stem) and path.suffix in (".nbi", ".nbc"):
                    shutil.copy2(path, destination / path.name)


FIT = """
import json, numpy as np
from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
rng = np.random.default_rng(5)
X = np.unique(rng.integers(0, 2, size=(100, 12)), axis=0)
y = rng.integers(0, 3, size=X.shape[0])
found = find_minimum_tree_branch_and_bound(X, y, 3, deadline=Deadline.after(60))
print(json.dumps({"size": found.upper_bound, "status": found.status,
                  "engine": found.stats["engine"], "pure": bool(found.tree.is_pure_on(X, y))}))
"""


def _python(code: str, cache: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=timeout, check=True)


def _fit(cache: Path) -> dict:
    return json.loads(_python(FIT, cache).stdout.strip().splitlines()[-1])


def _folder(cache: Path, name: str = "bnb") -> Path:
    """Where a process with NUMBA_CACHE_DIR=cache keeps family ``name``'s cache files."""
    module = kernel_cache._module(name)
    return cache / _CacheLocator.get_suitable_cache_subpath(module.__file__)


def _lock(cache: Path, name: str = "bnb") -> Path:
    return _folder(cache, name) / compile_child.LOCK_NAME.replace(".lock", f"-{name}.lock")


def _stop_background_compile(cache: Path) -> None:
    """End the compile a fit started in the background (its pid is in the lock file)."""
    lock = _lock(cache)
    for _ in range(50):
        if lock.exists() and lock.read_text().strip():
            try:
                os.kill(int(lock.read_text()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
            return
        time.sleep(0.1)


def _ready_in(cache: Path) -> bool:
    code = ("from occamlearn.trees.compiling import kernel_cache; "
            "print(all(kernel_cache.kernels_ready(n) for n in kernel_cache.KERNEL_MODULES))")
    return _python(code, cache).stdout.strip() == "True"


@pytest.fixture(scope="module")
def expected_size(warm, tmp_path_factory):
    cache = tmp_path_factory.mktemp("warm")
    _copy_warm_cache(cache)
    found = _fit(cache)
    assert found["engine"] == "compiled" and found["status"] == "optimal" and found["pure"]
    return found["size"]


def test_warm_copied_cache_is_ready(warm, tmp_path):
    _copy_warm_cache(tmp_path)
    assert _ready_in(tmp_path)
    assert not _ready_in(tmp_path / "empty")


def test_broken_cache_falls_back_to_python_and_is_reset(expected_size, tmp_path):
    _copy_warm_cache(tmp_path)
    for data in tmp_path.rglob("kernels.solve-*.nbc"):
        data.write_bytes(b"not a pickle")
    try:
        found = _fit(tmp_path)
    finally:
        _stop_background_compile(tmp_path)
    assert found == {"size": expected_size, "status": "optimal", "engine": "python-only",
                     "pure": True}
    assert not _ready_in(tmp_path)  # the index was emptied: the next compile rebuilds it


def test_killed_compile_leaves_a_cache_the_next_fit_can_use(expected_size, tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(
        [sys.executable, "-m", "occamlearn.trees.compiling.compile_child", "bnb"], env=env)
    try:
        for _ in range(600):  # until the child holds the lock and wrote a first kernel
            if _lock(tmp_path).exists() and any(tmp_path.rglob("*.nbc")):
                break
            time.sleep(0.1)
    finally:
        child.kill()
        child.wait()
    assert _lock(tmp_path).exists()  # left behind by the killed child: a stale lock
    try:
        found = _fit(tmp_path)
    finally:
        _stop_background_compile(tmp_path)
    assert found["size"] == expected_size and found["status"] == "optimal" and found["pure"]


REAPED = """
import os, time
from occamlearn.trees.compiling import kernel_cache
assert kernel_cache.start_background_compile("bnb")
child = kernel_cache.background_process()
while child.returncode is None:
    time.sleep(0.05)
time.sleep(0.2)
state = open(f"/proc/{child.pid}/stat").read().split()[2] if os.path.exists(
    f"/proc/{child.pid}/stat") else "gone"
print(child.returncode, state)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_finished_background_compile_is_reaped(warm, tmp_path):
    _copy_warm_cache(tmp_path)  # the child only loads: it ends in about a second
    code, state = _python(REAPED, tmp_path).stdout.split()
    assert code == "0" and state != "Z"
    assert not _lock(tmp_path).exists()


def test_warm_up_command_readies_every_kernel_module(capsys):
    from occamlearn.cli import main

    assert main(["warm-up"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == list(kernel_cache.KERNEL_MODULES)
    assert all(kernel_cache.kernels_ready(name) for name in kernel_cache.KERNEL_MODULES)


def test_unknown_kernel_module_is_a_value_error():
    with pytest.raises(ValueError, match="name='nope'"):
        kernel_cache.kernels_ready("nope")


# -- starting early, one child per fit's families, ending with its parent -------------------

@pytest.fixture(autouse=True)
def _stamps_in_tmp(monkeypatch, tmp_path_factory):
    """The stamps of complete compiles go to a temporary cache home, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache_home")))


def test_compile_early_starts_a_child_once_per_family_unless_stamped(monkeypatch):
    started = []
    monkeypatch.setattr(kernel_cache, "_early", {})
    monkeypatch.setattr(kernel_cache, "start_background_compile",
                        lambda names: started.append(tuple(names)) or True)
    kernel_cache.compile_early("bnb")
    kernel_cache.compile_early("bnb")
    assert started == [("bnb",)]  # once per process
    kernel_cache.compile_early(("error-budget", "bnb", "one-error"))
    assert started == [("bnb",), ("error-budget", "one-error")]  # only what is new
    kernel_cache._write_stamp("dtmax-dp")
    kernel_cache.compile_early(("dtmax-dp", "dtmax-ordered"))
    assert started[-1] == ("dtmax-ordered",)  # a complete compile's stamp: nothing to do


def test_stamp_names_the_family_and_the_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "one"))
    one = kernel_cache._stamp_path("bnb")
    assert kernel_cache._stamp_path("error-budget") != one
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "two"))
    assert kernel_cache._stamp_path("bnb") != one
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "one"))
    assert kernel_cache._stamp_path("bnb") == one


def test_warm_up_all_leaves_every_stamp_and_reports_progress(warm):
    seen = []
    kernel_cache.warm_up_all(lambda *report: seen.append(report))
    names = list(kernel_cache.KERNEL_MODULES)
    assert [(name, index) for name, index, _, seconds in seen if seconds is None] == \
        [(name, index) for index, name in enumerate(names)]
    assert [name for name, _, _, seconds in seen if seconds is not None] == names
    assert all(kernel_cache._stamp_path(name).exists() for name in names)


class _FakeKernels:
    def __init__(self, name, done):
        self.name, self.done = name, done

    def warm_up(self):
        self.done.append(self.name)


def test_child_compiles_only_its_families_at_low_priority(monkeypatch, tmp_path):
    done = []
    monkeypatch.setattr(compile_child, "_open_log", lambda name: None)
    monkeypatch.setattr(compile_child, "_log", lambda *args, **kw: None)
    monkeypatch.setattr(compile_child, "kernels_ready", lambda name: name == "one-error")
    monkeypatch.setattr(compile_child, "_lock_path", lambda name: tmp_path / name)
    monkeypatch.setattr(compile_child, "_module", lambda name: _FakeKernels(name, done))
    monkeypatch.setattr(compile_child.os, "nice", lambda step: done.append(f"nice {step}"))
    assert compile_child._compile_families(("error-budget", "bnb", "one-error")) == 0
    assert done == ["nice 10", "error-budget", "bnb"]  # one-error was complete
    assert all(kernel_cache._stamp_path(name).exists()
               for name in ("error-budget", "bnb", "one-error"))
    assert not any(tmp_path.iterdir())  # every lock released


def _child_log(cache: Path, *names: str) -> list[dict]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "occamlearn.trees.compiling.compile_child", *names],
        env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not any(cache.rglob("occamlearn-compile*.lock"))  # released
    return _events(cache)


def _events(cache: Path) -> list[dict]:
    return [json.loads(line) for log in cache.rglob(compile_child.LOG_NAME)
            for line in log.read_text().splitlines() if line.startswith("{")]


def test_child_with_a_complete_cache_only_says_so(warm, tmp_path):
    _copy_warm_cache(tmp_path)  # it only loads: a second or two
    events = _child_log(tmp_path, "bnb", "error-budget")
    assert [(e["event"], e.get("module")) for e in events if e["event"] != "started"] == [
        ("already complete", "bnb"), ("already complete", "error-budget")]


def test_compile_child_rejects_unknown_arguments(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    for arguments in (["everything"], ["--parent"], ["--parent", "x", "bnb"]):
        done = subprocess.run([sys.executable, "-m", "occamlearn.trees.compiling.compile_child",
                               *arguments], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode != 0 and "usage" in done.stderr


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped by the parent it
    was handed to, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


ORPHAN = """
from occamlearn.trees.compiling import kernel_cache
kernel_cache.start_background_compile("bnb")
print(kernel_cache.background_process().pid, flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_compile_child_ends_with_the_process_that_started_it(tmp_path):
    """A process that starts a compile on an empty cache and exits at once leaves no compile
    behind: the child ends with it (the kernel kills it, or it sees its parent gone)."""
    child = int(_python(ORPHAN, tmp_path).stdout.split()[0])  # the parent has exited
    for _ in range(100):
        if not _running(child):
            break
        time.sleep(0.1)
    assert not _running(child)


def _compile_children_of(parent: int) -> set[int]:
    """The running compile children started by process ``parent`` (read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"occamlearn.trees.compiling.compile_child" in argv and b"--parent" in argv \
                and argv[argv.index(b"--parent") + 1] == str(parent).encode() \
                and _running(int(entry.name)):
            found.add(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_cold_cli_fit_leaves_no_compile_behind(tmp_path):
    """``occamlearn fit --dataset mux6`` on an empty cache: whatever compile it started is
    gone at most 10 s after the command ends (issue 31's bar; it ends within a second). The
    children are seen in /proc while the fit runs (a fast fit may end before its child has
    imported numba and opened its log)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "XDG_CACHE_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    fit = subprocess.Popen([sys.executable, "-m", "occamlearn.cli", "fit", "--dataset", "mux6",
                            "--quiet"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    children: set[int] = set()
    while fit.poll() is None:
        children |= _compile_children_of(fit.pid)
        time.sleep(0.02)
    ended = time.monotonic()
    assert fit.returncode == 0, fit.stderr.read()
    children |= {event["pid"] for event in _events(tmp_path / "numba")}
    assert children  # the fit did start a compile
    while any(map(_running, children)) and time.monotonic() < ended + 10:
        time.sleep(0.2)
    assert not any(map(_running, children))


class _Started:
    """A ``KernelsWhenReady`` stand-in: a compile runs, the kernels are not ready."""

    started, ready = True, False

    def __call__(self) -> bool:
        return False


@pytest.mark.parametrize("bound", [True, False])
def test_python_phase_compiles_the_bound_only_if_told(warm, monkeypatch, bound):
    X, y = _random_instance(3)
    rows, labels, n_classes, kept = prepare_rows(X, y, 3)
    loads = []
    monkeypatch.setattr(kernel_cache, "load", lambda name, **kw: loads.append(kw) or 0.0)
    monkeypatch.setattr(engine_switch, "BOUND_WHILE_COMPILING", bound)
    search, engine, _ = engine_switch.new_search("python", rows, labels, n_classes, kept, {},
                                                 None, _Started())
    assert engine == "python" and isinstance(search, RowSetSearch)
    assert search.use_incompatibility is bound
    assert loads == ([{"search": False}] if bound else [])
