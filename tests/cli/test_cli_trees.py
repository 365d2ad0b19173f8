"""``occamlearn fit`` (and ``predict``/``show`` of what it saved) through ``cli.main`` and the
script."""

import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from occamlearn.cli import main
from occamlearn.datasets import load_dataset


@pytest.fixture
def corral_csv(tmp_path):
    X, y = load_dataset("corral")
    path = tmp_path / "corral.csv"
    X.assign(label=y).to_csv(path, index=False)
    return path


def test_fit_prints_tree_size_status_and_progress(capsys, tmp_path):
    model = tmp_path / "mux6.json"
    code = main(["fit", "--dataset", "mux6", "--train-size", "0.64", "-o", str(model)])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.startswith("15 nodes (7 decisions, 8 leaves), depth 3, status optimal")
    assert "size: 15 nodes, status optimal, bounds [15, 15]" in out
    assert "81 training rows x 6 binary features" in out
    assert "time: prepare" in out and "accuracy: train 1.0000" in out
    assert "pure tree with 15 nodes" in err
    assert json.loads(model.read_text())["status"] == "optimal"


def test_fit_predict_show_on_csv(capsys, tmp_path, corral_csv):
    model = tmp_path / "m.json"
    assert main(["fit", str(corral_csv), "--target", "label", "-q", "-o", str(model)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "status optimal" in out
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(model), str(corral_csv), "--target", "label",
                 "-o", str(predictions)]) == 0
    _, err = capsys.readouterr()
    assert err == "accuracy: 1.0000 on 160 rows\n"
    truth = pd.read_csv(corral_csv)["label"]
    assert (pd.read_csv(predictions)["prediction"] == truth).all()
    assert main(["show", str(model)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("MinimumPureTreeClassifier: 13 nodes") and "|--- " in text
    assert main(["show", str(model), "--dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph Tree {")


def test_fit_time_limit_and_conflicts(capsys, tmp_path):
    rows = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 1, 0, 1, 0], "target": [0, 1, 1, 0, 1]})
    path = tmp_path / "xor.csv"
    rows.to_csv(path, index=False)
    assert main(["fit", str(path), "-q", "--on-conflict", "error"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("occamlearn fit: error: no pure tree exists") and "rows 0, 4" in err
    assert err.count("\n") == 1
    assert main(["fit", str(path), "-q"]) == 0  # the default: majority, with a warning
    captured = capsys.readouterr()
    assert captured.err.startswith("occamlearn fit: warning: 1 training row(s) share")
    assert "(0-based rows 4;" in captured.err and "--on-conflict error" in captured.err
    assert "conflicts: removed 1 rows" in captured.out
    assert main(["fit", str(path), "-q", "--on-conflict", "majority", "--time-limit", "5",
                 "--solver", "rc2"]) == 0
    out = capsys.readouterr().out
    assert "conflicts: removed 1 rows" in out and "size: 7 nodes, status optimal" in out


def test_data_warnings_are_shown_under_an_ignore_filter(capsys, tmp_path):
    """``-W ignore`` or ``PYTHONWARNINGS=ignore`` must not hide a dropped row from the report."""
    import warnings

    rows = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 1, 0, 1, 0], "target": [0, 1, 1, 0, 1]})
    path = tmp_path / "xor.csv"
    rows.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["fit", str(path), "-q"]) == 0
        assert warnings.filters[0][0] == "ignore"  # the CLI's own filter does not leak out
    assert capsys.readouterr().err.startswith("occamlearn fit: warning: 1 training row(s) share")


def test_fit_relax_and_error_budget(capsys, tmp_path):
    rows = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 1, 0, 1, 0], "target": [0, 1, 1, 0, 1]})
    path = tmp_path / "xor.csv"
    rows.to_csv(path, index=False)
    # rows 0 and 4 conflict, so one error is forced; every one-split tree makes 2 errors,
    # so the smallest tree with 1 error has 5 nodes (split b, then a under b = 1)
    assert main(["fit", str(path), "-q", "--on-conflict", "relax"]) == 0
    assert "size: 5 nodes, status optimal, bounds [5, 5], 1 training errors" in \
        capsys.readouterr().out
    # a single leaf "1" errs on the two rows labelled 0: a budget of 2 needs no split
    assert main(["fit", str(path), "-q", "--on-conflict", "relax", "--max-errors", "2"]) == 0
    assert "size: 1 nodes, status optimal, bounds [1, 1], 2 training errors" in \
        capsys.readouterr().out


