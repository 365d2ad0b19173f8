"""The default search for a minimum pure tree: three exact engines as one portfolio.

No exact search dominates. Branch and bound over row sets (``bnb.branch_and_bound``) proves most
of the bundled benchmark in seconds and reports a lower bound as it goes; the subset search
(``bnb.subsets``, InferDT's incremental examples: every subset minimum bounds the full
data) raises the bound fastest on some of the hard sets; the MaxSAT route (``maxsat_route.search``,
Alg. 1 of Alós, Ansótegui and Torres) is what enumeration, WCNF export and error budgets build on.
The portfolio runs them and keeps, at every moment, the smallest tree any found and the largest
lower bound any proved: the size is proven minimum as soon as the two meet, whichever engine (or two
together) closed the gap.

* ``n_jobs=1`` (default): the branch and bound runs alone for the first round (the time
  limit, or 60 s without one); then, if nothing is proven, the engines take turns in rounds
  of doubling length, branch and bound first with 60 % of each round, then the subset search
  (25 %) and MaxSAT (15 %), each seeded with the incumbent and the proven bound, until a
  proof or the time limit. Why the first round is the branch and bound's alone: its lower
  bound comes from iterative deepening, each step costing several times the one before, so
  a share of the time is a lower bound at the limit (back's readable matrix: 60 % of 60 s
  left the portfolio at >= 19 nodes where the branch and bound alone reaches >= 21), and
  on the bundled benchmark every proof within 60 s was the branch and bound's
  (``benchmarks/results/mpdt_portfolio_first_round.md``). A turn restarts its engine, so at
  most half the later time is spent on repeats (the rounds double); in exchange nothing
  runs in the background of the user's process.
* ``n_jobs>=2``: each engine runs in its own process for the whole time; the first proof, or
  the bounds meeting, stops them all. A failed engine is an error (never a silent answer).

One deadline and one progress sink (``occamlearn.stopping``) come from the caller: the
portfolio runs under ``deadline.inner()`` (its own stop, requested when the bounds meet, so
that every engine stops at its next poll while the caller's deadline runs on), each turn under
``within(share of the round)`` of that, and every engine reports into a sink of its own whose
reports become the portfolio's shared bounds, which go on to the caller's sink.

``status`` is "optimal" only when the lower bound one engine proved equals the size of a tree
one engine found (both checked pure on the data); ``stats["proved_by"]`` names who proved it:
"branch-and-bound", "subsets", "maxsat", or "both" (the bound of one met the tree of another).
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
from dataclasses import dataclass, field

import numpy as np

from occamlearn.model.tree import Tree
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
from occamlearn.trees.mpdt.bnb.subsets import find_minimum_tree_incremental
from occamlearn.trees.mpdt.maxsat_route.search import find_minimum_tree_maxsat
from occamlearn.trees.mpdt.result import MinimumTreeResult

__all__ = ["FIRST_ROUND_SECONDS", "SHARES", "find_minimum_tree_bnb",
           "find_minimum_tree_portfolio"]

# n_jobs=1: rounds of doubling length (the first 60 s, or the whole time limit), shared between
# the engines in these proportions. A turn restarts its engine, so short equal turns would
# spend most of the time re-proving what the previous turn proved; the branch and bound -- the
# engine that proves most, in one long run -- gets the long first share
# (benchmarks/results/mpdt_runtime.md).
FIRST_ROUND_SECONDS = 60.0
SHARES = {"branch-and-bound": 0.6, "subsets": 0.25, "maxsat": 0.15}
# The subset search (``bnb.subsets``) is a third engine: neither it nor the full branch and
# bound raises the lower bound faster on every matrix, so both take turns.
ENGINES = ("branch-and-bound", "subsets", "maxsat")


# n_jobs >= 2: seconds the parent waits after the deadline for the last trees and bounds
CHILD_GRACE_SECONDS = 0.5


def find_minimum_tree_bnb(X, y, n_classes: int, *, deadline: Deadline | None = None,
                          progress: ProgressSink | None = None,
                          upper_bound: int | None = None,
                          lower_bound: int | None = None) -> MinimumTreeResult:
    """The branch and bound alone, as a ``MinimumTreeResult`` (the method ``"bnb"``)."""
    start = CLOCK()
    sink = ProgressSink(None if progress is None else progress.report)
    found = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=deadline, progress=sink)
    if found.tree is None:
        raise RuntimeError("the branch and bound stopped before its greedy tree was built")
    lower = max(found.lower_bound, lower_bound or 1)
    status = "optimal" if lower >= found.upper_bound else "feasible"
    stats = {**found.stats, "method": "bnb", "proved_by": "branch-and-bound"
             if status == "optimal" else None, "bound_trace": list(sink.trace),
             "seconds": CLOCK() - start}
    return MinimumTreeResult(found.tree, status, min(lower, found.upper_bound),
                             found.upper_bound, stats, tuple(sink.improvements()))


@dataclass
class _Bounds:
    """What the portfolio knows: the best tree, who found it, the best bound, who proved it.

    Every engine reports into ``engine_sink(engine)``; what improves the shared bounds goes on
    to ``sink`` (whose callback is the caller's sink). When the bounds meet, ``run`` (the
    portfolio's deadline) is asked to stop, so the engine still running stops at its next poll.
    """

    run: Deadline
    sink: ProgressSink
    tree: Tree | None = None
    found_by: str | None = None
    lower: int = 1
    proved_by: str | None = None
    start: float = field(default_factory=CLOCK)

    def engine_sink(self, engine: str) -> ProgressSink:
        return ProgressSink(lambda upper, lower, seconds, tree: self.offer(
            engine, tree=tree, lower=lower, seconds=seconds))

    def offer(self, engine: str, *, tree: Tree | None = None, lower: int | None = None,
              seconds: float | None = None) -> None:
        seconds = self.run.elapsed() if seconds is None else seconds
        better_tree = tree is not None and (self.tree is None or tree.n_nodes < self.tree.n_nodes)
        better_bound = lower is not None and lower > self.lower
        if better_tree:
            self.tree, self.found_by = tree, engine
        if better_bound:
            self.lower, self.proved_by = int(lower), engine
        if better_tree or better_bound:
            self.sink.report(self.tree.n_nodes if better_tree else None,
                             self.lower if better_bound else None, seconds,
                             tree if better_tree else None)
        if self.proven:
            self.run.request_stop()

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
                 "bound_trace": list(self.sink.trace), "seconds": CLOCK() - self.start}
        return MinimumTreeResult(self.tree, status, min(self.lower, size), size, stats,
                                 tuple(self.sink.improvements()))


def _run_engine(engine: str, X, y, n_classes, turn: Deadline, bounds: _Bounds,
                options) -> dict:
    """One turn of ``engine`` under the deadline ``turn``, reporting into ``bounds``."""
    sink = bounds.engine_sink(engine)
    if engine == "branch-and-bound":
        found = find_minimum_tree_branch_and_bound(X, y, n_classes, deadline=turn, progress=sink,
                                              upper_bound_tree=bounds.tree)
        bounds.offer(engine, tree=found.tree, lower=found.lower_bound)
        if found.stats.get("interrupted"):  # it caught Ctrl-C: the whole portfolio stops
            raise KeyboardInterrupt
        return {"engine": engine, "status": found.status, "seconds": found.stats["seconds"],
                "calls": found.stats["calls"], "search_engine": found.stats["engine"],
                "switched_to_compiled_at": found.stats["switched_to_compiled_at"],
                "kernel_compile_seconds": found.stats["kernel_compile_seconds"]}
    if engine == "subsets":
        found = find_minimum_tree_incremental(
            X, y, n_classes, deadline=turn, progress=sink, upper_bound_tree=bounds.tree,
            lower_bound=bounds.lower if bounds.lower >= 3 else None)
        bounds.offer(engine, tree=found.tree, lower=found.lower_bound)
        if found.stats.get("interrupted"):
            raise KeyboardInterrupt
        return {"engine": engine, "status": found.status,
                "seconds": found.stats.get("seconds", 0.0)}
    upper = None if bounds.tree is None else bounds.tree.n_nodes - 2
    if upper is not None and upper < bounds.lower:
        return {"engine": engine, "status": "skipped"}
    answer = find_minimum_tree_maxsat(
        X, y, n_classes, deadline=turn, progress=sink, upper_bound=upper,
        lower_bound=bounds.lower if bounds.lower >= 3 else None, **options)
    bounds.offer(engine, tree=answer.tree, lower=answer.lower_bound)
    if answer.stats.get("interrupted"):  # the MaxSAT loop caught Ctrl-C: stop everything
        raise KeyboardInterrupt
    return {"engine": engine, "status": answer.status,
            "seconds": answer.stats.get("solve_seconds", 0.0) + answer.stats.get(
                "encode_seconds", 0.0),
            "encodings": answer.stats.get("encodings", 0)}


def find_minimum_tree_portfolio(X, y, n_classes: int, *, solver: str = "lsu",
                                sat_solver: str = "cadical195",
                                deadline: Deadline | None = None,
                                progress: ProgressSink | None = None,
                                upper_bound: int | None = None,
                                lower_bound: int | None = None,
                                n_jobs: int | None = None) -> MinimumTreeResult:
    """Minimum pure tree by branch and bound and MaxSAT together (see the module docstring).

    Arguments as ``minimum.find_minimum_tree``; ``n_jobs`` >= 2 runs the engines in two
    processes. ``upper_bound`` is ignored (each engine builds its own first tree);
    ``lower_bound`` seeds the proven bound.
    """
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64)
    run = Deadline.coerce(deadline).inner()
    bounds = _Bounds(run, ProgressSink(None if progress is None else progress.report))
    if lower_bound is not None:
        bounds.offer("caller", lower=int(lower_bound))
    options = {"solver": solver, "sat_solver": sat_solver}
    if n_jobs is not None and n_jobs >= 2:
        turns = _in_processes(X, y, n_classes, bounds, options)
    else:
        turns = _in_turns(X, y, n_classes, bounds, options)
    interrupted = any(turn.get("status") == "interrupted" for turn in turns)
    return bounds.result({"turns": turns, "n_jobs": 1 if not n_jobs else n_jobs,
                          "interrupted": interrupted})


def _in_turns(X, y, n_classes, bounds: _Bounds, options) -> list:
    run = bounds.run
    round_length = run.remaining() if run.limited else FIRST_ROUND_SECONDS
    turns, interrupted, first_round = [], False, True
    while not bounds.proven and not interrupted:
        for engine in ENGINES:
            share = SHARES[engine]
            if first_round:  # the branch and bound's alone (the module docstring)
                share = 1.0 if engine == "branch-and-bound" else 0.0
                if share == 0.0:
                    continue
            if run.remaining() <= 0.05 and bounds.tree is not None:
                return turns  # (the first turn always runs: it returns a tree at once)
            turn = run.within(share * round_length)
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
        if not first_round:
            round_length *= 2
        first_round = False
    return turns


class _Relay(_Bounds):
    """A child process's bounds: each improvement is sent to the parent."""

    def __init__(self, run: Deadline, engine: str, messages):
        super().__init__(run, ProgressSink())
        self.engine, self.messages = engine, messages

    def offer(self, engine, *, tree=None, lower=None, seconds=None) -> None:
        if tree is not None and (self.tree is None or tree.n_nodes < self.tree.n_nodes):
            self.tree = tree
            self.messages.put(("tree", self.engine, tree.to_dict()))
        if lower is not None and lower > self.lower:
            self.lower = int(lower)
            self.messages.put(("bound", self.engine, int(lower)))


def _engine_process(engine, X, y, n_classes, run: Deadline, options, messages) -> None:
    """A child process: run ``engine`` for the whole time, sending trees and bounds."""
    relay = _Relay(run, engine, messages)
    try:
        turn = _run_engine(engine, X, y, n_classes, run, relay, options)
    except BaseException as exc:  # reported to the parent, which decides
        messages.put(("error", engine, f"{type(exc).__name__}: {exc}"))
        return
    messages.put(("done", engine, turn))


def _in_processes(X, y, n_classes, bounds: _Bounds, options) -> list:
    context = multiprocessing.get_context("fork" if "fork" in
                                          multiprocessing.get_all_start_methods() else "spawn")
    messages = context.Queue()
    run = bounds.run
    workers = {engine: context.Process(target=_engine_process, daemon=True,
                                       args=(engine, X, y, n_classes, run, options, messages))
               for engine in ENGINES}
    for worker in workers.values():
        worker.start()
    turns, running, grace = [], set(ENGINES), None
    try:
        while running and not bounds.proven:
            if run.expired():  # the children stop at the same deadline: a moment to report
                grace = grace or Deadline.after(CHILD_GRACE_SECONDS)
                if grace.expired():
                    break
            wait = max(0.0, min(0.2, run.remaining())) if grace is None else 0.05
            try:
                kind, engine, payload = messages.get(timeout=wait)
            except queue_module.Empty:
                if not any(w.is_alive() for w in workers.values()):
                    break
                continue
            if kind == "tree":
                bounds.offer(engine, tree=Tree.from_dict(payload))
            elif kind == "bound":
                bounds.offer(engine, lower=payload)
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
