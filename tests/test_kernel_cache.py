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

from occamlearn.trees import kernel_cache
from occamlearn.trees.mpdt.bnb import branch_and_bound, engine_switch
from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch, prepare_rows

SRC = str(Path(kernel_cache.__file__).resolve().parents[2])


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
from occamlearn.trees.mpdt.bnb.branch_and_bound import minimum_tree_branch_and_bound
rng = np.random.default_rng(5)
X = np.unique(rng.integers(0, 2, size=(100, 12)), axis=0)
y = rng.integers(0, 3, size=X.shape[0])
found = minimum_tree_branch_and_bound(X, y, 3, deadline=Deadline.after(60))
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


def _lock(cache: Path) -> Path:
    module = kernel_cache._module(next(iter(kernel_cache.KERNEL_MODULES)))
    return cache / _CacheLocator.get_suitable_cache_subpath(module.__file__) / \
        kernel_cache.LOCK_NAME


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
    code = ("from occamlearn.trees import kernel_cache; "
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
    child = subprocess.Popen([sys.executable, "-m", "occamlearn.trees.kernel_cache"], env=env)
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
from occamlearn.trees import kernel_cache
assert kernel_cache.start_background_compile()
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


def test_side_child_compiles_the_signatures_solve_calls(warm):
    """Each (helper, signature) the side child compiles is one ``solve`` uses (else it would
    compile a specialisation nobody calls), and every helper ``solve`` calls is listed."""
    import numba
    from numba.core.dispatcher import Dispatcher

    from occamlearn.trees.mpdt.bnb import callee_signatures, kernels

    # type solve and its helpers afresh (no disk cache), to a fixpoint: each helper they
    # call gets the signature it is called with
    names = {name: callee_signatures.callee(name) for name, _ in callee_signatures.CALLEES}
    names["kernels.solve"] = kernels.solve
    typed, changed = set(), True
    while changed:
        changed = False
        for name, dispatcher in names.items():
            for signature in dispatcher.signatures:
                if (name, signature) not in typed:
                    typed.add((name, signature))
                    numba.njit(dispatcher.py_func).compile(signature)
                    changed = True
    listed = set()
    for name, signature in callee_signatures.CALLEES:
        assert tuple(signature) in callee_signatures.callee(name).signatures, name
        listed.add(name)
    # entry points (called from Python too: compiled by ``warm_up``) and what only they call
    side_of_search = {"kernels.solve", "node_bounds.incompatibility_lower_bound",
                      "memo_table.lookup", "memo_table.insert", "memo_table.rehash"}
    compiled = {f"{module_name}.{name}"
                for module_name, module in callee_signatures.MODULES.items()
                for name, value in vars(module).items()
                if isinstance(value, Dispatcher) and value.signatures
                and value.py_func.__module__ == module.__name__}
    assert listed == compiled - side_of_search


def test_unknown_kernel_module_is_a_value_error():
    with pytest.raises(ValueError, match="name='nope'"):
        kernel_cache.kernels_ready("nope")


# -- starting early, the side child, the Python phase's bound ----------------------------------

@pytest.fixture(autouse=True)
def _stamps_in_tmp(monkeypatch, tmp_path_factory):
    """The stamps of complete compiles go to a temporary cache home, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache_home")))


def test_compile_early_starts_the_child_once_unless_stamped(monkeypatch):
    started = []
    monkeypatch.setattr(kernel_cache, "_early", {})
    monkeypatch.setattr(kernel_cache, "start_background_compile",
                        lambda: started.append(True) or True)
    kernel_cache.compile_early()
    kernel_cache.compile_early()
    assert started == [True]  # once per process
    kernel_cache._write_stamp()
    monkeypatch.setattr(kernel_cache, "_early", {})
    kernel_cache.compile_early()
    assert started == [True]  # a complete compile's stamp: nothing to start


def test_stamp_names_the_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "one"))
    one = kernel_cache._stamp_path()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "two"))
    assert kernel_cache._stamp_path() != one
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "one"))
    assert kernel_cache._stamp_path() == one


def test_warm_up_all_leaves_the_stamp(warm):
    kernel_cache.warm_up_all()
    assert kernel_cache._stamp_path().exists()


class _FakeKernels:
    def __init__(self, name, done):
        self.name, self.done = name, done

    def warm_up(self):
        self.done.append(self.name)

    def warm_up_table(self):
        self.done.append(f"{self.name} table")

    def warm_up_callees(self):
        self.done.append(self.name)

    def warm_up_main_part(self):
        self.done.append(f"{self.name} main part")


@pytest.mark.parametrize("cores, side", [(1, False), (2, True)])
def test_main_child_starts_the_side_child_first_with_enough_cores(monkeypatch, tmp_path,
                                                                   cores, side):
    done = []
    monkeypatch.setattr(kernel_cache, "_open_log", lambda part: None)
    monkeypatch.setattr(kernel_cache, "_log", lambda *args, **kw: None)
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: False)
    monkeypatch.setattr(kernel_cache, "_lock_path", lambda part="main": tmp_path / part)
    monkeypatch.setattr(kernel_cache, "_module", lambda name: _FakeKernels(name, done))
    monkeypatch.setattr(kernel_cache, "_spawn", lambda part: done.append(f"spawn {part}"))
    monkeypatch.setattr(kernel_cache.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(kernel_cache.os, "nice", lambda step: done.append(f"nice {step}"))
    monkeypatch.setattr(kernel_cache, "SIDE_COMPILE_MIN_CORES", 2)
    monkeypatch.setattr(kernel_cache, "_niced", {})
    assert kernel_cache._compile_main("main") == 0
    # what a first fit waits for at full priority, then the rest at a lower one
    assert done == ["spawn side", "bnb-callees main part"] * side + [
        "bnb", "nice 10", "error-budget", "dtmax-dp", "dtmax-ordered", "one-error"]
    assert kernel_cache._stamp_path().exists() and not (tmp_path / "main").exists()
    done.clear()
    monkeypatch.setattr(kernel_cache, "_niced", {})
    assert kernel_cache._compile_main("side") == 0
    assert done == ["bnb-callees", "bnb table", "nice 10", "error-budget"]


def test_main_child_with_a_complete_cache_only_stamps(monkeypatch, tmp_path):
    monkeypatch.setattr(kernel_cache, "_open_log", lambda part: None)
    monkeypatch.setattr(kernel_cache, "_log", lambda *args, **kw: None)
    monkeypatch.setattr(kernel_cache, "kernels_ready", lambda name: True)
    monkeypatch.setattr(kernel_cache, "_take_lock", lambda path: pytest.fail("compiled"))
    monkeypatch.setattr(kernel_cache, "_spawn", lambda part: None)
    assert kernel_cache._compile_main("main") == 0
    assert kernel_cache._stamp_path().exists()


def _side_child_compiled(cache: Path) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "occamlearn.trees.kernel_cache", "side"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    log = next(cache.rglob(kernel_cache.LOG_NAME.replace(".log", "-side.log")))
    events = [json.loads(line) for line in log.read_text().splitlines()
              if line.startswith("{")]
    assert not any(cache.rglob("occamlearn-compile*.lock"))  # released
    return [event["module"] for event in events if event["event"] == "compiled"]


def test_side_child_readies_its_kernels_and_logs_them(warm, tmp_path):
    _copy_warm_cache(tmp_path)  # it only loads: a second or two
    assert _side_child_compiled(tmp_path) == []  # a complete cache: nothing to do
    for index in tmp_path.rglob("depth2.*.nbi"):  # DT(max)'s, not the side child's
        index.unlink()
    assert _side_child_compiled(tmp_path) == [f"{name}.{function}"
                                              for name, function in kernel_cache.SIDE_WARM_UPS]


def test_compile_child_rejects_unknown_arguments(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "occamlearn.trees.kernel_cache", "everything"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "usage" in done.stderr


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
