"""A kernel's disk cache goes stale when a module it calls changes (``kernel_sources``).

numba keys a kernel's cache to its own source file only; these tests edit a *callee* module
(``trees.exact.packed``, inlined into the branch and bound's kernels) and check that the
cache no longer counts as ready and that the early-compile stamp changes, while a mere touch
(a new date, the same content) changes neither.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.caching import _CacheLocator

from occamlearn import kernel_sources
from occamlearn.trees.compiling import kernel_cache

PACKAGE = kernel_sources.PACKAGE_ROOT


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def toy_package(tmp_path):
    """A package ``toy`` whose ``kern`` imports ``helper`` (which imports ``deep``
    relatively) and ``sub`` through its package, next to a module nothing imports."""
    root = tmp_path / "toy"
    _write(root, "__init__.py", "")
    _write(root, "kern.py", "import numpy as np\nfrom toy.helper import f\nfrom toy import sub\n"
                            "\n\ndef g():\n    from toy import unrelated\n")
    _write(root, "helper.py", "from .deep import h\n\n\ndef f():\n    return h()\n")
    _write(root, "deep.py", "def h():\n    return 1\n")
    _write(root, "sub.py", "X = 1\n")
    _write(root, "unrelated.py", "Y = 1\n")
    return root


def test_source_files_follow_top_level_imports_transitively(toy_package):
    files = kernel_sources.source_files("toy.kern", toy_package)
    assert [path.name for path in files] == ["__init__.py", "deep.py", "helper.py", "kern.py",
                                             "sub.py"]  # not unrelated (imported in a body)
    with pytest.raises(ValueError, match="not a module"):
        kernel_sources.source_files("toy.missing", toy_package)


def test_top_level_imports_read_from_the_import_lines_match_a_full_parse(toy_package):
    """The import-lines extract gives the same top-level imports as parsing the whole file,
    on every module of the package and on a file whose docstring cuts an import short."""
    import ast

    def full(text):
        return [ast.dump(node) for node in ast.parse(text).body
                if isinstance(node, (ast.Import, ast.ImportFrom))]

    tricky = ('"""Doc.\nfrom here (a parenthesis never closed\n"""\nimport os\n'
              'from toy.helper import (\n    f,  # (note)\n)\nfrom toy import \\\n    sub\n'
              'if True:\n    import json\n')
    texts = [path.read_text() for path in PACKAGE.rglob("*.py")] + [tricky]
    for text in texts:
        assert [ast.dump(node) for node in kernel_sources._top_level_imports(text, "x")] == \
            full(text)
    assert len(full(tricky)) == 3


@pytest.mark.parametrize("edited, changes", [("deep.py", True), ("sub.py", True),
                                             ("kern.py", True), ("unrelated.py", False)])
def test_sources_key_changes_with_the_content_of_a_callee(toy_package, edited, changes):
    before = kernel_sources.sources_key("toy.kern", toy_package)
    path = toy_package / edited
    os.utime(path, (1e9, 1e9))  # a new date alone changes nothing
    assert kernel_sources.sources_key("toy.kern", toy_package) == before
    path.write_text(path.read_text() + "# edited\n")
    assert (kernel_sources.sources_key("toy.kern", toy_package) != before) == changes


def test_kernel_modules_depend_on_the_modules_they_call():
    def names(module):
        return {str(path.relative_to(PACKAGE)) for path in kernel_sources.source_files(module)}

    modules = kernel_cache.KERNEL_MODULES
    assert names(modules["bnb"]) == {"trees/mpdt/bnb/kernels.py", "trees/mpdt/bnb/memo_table.py",
                                     "trees/mpdt/bnb/node_bounds.py", "trees/exact/packed.py",
                                     "trees/exact/nesting_kernels.py",
                                     "trees/exact/row_set_table.py",
                                     "trees/mpdt/bnb/settled_nodes.py",
                                     "trees/mpdt/bnb/split_reductions.py",
                                     "trees/mpdt/bnb/subset_trie.py"}
    assert names(modules["error-budget"]) == {"trees/mpdt/error_budget/bnb_kernels.py",
                                              "trees/exact/packed.py"}
    assert {"trees/dtmax/binary/memo.py", "trees/dtmax/binary/pair_counts.py"} <= \
        names(modules["dtmax-dp"])
    assert {"trees/dtmax/ordered/depth2_pairs.py", "trees/dtmax/ordered/kernels.py"} <= \
        names(modules["dtmax-ordered"])
    # the one-deletion search runs the pure search's solve: its sources are keyed in too
    assert names(modules["bnb"]) | {"trees/mpdt/error_budget/one_error_kernels.py",
                                    "trees/mpdt/error_budget/one_error_bounds.py"} == \
        names(modules["one-error"])


def test_every_kernel_dispatcher_is_keyed_to_its_sources():
    from numba.core.dispatcher import Dispatcher

    for name, module_name in kernel_cache.KERNEL_MODULES.items():
        module = kernel_cache._module(name)
        key = kernel_sources.sources_key(module_name)
        own = [value for value in vars(module).values() if isinstance(value, Dispatcher)
               and value.py_func.__module__ == module_name]
        assert own and all(value._cache._cache_file._source_stamp[1] == key for value in own)


READY = ("from occamlearn.trees.compiling import kernel_cache as k; "
         "print(*[k.kernels_ready(n) for n in k.KERNEL_MODULES], k._stamp_path('bnb').name)")


def _ask(src: Path, cache: Path, home: Path) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(home),
           "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", READY], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    return done.stdout.split()


def test_editing_a_callee_module_invalidates_the_cached_kernels(tmp_path):
    """A copy of the package with a complete cache: ready; then ``packed.py`` (called by the
    bnb, error-budget and one-error kernels, not by dtmax's) gains a line: those two are no longer
    ready and the early-compile stamp has another name; touching it back changes nothing."""
    kernel_cache.warm_up_all()  # this process's cache, copied below for the copy's paths
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "occamlearn", copy_function=shutil.copy2,
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    for name in kernel_cache.KERNEL_MODULES:  # the files of every module with an entry point
        for dispatcher in kernel_cache._dispatchers(kernel_cache._module(name)):
            module_file = Path(sys.modules[dispatcher.py_func.__module__].__file__).resolve()
            source = Path(dispatcher._cache._cache_path)
            copy = src / module_file.relative_to(PACKAGE.parent)
            destination = cache / _CacheLocator.get_suitable_cache_subpath(str(copy))
            destination.mkdir(parents=True, exist_ok=True)
            for path in source.glob(module_file.stem + ".*.nb[ic]"):
                shutil.copy2(path, destination / path.name)
    home = tmp_path / "home"
    *ready, stamp = _ask(src, cache, home)
    assert ready == ["True"] * 5
    packed = src / "occamlearn" / "trees" / "exact" / "packed.py"
    text = packed.read_text()
    os.utime(packed, (1e9, 1e9))
    assert _ask(src, cache, home) == [*ready, stamp]  # a date is not a change
    packed.write_text(text + "\n# an edit of a callee\n")
    *ready_after, stamp_after = _ask(src, cache, home)
    # bnb, error-budget and one-error call it (one-error also through bnb); dtmax's do not
    calls_packed = {"bnb", "error-budget", "one-error"}
    assert ready_after == [str(name not in calls_packed) for name in kernel_cache.KERNEL_MODULES]
    assert stamp_after != stamp
