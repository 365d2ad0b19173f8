"""README.md's Python examples run and print exactly what the README shows.

Every ```python block must be followed by a ```text block: its expected standard output
(trailing spaces and blank lines at the end ignored). The blocks run in order in one
namespace, as a reader pasting them into one session would.
"""

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def readme_examples() -> list[tuple[int, str, str]]:
    """(line, code, expected output) of each ```python block of the README."""
    text = README.read_text()
    blocks = [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2), m.start(), m.end())
              for m in FENCE.finditer(text)]
    examples = []
    for k, (line, language, body, _, end) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[k + 1] if k + 1 < len(blocks) else None
        between = text[end:following[3]] if following else ""
        if following is None or following[1] != "text" or between.strip():
            raise AssertionError(f"README.md line {line}: a python block must be followed by "
                                 "a ```text block of what it prints")
        examples.append((line, body, following[2]))
    return examples


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip().splitlines()]


def test_readme_has_python_examples():
    examples = readme_examples()
    assert len(examples) >= 3
    first = examples[0][1]
    assert "MinimumPureTreeClassifier(" in first and "load_dataset(" in first


def test_readme_examples_print_what_the_readme_shows():
    namespace: dict = {"__name__": "__readme__"}
    for line, code, expected in readme_examples():
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, f"README.md:{line}", "exec"), namespace)
        got = _lines(out.getvalue())
        if got != _lines(expected):
            pytest.fail(f"README.md python block at line {line} printed:\n{out.getvalue()}\n"
                        f"but the README shows:\n{expected}")


ROOT = README.parent
NAMED_FILE = re.compile(r"`([\w./*-]+\.(?:md|py))`")


def _named_file_exists(name: str) -> bool:
    """A file the README names in backquotes: a path from the repository root (``tests/``,
    ``benchmarks/``), a result file under ``benchmarks/results/`` (globs such as
    ``table5*.md`` included), or a module named by its path's tail under ``src/``."""
    if name.startswith(("tests/", "benchmarks/", "src/")):
        return any(ROOT.glob(name))
    if name.endswith(".md") and any((ROOT / "benchmarks" / "results").glob(name)):
        return True
    return any(path.as_posix().endswith("/" + name) for path in (ROOT / "src").rglob(name))


def test_every_file_the_readme_names_exists():
    """The README backs its measured claims with result files and tests by name: each named
    file must exist (a renamed or removed result would leave a claim without its backing)."""
    names = set(NAMED_FILE.findall(README.read_text())) - {"README.md", "_name.py"}  # patterns
    assert len(names) > 20
    missing = sorted(name for name in names if not _named_file_exists(name))
    assert missing == [], missing


BENCHMARKS = ROOT / "benchmarks"


def _benchmark_rows(text: str) -> set[str]:
    """The script names of the benchmarks README's table (first cell of each row)."""
    return set(re.findall(r"^\| `([^`]+\.py)` \|", text, flags=re.MULTILINE))


def test_every_benchmark_script_has_a_row_in_the_benchmarks_readme():
    if not (BENCHMARKS / "README.md").exists():
        pytest.skip("benchmarks/ is not part of this checkout")
    rows = _benchmark_rows((BENCHMARKS / "README.md").read_text())
    scripts = {path.name for path in BENCHMARKS.glob("*.py")}
    assert not scripts - rows, f"benchmarks without a README row: {sorted(scripts - rows)}"
    assert not rows - scripts, f"README rows without a script: {sorted(rows - scripts)}"
    # the check can fail: a table missing one script's row
    assert scripts - _benchmark_rows("| `limits.py` | ... |")
