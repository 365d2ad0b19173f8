"""Base against head, alternated, with each tree's own benchmark scripts: no speed lost.

For a change that moves and renames code (issue 32's), three questions, each answered by
fresh processes in the order base, head, base, head, ... (``--repeats`` pairs):

* ``bnb_runtime``: ``benchmarks/bnb_runtime.py --datasets ...`` (the pure branch and bound,
  one process per dataset), each tree running its own copy of the script on its own ``src``;
* ``size_error_path``: ``benchmarks/size_error_path.py --datasets ...`` (the size-error
  frontier), likewise;
* ``cold_start``: ``python -m occamlearn.cli warm-up`` with an empty numba cache (what
  ``benchmarks/cold_start.py`` calls "warm-up on an empty cache": every kernel family
  compiled in one process), then once more on the now complete cache (loading only); then
  the decision lists' kernels (``lists.levels.load_kernels``, which warm-up leaves out) the
  same two ways.

Each tree is a folder holding ``src/`` and ``benchmarks/`` (a checkout, or ``git archive``
of a commit unpacked), so the scripts may differ between the two as their modules do. Before
the timed runs each tree runs ``occamlearn warm-up`` and the script once, untimed, so both
read every kernel family from numba's disk cache (keyed by the kernel sources, so two trees
never share a stale entry): a search whose family is not cached runs without it (the
frontier's one-deletion phase) or compiles it beside the fit.

The tables give, per dataset or run, the median wall seconds of base and head and their
ratio head/base, and whether every run of both gave the same answer (size, bound and status;
the frontier's points). On a shared machine read the ratios, not the seconds.

    git archive 87a66e9 | tar -x -C /tmp/base32
    python benchmarks/house_ab.py --base /tmp/base32 --base-commit 87a66e9 --head . \\
        --repeats 3 --out benchmarks/results/house_ab.md
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Subsets that finish in seconds each (the full lists take minutes per run on a shared
# machine); each is a dataset the branch and bound or the frontier proves within the limit.
BNB_DATASETS = ("hayes-r", "monks-3", "haber", "monks-1", "new-thy", "append", "lympho",
                "h-votes")
FRONTIER_DATASETS = ("mux6", "hayes-r", "haber", "monks-1", "new-thy", "append", "wine")
# the table columns that make up a run's answer (the rest are timings and counts)
ANSWER_COLUMNS = {"bnb_runtime": ("size", "lower bound", "status"),
                  "size_error_path": ("points", "proven", "status", "errors at 1 leaf → end")}


def _env(tree: Path, cache: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    if cache is not None:
        env.update(NUMBA_CACHE_DIR=str(cache / "numba"), XDG_CACHE_HOME=str(cache / "home"))
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process(tree: Path, arguments: list, cache: Path | None = None) -> dict:
    """One fresh process in ``tree``: wall and CPU seconds (with its children), stdout."""
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], cwd=tree, env=_env(tree, cache),
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: {arguments} failed: {done.stderr[-2000:]}")
    return {"wall": time.perf_counter() - start, "cpu": _children_cpu() - cpu,
            "out": done.stdout}


def _table(out: str) -> dict:
    """The per-dataset rows of a script's Markdown table, as {dataset: {column: cell}}."""
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == len(header) and not set(cells[0]) <= set("-"):
            rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def script_runs(script: str, datasets, time_limit: float, base: Path, head: Path,
                repeats: int) -> list[str]:
    arguments = [f"benchmarks/{script}.py", "--time-limit", f"{time_limit:g}",
                 "--datasets", *datasets]
    for tree in (base, head):  # untimed: every kernel family into the disk cache, then the
        # script itself
        _process(tree, ["-m", "occamlearn.cli", "warm-up"])
        _process(tree, arguments)
    seconds = {"base": {}, "head": {}}
    answers = {"base": {}, "head": {}}
    walls = {"base": [], "head": []}
    for _ in range(repeats):
        for side, tree in (("base", base), ("head", head)):
            run = _process(tree, arguments)
            walls[side].append(run["wall"])
            for name, row in _table(run["out"]).items():
                seconds[side].setdefault(name, []).append(float(row["seconds"]))
                answer = tuple(row[column] for column in ANSWER_COLUMNS[script])
                answers[side].setdefault(name, set()).add(answer)
            print(f"{script} {side}: {run['wall']:.1f} s", flush=True)
    rows = []
    for name in datasets:
        b, h = statistics.median(seconds["base"][name]), statistics.median(seconds["head"][name])
        both = answers["base"][name] | answers["head"][name]
        same = "yes" if len(both) == 1 else f"NO: {sorted(both)}"
        rows.append(f"| {name} | {b:.3f} | {h:.3f} | {h / b:.2f} | {same} |")
    b, h = statistics.median(walls["base"]), statistics.median(walls["head"])
    rows.append(f"| whole script (wall, with imports) | {b:.1f} | {h:.1f} | {h / b:.2f} | |")
    total_b = sum(statistics.median(seconds["base"][n]) for n in datasets)
    total_h = sum(statistics.median(seconds["head"][n]) for n in datasets)
    rows.append(f"| sum of the datasets' medians | {total_b:.2f} | {total_h:.2f} | "
                f"{total_h / total_b:.2f} | |")
    return rows


