"""Every module a docstring or comment of src/ names exists.

Names are read from the source text: ``occamlearn.x.y`` anywhere, relative dotted names in
double backticks that start with a subpackage (````trees.mpdt.bnb.kernels````), and file
paths (``error_budget/encoding.py``). A dotted name resolves to a module, then to names its
module defines at top level (functions, classes, assignments, imports, a lazy ``_PUBLIC``
table); what follows a defined name (a method, a field) is not checked. A file path must be
the end of a file of the repository.
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout: its files and src/, installed or not
PACKAGE = ROOT / "src" / "occamlearn"
DOTTED = re.compile(r"\boccamlearn(?:\.\w+)+")
RELATIVE = re.compile(r"``((?:trees|maxsat|estimators|export|lists|binarize|cli|experiments|"
                      r"datasets|model)(?:\.\w+)+)")
PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)*\w+\.py)\b")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


@cache
def _top_level_names(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            if (isinstance(node.value, ast.Dict)
                    and any(isinstance(t, ast.Name) and t.id == "_PUBLIC" for t in targets)):
                names.update(k.value for k in node.value.keys if isinstance(k, ast.Constant))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def resolves(name: str) -> bool:
    """``occamlearn.a.b.c``: a module, or a module's top-level name (and anything after it)."""
    parts = name.rstrip(".").split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        if module in MODULES:
            return end == len(parts) or parts[end] in _top_level_names(module)
    return False


@cache
def _repository_files() -> tuple[str, ...]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return tuple(listed) + tuple(str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py"))


def path_exists(path: str) -> bool:
    return any(f == path or f.endswith("/" + path) for f in _repository_files())


EXAMPLES = {"occamlearn.a.b", "root/a/b.py", "root/a/b/__init__.py"}  # kernel_sources explains
# how a module name becomes a file with them


def stale_names(module: str, text: str) -> list[str]:
    wrong = [name for name in DOTTED.findall(text) if not resolves(name)]
    wrong += [name for name in RELATIVE.findall(text)
              if not resolves(f"occamlearn.{name}") and not name.startswith("model.")]
    wrong += [path for path in PATH.findall(text) if not path_exists(path)]
    return [f"{module}: {name}" for name in wrong if name not in EXAMPLES]


def test_the_checks_catch_a_stale_name():
    assert stale_names("m", "see ``trees.mpdt.bnb.kernels`` and occamlearn.maxsat.backends") == []
    assert stale_names("m", "see ``trees.mpdt.no_such_module``") != []
    assert stale_names("m", "see occamlearn.maxsat.backends.NO_SUCH_NAME") != []
    assert stale_names("m", "in error_budget/no_such_file.py") != []


def test_every_named_module_exists():
    wrong = []
    for module, path in sorted(MODULES.items()):
        wrong += stale_names(module, path.read_text(encoding="utf-8"))
    assert wrong == []
