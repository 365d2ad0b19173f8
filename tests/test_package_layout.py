"""The package's layering: the table in the README's "Layout" section, read and enforced.

Imports are read with ``ast`` from every module under src/occamlearn, including those inside
functions (the lazy imports that keep start-up light) and the module names written as strings
(``import_module("occamlearn...")``, the lazy tables of public names), so a layering break
cannot hide in a function body or a string.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]  # the checkout: its README and src/, installed or not
PACKAGE = ROOT / "src" / "occamlearn"
README = ROOT / "README.md"
LEAVES = ("stopping", "memory", "_version")  # stop signal and progress sink; memory limit; version
SOLVER_MODULES = ("pysat.solvers", "pysat.examples")  # made only in maxsat/ (maxsat.solvers)
MODULE_NAME = re.compile(r"occamlearn(\.[A-Za-z_]\w*)+")


def layout_table(text: str) -> dict[str, set[str]]:
    """``{package: packages it may import}`` from the README's "| package | may import |"
    table; ``occamlearn`` is the package's own ``__init__``."""
    section = text[text.index("## Layout"):]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    if not rows or not rows[0].replace(" ", "").startswith("|package|mayimport|"):
        raise ValueError("README's Layout section has no '| package | may import |' table")
    table = {}
    for row in rows[2:]:
        packages, allowed = row.strip("|").split("|")[:2]
        for package in re.findall(r"`([\w.]+)`", packages):
            table[package] = set(re.findall(r"`([\w.]+)`", allowed))
    return table


TABLE = layout_table(README.read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULE_FILES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports_and_calls(path: Path):
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from occamlearn import stopping`` imports the module occamlearn.stopping, not
            # the package's public API
            submodules = [f"{target}.{alias.name}" for alias in node.names]
            named = [name for name in submodules if name in MODULE_FILES]
            yield from named
            if len(named) < len(submodules):
                yield target
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and MODULE_NAME.fullmatch(node.value)):
            yield node.value  # import_module("occamlearn.x"), lazy tables of public names


def _imported(path: Path) -> set[str]:
    """The occamlearn modules ``path`` imports (absolute, relative resolved, strings)."""
    return {name for name in _imports_and_calls(path)
            if name == "occamlearn" or name.startswith("occamlearn.")}


MODULES = {module: _imported(path) for module, path in MODULE_FILES.items()}


def _subpackage(module: str) -> str:
    """``occamlearn.trees.mpdt.maxsat_route.search`` -> ``trees``; the package -> ``occamlearn``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


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


def layering_breaks(edges, table) -> list[str]:
    """Every import the table does not allow, as "module -> module (rule)"."""
    wrong = []
    for module, target in sorted(set(edges)):
        source, sink = _subpackage(module), _subpackage(target)
        if source == sink:
            continue
        if source not in table:
            wrong.append(f"{module} -> {target} ({source!r} has no row in the Layout table)")
        elif sink not in table[source] and sink not in LEAVES:
            wrong.append(f"{module} -> {target} ({source!r} may not import {sink!r})")
        elif sink not in LEAVES and any(part.startswith("_") and not part.startswith("__")
                                        for part in target.split(".")):
            wrong.append(f"{module} -> {target} (a private module of another package)")
    return wrong


def test_the_table_has_a_row_for_every_package():
    packages = {_subpackage(module) for module in MODULES}
    assert packages - set(TABLE) == set()
    assert set(TABLE) - packages == set()


def test_the_parser_sees_function_level_relative_and_string_imports():
    assert len(MODULES) > 40
    # trees.dtmax.entry imports its data at module level; the estimators import their
    # families; cli.trees imports the estimators inside functions; the package names its
    # public modules as strings
    assert "occamlearn.trees.dtmax.data" in {
        _existing(n) for n in MODULES["occamlearn.trees.dtmax.entry"]}
    assert any(_subpackage(t) == "estimators" for m, t in _edges()
               if m.startswith("occamlearn.cli."))
    assert "occamlearn.estimators.model_files" in MODULES["occamlearn"]


def test_imports_follow_the_layout_table():
    assert layering_breaks(_edges(), TABLE) == []


@pytest.mark.parametrize("edge, rule", [
    (("occamlearn.cli.trees", "occamlearn.trees.greedy"), "may not import 'trees'"),
    (("occamlearn.cli.data", "occamlearn.estimators._base"), "private module"),
    (("occamlearn.estimators._record", "occamlearn"), "may not import 'occamlearn'"),
    (("occamlearn.model.tree", "occamlearn.trees.greedy"), "may not import 'trees'"),
    (("occamlearn.export.describe", "occamlearn.estimators"), "may not import 'estimators'"),
])
def test_the_rules_catch_a_break(edge, rule):
    (found,) = layering_breaks([edge], TABLE)
    assert rule in found


def test_no_import_cycles_between_subpackages():
    """The subpackage graph (maxsat, model, trees, lists, estimators, export, ...) is acyclic."""
    graph = defaultdict(set)
    for module, target in _edges():
        source, sink = _subpackage(module), _subpackage(target)
        if source != sink:
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
    assert cycles == []


ENTRY_POINTS = {"occamlearn", "occamlearn.__main__", "occamlearn.cli.__main__"}


def test_every_module_serves_the_package():
    """No module is there for the tests alone: each is imported by another module of the
    package (its package ``__init__`` counts as imported with it) or is an entry point; a
    reference the tests need lives in tests/ (``reference_search.py``, ``bruteforce.py``)."""
    imported = set()
    for module, target in _edges():
        parts = target.split(".")
        imported.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    assert set(MODULES) - imported - ENTRY_POINTS == set()


def test_pysat_solvers_are_made_only_in_maxsat():
    wrong = []
    for module, path in MODULE_FILES.items():
        if module.startswith("occamlearn.maxsat"):
            continue
        for name in _imports_and_calls(path):
            if name.startswith(SOLVER_MODULES):
                wrong.append(f"{module} imports {name}")
    assert wrong == []


# argparse keeps a parser's actions only in ``_actions`` (sub-commands: ``_SubParsersAction``);
# scikit-learn declares an estimator's parameters in ``_parameter_constraints``; ``os._exit``
# is public, and ``atexit._run_exitfuncs`` is how ``cli.run`` runs the handlers before it
CLI_PRIVATE_ALLOWED = {"_actions", "_SubParsersAction", "_parameter_constraints", "_exit",
                       "_run_exitfuncs"}


def test_the_cli_uses_no_private_attribute():
    wrong = []
    for module, path in MODULE_FILES.items():
        if not module.startswith("occamlearn.cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in CLI_PRIVATE_ALLOWED
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                wrong.append(f"{module}:{node.lineno} .{node.attr}")
    assert wrong == []


def test_cli_solver_names_are_the_backends():
    """The CLI writes the back-end names out (so that ``--help`` starts without PySAT);
    they must be exactly ``maxsat.backends.BACKENDS``."""
    from occamlearn.cli.trees import SOLVERS
    from occamlearn.maxsat.backends import BACKENDS

    assert list(SOLVERS) == list(BACKENDS)