def test_fit_max_depth_keeps_conflicts_and_round_trips(capsys, tmp_path):
    rows = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 1, 0, 1, 0], "target": [0, 1, 1, 0, 1]})
    path, model = tmp_path / "xor.csv", tmp_path / "m.json"
    rows.to_csv(path, index=False)
    # depth 1 cannot express xor: no split beats the leaf "1" (2 errors), so the smallest
    # most accurate tree is that leaf; depth 2 leaves only the error forced by the conflict
    # of rows 0 and 4, with the smallest such tree (2 decisions: b, then a under b = 1)
    assert main(["fit", str(path), "-q", "--max-depth", "1"]) == 0
    assert ("1 nodes, depth 0 (at most 1), status optimal, 2 training errors "
            "(proven minimum: 2)") in capsys.readouterr().out
    assert main(["fit", str(path), "-q", "--max-depth", "2", "-o", str(model)]) == 0
    assert "size: 5 nodes, depth 2 (at most 2), status optimal, 1 training errors" in \
        capsys.readouterr().out
    assert main(["show", str(model)]) == 0
    assert capsys.readouterr().out.startswith("MaxAccuracyTreeClassifier: 5 nodes")
    assert main(["fit", str(path), "-q", "--max-depth", "2", "--method", "maxsat"]) == 0
    assert "size: 5 nodes, depth 2 (at most 2), status optimal, 1 training errors" in \
        capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["fit", "--dataset", "mux6", "--method", "dp"], "--method dp needs --max-depth"),
    (["fit", "--dataset", "mux6", "--max-depth", "2", "--max-errors", "1"],
     "--max-errors and --max-depth"),
    (["fit", "--dataset", "mux6", "--max-depth", "2", "--on-conflict", "majority"],
     "--on-conflict does not apply with --max-depth"),
    (["fit", "--dataset", "mux6", "--max-depth", "0"], "--max-depth must be at least 1"),
    (["fit", "--dataset", "nope"], "Unknown dataset 'nope'"),
    (["fit", "missing.csv"], "no such file: missing.csv"),
    (["predict", "missing.json", "x.csv"], "no such model file: missing.json"),
    (["fit", "--dataset", "mux6", "--train-size", "2"], "--train-size must be in (0, 1)"),
])
def test_user_errors_exit_2_with_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_predict_names_missing_columns(capsys, tmp_path, corral_csv):
    model = tmp_path / "m.json"
    main(["fit", str(corral_csv), "--target", "label", "-q", "-o", str(model)])
    pd.read_csv(corral_csv).drop(columns=["A0"]).to_csv(tmp_path / "less.csv", index=False)
    capsys.readouterr()
    assert main(["predict", str(model), str(tmp_path / "less.csv")]) == 2
    assert "lacks the model's column(s) A0" in capsys.readouterr().err


