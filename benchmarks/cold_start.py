"""First use on a fresh install: fits with an empty numba cache against fits with a warm one.

Every run is its own ``python`` process with ``NUMBA_CACHE_DIR`` pointing to a folder of its
own: a new empty one for a cold run (what a fresh install sees), a copy of a complete cache
for a warm run. Three parts:

1. building blocks: seconds to compile each kernel module into an empty cache, and to load it
   from the full cache in the next process, for these kernels and for the kernels of
   ``--baseline`` (a git revision: the kernels before the compile-time cuts);
2. ``find_minimum_tree(method="auto", time_limit=60)`` (the portfolio, the default path) on the
   paper-bit training matrices of ``mpdt_runtime.training_matrix`` (hepa, lympho, tic-tac-toe,
   h-votes), cold and warm side by side, ``--repeats`` times, with the process's wall seconds;
3. ``occamlearn fit --dataset haber`` (the CLI's default 60 s limit), cold and warm.

After a cold run the background compile it started is waited for (its log gives the
timeline: when the child started, imported numba, finished each kernel family) and ended if
still running, so runs do not overlap. ``--variants`` adds cold fits under other cold-start
policies (``_set_variant``). The load average is recorded with every run.

    python benchmarks/cold_start.py --out benchmarks/results/cold_start.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DATASETS = ("hepa", "lympho", "tic-tac-toe", "h-votes")
KERNEL_FILES = {"bnb": "src/occamlearn/trees/mpdt/bnb/kernels.py",
                "error-budget": "src/occamlearn/trees/mpdt/error_budget/bnb_kernels.py"}


def _env(cache: Path, src: Path = SRC) -> dict:
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache),
            "PYTHONPATH": os.pathsep.join([str(src), str(ROOT / "benchmarks"),
                                           os.environ.get("PYTHONPATH", "")])}


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(arguments: list, cache: Path, timeout: float = 900,
         src: Path = SRC) -> tuple[float, str, float]:
    """(wall seconds, stdout, 1-minute load before) of a fresh process; its CPU seconds
    (with those of the children it waited for) go to ``_run.cpu``."""
    load = os.getloadavg()[0]
    _run.launched = time.perf_counter()  # the clock of the compile child's log
    started, cpu = time.perf_counter(), _cpu_of_children()
    done = subprocess.run([sys.executable, *arguments], env=_env(cache, src), capture_output=True,
                          text=True, timeout=timeout)
    seconds = time.perf_counter() - started
    _run.cpu = _cpu_of_children() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{arguments} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout, load


def _compile_log(cache: Path, wait: float = 120.0) -> list[dict]:
    """The events the background compile of a cold run logged (``kernel_cache._log``), after
    waiting up to ``wait`` seconds for it to end (so that runs never overlap)."""
    deadline = time.time() + wait
    while any(cache.rglob("occamlearn-compile*.lock")) and time.time() < deadline:
        time.sleep(0.2)
    events = []
    for log in cache.rglob("occamlearn-compile*.log"):
        for line in log.read_text().splitlines():
            if line.startswith("{"):
                events.append(json.loads(line))
    return sorted(events, key=lambda event: event["at"])


def _end_background_compile(cache: Path) -> None:
    for lock in cache.rglob("occamlearn-compile*.lock"):
        try:
            pid = int(lock.read_text().strip())
            os.killpg(pid, signal.SIGKILL)  # the child leads its own session
        except (ValueError, ProcessLookupError, PermissionError, OSError):
            pass
    time.sleep(0.5)


# -- child modes -------------------------------------------------------------------------------

def child_blocks(paths: list[str]) -> None:
    """Import numba, then warm up each kernel file given (loaded under a private name)."""
    import importlib.util

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    started = time.perf_counter()
    import numba  # noqa: F401

    out = {"import_numba": time.perf_counter() - started}
    tick_cpu = cpu()
    for path in paths:
        # a name the same in every process: numba's cache records the module by name
        name = "kernels_" + hashlib.sha1(path.encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        tick = time.perf_counter()
        if "search" in module.warm_up.__code__.co_varnames:
            module.warm_up(search=False)
            out[f"{Path(path).parent.name}: incompatibility bound"] = time.perf_counter() - tick
            tick = time.perf_counter()
            module.warm_up(search=True)
            out[f"{Path(path).parent.name}: search"] = time.perf_counter() - tick
        else:
            module.warm_up()
            out[f"{Path(path).parent.name}: bound"] = time.perf_counter() - tick
    out["kernels_cpu"] = cpu() - tick_cpu
    print(json.dumps(out))


VARIANTS = ("head", "no-side", "no-bound")


def _set_variant(variant: str) -> None:
    """``head``: this revision's defaults; ``no-side``: one compile child (no side child, as
    up to commit f55a400); ``no-bound``: the Python search does not compile the
    incompatibility bound while the background compile runs."""
    from occamlearn.trees.mpdt.bnb import engine_switch

    if variant == "no-side":  # read by the compile child, which inherits the environment
        os.environ["OCCAMLEARN_COMPILE_PROCESSES"] = "1"
    elif variant == "no-bound":
        engine_switch.BOUND_WHILE_COMPILING = False


def child_fit(name: str, time_limit: float, variant: str = "head") -> None:
    """One fit of the portfolio; prints its result and a timeline in wall-clock seconds
    (``time.perf_counter()``, the clock of the compile child's log: system-wide monotonic on
    Linux): imports done, data ready, fit start, every bound move, fit end."""
    imported = time.perf_counter()
    _set_variant(variant)
    from mpdt_runtime import training_matrix

    from occamlearn.stopping import Deadline, ProgressSink
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    data_at = time.perf_counter()
    X, y, k = training_matrix(name)[:3]
    started = fit_at = time.perf_counter()
    moves = []
    sink = ProgressSink(lambda upper, lower, *_: moves.append((time.perf_counter(), upper,
                                                                 lower)))
    found = find_minimum_tree(X, y, k, method="auto", deadline=Deadline.after(time_limit),
                              progress=sink)
    turns = [turn for turn in found.stats.get("turns", []) if turn.get("engine")]
    first = next((turn for turn in turns if turn["engine"] == "branch-and-bound"), {})
    print(json.dumps({"size": int(found.tree.n_nodes), "status": found.status,
                      "lb": int(found.lower_bound), "fit_seconds": time.perf_counter() - started,
                      "turns": len(turns), "search_engine": first.get("search_engine"),
                      "switched_at": first.get("switched_to_compiled_at"),
                      "timeline": {"imported": imported, "data": data_at, "fit": fit_at,
                                   "end": time.perf_counter(), "moves": moves}}))


# -- the parent --------------------------------------------------------------------------------

def blocks(baseline: str, workdir: Path) -> list[dict]:
    """Compile (empty cache) and load (the cache it left) seconds, per kernel version."""
    versions = {"this branch": [str(ROOT / path) for path in KERNEL_FILES.values()]}
    if baseline:
        old = workdir / "baseline"
        paths = []
        for key, path in KERNEL_FILES.items():
            target = old / key.replace("-", "_") / Path(path).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(subprocess.run(["git", "show", f"{baseline}:{path}"], cwd=ROOT,
                                             capture_output=True, text=True,
                                             check=True).stdout)
            paths.append(str(target))
        versions[f"baseline {baseline}"] = paths
    rows = []
    for version, paths in versions.items():
        cache = Path(tempfile.mkdtemp(dir=workdir))
        for phase in ("compile (empty cache)", "load (warm cache)"):
            seconds, out, load = _run([__file__, "--child-blocks", *paths], cache)
            rows.append({"version": version, "phase": phase, "process": seconds, "load": load,
                         "process_cpu": _run.cpu,
                         **json.loads(out.strip().splitlines()[-1])})
            print(rows[-1], flush=True)
    return rows


def fits(repeats: int, time_limit: float, warm_cache: Path, workdir: Path,
         datasets=DATASETS, variants=(), base_src: Path | None = None) -> list[dict]:
    """Cold and warm fits of each dataset (cold first), then a cold fit of each of
    ``variants`` (``_set_variant``) and, with ``base_src``, a cold fit of the package at
    that path ("base"), with the timeline of the background compile."""
    rows = []
    for repeat in range(repeats):
        for name in datasets:
            for kind in ("cold", "warm", *(f"cold {v}" for v in variants),
                         *(["cold base"] if base_src else [])):
                variant = kind.split()[1] if " " in kind else "head"
                cache = warm_cache if kind == "warm" else Path(tempfile.mkdtemp(dir=workdir))
                src = base_src if variant == "base" else SRC
                seconds, out, load = _run([__file__, "--child-fit", name, str(time_limit),
                                           "head" if variant == "base" else variant], cache,
                                          src=src)
                launched = _run.launched
                events = _compile_log(cache) if kind != "warm" else []
                if kind != "warm":
                    _end_background_compile(cache)
                rows.append({"dataset": name, "kind": kind, "repeat": repeat,
                             "process": seconds, "load": load, "process_cpu": _run.cpu,
                             "launched": launched, "compile_events": events,
                             **json.loads(out.strip().splitlines()[-1])})
                print(rows[-1], flush=True)
    return rows


def cli_haber(warm_cache: Path, workdir: Path) -> list[dict]:
    rows = []
    for kind in ("cold", "warm"):
        cache = Path(tempfile.mkdtemp(dir=workdir)) if kind == "cold" else warm_cache
        seconds, out, load = _run(["-m", "occamlearn.cli", "fit", "--dataset", "haber"], cache)
        if kind == "cold":
            _end_background_compile(cache)
        size = next((line for line in out.splitlines() if line.startswith("size:")), "")
        rows.append({"kind": kind, "process": seconds, "load": load, "process_cpu": _run.cpu,
                     "size_line": size})
        print(rows[-1], flush=True)
    return rows


def report(block_rows, fit_rows, cli_rows, args) -> str:
    lines = [f"# Cold start: empty numba cache against a warm one (`{' '.join(sys.argv)}`)", "",
             "Each run is a fresh process with its own NUMBA_CACHE_DIR (cold: new and empty). "
             "Load = 1-minute load average of the 2-core machine before the run "
             "(other jobs were running). CPU = user + system seconds of the process and of the "
             "children it waited for (a cold fit's background compile when it ended first).", "", "## Building blocks (seconds)", "",
             "| kernels | phase | import numba | kernels (wall) | kernels CPU | process | load |",
             "|---|---|---:|---|---:|---:|---:|"]
    for row in block_rows:
        kernels = ", ".join(f"{key} {value:.2f}" for key, value in row.items()
                            if ":" in key)
        lines.append(f"| {row['version']} | {row['phase']} | {row['import_numba']:.2f} | "
                     f"{kernels} | {row['kernels_cpu']:.2f} | {row['process']:.1f} | "
                     f"{row['load']:.1f} |")
    lines += ["", f"## find_minimum_tree(method='auto', time_limit={args.time_limit:g}), "
              "paper bits (seconds of the whole process)", "",
              "| dataset | repeat | cold | warm | cold / warm | CPU cold / warm | "
              "cold size (status) | warm size (status) | load cold / warm |",
              "|---|---:|---:|---:|---:|---|---|---|---|"]
    by_key = {(r["dataset"], r["repeat"], r["kind"]): r for r in fit_rows}
    for name in args.datasets:
        for repeat in range(args.repeats):
            cold, warm = by_key[(name, repeat, "cold")], by_key[(name, repeat, "warm")]
            lines.append(
                f"| {name} | {repeat} | {cold['process']:.1f} | {warm['process']:.1f} | "
                f"{cold['process'] / warm['process']:.2f} | "
                f"{cold['process_cpu']:.1f} / {warm['process_cpu']:.1f} | "
                f"{cold['size']} ({cold['status']}) | "
                f"{warm['size']} ({warm['status']}) | {cold['load']:.1f} / {warm['load']:.1f} |")
    lines += timeline_table(fit_rows)
    lines += ["", "## occamlearn fit --dataset haber (default 60 s limit)", "",
              "| cache | process seconds | CPU | result | load |", "|---|---:|---:|---|---:|"]
    for row in cli_rows:
        lines.append(f"| {row['kind']} | {row['process']:.1f} | {row['process_cpu']:.1f} | "
                     f"{row['size_line']} | "
                     f"{row['load']:.1f} |")
    return "\n".join(lines) + "\n"


def _at(row, event, module=None):
    """Seconds after the launch of ``row``'s process when its compile logged ``event``."""
    for logged in row.get("compile_events", []):
        if logged["event"] == event and (module is None or logged.get("module") == module):
            return f"{logged['at'] - row['launched']:.1f}"
    return "–"


