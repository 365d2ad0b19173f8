"""Minimum pure decision trees: occamlearn's exact searches against STreeD and GOSDT, side by side.

Protocol (the matrices the certified sizes below were measured on): the paper's bit encoding
``FeatureBinarizer(encoding="binary")``, conflicting rows majority-filtered
(``resolve_conflicts``), stratified 64 % training split ``random_state=0``; hayes-r: the
paper's 132 UCI rows. Runners (each instance in its own process, own process group, killed
hard at 1.5 x limit + 30 s):

* ``auto``   -- ``find_minimum_tree(method="auto")`` (portfolio, n_jobs=None: engines in turns)
* ``auto2``  -- the same with ``n_jobs=2`` (engines in two processes)
* ``bnb``    -- ``method="bnb"`` (branch and bound alone)
* ``maxsat`` -- ``method="maxsat", solver="lsu"`` (the paper's route alone)
* ``streed`` -- STreeD, patched pystreed 1.4.0, smallest perfect tree by increasing branch nodes
* ``gosdt``  -- GOSDT 1.0.x, regularisation small enough that the optimum is the minimum pure
  tree (``peers.run_gosdt`` says how its answer is certified)
* ``auto_cold`` -- ``auto`` with an empty numba cache (a new ``NUMBA_CACHE_DIR`` per instance:
  a fresh install's first fit; the background compile it starts is waited for, then deleted).
  Not in the default runners; ``auto`` beside it runs on the warm cache (warmed first).

``--matrices readable``: the frozen readable-default matrices instead (what
``MinimumPureTreeClassifier()`` searches: ``ThresholdBinarizer()``, see
``readable_matrices.py``), every bundled dataset and breast_cancer; no certified sizes are
known there, so the checks compare the runners with each other.

    python benchmarks/mpdt_runtime.py --time-limit 60 --out benchmarks/results/mpdt_runtime.md
    python benchmarks/mpdt_runtime.py --time-limit 600 \\
        --only-unproven-from benchmarks/results/mpdt_runtime.jsonl \\
        --out benchmarks/results/mpdt_runtime_600.md

    python benchmarks/mpdt_runtime.py --matrices readable --runners auto \
        --out benchmarks/results/mpdt_runtime_readable.md
    python benchmarks/mpdt_runtime.py --runners auto_cold auto \
        --datasets hepa lympho tic-tac-toe h-votes --out benchmarks/results/mpdt_cold.md

Raw results go to the ``--out`` file's ``.jsonl`` sibling (one line per run).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue as queue_module
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from occamlearn.stopping import Deadline

sys.path.insert(0, str(Path(__file__).resolve().parent))

DATASETS = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber",
            "monks-1", "new-thy", "append", "wine", "audio", "mushr", "hepa", "back",
            "lympho", "h-votes", "spect", "tic-tac-toe", "titanic")
PAPER_DATASETS = DATASETS[:-1]  # the paper's twenty (titanic is an extra bundled one)
# Minimum sizes certified on these matrices (FINDINGS.md); None = unknown, see KNOWN_LB.
CERTIFIED = {"mux6": 15, "corral": 13, "irish": 9, "iris": 15, "zoo": 15, "hayes-r": 39,
             "monks-3": 29, "haber": 59, "monks-1": 29, "new-thy": 27, "append": 21,
             "wine": 17, "audio": 15, "titanic": 13, "lympho": 33, "h-votes": 27,
             "tic-tac-toe": 81, "hepa": 21}
KNOWN_LB = {"mushr": 13, "back": 17, "spect": 19}
# The 14 certified minima a peer (STreeD or GOSDT) has certified; the other four certified
# sizes (FAST_TARGET) were certified by our branch and bound only.
PEER_CERTIFIED = ("mux6", "corral", "irish", "iris", "zoo", "hayes-r", "monks-3", "haber",
                  "monks-1", "new-thy", "append", "wine", "audio", "titanic")
FAST_TARGET = ("lympho", "h-votes", "hepa", "tic-tac-toe")  # proven within 10 s
HARD = ("mushr", "back", "spect")  # proven within 600 s, or the best lower bound of any tool
OURS = ("auto", "auto2", "bnb", "maxsat", "auto_cold")
PEER_NAMES = ("streed", "gosdt")
RUNNERS = OURS + PEER_NAMES
DEFAULT_RUNNERS = tuple(r for r in RUNNERS if r != "auto_cold")
AUTO = ("auto", "auto2", "auto_cold")  # the portfolio: a "proved by" column
LABELS = {"auto": "ours auto", "auto2": "ours auto n_jobs=2", "bnb": "ours bnb",
          "maxsat": "ours maxsat (lsu)", "streed": "STreeD", "gosdt": "GOSDT",
          "auto_cold": "ours auto, empty numba cache"}
MATRICES = {"name": "paper"}  # which matrices this run uses (``--matrices``)


def training_matrix(name: str):
    """The benchmark protocol's training matrix: (X binary int array, y class indices, K)."""
    from sklearn.model_selection import train_test_split

    from occamlearn.binarize import FeatureBinarizer, resolve_conflicts
    from occamlearn.datasets import load_dataset

    X, y = load_dataset(name)
    if name == "hayes-r":  # the paper's rows: UCI hayes-roth.data, the first 132 (MANIFEST.md)
        X, y = X.iloc[:132], y.iloc[:132]
    codes = np.unique(y.to_numpy().astype(str), return_inverse=True)[1]
    B = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, y), dtype=np.int64)
    B, codes = resolve_conflicts(B, codes)
    try:
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, stratify=codes,
                                          random_state=0)
    except ValueError:  # a class too small to stratify
        B, _, codes, _ = train_test_split(B, codes, train_size=0.64, random_state=0)
    return B, np.unique(codes, return_inverse=True)[1], len(np.unique(codes))


