"""``occamlearn dlist``: the tic-tac-toe list, a CSV file, saving, user errors."""

import json

import pandas as pd
import pytest

from occamlearn.cli import main
from occamlearn.estimators.model_files import load_model as load_list


def test_dlist_tic_tac_toe_positive_direction(capsys, tmp_path):
    out = tmp_path / "list.json"
    code = main(["dlist", "--dataset", "tic-tac-toe", "--binarizer", "onehot", "--direction",
                 "positive", "--rule-search", "enumerate", "--penalty", "none",
                 "--min-conjunction", "2", "--max-conjunction", "3", "--max-rules", "8",
                 "-o", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == "# tic-tac-toe: 958 rows, 27 binary features"
    assert lines[1].startswith("# p = P(1); direction positive; 8 rules;")
    assert lines[2] == "IF t1 == x & t5 == x & t9 == x THEN p=1.00 (n=90)"
    assert lines[10] == "ELSE p=0.00 (n=332)"
    assert lines[11] == "# training accuracy 1.0000"
    assert json.loads(out.read_text())["model"] == "DecisionListClassifier"
    assert len(load_list(out).rules_) == 8


def test_dlist_on_a_csv_with_beam_and_undirected(capsys, tmp_path):
    csv = tmp_path / "d.csv"
    pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 1, 0, 0, 1],
                  "label": ["y", "y", "n", "n", "y", "n"]}).to_csv(csv, index=False)
    code = main(["dlist", str(csv), "--target", "label", "--binarizer", "none", "--direction",
                 "none", "--search", "beam", "--beam-width", "3", "--positive-class", "y"])
    text = capsys.readouterr().out
    assert code == 0
    assert "# p = P(y); direction None; 1 rules" in text
    assert "IF a THEN p=1.00 (n=3)\nELSE p=0.00 (n=3)" in text


def test_dlist_user_errors_exit_2(capsys):
    assert main(["dlist", "--dataset", "iris"]) == 2
    assert "two classes" in capsys.readouterr().err
    assert main(["dlist", "--dataset", "titanic", "--positive-class", "7"]) == 2
    assert "--positive-class '7'" in capsys.readouterr().err
    assert main(["dlist", "--dataset", "titanic", "--max-rules", "-1"]) == 2
    assert "max_rules" in capsys.readouterr().err


def test_dlist_rule_search_penalty_and_time_limit_flags(capsys):
    from occamlearn.cli.lists import RULE_SEARCHES
    from occamlearn.lists import RULE_SEARCHES as SEARCHES

    assert set(RULE_SEARCHES) == set(SEARCHES)
    assert main(["dlist", "--dataset", "mux6", "--rule-search", "exact", "--max-conjunction",
                 "3", "--time-limit", "30"]) == 0
    text = capsys.readouterr().out
    assert "# training accuracy 1.0000" in text and "stopped: pure" in text
    assert main(["dlist", "--dataset", "titanic", "--penalty", "none", "--max-rules", "2",
                 "--time-limit", "0"]) == 0
    assert "2 rules" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["dlist", "--dataset", "titanic", "--penalty", "-1"])
    assert "--penalty: must be a number >= 0 or none" in capsys.readouterr().err


def test_dlist_validation_folds_flag(capsys, tmp_path):
    out = tmp_path / "list.json"
    assert main(["dlist", "--dataset", "hepa", "--penalty", "none", "--validation-folds", "3",
                 "-o", str(out)]) == 0
    assert "stopped: validation" in capsys.readouterr().out
    model = load_list(out)
    assert model.get_params()["validation_folds"] == 3 and model.stop_reason_ == "validation"


def test_dlist_shrinkage_folds_flag(capsys, tmp_path):
    out = tmp_path / "list.json"
    assert main(["dlist", "--dataset", "hepa", "--shrinkage-folds", "3", "-o", str(out)]) == 0
    model = load_list(out)
    assert model.get_params()["shrinkage_folds"] == 3 and model.shrinkage_ < 1.0
    assert "shrunk" in capsys.readouterr().out
    assert main(["dlist", "--dataset", "hepa", "--shrinkage-folds", "none"]) == 0
    assert "shrunk" not in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["dlist", "--dataset", "hepa", "--shrinkage-folds", "1"])
    assert "--shrinkage-folds: must be an int >= 2, auto or none" in capsys.readouterr().err
