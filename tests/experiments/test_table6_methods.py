"""Table 6's DT(max) methods: one proven tree per depth on the training part, and the margin
line of the report."""

from __future__ import annotations

import argparse

import numpy as np
from dtmax_helpers import max_accuracy_on_matrix

from occamlearn.experiments import table6
from occamlearn.experiments.runner import read_results
from occamlearn.experiments.table6_methods import METHODS, prepare_dataset
from occamlearn.experiments.table6_report import margins_over_dtmax, summarise, table6_markdown


def test_dtmax_pool_is_the_proven_most_accurate_tree_on_the_training_part():
    data = prepare_dataset("mux6")
    pool = METHODS["dtmax-2"](data, {"dtmax_time_limit": 30}, None)
    assert pool.predictions.shape == (1, len(data.y_holdout)) and len(pool.sizes) == 1
    best = max_accuracy_on_matrix(data.X_train, data.y_train, data.n_classes, 2)
    assert pool.info["status"] == "optimal"
    assert pool.info["training_errors"] == best.training_errors > 0  # depth 2 cannot fit mux6
    assert pool.sizes[0] <= 7  # depth <= 2: at most 3 decisions and 4 leaves


def test_dtmax_runs_beside_mpdt_and_the_report_gives_the_margin(tmp_path):
    parser = argparse.ArgumentParser()
    table6.add_arguments(parser)
    args = parser.parse_args([
        "--datasets", "mux6", "--methods", "mpdt-1,mpdt,dtmax-2,dtmax-4", "--splits", "3",
        "--k", "2", "--n-jobs", "1", "--quiet", "--dtmax-time-limit", "30",
        "--results", str(tmp_path / "t6.jsonl"), "--markdown", str(tmp_path / "t6.md")])
    assert table6.run(args) == 0
    records = read_results(tmp_path / "t6.jsonl")
    dtmax = [r for r in records if r["method"].startswith("dtmax")]
    assert len(dtmax) == 6 and {r["n_candidates"] for r in dtmax} == {1}
    assert {r["status"] for r in dtmax} == {"optimal"}
    stats = summarise(records)
    margins = margins_over_dtmax(stats, ["mpdt", "dtmax-2", "dtmax-4"], ["mux6"])
    expected = stats[("mux6", "mpdt")]["accuracy"] - stats[("mux6", "dtmax-2")]["accuracy"]
    assert margins["dtmax-2"] == (expected, 1) and expected > 0  # mpdt is perfect on mux6
    text = (tmp_path / "t6.md").read_text()
    assert "dtmax-2 t.acc | dtmax-2 size |" in text
    assert f"- mpdt - dtmax-2: {expected:+.2f} points (mean over 1 datasets; paper: +7.86" in text


def test_margin_is_the_mean_gap_over_datasets_both_methods_have():
    def rows(dataset, method, accuracy):
        return [{"dataset": dataset, "method": method, "split": 0, "test_accuracy": accuracy,
                 "oracle_test_accuracy": accuracy, "size": 3, "n_candidates": 1,
                 "split_stratified": True}]
    records = (rows("a", "mpdt", 0.9) + rows("a", "dtmax-3", 0.8) + rows("b", "mpdt", 0.7)
               + rows("b", "dtmax-3", 0.75) + rows("c", "mpdt", 1.0))
    gap, n = margins_over_dtmax(summarise(records), ["mpdt", "dtmax-3"], ["a", "b", "c"])[
        "dtmax-3"]
    assert n == 2 and np.isclose(gap, (10.0 - 5.0) / 2)
    text = table6_markdown(records, ["mpdt", "dtmax-3"], ["a", "b", "c"])
    assert "- mpdt - dtmax-3: +2.50 points (mean over 2 datasets; paper: +4.37 over its 19)" \
        in text
    assert margins_over_dtmax(summarise(records), ["dtmax-3"], ["a"]) == {}