def matrix(name: str):
    """(X, y, K) of ``name`` in the matrices of this run (``MATRICES``)."""
    if MATRICES["name"] == "readable":
        from readable_matrices import load

        return load(name)[:3]
    return training_matrix(name)


def use_readable_matrices() -> None:
    """Switch this run to the readable-default matrices: no certified sizes or known bounds
    hold there (the tables above are for the paper's bits), so none is checked against."""
    global CERTIFIED, KNOWN_LB, PEER_CERTIFIED, FAST_TARGET, HARD
    MATRICES["name"] = "readable"
    CERTIFIED, KNOWN_LB, PEER_CERTIFIED, FAST_TARGET, HARD = {}, {}, (), (), ()


def run_ours(X, y, k, time_limit, method, n_jobs):
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    start = time.perf_counter()
    result = find_minimum_tree(X, y, k, method=method, solver="lsu",
                               deadline=Deadline.after(time_limit), n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    pure = bool(result.tree.is_pure_on(X, y))
    return {"size": int(result.tree.n_nodes) if pure else None, "status": result.status,
            "lb": int(result.lower_bound), "seconds": seconds,
            "proved_by": result.stats.get("proved_by"),
            "note": "" if pure else f"IMPURE tree of {result.tree.n_nodes} nodes"}


def _job(runner, name, time_limit, cache=None):
    if cache is not None:  # before numba is imported: where it reads and writes its cache
        os.environ["NUMBA_CACHE_DIR"] = cache
    X, y, k = matrix(name)
    if runner in PEER_NAMES:
        import peers

        out = peers.PEERS[runner](X, y, k, time_limit)
    else:
        method = "auto" if runner in AUTO else runner
        out = run_ours(X, y, k, time_limit, method, 2 if runner == "auto2" else None)
    out.update(rows=int(X.shape[0]), features=int(X.shape[1]))
    return out


def _child(queue, args):
    os.setpgrp()  # own process group: the hard kill takes the engines' children too
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # peers print warnings from C++
    os.dup2(devnull, 2)
    try:
        queue.put(_job(*args))
    except BaseException as error:  # noqa: BLE001 - report any failure, never hang the parent
        queue.put({"error": f"{type(error).__name__}: {error}"[:200]})


def _kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.is_alive():
        process.kill()
    process.join(timeout=2)


def _end_compile(cache: str, wait: float = 120.0) -> None:
    """Wait up to ``wait`` seconds for the background compile a cold run started (its lock
    files hold the pids), kill what is left, delete the cache: runs never overlap."""
    folder = Path(cache)
    deadline = time.time() + wait
    while any(folder.rglob("occamlearn-compile*.lock")) and time.time() < deadline:
        time.sleep(0.2)
    for lock in folder.rglob("occamlearn-compile*.lock"):
        try:
            os.killpg(int(lock.read_text().strip()), signal.SIGKILL)
        except (ValueError, OSError):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def isolated(runner, name, time_limit, hard_limit):
    """Run one instance in a fresh process group; killed hard after ``hard_limit`` seconds."""
    if runner == "auto_cold":
        if "numba" in sys.modules:
            raise RuntimeError("numba is imported in the parent: a forked child would keep "
                               "its cache directory")
        cache = tempfile.mkdtemp(prefix="occamlearn-cold-")
        try:
            return isolated_in(runner, name, time_limit, hard_limit, cache)
        finally:
            _end_compile(cache)
    return isolated_in(runner, name, time_limit, hard_limit)


def isolated_in(runner, name, time_limit, hard_limit, cache=None):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_child, args=(queue, (runner, name, time_limit, cache)))
    start = time.perf_counter()
    process.start()
    result = None
    try:
        while result is None:
            try:
                result = queue.get(timeout=0.2)
            except queue_module.Empty:
                if not process.is_alive():
                    try:
                        result = queue.get(timeout=1.0)
                    except queue_module.Empty:
                        result = {"error": f"process died (exit code {process.exitcode})"}
                elif time.perf_counter() - start > hard_limit:
                    result = {"error": f"killed after {hard_limit:.0f} s", "killed": True}
    finally:  # also on SIGTERM/Ctrl-C of the benchmark: no instance outlives it
        _kill_group(process)
    result["process_seconds"] = time.perf_counter() - start
    return result