def timeline_table(fit_rows) -> list[str]:
    """Each cold fit's timeline, seconds after its process was launched."""
    rows = [row for row in fit_rows if row["kind"] != "warm" and "timeline" in row]
    if not rows:
        return []
    warm = {(r["dataset"], r["repeat"]): r for r in fit_rows if r["kind"] == "warm"}
    lines = ["", "## Timeline of each cold fit (seconds after its process was launched)", "",
             "fit = `find_minimum_tree` called (after imports and data); child = the compile "
             "process started (its Python up); numba = it imported numba; table = the side "
             "child built the memo-table kernels; ready = the bnb kernels complete on disk; "
             "switch = the search changed to the compiled engine; LB at switch = the lower "
             "bound (nodes) the Python phase had proven by then (the warm fit's proven bound at "
             "the same seconds after its fit start in brackets); end = the fit returned.", "",
             "| dataset | policy | fit | child | numba | table | ready | switch | LB at switch "
             "| end | process | warm process | cold / warm | engine at end | load |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        line = row["timeline"]
        fit = line["fit"] - row["launched"]
        switch = row.get("switched_at")
        switch_at = None if switch is None else fit + switch
        lower = "–"
        twin = warm.get((row["dataset"], row["repeat"]))
        if switch_at is not None:
            proven = [m[2] for m in line["moves"]
                      if m[2] is not None and m[0] - row["launched"] <= switch_at]
            lower = str(max(proven, default=1))
            if twin is not None:
                start = twin["timeline"]["fit"]
                then = [m[2] for m in twin["timeline"]["moves"]
                        if m[2] is not None and m[0] - start <= switch]
                lower += f" ({max(then, default=1)})"
        policy = row["kind"].split()[1] if " " in row["kind"] else "head"
        warm_seconds = twin["process"] if twin else float("nan")
        lines.append(
            f"| {row['dataset']} | {policy} | {fit:.1f} | {_at(row, 'started')} | "
            f"{_at(row, 'numba imported')} | {_at(row, 'compiled', 'bnb.warm_up_table')} | "
            f"{_at(row, 'compiled', 'bnb')} | "
            f"{'–' if switch_at is None else f'{switch_at:.1f}'} | {lower} | "
            f"{line['end'] - row['launched']:.1f} | {row['process']:.1f} | {warm_seconds:.1f} | "
            f"{row['process'] / warm_seconds:.2f} | {row['search_engine']} | {row['load']:.1f} |")
    return lines


def main(argv=None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child-blocks":
        return child_blocks(sys.argv[2:])
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child-fit":
        return child_fit(sys.argv[2], float(sys.argv[3]), *sys.argv[4:5])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="Markdown file for the tables")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--baseline", default="3fadb82",
                        help="git revision whose kernels are measured too ('' for none)")
    parser.add_argument("--base-src", type=Path, default=None,
                        help="also a cold fit of the package under this src folder (e.g. "
                             "a worktree of main), alternated with this one's")
    parser.add_argument("--skip", nargs="*", default=[], choices=("blocks", "fits", "cli"))
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--variants", nargs="*", default=[], choices=VARIANTS[1:],
                        help="also a cold fit of each (earlier cold-start policies)")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="occamlearn-cold-"))
    try:
        warm_cache = workdir / "warm"
        os.environ["OCCAMLEARN_COMPILE_PROCESSES"] = "1"  # nothing left running after it
        _run(["-m", "occamlearn.trees.kernel_cache"], warm_cache)
        del os.environ["OCCAMLEARN_COMPILE_PROCESSES"]
        block_rows = [] if "blocks" in args.skip else blocks(args.baseline, workdir)
        fit_rows = [] if "fits" in args.skip else fits(args.repeats, args.time_limit,
                                                       warm_cache, workdir, args.datasets,
                                                       args.variants, args.base_src)
        cli_rows = [] if "cli" in args.skip else cli_haber(warm_cache, workdir)
        text = report(block_rows, fit_rows, cli_rows, args)
        print(text)
        if args.out:
            Path(args.out).write_text(text)
            with open(Path(args.out).with_suffix(".jsonl"), "w") as out:
                for row in block_rows + fit_rows + cli_rows:
                    out.write(json.dumps(row) + "\n")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