# the decision lists' kernels, which ``occamlearn warm-up`` does not compile
LISTS_LOAD = "from occamlearn.lists.levels import load_kernels; assert load_kernels() is not None"
COLD_COMMANDS = {"warm-up": ["-m", "occamlearn.cli", "warm-up"], "lists": ["-c", LISTS_LOAD]}
COLD_ROWS = (("warm-up", "cold", "warm-up, empty cache (compile every family)"),
             ("warm-up", "cached", "warm-up again, complete cache (load only)"),
             ("lists", "cold", "decision-list kernels, empty cache (compile)"),
             ("lists", "cached", "decision-list kernels again, complete cache (load only)"))


def cold_runs(base: Path, head: Path, repeats: int) -> list[str]:
    times = {(side, command, kind): [] for side in ("base", "head") for command in COLD_COMMANDS
             for kind in ("cold", "cached")}
    workdir = Path(tempfile.mkdtemp(prefix="occamlearn-house-ab-"))
    try:
        for _ in range(repeats):
            for side, tree in (("base", base), ("head", head)):
                cache = Path(tempfile.mkdtemp(dir=workdir))
                for command, arguments in COLD_COMMANDS.items():
                    for kind in ("cold", "cached"):
                        run = _process(tree, arguments, cache)
                        times[side, command, kind].append((run["wall"], run["cpu"]))
                        print(f"{command} {kind} {side}: {run['wall']:.1f} s wall, "
                              f"{run['cpu']:.1f} s CPU", flush=True)
                shutil.rmtree(cache, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rows = []
    for command, kind, what in COLD_ROWS:
        for index, measure in ((0, "wall"), (1, "CPU")):
            b = statistics.median(t[index] for t in times["base", command, kind])
            h = statistics.median(t[index] for t in times["head", command, kind])
            rows.append(f"| {what}: {measure} | {b:.1f} | {h:.1f} | {h / b:.2f} | |")
    return rows


def _commit(tree: Path, given: str | None) -> str:
    if given:
        return given
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree,
                          capture_output=True, text=True)
    return done.stdout.strip() or "not recorded (not a checkout: give --base-commit/--head-commit)"


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="base tree (src/, benchmarks/)")
    parser.add_argument("--head", type=Path, required=True, help="head tree (src/, benchmarks/)")
    parser.add_argument("--base-commit", help="the base's commit, when --base is an archive")
    parser.add_argument("--head-commit", help="the head's commit, when --head is an archive")
    parser.add_argument("--repeats", type=int, default=3, help="alternated base/head pairs")
    parser.add_argument("--cold-repeats", type=int, default=2,
                        help="alternated pairs of cold warm-ups (each compiles everything)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--only", nargs="*", default=None,
                        choices=("bnb_runtime", "size_error_path", "cold_start"))
    parser.add_argument("--out", default=None, help="Markdown file for the tables")
    args = parser.parse_args(argv)
    base, head = args.base.resolve(), args.head.resolve()
    load_before, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    sections = []
    parts = (("bnb_runtime", "datasets: " + ", ".join(BNB_DATASETS)),
             ("size_error_path", "datasets: " + ", ".join(FRONTIER_DATASETS)),
             ("cold_start", "occamlearn warm-up, each run its own numba cache"))
    for part, what in parts:
        if args.only and part not in args.only:
            continue
        if part == "cold_start":
            rows = cold_runs(base, head, args.cold_repeats)
        else:
            datasets = BNB_DATASETS if part == "bnb_runtime" else FRONTIER_DATASETS
            rows = script_runs(part, datasets, args.time_limit, base, head, args.repeats)
        sections += [f"## {part} ({what})", "",
                     "| dataset or run | base s | head s | head/base | same answer |",
                     "|---|---:|---:|---:|---|", *rows, ""]
        print("\n".join(sections[-len(rows) - 5:]), flush=True)
    load_after = os.getloadavg()
    text = "\n".join([
        f"Command: `python benchmarks/house_ab.py {' '.join(argv)}`  ",
        f"Head commit {_commit(head, args.head_commit)}, base commit "
        f"{_commit(base, args.base_commit)}; started {started}; "
        f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} on "
        f"{os.cpu_count()} cores (a machine shared with other jobs: read the ratios).", "",
        "Seconds: the median over the alternated runs of what each script reports per dataset "
        "(the fit alone, in its own process); the 'whole script' row times the script's process "
        "with its imports and per-dataset processes.", "",
        "# Base against head, alternated: bnb_runtime, size_error_path, cold start", "",
        *sections])
    text = re.sub(r"\n{3,}", "\n\n", text)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