# ----------------------------------------------------------------------------------- report


def _proven(run):
    return bool(run) and "error" not in run and run.get("status") == "optimal" \
        and run.get("size") is not None


def _lb(run):
    return run.get("lb", 1) if run and "error" not in run else 1


def _overrun(run, limit):
    """In-call wall time beyond 10 % + 1 s of the limit (or the process had to be killed)."""
    if not run:
        return False
    if run.get("killed"):
        return True
    return "error" not in run and run["seconds"] > 1.1 * limit + 1


def _charged(run, limit):
    """Seconds counted in the totals: the run's time if proven, the limit otherwise."""
    return run["seconds"] if _proven(run) else limit


def _cell(run, limit):
    if run is None:
        return "not run", ""
    if "error" in run:
        return "ERROR: " + run["error"][:50].replace("|", "/"), ""
    if _proven(run):
        size = str(run["size"])
    else:
        size = (str(run["size"]) if run["size"] is not None else "–") + f" (≥{run['lb']})"
    if run.get("note"):
        size += f" [{run['note'].replace('|', '/')}]"
    seconds = f"{run['seconds']:.1f}"
    if _overrun(run, limit):
        seconds += " ⚠OVERRUN"
    return size, seconds


def check_dataset(name, runs):
    """Disagreements: a wrong 'optimal', a bound above a known size, impure trees, errors."""
    problems = []
    certified = CERTIFIED.get(name)
    done = {r: run for r, run in runs.items() if run and "error" not in run}
    smallest = min((run["size"] for run in done.values() if run["size"] is not None),
                   default=None)
    for runner, run in runs.items():
        if run and "error" in run:
            problems.append(f"{runner}: {run['error']}")
            continue
        if not run:
            continue
        if "IMPURE" in run.get("note", ""):
            problems.append(f"{runner}: {run['note']}")
        if _proven(run):
            if certified is not None and run["size"] != certified:
                problems.append(f"WRONG OPTIMAL {runner}: {run['size']} vs certified {certified}")
            if smallest is not None and run["size"] > smallest:
                problems.append(f"WRONG OPTIMAL {runner}: {run['size']} but a pure tree of "
                                f"{smallest} exists")
            if run["size"] < KNOWN_LB.get(name, 0):
                problems.append(f"WRONG OPTIMAL {runner}: {run['size']} below known bound "
                                f"{KNOWN_LB[name]}")
        if certified is not None and run["lb"] > certified:
            problems.append(f"BOUND TOO HIGH {runner}: ≥{run['lb']} vs certified {certified}")
        if smallest is not None and run["lb"] > smallest:
            problems.append(f"BOUND TOO HIGH {runner}: ≥{run['lb']} but a pure tree of "
                            f"{smallest} exists")
    return problems


