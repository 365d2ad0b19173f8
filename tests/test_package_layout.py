"""The package's layering (README, "Layout"): imports point down only.

Imports are read with ``ast`` from every module under src/occamlearn, including those inside
functions (the lazy imports that keep start-up light), so a layering break cannot hide in a
function body.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import occamlearn

PACKAGE = Path(occamlearn.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> set[str]:
    """The occamlearn modules ``path`` imports (absolute, relative resolved)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)   # submodules
    return {name for name in found if name == "occamlearn" or name.startswith("occamlearn.")}


def _modules() -> dict[str, set[str]]:
    return {_module_name(path): _imported(path) for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _subpackage(module: str) -> str:
    """``occamlearn.trees.mpdt.maxsat_route.search`` -> ``trees``; a top-level module is its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _existing(name: str) -> str | None:
    """The module ``name`` refers to (``occamlearn.x.y`` may be a name inside ``x``)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _edges():
    for module, imports in MODULES.items():
        for name in imports:
            target = _existing(name)
            if target is not None and target != module:
                yield module, target


def test_the_parser_sees_function_level_and_relative_imports():
    assert len(MODULES) > 40
    # trees.dtmax.entry imports its data at module level; the estimators import their
    # families; cli.trees imports the estimators inside functions
    assert "occamlearn.trees.dtmax.data" in {
        _existing(n) for n in MODULES["occamlearn.trees.dtmax.entry"]}
    assert any(_subpackage(t) == "estimators" for m, t in _edges()
               if m.startswith("occamlearn.cli."))


LEAVES = ("occamlearn.stopping",)  # one stop signal and one progress sink, for every layer


@pytest.mark.parametrize("layer", ["maxsat", "model", "stopping"])
def test_bottom_layers_import_nothing_else_from_the_package(layer):
    prefix = f"occamlearn.{layer}"
    wrong = sorted((module, target) for module, target in _edges()
                   if module.startswith(prefix) and not target.startswith(prefix)
                   and target not in LEAVES)
    assert wrong == []


def test_exports_never_import_the_estimators():
    wrong = sorted((module, target) for module, target in _edges()
                   if module.startswith("occamlearn.export")
                   and target.startswith("occamlearn.estimators"))
    assert wrong == []


def test_no_import_cycles_between_subpackages():
    """The subpackage graph (maxsat, model, trees, lists, estimators, export, ...) is acyclic;
    the package's own __init__ (which re-exports the public names) is left out."""
    graph = defaultdict(set)
    for module, target in _edges():
        source, sink = _subpackage(module), _subpackage(target)
        if source and sink and source != sink:
            graph[source].add(sink)
    cycles, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == [], {f"{a} -> {b}": sorted(m for m, t in _edges()
                                               if _subpackage(m) == a and _subpackage(t) == b)
                          for cycle in cycles for a, b in zip(cycle, cycle[1:])}


def test_cli_solver_names_are_the_backends():
    """The CLI writes the back-end names out (so that ``--help`` starts without PySAT);
    they must be exactly ``maxsat.backends.BACKENDS``."""
    from occamlearn.cli.trees import SOLVERS
    from occamlearn.maxsat.backends import BACKENDS

    assert list(SOLVERS) == list(BACKENDS)
