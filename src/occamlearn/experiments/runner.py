"""Fan experiment tasks out over cores (joblib) or a Dask cluster, resumably.

An experiment is a list of tasks; a task is a JSON-serialisable ``key`` (e.g. dataset,
method, split) plus keyword arguments for one top-level function that returns a JSON-
serialisable record. Results are appended to a JSON-lines file, one line per finished task,
flushed at once, so an interrupted run resumes where it stopped: tasks whose key is already
in the file are not run again.

Execution uses existing engines only: joblib's ``Parallel`` (processes, results streamed as
they finish) by default, or ``dask.distributed`` when a scheduler address is given (or a
``LocalCluster`` is asked for). Progress (finished/total, elapsed, ETA) goes to stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from occamlearn.stopping import CLOCK

__all__ = ["Progress", "Task", "read_results", "run_tasks", "task_id"]


@dataclass(frozen=True)
class Task:
    """One unit of work: ``func(**kwargs)`` identified by ``key`` in the results file."""

    key: dict
    kwargs: dict = field(default_factory=dict)


def task_id(key: dict) -> str:
    """Canonical text of a key, used to recognise finished tasks."""
    return json.dumps(key, sort_keys=True, default=str)


def read_results(path: str | Path) -> list[dict]:
    """All records of a JSON-lines results file (a torn last line is ignored)."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    with path.open() as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by an interruption; the task will run again
    return records


class Progress:
    """A one-line progress display: finished/total, elapsed time and ETA."""

    def __init__(self, total: int, done: int = 0, stream=None, enabled: bool = True):
        self.total, self.done = total, done
        self.start_done = done
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.started = CLOCK()

    @staticmethod
    def _clock(seconds: float) -> str:
        seconds = int(round(seconds))
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def text(self) -> str:
        elapsed = CLOCK() - self.started
        ran = self.done - self.start_done
        if ran > 0 and self.done < self.total:
            eta = self._clock(elapsed / ran * (self.total - self.done))
        else:
            eta = "--:--" if self.done < self.total else self._clock(0)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (f"[{self.done:>{len(str(self.total))}}/{self.total}] {pct:5.1f}% "
                f"elapsed {self._clock(elapsed)} eta {eta}")

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.enabled:
            end = "\n" if self.done >= self.total else ""
            print("\r" + self.text(), end=end, file=self.stream, flush=True)


def _end_torn_line(handle) -> None:
    """Terminate a last line cut by an interruption, so new records start on their own line."""
    handle.seek(0, 2)
    if handle.tell() == 0:
        return
    handle.seek(handle.tell() - 1)
    if handle.read(1) != "\n":
        handle.write("\n")


def _call(func: Callable, task: Task) -> dict:
    record = func(**task.kwargs)
    return {**task.key, **record}


def _dask_results(func, tasks, scheduler, local_cluster, n_jobs):
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        workers = n_jobs if n_jobs and n_jobs > 0 else None
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(_call, func, task, pure=False) for task in tasks]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _joblib_results(func, tasks, n_jobs):
    from joblib import Parallel, delayed

    if n_jobs == 1:
        for task in tasks:
            yield _call(func, task)
        return
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    yield from parallel(delayed(_call)(func, task) for task in tasks)


def run_tasks(
    func: Callable[..., dict],
    tasks: Iterable[Task],
    results_path: str | Path,
    *,
    n_jobs: int = -1,
    scheduler: str | None = None,
    local_cluster: bool = False,
    progress: bool = True,
) -> list[dict]:
    """Run every task not yet in ``results_path`` and return all matching records.

    ``func`` must be a module-level function (it is pickled to worker processes).
    ``scheduler`` is a Dask scheduler address (``tcp://host:port``); ``local_cluster`` starts
    a ``dask.distributed.LocalCluster`` with ``n_jobs`` single-threaded workers. Otherwise
    joblib runs ``n_jobs`` processes (1 runs in this process). Returns the records of all
    requested tasks, old and new, in task order.
    """
    tasks = list(tasks)
    ids = [task_id(task.key) for task in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError("two tasks share the same key; keys must identify tasks uniquely")
    results_path = Path(results_path)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    key_names = {name for task in tasks for name in task.key}
    finished = {}
    for record in read_results(results_path):
        finished[task_id({k: record[k] for k in key_names if k in record})] = record
    todo = [task for task, tid in zip(tasks, ids) if tid not in finished]
    meter = Progress(len(tasks), len(tasks) - len(todo), enabled=progress)
    if todo:
        if scheduler or local_cluster:
            results = _dask_results(func, todo, scheduler, local_cluster, n_jobs)
        else:
            results = _joblib_results(func, todo, n_jobs)
        with results_path.open("a+") as handle:
            _end_torn_line(handle)
            for record in results:
                handle.write(json.dumps(record, default=str) + "\n")
                handle.flush()
                finished[task_id({k: record[k] for k in key_names if k in record})] = record
                meter.step()
    return [finished[tid] for tid in ids]
