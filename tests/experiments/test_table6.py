"""A tiny Table 6 run end to end: joblib and Dask LocalCluster paths, resume, report."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from occamlearn.experiments import table6
from occamlearn.experiments.runner import read_results
from occamlearn.experiments.table6_methods import (
    METHODS,
    MethodPool,
    holdout_split,
    prepare_dataset,
)
from occamlearn.experiments.table6_report import table6_markdown


def args_for(tmp_path, **overrides):
    parser = argparse.ArgumentParser()
    table6.add_arguments(parser)
    argv = ["--datasets", "mux6", "--methods", "psk,lsk,mpdt-1,mpdt-nd,mpdt", "--splits", "3",
            "--k", "4", "--sk-seeds", "2", "--n-jobs", "1", "--quiet",
            "--results", str(tmp_path / "t6.jsonl"), "--markdown", str(tmp_path / "t6.md")]
    for key, value in overrides.items():
        argv += [f"--{key.replace('_', '-')}"] + ([] if value is True else [str(value)])
    return parser.parse_args(argv)


def test_protocol_splits_64_16_20():
    data = prepare_dataset("mux6")
    n = len(data.y_train) + len(data.y_holdout)
    assert len(data.y_train) == pytest.approx(0.64 * n, abs=1)
    split = holdout_split(data, 0)
    assert len(split.second) == pytest.approx(0.20 * n, abs=1)
    assert not np.array_equal(split.second, holdout_split(data, 1).second)


def test_zoo_splits_fall_back_to_unstratified():
    data = prepare_dataset("zoo")
    assert not holdout_split(data, 0).stratified


def test_tiny_table6_run_and_resume(tmp_path, capsys):
    args = args_for(tmp_path)
    assert table6.run(args) == 0
    records = read_results(tmp_path / "t6.jsonl")
    assert len(records) == 5 * 3
    assert {(r["method"], r["split"]) for r in records} == {
        (m, s) for m in ("psk", "lsk", "mpdt-1", "mpdt-nd", "mpdt") for s in range(3)}
    mpdt = [r for r in records if r["method"].startswith("mpdt")]
    assert {r["size"] for r in mpdt} == {15} and {r["status"] for r in mpdt} == {"optimal"}
    assert all(0.0 <= r["test_accuracy"] <= r["oracle_test_accuracy"] <= 1.0 for r in records)
    assert {r["n_candidates"] for r in records if r["method"] == "mpdt-1"} == {1}
    assert all(r["n_candidates"] <= 4 for r in mpdt)
    lsk = [r for r in records if r["method"] == "lsk"]
    assert all(r["size"] <= 15 for r in lsk)  # limited to the minimum tree's leaves
    table = (tmp_path / "t6.md").read_text()
    assert table.startswith("| dataset | opt | psk t.acc |") and "| mux6 | 15 |" in table
    assert "**mean**" in table and "**median**" in table
    pools = (tmp_path / "t6.pools.jsonl").read_text().splitlines()
    table6.run(args)  # resumes: nothing new is computed or appended
    assert (tmp_path / "t6.pools.jsonl").read_text().splitlines() == pools
    assert len(read_results(tmp_path / "t6.jsonl")) == 15


@pytest.mark.slow  # starting a LocalCluster takes seconds
def test_tiny_table6_run_on_a_dask_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    args = args_for(tmp_path, methods="psk,mpdt-1", splits=2, local_cluster=True, n_jobs=1,
                    plot=tmp_path / "t6.png")
    assert table6.run(args) == 0
    assert len(read_results(tmp_path / "t6.jsonl")) == 4
    assert (tmp_path / "t6.png").stat().st_size > 0


def test_bad_names_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="--methods"):
        table6.run(args_for(tmp_path, methods="psk,nope"))
    with pytest.raises(ValueError, match="--datasets"):
        table6.run(args_for(tmp_path, datasets="atlantis"))


def test_method_pool_round_trips_through_json():
    pool = MethodPool(np.array([[0, 1, 2], [2, 2, 0]]), [3, 5], {"status": "optimal"})
    back = MethodPool.from_record(json.loads(json.dumps(pool.to_record())))
    assert np.array_equal(back.predictions, pool.predictions) and back.sizes == [3, 5]


def test_every_registered_method_learns_what_its_name_says():
    """Each entry of METHODS runs on mux6's training part and gives candidates of its kind:
    predictions for every held-out row, minimum trees (15 nodes on mux6) for the mpdt
    variants -- one for mpdt-1, all (two) for the others, layouts for the lay ones --, trees
    no larger than the minimum for lsk, and one tree of depth <= d for dtmax-d. A method
    that is missing, misnamed or wired to the wrong variant fails here."""
    from occamlearn.experiments.table6_methods import SharedSolve

    data = prepare_dataset("mux6")
    settings = {"k": 4, "sk_seeds": 2, "solve_time_limit": None, "enum_time_limit": None,
                "layout_depth": 2, "dtmax_time_limit": None}
    shared = SharedSolve(data, settings)
    pools = {}
    try:
        for name in sorted(METHODS, key=lambda m: (m != "mpdt-sat-nd", m)):  # plain SAT: live
            pools[name] = METHODS[name](data, settings, shared)
    finally:
        shared.close()
    expected = {"psk", "lsk", "ask", "mpdt-1", "mpdt-nd", "mpdt", "mpdt-sat-nd", "mpdt-sat",
                "mpdt-lay-nd", "mpdt-lay", "dtmax-2", "dtmax-3", "dtmax-4"}
    assert set(pools) == expected
    for name, pool in pools.items():
        assert pool.predictions.shape == (len(pool.sizes), len(data.y_holdout)), name
        assert len(pool.sizes) >= 1 and set(np.unique(pool.predictions)) <= {0, 1}, name
    for name in ("mpdt-1", "mpdt-nd", "mpdt", "mpdt-sat-nd", "mpdt-sat", "mpdt-lay-nd",
                 "mpdt-lay"):
        pool = pools[name]
        assert set(pool.sizes) == {15} and pool.info["status"] == "optimal", name
        assert (pool.info["n_layouts"] > 0) == ("lay" in name), name
    assert len(pools["mpdt-1"].sizes) == 1
    drawn = {name: len(pools[name].sizes) for name in ("mpdt-nd", "mpdt", "mpdt-sat-nd",
                                                         "mpdt-sat", "mpdt-lay-nd", "mpdt-lay")}
    assert set(drawn.values()) == {2}, drawn   # mux6's training part has 2 minimum trees
    assert all(pools[name].info["complete"] for name in drawn)
    assert pools["mpdt-nd"].info["count"] == pools["mpdt"].info["count"] == 2
    assert max(pools["lsk"].sizes) <= 15 < max(pools["psk"].sizes)
    for depth in (2, 3, 4):
        pool = pools[f"dtmax-{depth}"]
        assert len(pool.sizes) == 1 and pool.sizes[0] <= 2 ** (depth + 1) - 1
        assert pool.info["status"] == "optimal"
    assert (pools["dtmax-2"].info["training_errors"] >= pools["dtmax-3"].info["training_errors"]
            >= pools["dtmax-4"].info["training_errors"])


def test_markdown_marks_unproven_optima_and_open_enumerations():
    records = [{"dataset": "d", "method": "mpdt", "split": s, "test_accuracy": a,
                "oracle_test_accuracy": 1.0, "size": 7, "n_candidates": 10, "n_best": 1,
                "split_stratified": True, "status": "feasible", "optimum": 7,
                "complete": False} for s, a in enumerate((0.5, 1.0))]
    text = table6_markdown(records, ["mpdt"], ["d"])
    assert "| d | 7* | 10+ | 75.00 |" in text