def render(args, command, results, runners, datasets, started, finished):
    limit = args.time_limit
    ours = [r for r in runners if r in OURS]
    peers = [r for r in runners if r in PEER_NAMES]
    header = ["dataset", "rows × feat.", "certified"]
    for r in runners:
        header += [f"{LABELS[r]} size", f"{r} s"]
        if r in AUTO:
            header.append(f"{r} proved by")
    header += ["best peer", "auto / best peer"] * bool(peers) + ["checks"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    all_problems, overruns = [], []
    datasets = sorted(datasets, key=lambda n: DATASETS.index(n) if n in DATASETS else len(DATASETS))
    for name in datasets:
        runs = results.get(name, {})
        if not runs:
            continue
        shape = next((f"{run['rows']} × {run['features']}" for run in runs.values()
                      if run and "rows" in run), "–")
        known = CERTIFIED.get(name)
        cells = [name, shape, str(known) if known else f"? (≥{KNOWN_LB.get(name, 1)})"]
        for r in runners:
            size, seconds = _cell(runs.get(r), limit)
            cells += [size, seconds]
            if r in AUTO:
                run = runs.get(r)
                cells.append(str(run.get("proved_by") or "–") if run and "error" not in run
                             else "–")
            if _overrun(runs.get(r), limit):
                run = runs[r]
                overruns.append(f"{name}/{r}: " + (f"{run['seconds']:.1f} s in call, "
                                                   if "seconds" in run else "killed, ")
                                + f"process {run.get('process_seconds', 0):.1f} s")
        best = min((p for p in peers if _proven(runs.get(p))),
                   key=lambda p: runs[p]["seconds"], default=None)
        if peers:  # (no peer columns in a run without peers)
            cells.append(f"{best} {runs[best]['seconds']:.1f} s" if best else "none proved")
            if best and runs.get("auto") and "error" not in runs["auto"]:
                ratio = _charged(runs["auto"], limit) / max(runs[best]["seconds"], 0.01)
                cells.append(f"{ratio:.2f}")
            else:
                cells.append("–")
        problems = check_dataset(name, runs)
        all_problems += [f"{name}: {p}" for p in problems]
        cells.append("**" + "; ".join(problems) + "**" if problems else "ok")
        lines.append("| " + " | ".join(c.replace("\n", " ") for c in cells) + " |")

    done = [n for n in datasets if n in results]
    complete = [n for n in done if all(r in results[n] for r in runners)]
    summary = []
    counts = ", ".join(f"{LABELS[r]} {sum(_proven(results[n].get(r)) for n in done)}"
                       for r in runners)
    summary.append(f"- Certified (proven optimal) on {len(done)} datasets: {counts}.")
    totals = {r: sum(_charged(results[n][r], limit) for n in complete) for r in runners}
    summary.append(f"- Total seconds over the {len(complete)} datasets every runner finished "
                   f"(unproven = limit {limit:.0f} s): "
                   + ", ".join(f"{LABELS[r]} {totals[r]:.1f}" for r in runners) + ".")
    peer_certified = [n for n in PEER_CERTIFIED if n in complete]
    here = [n for n in complete if any(_proven(results[n].get(p)) for p in peers)]
    if peers:
        summary.append(f"- Certified by a peer in this run: {len(here)} datasets"
                       + (f" ({', '.join(here)})" if here else "") + ".")

    def best_peer_seconds(n):
        return min((_charged(results[n][p], limit) for p in peers), default=limit)

    for label, subset in ((f"the {len(peer_certified)} peer-certified datasets (PEER_CERTIFIED)",
                           peer_certified),
                          (f"the {len(here)} datasets a peer certified in this run", here),
                          (f"all {len(complete)} datasets", complete)):
        if not peers or not subset:
            continue
        peer_total = sum(best_peer_seconds(n) for n in subset)
        parts = []
        for r in ours:
            mine = sum(_charged(results[n][r], limit) for n in subset)
            parts.append(f"{LABELS[r]} {mine:.1f} s = {mine / max(peer_total, 0.01):.3f}×")
        summary.append(f"- On {label}: best peer per dataset total {peer_total:.1f} s; "
                       + ", ".join(parts) + ".")
    if "auto" in runners:
        summary += targets(results, limit, peer_certified, complete, peers, best_peer_seconds)
    if MATRICES["name"] == "readable":
        for r in (r for r in runners if r in AUTO):
            missed = [n for n in done if not _proven(results[n].get(r))]
            summary.append(f"- Target ({LABELS[r]}): every readable-default matrix proven "
                           f"within {limit:.0f} s: {'MET' if not missed else 'NOT MET'} "
                           f"({len(done) - len(missed)}/{len(done)}"
                           + (f"; missed: {', '.join(missed)}" if missed else "") + ").")
    if "auto_cold" in runners and "auto" in runners:
        summary.append(cold_line(results, done, limit))
    summary.append("- Wrong optimal / impossible bound / impure tree / error / crash: "
                   + ("; ".join(all_problems) if all_problems else "none") + ".")
    new = [f"{n} {results[n][r]['size']} ({LABELS[r]})" for n in done for r in ours
           if n not in CERTIFIED and _proven(results[n].get(r))]
    if new:
        summary.append("- Minima proven where none was certified before (no peer confirms "
                       "them in this run): " + "; ".join(new) + ".")
    ours_runs = [(n, r, results[n][r]) for n in done for r in ours
                 if results[n].get(r) and "error" not in results[n][r]]
    if ours_runs:
        worst = max(ours_runs, key=lambda t: t[2]["seconds"] / limit)
        summary.append(f"- Time limit {limit:.0f} s (allowed {1.1 * limit + 1:.1f} s): worst "
                       f"in-call wall time of ours {worst[2]['seconds']:.1f} s ({worst[0]}/"
                       f"{worst[1]}); overruns (any runner): "
                       + ("; ".join(overruns) if overruns else "none") + ".")
    text = [f"Command: `{command}`", "",
            "# Minimum pure decision trees: occamlearn vs STreeD and GOSDT, side by side", "",
            f"Started {started}, finished {finished or '(still running: partial)'}; machine: "
            f"{os.cpu_count()} cores, shared with other jobs (load average at start "
            f"{args.load_at_start}). Per-instance time limit {limit:.0f} s.", "",
            "## Summary", "", *summary, "", "## Table", "", *lines, "", "## Columns", "",
            COLUMNS, ""]
    if args.note:
        text[4:4] = [args.note, ""]
    return "\n".join(text)


def cold_line(results, done, limit):
    """Empty cache against warm cache: seconds of each and their ratio (target ≤ 1.3; times
    under a second count as one second: a ratio of milliseconds says nothing)."""
    parts, worst = [], 0.0
    for n in done:
        cold, warm = results[n].get("auto_cold"), results[n].get("auto")
        if not (cold and warm and "error" not in cold and "error" not in warm):
            continue
        ratio = max(_charged(cold, limit), 1.0) / max(_charged(warm, limit), 1.0)
        worst = max(worst, ratio)
        parts.append(f"{n} {_cell(cold, limit)[1]} / {_cell(warm, limit)[1]} s = {ratio:.2f}×"
                     + ("" if _proven(cold) else " (cold not proven)"))
    verdict = "MET" if parts and worst <= 1.3 else "NOT MET"
    return (f"- Target: empty cache within 1.3× of a warm one (in-call seconds, unproven = "
            f"limit, under 1 s = 1 s): {verdict} ({'; '.join(parts)}).")


def targets(results, limit, peer_certified, complete, peers, best_peer_seconds):
    out = []
    auto = {n: results[n].get("auto") for n in results}

    def proven_within(n, seconds):
        run = auto.get(n)
        return _proven(run) and run["seconds"] <= seconds

    missed = [n for n in peer_certified if not proven_within(n, 60)]
    if peer_certified:
        out.append(f"- Target: every peer-certified minimum proven by ours auto within 60 s: "
                   f"{'MET' if not missed else 'NOT MET'} ({len(peer_certified) - len(missed)}/"
                   f"{len(peer_certified)}" + (f"; missed: {', '.join(missed)}" if missed else "")
                   + ").")
    if peer_certified:
        mine = sum(_charged(results[n]["auto"], limit) for n in peer_certified)
        theirs = sum(best_peer_seconds(n) for n in peer_certified)
        ratio = mine / max(theirs, 0.01)
        out.append(f"- Target: ours auto total ≤ 0.25 × best peer total on the peer-certified "
                   f"datasets: {'MET' if ratio <= 0.25 else 'NOT MET'} ({mine:.1f} s vs "
                   f"{theirs:.1f} s = {ratio:.3f}×).")
    fast = [n for n in FAST_TARGET if n in results]
    if fast:
        slow = [n for n in fast if not proven_within(n, 10)]
        desc = ", ".join(f"{n} {_cell(auto[n], limit)[1] or '–'} s" for n in fast)
        out.append(f"- Target: {', '.join(fast)} proven within 10 s: "
                   f"{'MET' if not slow else 'NOT MET'} ({desc}).")
    hard = [n for n in HARD if n in results]
    if hard:
        parts, ok = [], True
        for n in hard:
            run = auto.get(n)
            best_lb = max((_lb(results[n].get(r)) for r in RUNNERS if r in results[n]),
                          default=1)
            mine = _lb(run)
            if _proven(run):
                parts.append(f"{n} proven {run['size']} in {run['seconds']:.1f} s")
            else:
                ok = ok and mine >= best_lb
                parts.append(f"{n} not proven, ours ≥{mine} vs best bound of any tool "
                             f"≥{best_lb}")
        out.append(f"- Target: {', '.join(hard)} proven within {limit:.0f} s or ours at the "
                   f"best lower bound any tool reports: {'MET' if ok else 'NOT MET'} "
                   f"({'; '.join(parts)}).")
    return out


COLUMNS = """\
* **size**: a plain number is a size (nodes = 2 × leaves − 1) the runner *proved* minimum;
  `27 (≥13)` = smallest pure tree it found and the lower bound it proved when the limit hit
  (`–` = no tree); `[...]` = the runner's note (GOSDT: its status when not certified; STreeD:
  when a refutation relied on its depth cap of 20). Every tree is checked pure on the matrix
  in the runner's process.
* **s**: the runner's in-call wall time in seconds (`find_minimum_tree` for ours; the peer's
  fit calls, STreeD's summed over its k = K−1, K, … calls; data loading excluded). `⚠OVERRUN`
  = more than 1.1 × limit + 1 s, or the process had to be killed.
* **proved by**: `stats["proved_by"]` of the portfolio ("branch-and-bound", "maxsat",
  "subsets" (the subset search, a third engine since commit c7d36cf), "both").
* **certified**: the minimum certified on these matrices (FINDINGS.md); `? (≥x)` = unknown,
  best bound known before this run.
* **best peer**: the fastest peer that proved optimality; **auto / best peer**: ours auto's
  seconds (the limit if unproven) over that peer's.
* **checks**: `ok`, or a disagreement: an "optimal" size different from the certified one or
  larger than a pure tree another runner found, a lower bound above a known size, an impure
  tree, an error or crash.
* Totals count an unproven run as the full limit and a proven run at its own time.
* STreeD: `STreeDClassifier(optimization_task="accuracy", upper_bound=0, max_num_nodes=b,
  max_depth=min(b, 20))` for b = K−1, K, …; the first b with a tree is the minimum (size 2b+1).
  A call that ends without a tree after ≥ 95 % of its time limit refutes nothing.
* GOSDT 1.0.4: `GOSDTClassifier(regularization=λ, allow_small_reg=True, depth_budget=None,
  time_limit=⌊limit⌋)`, λ = 0.5 / (n · L_ub) with L_ub the leaves of a fully grown (pure)
  scikit-learn tree, so one misclassification (1/n) costs more than any pure tree within
  L_ub leaves: GOSDT's optimum is the minimum pure tree. Counted certified only when GOSDT's
  status is CONVERGED, its objective lower and upper bounds agree, the tree is pure and
  λ × leaves equals the objective. Its lower bound = 2⌈lower objective / λ⌉ − 1."""


def unproven_in(path):
    """Datasets where no runner of an earlier run's .jsonl proved optimality."""
    path = Path(path)
    if path.suffix != ".jsonl":
        path = path.with_suffix(".jsonl")
    proven, seen = set(), []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["dataset"] not in seen:
            seen.append(record["dataset"])
        if _proven(record["result"]):
            proven.add(record["dataset"])
    return [n for n in seen if n not in proven]


def render_only(args):
    """Re-render a report from its .jsonl (keeps the command and dates of the --out file)."""
    import re

    results, datasets = {}, []
    lines = [line for path in args.render_only for line in Path(path).read_text().splitlines()]
    for line in lines:
        record = json.loads(line)
        args.time_limit = record["time_limit"]
        results.setdefault(record["dataset"], {})[record["runner"]] = record["result"]
        if record["dataset"] not in datasets:
            datasets.append(record["dataset"])
    old = Path(args.out).read_text() if Path(args.out).exists() else ""
    command = re.search(r"^Command: `(.*)`", old, re.M)
    dates = re.search(r"Started (.*?), finished (.*?); .*load average at start ([\d. ]+)\)",
                      old)
    args.load_at_start = dates.group(3) if dates else "?"
    text = render(args, command.group(1) if command else "?", results, args.runners, datasets,
                  dates.group(1) if dates else "?", dates.group(2) if dates else None)
    Path(args.out).write_text(text)
    print(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--runners", nargs="*", default=list(DEFAULT_RUNNERS), choices=RUNNERS)
    parser.add_argument("--matrices", default="paper", choices=("paper", "readable"),
                        help="the paper's bit encoding (default) or the frozen readable-default "
                             "matrices (readable_matrices.py)")
    parser.add_argument("--only-unproven-from", default=None, metavar="FILE",
                        help="run only the datasets no runner proved in an earlier run "
                             "(its .jsonl, or the .md next to it)")
    parser.add_argument("--out", default=None, help="Markdown file for the table")
    parser.add_argument("--note", default="", help="a paragraph for the top of the report")
    parser.add_argument("--runner-major", action="store_true",
                        help="run every dataset with one runner before the next runner (the "
                             "first runners' results complete first when time is short)")
    parser.add_argument("--render-only", nargs="+", default=None, metavar="JSONL",
                        help="rebuild --out from the results of earlier runs, running nothing "
                             "(a later file's run replaces an earlier one's)")
    args = parser.parse_args(argv)
    if args.matrices == "readable":
        use_readable_matrices()
        if args.datasets == list(DATASETS):
            from readable_matrices import names

            args.datasets = names()
    if args.render_only:
        return render_only(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds through isolated()
    datasets = args.datasets
    if args.only_unproven_from:
        left = unproven_in(args.only_unproven_from)
        datasets = [n for n in datasets if n in left]
    if "auto_cold" in args.runners and any(r != "auto_cold" for r in args.runners):
        # the other runners take the default cache: complete it first (a child process, so
        # that numba is not imported here before the cold runs fork)
        subprocess.run([sys.executable, "-m", "occamlearn.cli", "warm-up"], check=True,
                       capture_output=True)
    args.load_at_start = " ".join(f"{v:.1f}" for v in os.getloadavg())
    command = "python " + " ".join(sys.argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    jsonl = Path(args.out).with_suffix(".jsonl") if args.out else None
    if jsonl:
        jsonl.write_text("")
    hard_limit = 1.5 * args.time_limit + 30
    results = {}

    def write(finished=None):
        text = render(args, command, results, args.runners, datasets, started, finished)
        if args.out:
            Path(args.out).write_text(text)
        return text

    order = ([(n, r) for r in args.runners for n in datasets] if args.runner_major
             else [(n, r) for n in datasets for r in args.runners])
    for name, runner in order:
        results.setdefault(name, {})
        run = isolated(runner, name, args.time_limit, hard_limit)
        results[name][runner] = run
        print(f"{name:12s} {runner:7s} " + json.dumps(run), flush=True)
        if jsonl:
            with jsonl.open("a") as handle:
                handle.write(json.dumps({"dataset": name, "runner": runner,
                                         "time_limit": args.time_limit,
                                         "result": run}) + "\n")
        write()
    print(write(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))


if __name__ == "__main__":
    main()