@pytest.mark.slow  # a child process
def test_console_script():
    script = shutil.which("occamlearn")
    command = [script] if script else [sys.executable, "-m", "occamlearn.cli"]
    done = subprocess.run([*command, "fit", "--dataset", "corral", "--train-size", "0.64",
                           "-q"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "size: 13 nodes, status optimal" in done.stdout and done.stderr == ""


# -- dates, estimator options as flags, suggestions in the command's words -------------------
@pytest.fixture
def dated_csv(tmp_path):
    """60 applications on 60 days; approved from 2022-03-01 on."""
    days = pd.date_range("2022-01-01", periods=60, freq="D")
    frame = pd.DataFrame({"application_date": days.strftime("%Y-%m-%d"),
                          "income": [10 * (k % 7) for k in range(60)],
                          "target": (days >= "2022-02-10").astype(int)})
    path = tmp_path / "dated.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_date_column_of_a_csv_is_read_as_dates_with_a_warning(capsys, dated_csv):
    assert main(["fit", str(dated_csv), "-q"]) == 0
    out, err = capsys.readouterr()
    assert "column(s) 'application_date' hold dates (such as 2022-01-01)" in err
    assert "--dates none" in err
    assert "application_date >= 2022-02-10" in out and "==" not in out
    assert "3 training rows" not in out and "status optimal" in out


def test_dates_none_reads_text_and_dates_names_columns(capsys, dated_csv, tmp_path):
    assert main(["fit", str(dated_csv), "-q", "--dates", "none"]) == 0
    out, err = capsys.readouterr()
    assert "hold dates" not in err and "identifier-like" in err  # 60 distinct texts
    other = tmp_path / "other.csv"
    frame = pd.read_csv(dated_csv)
    frame["application_date"] = pd.to_datetime(frame["application_date"]).dt.strftime(
        "%d %b %Y")
    frame.to_csv(other, index=False)
    assert main(["fit", str(other), "-q", "--dates", "application_date"]) == 0
    out, err = capsys.readouterr()
    assert "application_date >= 2022-02-10" in out and err == ""
    assert main(["fit", str(other), "-q", "--dates", "income,nope"]) == 2
    assert "--dates names 'nope', not a column" in capsys.readouterr().err


def test_max_leaves_and_class_weight_reach_the_depth_tree(capsys, tmp_path):
    assert main(["fit", "--dataset", "haber", "-q", "--max-leaves", "2",
                 "--class-weight", "balanced", "--time-limit", "30"]) == 0
    out = capsys.readouterr().out
    assert "size: 3 nodes, depth 1 (at most 2 leaves)" in out
    assert main(["fit", "--dataset", "haber", "-q", "--max-depth", "1",
                 "--class-weight", "1=1,2=3"]) == 0
    weighted = capsys.readouterr().out
    assert main(["fit", "--dataset", "haber", "-q", "--max-depth", "1"]) == 0
    assert weighted != capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--method", "nope"], "--method nope is not a method for a minimum tree; use one of "
                           "auto, bnb, maxsat"),
    (["--method", "dp"], "--method dp needs --max-depth or --max-leaves"),
    (["--max-depth", "2", "--method", "bnb"], "--method bnb is not a method for --max-depth"),
    (["--class-weight", "balanced"], "--class-weight applies with --max-depth or "
                                     "--max-leaves"),
    (["--max-depth", "2", "--class-weight", "7=2"], "--class-weight names '7', not a class"),
    (["--max-leaves", "0"], "--max-leaves must be at least 1"),
])
def test_option_flags_refuse_what_the_estimator_refuses(capsys, argv, message):
    assert main(["fit", "--dataset", "haber", "-q", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_suggestions_are_flags_quoted_for_the_shell(capsys, tmp_path):
    path = tmp_path / "comma.csv"
    path.write_text('age;income;target\n"1,5";10;0\n"2,5";20;0\n"3,5";30;1\n')
    assert main(["fit", str(path), "-q"]) == 2
    assert "pass --sep ';'" in capsys.readouterr().err
    assert main(["fit", str(path), "-q", "--sep", ";"]) == 0
    err = capsys.readouterr().err
    assert "pass --categorical age to keep it as text" in err
    assert main(["fit", str(path), "-q", "--sep", ";", "--categorical", "age"]) == 0
    out, err = capsys.readouterr()
    assert "age == 3,5" in out and err == ""


def test_a_model_fitted_on_dates_predicts_from_their_text(capsys, dated_csv, tmp_path):
    model = tmp_path / "dated.json"
    assert main(["fit", str(dated_csv), "-q", "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", str(model), str(dated_csv)]) == 0
    out, err = capsys.readouterr()
    assert out.split()[1:] == [str(v) for v in pd.read_csv(dated_csv)["target"]]
    assert "accuracy: 1.0000" in err and "hold dates" not in err
