"""The default search for a minimum pure tree: three exact engines as one portfolio.

No exact search dominates. Branch and bound over row sets (``branch_and_bound``) proves most
of the bundled benchmark in seconds and reports a lower bound as it goes; the subset search
(``subset_bounds``, InferDT's incremental examples: every subset minimum bounds the full
data) raises the bound fastest on some of the hard sets; the MaxSAT route (``search``, Alg. 1
of Alcázar et al.) is what enumeration, WCNF export and error budgets build on. The portfolio
runs them and keeps, at every moment, the smallest tree any found and the largest lower bound
any proved: the size is proven minimum as soon as the two meet, whichever engine (or two
together) closed the gap.

* ``n_jobs=1`` (default): the engines take turns in rounds of doubling length (the first
  round is the time limit, or 60 s without one), branch and bound first with 60 % of each
  round, then the subset search (25 %) and MaxSAT (15 %), each seeded with the incumbent and
  the proven bound, until a proof or the time limit. A turn restarts its engine, so at most
  half the time is spent on repeats (the rounds double); in exchange nothing runs in the
  background of the user's process.
* ``n_jobs>=2``: each engine runs in its own process for the whole time; the first proof, or
  the bounds meeting, stops them all. A failed engine is an error (never a silent answer).

``status`` is "optimal" only when the lower bound one engine proved equals the size of a tree
one engine found (both checked pure on the data); ``stats["proved_by"]`` names who proved it:
"branch-and-bound", "subsets", "maxsat", or "both" (the bound of one met the tree of another).
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import time
from dataclasses import dataclass, field

import numpy as np

from occamlearn.maxsat.base import check_time_limit
from occamlearn.model.tree import Tree
from occamlearn.stopping import ProgressSink
from occamlearn.trees.exact.stop import deadline_of
from occamlearn.trees.mpdt.bnb.branch_and_bound import minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.bnb.subsets import find_minimum_tree_incremental
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeResult, find_minimum_tree_maxsat

__all__ = ["FIRST_ROUND_SECONDS", "SHARES", "find_minimum_tree_bnb",
           "find_minimum_tree_portfolio"]

# n_jobs=1: rounds of doubling length (the first 60 s, or the whole time limit), shared between
# the engines in these proportions. A turn restarts its engine, so the branch and bound -- the
# engine that proves most, in one long run -- gets the long first share: with equal 5 s turns
# the portfolio took 56 s on tic-tac-toe where the branch and bound alone took 11 s, and did
# not prove hepa in 60 s where it alone took 34 s (benchmarks/results/mpdt_runtime.md).
FIRST_ROUND_SECONDS = 60.0
SHARES = {"branch-and-bound": 0.6, "subsets": 0.25, "maxsat": 0.15}
# The subset search (``subset_bounds``) is a third engine: its bounds rise fastest where the
# full branch and bound is slow (measured: h-votes, spect, mushr, audio), and the full search
# is faster elsewhere (tic-tac-toe, lympho, hepa), so both take turns.
ENGINES = ("branch-and-bound", "subsets", "maxsat")


def find_minimum_tree_bnb(X, y, n_classes: int, *, time_limit=None, on_improve=None,
                          upper_bound: int | None = None, lower_bound: int | None = None,
                          on_bound=None) -> MinimumTreeResult:
    """The branch and bound alone, as a ``MinimumTreeResult`` (the method ``"bnb"``)."""
    start = time.perf_counter()
    trace = []

    best_bound = [0]

    def progress(ub, lb, seconds, tree):
        if tree is not None:
            trace.append((seconds, tree.n_nodes))
            if on_improve is not None:
                on_improve(tree, seconds)
        if lb > best_bound[0]:
            best_bound[0] = lb
            if on_bound is not None:
                on_bound(lb, seconds)

    found = minimum_tree_branch_and_bound(X, y, n_classes, deadline=deadline_of(time_limit),
                                          progress=ProgressSink(progress))
    if found.tree is None:
        raise RuntimeError("the branch and bound stopped before its greedy tree was built")
    lower = max(found.lower_bound, lower_bound or 1)
    status = "optimal" if lower >= found.upper_bound else "feasible"
    stats = {**found.stats, "method": "bnb", "proved_by": "branch-and-bound"
             if status == "optimal" else None, "bound_trace": list(found.trace),
             "seconds": time.perf_counter() - start}
    return MinimumTreeResult(found.tree, status, min(lower, found.upper_bound),
                             found.upper_bound, stats, tuple(trace))


@dataclass
class _Bounds:
    """What the portfolio knows: the best tree, who found it, the best bound, who proved it."""

    start: float
    on_improve: object = None
    on_bound: object = None
    tree: Tree | None = None
    found_by: str | None = None
    lower: int = 1
    proved_by: str | None = None
    trace: list = field(default_factory=list)        # (seconds, size) per better tree
    bound_trace: list = field(default_factory=list)  # (seconds, size, lower) per change

    def offer_tree(self, tree: Tree, engine: str) -> None:
        if self.tree is not None and tree.n_nodes >= self.tree.n_nodes:
            return
        self.tree, self.found_by = tree, engine
        seconds = time.perf_counter() - self.start
        self.trace.append((seconds, tree.n_nodes))
        self.bound_trace.append((seconds, tree.n_nodes, self.lower))
        if self.on_improve is not None:
            self.on_improve(tree, seconds)

    def offer_bound(self, lower: int, engine: str) -> None:
        if lower <= self.lower:
            return
        self.lower, self.proved_by = lower, engine
        size = None if self.tree is None else self.tree.n_nodes
        seconds = time.perf_counter() - self.start
        self.bound_trace.append((seconds, size, lower))
        if self.on_bound is not None:
            self.on_bound(lower, seconds)

    @property
    def proven(self) -> bool:
        return self.tree is not None and self.lower >= self.tree.n_nodes

    def result(self, stats: dict) -> MinimumTreeResult:
        size = self.tree.n_nodes
        status = "optimal" if self.proven else "feasible"
        proved_by = None
        if status == "optimal":
            proved_by = self.proved_by if self.proved_by == self.found_by else "both"
        stats = {**stats, "method": "auto", "found_by": self.found_by,
                 "bound_by": self.proved_by, "proved_by": proved_by,
                 "bound_trace": self.bound_trace,
                 "seconds": time.perf_counter() - self.start}
        return MinimumTreeResult(self.tree, status, min(self.lower, size), size, stats,
                                 tuple(self.trace))


def _run_engine(engine: str, X, y, n_classes, time_limit, bounds: _Bounds, options) -> dict:
    """One turn of ``engine`` under ``time_limit``, reporting into ``bounds``."""
    if engine == "branch-and-bound":
        found = minimum_tree_branch_and_bound(
            X, y, n_classes, deadline=deadline_of(time_limit), upper_bound_tree=bounds.tree,
            progress=ProgressSink(lambda ub, lb, s, tree: _bnb_progress(bounds, ub, lb, tree)))
        if found.tree is not None:
            bounds.offer_tree(found.tree, engine)
        bounds.offer_bound(found.lower_bound, engine)
        if found.stats.get("interrupted"):  # it caught Ctrl-C: the whole portfolio stops
            raise KeyboardInterrupt
        return {"engine": engine, "status": found.status, "seconds": found.stats["seconds"],
                "calls": found.stats["calls"]}
    if engine == "subsets":
        found = find_minimum_tree_incremental(
            X, y, n_classes, time_limit=time_limit, upper_bound_tree=bounds.tree,
            lower_bound=bounds.lower if bounds.lower >= 3 else None,
            on_bound=lambda lower, upper, seconds: bounds.offer_bound(lower, engine),
            on_improve=lambda tree, seconds: bounds.offer_tree(tree, engine),
            should_stop=lambda: bounds.proven)
        bounds.offer_tree(found.tree, engine)
        bounds.offer_bound(found.lower_bound, engine)
        if found.stats.get("interrupted"):
            raise KeyboardInterrupt
        return {"engine": engine, "status": found.status,
                "seconds": found.stats.get("seconds", 0.0)}
    upper = None if bounds.tree is None else bounds.tree.n_nodes - 2
    if upper is not None and upper < bounds.lower:
        return {"engine": engine, "status": "skipped"}
    answer = find_minimum_tree_maxsat(
        X, y, n_classes, time_limit=time_limit, upper_bound=upper,
        lower_bound=bounds.lower if bounds.lower >= 3 else None,
        on_improve=lambda tree, seconds: bounds.offer_tree(tree, engine), **options)
    bounds.offer_tree(answer.tree, engine)
    bounds.offer_bound(answer.lower_bound, engine)
    if answer.stats.get("interrupted"):  # the MaxSAT loop caught Ctrl-C: stop everything
        raise KeyboardInterrupt
    return {"engine": engine, "status": answer.status,
            "seconds": answer.stats.get("solve_seconds", 0.0) + answer.stats.get(
                "encode_seconds", 0.0),
            "encodings": answer.stats.get("encodings", 0)}


def _bnb_progress(bounds: _Bounds, ub: int, lb: int, tree) -> None:
    if tree is not None:
        bounds.offer_tree(tree, "branch-and-bound")
    bounds.offer_bound(lb, "branch-and-bound")


def find_minimum_tree_portfolio(X, y, n_classes: int, *, solver: str = "lsu",
                                sat_solver: str = "cadical195",
                                time_limit: float | None = None, on_improve=None,
                                upper_bound: int | None = None,
                                lower_bound: int | None = None,
                                n_jobs: int | None = None, on_bound=None) -> MinimumTreeResult:
    """Minimum pure tree by branch and bound and MaxSAT together (see the module docstring).

    Arguments as ``minimum.find_minimum_tree``; ``n_jobs`` >= 2 runs the engines in two
    processes. ``upper_bound`` is ignored (each engine builds its own first tree);
    ``lower_bound`` seeds the proven bound.
    """
    time_limit = check_time_limit(time_limit)
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64)
    bounds = _Bounds(time.perf_counter(), on_improve, on_bound)
    if lower_bound is not None:
        bounds.offer_bound(int(lower_bound), "caller")
    options = {"solver": solver, "sat_solver": sat_solver}
    if n_jobs is not None and n_jobs >= 2:
        turns = _in_processes(X, y, n_classes, time_limit, bounds, options)
    else:
        turns = _in_turns(X, y, n_classes, time_limit, bounds, options)
    interrupted = any(turn.get("status") == "interrupted" for turn in turns)
    return bounds.result({"turns": turns, "n_jobs": 1 if not n_jobs else n_jobs,
                          "interrupted": interrupted})


def _in_turns(X, y, n_classes, time_limit, bounds: _Bounds, options) -> list:
    deadline = None if time_limit is None else bounds.start + time_limit
    round_length = FIRST_ROUND_SECONDS if time_limit is None else time_limit
    turns, interrupted = [], False
    while not bounds.proven and not interrupted:
        for engine in ENGINES:
            remaining = None if deadline is None else deadline - time.perf_counter()
            if remaining is not None and remaining <= 0.05 and bounds.tree is not None:
                return turns  # (the first turn always runs: it returns a tree at once)
            if remaining is not None:
                remaining = max(remaining, 0.01)
            length = SHARES[engine] * round_length
            turn = length if remaining is None else min(length, remaining)
            try:
                turns.append(_run_engine(engine, X, y, n_classes, turn, bounds, options))
            except KeyboardInterrupt:
                if bounds.tree is None:
                    raise
                turns.append({"engine": engine, "status": "interrupted"})
                interrupted = True
                break
            if bounds.proven:
                return turns
        round_length *= 2
    return turns


def _engine_process(engine, X, y, n_classes, time_limit, options, messages) -> None:
    """A child process: run ``engine`` for the whole time, sending trees and bounds."""
    class _Relay(_Bounds):
        def offer_tree(self, tree, who):
            if self.tree is None or tree.n_nodes < self.tree.n_nodes:
                self.tree = tree
                messages.put(("tree", engine, tree.to_dict()))

        def offer_bound(self, lower, who):
            if lower > self.lower:
                self.lower = lower
                messages.put(("bound", engine, int(lower)))

    relay = _Relay(time.perf_counter())
    try:
        turn = _run_engine(engine, X, y, n_classes, time_limit, relay, options)
    except BaseException as exc:  # reported to the parent, which decides
        messages.put(("error", engine, f"{type(exc).__name__}: {exc}"))
        return
    messages.put(("done", engine, turn))


def _in_processes(X, y, n_classes, time_limit, bounds: _Bounds, options) -> list:
    context = multiprocessing.get_context("fork" if "fork" in
                                          multiprocessing.get_all_start_methods() else "spawn")
    messages = context.Queue()
    workers = {engine: context.Process(target=_engine_process, daemon=True,
                                       args=(engine, X, y, n_classes, time_limit, options,
                                             messages))
               for engine in ENGINES}
    for worker in workers.values():
        worker.start()
    deadline = None if time_limit is None else bounds.start + time_limit
    turns, running = [], set(ENGINES)
    try:
        while running and not bounds.proven:
            wait = 0.2 if deadline is None else max(0.0, min(0.2, deadline - time.perf_counter()))
            if deadline is not None and time.perf_counter() >= deadline + 0.5:
                break
            try:
                kind, engine, payload = messages.get(timeout=wait)
            except queue_module.Empty:
                if not any(w.is_alive() for w in workers.values()):
                    break
                continue
            if kind == "tree":
                bounds.offer_tree(Tree.from_dict(payload), engine)
            elif kind == "bound":
                bounds.offer_bound(payload, engine)
            else:
                turns.append(payload if kind == "done" else {"engine": engine,
                                                              "error": payload})
                running.discard(engine)
    except KeyboardInterrupt:
        if bounds.tree is None:
            raise
        turns.append({"engine": "portfolio", "status": "interrupted"})
    finally:
        for worker in workers.values():
            if worker.is_alive():
                worker.terminate()
            worker.join(timeout=1.0)
    errors = [f"{t['engine']}: {t['error']}" for t in turns if "error" in t]
    if bounds.tree is None or (errors and not bounds.proven):
        # a failed engine (a broken external solver, say) is an error, not a silent answer
        raise RuntimeError("the portfolio's search failed: " + "; ".join(errors or ["no tree"]))
    return turns
