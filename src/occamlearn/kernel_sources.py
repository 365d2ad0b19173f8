"""numba's disk cache of a kernel keyed to the sources of every module it calls.

numba stores, with each kernel's cache index, a stamp of the kernel's own source file and
ignores the index when that stamp changes. A cached kernel also holds the machine code of
every njit function it calls from other modules (``trees.exact.packed``,
``trees.exact.nesting_kernels``, the dtmax memo helpers), so an edit of one of those alone
would leave numba loading the old code. ``key_cache_to_sources`` extends the stamp with a hash
of the contents of every occamlearn module the kernel module imports, transitively
(``sources_key``; found with ``ast``, nothing imported), so that a callee edit looks like an
edit of the kernel's own file. ``trees.compiling.kernel_cache`` hashes the same files for the stamp
of a complete compile.

It sits at the top of the package, importing nothing of it, because every family with
compiled kernels keys them this way: the tree searches (``trees``) and the rule growing
(``lists``), which may not import each other.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from pathlib import Path

__all__ = ["PACKAGE_ROOT", "key_cache_to_sources", "source_files", "sources_key"]

PACKAGE_ROOT = Path(__file__).resolve().parent  # the occamlearn package folder


def _module_file(name: str, root: Path = PACKAGE_ROOT) -> Path | None:
    """The source file of module ``name`` of the package at ``root`` (``occamlearn.a.b`` ->
    ``root/a/b.py`` or ``root/a/b/__init__.py``), None if it is not one of its modules."""
    parts = name.split(".")
    if parts[0] != root.name:
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _top_level_imports(text: str, filename: str) -> list:
    """The top-level statements of ``text`` that are imports, as ``ast`` nodes.

    Every process that fits a tree keys the kernel cache (``sources_key``), so this parses
    only the lines that can hold a top-level import: a top-level statement starts at column
    0, so each one starting with ``import`` or ``from`` is taken with its continuation lines
    (an open parenthesis or a trailing backslash). Parsing that extract gives every top-level
    import of the full parse; a docstring line that happens to read like an import can add a
    module (a key that changes more often, never a stale one); an extract that does not parse
    (such a docstring line cut short) falls back to the full parse."""
    lines, extract, depth = text.splitlines(), [], 0
    for line in lines:
        if depth == 0 and not (extract and extract[-1].endswith("\\")) and \
                not line.startswith(("import ", "from ")):
            continue
        extract.append(line)
        depth = max(0, depth + line.count("(") - line.count(")"))
    try:
        tree = ast.parse("\n".join(extract), filename=filename)
    except SyntaxError:
        tree = ast.parse(text, filename=filename)
    return [statement for statement in tree.body
            if isinstance(statement, (ast.Import, ast.ImportFrom))]


def _imported_files(path: Path, root: Path) -> set[Path]:
    """The package modules that ``path`` imports at its top level (where numba looks up the
    functions a kernel calls): ``from pkg.mod import f`` gives ``mod``; ``from pkg import x``
    gives ``pkg``'s ``__init__`` and ``pkg.x`` if that is a module; ``import pkg.mod`` gives
    ``mod``. Parent packages' ``__init__`` files are not followed (a kernel cannot call a
    function it did not import by name)."""
    package = ".".join([root.name, *path.relative_to(root).with_suffix("").parts[:-1]])
    found = set()
    for statement in _top_level_imports(path.read_text(encoding="utf-8"), str(path)):
        names = []
        if isinstance(statement, ast.Import):
            names = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            if statement.level:  # relative: from the package of path, up level - 1
                up = package.split(".")[:len(package.split(".")) - statement.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in statement.names]
        found.update(file for file in map(lambda name: _module_file(name, root), names)
                     if file is not None)
    return found


def source_files(module_name: str, root: Path = PACKAGE_ROOT) -> list[Path]:
    """``module_name``'s source file and every package module it imports, transitively
    (read with ``ast``, nothing imported): the sources its compiled kernels depend on."""
    start = _module_file(module_name, root)
    if start is None:
        raise ValueError(f"{module_name!r} is not a module of {root}")
    # this module is the plumbing that keys the cache (it holds no kernel): not followed
    seen, todo = {start, Path(__file__).resolve()}, [start]
    while todo:
        for file in _imported_files(todo.pop(), root) - seen:
            seen.add(file)
            todo.append(file)
    return sorted(seen - {Path(__file__).resolve()})


def sources_key(module_name: str, root: Path = PACKAGE_ROOT) -> str:
    """A hash of the contents of ``source_files(module_name)``: changes when the kernel
    module or any module it calls into changes, whatever the files' dates."""
    digest = hashlib.sha1()
    for path in source_files(module_name, root):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(hashlib.sha1(path.read_bytes()).digest())
    return digest.hexdigest()


def key_cache_to_sources(module_name: str) -> None:
    """Make numba's disk cache of the kernels defined in ``module_name`` depend on the
    sources of every module they call (``sources_key``), not on their own file alone.

    numba stores, with each kernel's cache index, the stamp of the kernel's source file, and
    ignores the index when the stamp differs (``IndexDataCacheFile._load_index``); saving
    writes the current stamp. Extending the stamp with ``sources_key`` therefore makes a
    callee edit look like an edit of the kernel's own file. Called once, at the end of the
    module (after its dispatchers exist, before any is compiled or loaded)."""
    from numba.core.dispatcher import Dispatcher

    module = sys.modules[module_name]
    try:
        key = sources_key(module_name)
    except (OSError, ValueError, SyntaxError):  # sources not readable (a frozen install, say):
        return  # numba's own stamp, which such an install cannot edit anyway
    for value in vars(module).values():
        cache_file = getattr(getattr(value, "_cache", None), "_cache_file", None)
        if isinstance(value, Dispatcher) and value.py_func.__module__ == module_name \
                and cache_file is not None:
            cache_file._source_stamp = (cache_file._source_stamp, key)
