"""The experiment runner: resumable JSON lines, joblib and Dask paths give the same records."""

import json

import pytest

from occamlearn.experiments.runner import Progress, Task, read_results, run_tasks


def square(x, fail_on=None):
    if x == fail_on:
        raise RuntimeError("boom")
    return {"square": x * x}


def _tasks(n):
    return [Task(key={"method": "sq", "split": i}, kwargs={"x": i}) for i in range(n)]


def test_joblib_runs_every_task_and_writes_json_lines(tmp_path):
    path = tmp_path / "r.jsonl"
    records = run_tasks(square, _tasks(5), path, n_jobs=2, progress=False)
    assert [r["square"] for r in records] == [0, 1, 4, 9, 16]
    lines = path.read_text().splitlines()
    assert len(lines) == 5
    assert {json.loads(line)["split"] for line in lines} == set(range(5))


def test_resume_skips_finished_tasks(tmp_path):
    path = tmp_path / "r.jsonl"
    with pytest.raises(RuntimeError, match="boom"):
        run_tasks(lambda x: square(x, fail_on=3), _tasks(4), path, n_jobs=1, progress=False)
    assert len(read_results(path)) == 3  # tasks 0, 1, 2 were saved before the failure
    path.write_text(path.read_text() + '{"method": "sq", "spl')  # a torn last line
    records = run_tasks(square, _tasks(4), path, n_jobs=1, progress=False)
    assert [r["square"] for r in records] == [0, 1, 4, 9]
    assert len(read_results(path)) == 4  # only task 3 ran again


def test_duplicate_keys_are_rejected(tmp_path):
    tasks = [Task(key={"a": 1}, kwargs={"x": 1}), Task(key={"a": 1}, kwargs={"x": 2})]
    with pytest.raises(ValueError, match="same key"):
        run_tasks(square, tasks, tmp_path / "r.jsonl", progress=False)


@pytest.mark.slow  # a Dask LocalCluster: worker processes, seconds to start
def test_dask_local_cluster_matches_joblib(tmp_path):
    pytest.importorskip("dask.distributed")
    dask_records = run_tasks(square, _tasks(4), tmp_path / "d.jsonl", n_jobs=2,
                             local_cluster=True, progress=False)
    assert [r["square"] for r in dask_records] == [0, 1, 4, 9]


def test_progress_text_counts_and_eta():
    meter = Progress(total=4, done=1, enabled=False)
    meter.step()
    text = meter.text()
    assert text.startswith("[2/4]") and "50.0%" in text and "eta" in text
