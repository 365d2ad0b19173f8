"""Table 5 experiment: instance sampling, tiny end-to-end run through the CLI, the summary."""

import argparse
import json
from itertools import pairwise

import numpy as np
import pytest

from occamlearn.experiments import table5
from occamlearn.experiments.table5_report import best_sizes, markdown_table, summarize


def test_samples_are_reproducible_conflict_free_and_sized():
    a = table5.sample_instance("hayes-r", 0.4, 1)
    b = table5.sample_instance("hayes-r", 0.4, 1)
    c = table5.sample_instance("hayes-r", 0.4, 2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    X, y, n_classes, dropped = a
    assert n_classes == 3 and len(y) + dropped == round(0.4 * 160)
    assert set(np.unique(X)) <= {0, 1}
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    assert np.array_equal(y[first][inverse.ravel()], y)  # identical rows share a label


def test_tiny_run_end_to_end(tmp_path, capsys):
    from occamlearn.cli import main

    results, markdown, plot = tmp_path / "r.jsonl", tmp_path / "t.md", tmp_path / "p.png"
    argv = ["reproduce", "table5", "--datasets", "corral", "--fractions", "40",
            "--samples", "2", "--solvers", "lsu,mindt,rc2", "--time-limit", "20",
            "--results", str(results), "--markdown", str(markdown), "--plot", str(plot),
            "--n-jobs", "1", "--no-progress"]
    assert main(argv) == 0
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 6
    sizes = {}
    for record in records:
        assert record["status"] == "optimal" and record["proven_in_time"]
        sizes.setdefault(record["sample"], set()).add(record["size"])
        trace = record["trace"]
        assert [t for t, _ in trace] == sorted(t for t, _ in trace)
        assert all(a[1] > b[1] for a, b in pairwise(trace))
    assert all(len(s) == 1 for s in sizes.values())  # every solver proves the same optimum
    text = markdown.read_text()
    for solver in ("lsu", "mindt", "rc2"):
        assert f"| 40% | 20 s | {solver} |" in text and "2/2" in text
    assert plot.stat().st_size > 1000
    assert main(argv) == 0  # resumed: nothing runs again
    assert len(results.read_text().splitlines()) == 6


def record(sample, solver, size, optimal=False):
    return {"dataset": "d", "fraction": 0.4, "sample": sample, "seed": 0, "time_limit": 5,
            "solver": solver, "size": size, "status": "optimal" if optimal else "feasible",
            "proven_in_time": optimal, "proof_seconds": 1.0 if optimal else None,
            "trace": [(0.1, size)], "seconds": 5.0}


def test_summary_counts_ties_for_every_solver():
    records = [record(0, "a", 9, True), record(0, "b", 9), record(1, "a", 13),
               record(1, "b", 11, True)]
    assert best_sizes(records) == {("d", 0.4, 0, 0, 5): 9, ("d", 0.4, 1, 0, 5): 11}
    rows = {row["solver"]: row for row in summarize(records)}
    assert (rows["a"]["best_ub"], rows["b"]["best_ub"]) == (1, 2)
    assert (rows["a"]["optimal"], rows["b"]["median_proof_seconds"]) == (1, 1.0)
    assert "| 40% | 5 s | b | MaxSAT | 2/2 | 100.0 | 1 | 1.00 |" in markdown_table(
        summarize(records), records)


def test_bad_arguments_are_rejected():
    parser = argparse.ArgumentParser()
    table5.add_arguments(parser)
    with pytest.raises(ValueError, match="--solvers"):
        table5.run(parser.parse_args(["--solvers", "nope"]))
    with pytest.raises(ValueError, match="--samples"):
        table5.run(parser.parse_args(["--samples", "0"]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--fractions", "150"])
