"""The catalogue of hostile inputs: each one is a named error (type and the words naming the
culprit), never a hang, a raw IndexError/KeyError/TypeError, or a silently wrong answer.

Model files edited by hand, data that a reloaded model must refuse as the fitted one does,
command-line misuse, failed external solvers and wrong solver outputs; plus the cases that
already worked (inf in training data, empty data, one row, one class, bad flags, broken CSV,
corrupt JSON), kept here so that they stay that way. Missing values are data, not errors
(issue 20): their tests are here and in ``test_missing_values.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from occamlearn import DecisionListClassifier, MinimumPureTreeClassifier
from occamlearn.cli import main
from occamlearn.estimators.model_files import load_model, model_from_dict, model_to_dict, save_model
from occamlearn.stopping import Deadline

FAKE = f"{sys.executable} {Path(__file__).with_name('fake_maxsat_solver.py')}"


def _table(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 4, n),
                      "d": rng.choice(["x", "y", "z"], n)})
    y = np.where((X.a == 1) ^ (X.b > 1), 1, 0)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _table()
    return X, y, MinimumPureTreeClassifier(time_limit=30).fit(X, y)


@pytest.fixture(scope="module")
def tree_file(fitted):
    return json.loads(json.dumps(model_to_dict(fitted[2])))


@pytest.fixture
def train_csv(tmp_path, fitted):
    X, y, _ = fitted
    path = tmp_path / "train.csv"
    X.assign(target=y).to_csv(path, index=False)
    return path


@pytest.fixture
def model_path(tmp_path, fitted):
    path = tmp_path / "model.json"
    save_model(fitted[2], path)
    return path


def _edited(data, edit):
    data = json.loads(json.dumps(data))
    edit(data)
    return data


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- model files edited by hand ---------------------------------------------------------------
def _set(path, value):
    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _delete(key):
    def edit(data):
        del data[key]
    return edit


def _leaf_root_with_children(data):
    data["tree"]["feature"][0] = -1
    data["tree"]["label"][0] = 0


def _orphan(data):
    tree = data["tree"]
    for key in ("feature", "left", "right", "label"):
        tree[key].append(-1 if key != "label" else 0)
    tree["counts"].append([0, 0])


TREE_EDITS = [
    ("child points up", _set(("tree", "left", 1), 0),
     r'"tree\.left\[1\]" = 0 points back to an ancestor'),
    ("child is the root", _set(("tree", "right", 0), 0), r'"tree\.right\[0\]" = 0 points back'),
    ("shared child", _set(("tree", "right", 4), 2), r'= 2 is also a child of node'),
    ("index out of range", _set(("tree", "left", 0), 99),
     r'"tree\.left\[0\]" = 99 is not a node index \(the tree has 7 nodes\)'),
    ("negative index", _set(("tree", "right", 0), -5), r'"tree\.right\[0\]" = -5 is not a node'),
    ("tree null", _set(("tree",), None), r'"tree" must be an object; got NoneType'),
    ("missing key", _delete("classes"), r'the key "classes" is missing'),
    ("missing tree key", lambda d: d["tree"].pop("left"), r'"tree" lacks the key "left"'),
    ("status nonsense", _set(("status",), "nonsense"),
     r'"status" = \'nonsense\' is not one of optimal, feasible'),
    ("bounds reversed", lambda d: d.update(lower_bound=99, upper_bound=3),
     r'"lower_bound" = 99 exceeds "upper_bound" = 3'),
    ("even bound", lambda d: d.update(lower_bound=4, upper_bound=8, status="feasible"),
     r'"lower_bound" = 4 is even'),
    ("optimal with a gap", lambda d: d.update(lower_bound=3), r'"status" is optimal but the '
     r"bounds \[3, 7\] differ"),
    ("label out of range", _set(("tree", "label", 3), 5),
     r'"tree\.label\[3\]" = 5 is not a class index'),
    ("leaf with children", _leaf_root_with_children,
     r'"tree\.left\[0\]" = 1 but node 0 is a leaf \(feature -1\): a leaf has no children'),
    ("feature out of range", _set(("tree", "feature", 0), 500),
     r'"tree\.feature\[0\]" = 500 is not -1 \(leaf\) nor a feature index'),
    ("short array", lambda d: d["tree"]["label"].pop(), r'"tree\.label" has 6 entries'),
    ("counts shape", lambda d: d["tree"]["counts"][2].append(1),
     r'"tree\.counts\[2\]" has 3 entries; "tree\.counts\[0\]" has 2'),
    ("counts vs classes", lambda d: [row.append(0) for row in d["tree"]["counts"]],
     r'"tree\.counts" has 3 columns; the model has 2 classes'),
    ("orphan node", _orphan, r"node 7 is not reachable from the root"),
    ("n_features vs conditions", lambda d: d["tree"].update(n_features=3, feature_names=[]),
     r'"tree\.n_features" = 3; the model has \d+ binary features \(conditions\)'),
    ("no classes", _set(("classes", "values"), []), r'"classes\.values" must be a non-empty'),
    ("repeated class", _set(("classes", "values"), [1, 1]), r'"classes\.values" repeats'),
    ("string index", _set(("tree", "left", 0), "1"), r'"tree\.left\[0\]" = \'1\' is not an'),
    ("unknown column", _set(("conditions", 0, "column"), "zz"),
     r'"conditions\[0\]\.column" = \'zz\' is not an input column'),
    ("bad params", _set(("params", "time_limit"), "soon"), r'"params": .*time_limit'),
    ("foreign binariser class", _set(("params", "binarizer"), {"class": "os.system",
                                                               "params": {}}),
     r"refusing to rebuild"),
]


@pytest.mark.parametrize("name, edit, message", TREE_EDITS, ids=[e[0] for e in TREE_EDITS])
def test_an_edited_tree_file_is_a_value_error_naming_the_field(tree_file, name, edit, message):
    data = _edited(tree_file, edit)
    with pytest.raises(ValueError, match=message):
        model_from_dict(data)


def test_a_cycle_in_the_file_is_refused_at_once_by_show_and_predict(capsys, tmp_path,
                                                                     tree_file, train_csv):
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps(_edited(tree_file, _set(("tree", "left", 1), 0))))
    started = time.perf_counter()
    for argv in (["show", path], ["predict", path, train_csv]):
        code, out, err = _run(argv, capsys)
        assert code == 2 and out == ""
        assert f'model file {path}: "tree.left[1]" = 0 points back to an ancestor' in err
    assert time.perf_counter() - started < 10


def test_an_edited_list_file_is_a_value_error_naming_the_field():
    X, y = _table()
    data = json.loads(json.dumps(model_to_dict(DecisionListClassifier(max_rules=3).fit(X, y))))
    data["list"]["rules"][0]["features"] = [10**6]
    with pytest.raises(ValueError, match=r'"list\.rules\[0\]\.features\[0\]" = 1000000 is not '
                       "a feature index"):
        model_from_dict(data)
    data["list"] = None
    with pytest.raises(ValueError, match=r'"list" must be an object'):
        model_from_dict(data)


def test_a_file_without_column_checks_loads_saves_and_loads_again(tmp_path, tree_file, fitted):
    X = fitted[0]
    older = _edited(tree_file, lambda d: [d.pop("columns"), d.pop("handle_unknown")])
    first = model_from_dict(older)
    again = model_from_dict(json.loads(json.dumps(model_to_dict(first))))
    assert (again.predict(X) == fitted[2].predict(X)).all()
    # issue 20: a missing value where fit saw none is no error: a warning, the same answer
    assert _outcome(again, X.assign(a=np.nan)) == _outcome(fitted[2], X.assign(a=np.nan))
    assert "had no missing values in fit" in _outcome(again, X.assign(a=np.nan))[1][0]


def test_corrupt_json_and_other_files(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"format": "occamlearn-model", ')
    with pytest.raises(ValueError, match=r"m\.json is not JSON"):
        load_model(path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not an occamlearn model file"):
        load_model(path)
    with pytest.raises(FileNotFoundError, match="no such model file"):
        load_model(tmp_path / "missing.json")


# -- a reloaded model refuses what the fitted one refuses -----------------------------------------
@pytest.mark.parametrize("change, message", [
    (lambda X: X.astype(object).assign(a=lambda f: f.a.where(f.index != 3, "yes")),
     r"column 'a' \(row 3\) is numeric but contains the string 'yes'"),
    (lambda X: X.drop(columns="b"), r"b"),
])  # fmt: skip
def test_a_loaded_model_validates_input_as_the_fitted_one(fitted, model_path, change, message):
    X, _, clf = fitted
    loaded = load_model(model_path)
    bad = change(X.copy())
    with pytest.raises(ValueError, match=message):
        clf.predict(bad)
    with pytest.raises(ValueError, match=message):
        loaded.predict(bad)


def _outcome(model, X):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = model.predict(X).tolist()
        except ValueError as exc:
            result = f"ValueError: {exc}"
    return result, sorted(str(w.message) for w in caught)


def test_unseen_values_meet_the_same_answer_in_memory_and_reloaded(fitted, model_path):
    X, _, clf = fitted
    bad = X.assign(d=X.d.where(X.index != 2, "w"), b=X.b.where(X.index != 5, 9))
    assert _outcome(load_model(model_path), bad) == _outcome(clf, bad)


def test_missing_values_meet_the_same_answer_in_memory_and_reloaded(fitted, model_path):
    """Issue 20: missing cells where fit saw none warn and predict (every test on the column
    is false there), identically before and after saving."""
    X, _, clf = fitted
    bad = X.astype(object)
    bad.iloc[::3, 1] = None
    outcome = _outcome(clf, bad)
    assert isinstance(outcome[0], list) and "had no missing values in fit" in outcome[1][0]
    assert _outcome(load_model(model_path), bad) == outcome


def test_predict_cli_reads_an_all_nan_csv_with_a_warning(capsys, tmp_path, model_path,
                                                         train_csv):
    """Issue 20: one missing cell (here all of them) no longer fails the whole batch."""
    frame = pd.read_csv(train_csv)
    frame[["a", "b", "d"]] = np.nan
    path = tmp_path / "nan.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["predict", model_path, path], capsys)
    assert code == 0 and len(out.splitlines()) >= len(frame)
    assert "had no missing values in fit" in err


def test_predict_warns_when_no_label_is_a_class(capsys, tmp_path, model_path, train_csv):
    frame = pd.read_csv(train_csv)
    frame["target"] = np.where(frame["target"] == 1, "spam", "ham")
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(["predict", model_path, path], capsys)
    assert code == 0
    assert "warning: no value of column 'target' (ham, spam) is a class of the model (0, 1)" \
        in err
    code, _, err = _run(["predict", model_path, train_csv], capsys)
    assert code == 0 and "warning" not in err and "accuracy: 1.0000" in err


# -- the command line
# -------------------------------------------------------------------------------
def test_fit_checks_the_output_path_before_any_work(capsys, train_csv):
    started = time.perf_counter()
    code, out, err = _run(["fit", train_csv, "-o", "/nonexistent/dir/model.json"], capsys)
    assert code == 2 and out == ""
    assert "-o /nonexistent/dir/model.json: the directory /nonexistent/dir does not exist" in err
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("argv", [
    ["encode", "{csv}", "-o", "/nonexistent/x.wcnf"],
    ["predict", "{model}", "{csv}", "-o", "/nonexistent/p.csv"],
    ["dlist", "{csv}", "-o", "/nonexistent/l.json"],
    ["binarize", "{csv}", "-o", "{tmp}"],
])  # fmt: skip
def test_other_outputs_are_checked_first(capsys, tmp_path, train_csv, model_path, argv):
    argv = [a.format(csv=train_csv, model=model_path, tmp=tmp_path) for a in argv]
    code, out, err = _run(argv, capsys)
    assert code == 2 and argv[-1] in err and ("does not exist" in err or "directory" in err)


def test_error_hints_name_the_flags(capsys, tmp_path):
    path = tmp_path / "conflict.csv"
    path.write_text("a,b,target\n0,0,0\n0,0,1\n1,1,1\n")
    code, _, err = _run(["fit", path, "-q", "--on-conflict", "error"], capsys)
    assert code == 2 and "--on-conflict majority" in err and "--on-conflict relax" in err
    assert "on_conflict=" not in err


def test_dlist_conjunction_bounds(capsys, train_csv):
    with pytest.raises(ValueError, match="min_conjunction=3 exceeds max_conjunction=1"):
        DecisionListClassifier(min_conjunction=3, max_conjunction=1).fit(*_table())
    code, _, err = _run(["dlist", train_csv, "--min-conjunction", "3", "--max-conjunction",
                         "1"], capsys)
    assert code == 2 and "--min-conjunction 3 exceeds --max-conjunction 1" in err


def test_csv_index_column_and_duplicate_names(capsys, tmp_path):
    X, y = _table()
    indexed = tmp_path / "indexed.csv"
    X.assign(target=y).to_csv(indexed)  # with the index: a column headed ""
    code, out, _ = _run(["binarize", indexed], capsys)
    assert code == 0 and "Unnamed" not in out
    duplicated = tmp_path / "dup.csv"
    duplicated.write_text("a,b,a,target\n1,2,3,0\n")
    code, _, err = _run(["fit", duplicated], capsys)
    assert code == 2 and "repeats the column name(s) 'a'" in err


@pytest.mark.parametrize("content, message", [
    ("a,b,target\n", "has no rows"),
    ("", "is empty"),
    ("a,b,target\n1,inf,0\n0,1,1\n", "column 'b' (row 0) contains inf"),
    ('a,b,target\n1,2,0,5,6\n0,1\n"x\n', "is not a readable CSV file"),
    ("target\n1\n0\n", "only the target column"),
])  # fmt: skip
def test_bad_csv_files_are_named_errors(capsys, tmp_path, content, message):
    path = tmp_path / "data.csv"
    path.write_text(content)
    code, out, err = _run(["fit", path, "-q"], capsys)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


@pytest.mark.parametrize("content", ["a,b,target\n1,0,1\n", "a,b,target\n1,0,1\n0,1,1\n"],
                         ids=["one row", "one class"])
def test_one_row_or_one_class_is_a_single_leaf(capsys, tmp_path, content):
    path = tmp_path / "data.csv"
    path.write_text(content)
    code, out, _ = _run(["fit", path, "-q"], capsys)
    assert code == 0 and "size: 1 nodes, status optimal, bounds [1, 1]" in out


def test_bad_flags_are_usage_errors(capsys):
    for argv in (["fit", "x.csv", "--binarizer", "nope"], ["fit", "x.csv", "--time-limit", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert "invalid" in capsys.readouterr().err
    code, _, err = _run(["fit", "x.csv", "--time-limit", "-1"], capsys)
    assert code == 2 and "--time-limit must be positive (0: no limit)" in err


def test_fit_has_a_default_time_limit_and_alg3_flags(capsys, tmp_path, train_csv):
    from occamlearn.cli import build_parser

    args = build_parser().parse_args(["fit", "x.csv"])
    assert args.time_limit == 60 and args.n_solutions == 1 and args.diverse is True
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    assert "default 60, 0 for no limit" in " ".join(capsys.readouterr().out.split())
    model = tmp_path / "alg3.json"
    code, out, _ = _run(["fit", train_csv, "-q", "--n-solutions", "3", "--selection-size",
                         "0.25", "--no-diverse", "--delta", "0.1", "--random-state", "1",
                         "-o", model], capsys)
    assert code == 0 and "selection: " in out
    params = json.loads(model.read_text())["params"]
    assert (params["n_solutions"], params["selection_size"], params["diverse"],
            params["delta"]) == (3, 0.25, False, 0.1)


def test_ctrl_c_prints_the_best_tree_and_its_bounds(capsys, monkeypatch, tmp_path, train_csv):
    original = MinimumPureTreeClassifier.fit

    def interrupted_fit(self, X, y):
        original(self, X, y)
        self.status_, self.lower_bound_ = "feasible", 3
        self.solve_stats_["interrupted"] = True
        raise KeyboardInterrupt

    monkeypatch.setattr(MinimumPureTreeClassifier, "fit", interrupted_fit)
    model = tmp_path / "m.json"
    code, out, _ = _run(["fit", train_csv, "-q", "-o", model], capsys)
    assert code == 130
    assert "interrupted: the best tree so far has 7 nodes; a minimum tree has between 3 and 7 " \
        "nodes" in out
    assert model.is_file()

    def early_interrupt(self, X, y):
        raise KeyboardInterrupt

    monkeypatch.setattr(MinimumPureTreeClassifier, "fit", early_interrupt)
    code, out, err = _run(["fit", train_csv, "-q"], capsys)
    assert code == 130 and out == "" and "interrupted" in err


@pytest.mark.slow  # a child process
def test_predict_into_a_closed_pipe_ends_quietly(tmp_path, model_path, fitted):
    X, y, _ = fitted
    big = tmp_path / "big.csv"
    pd.concat([X] * 500).assign(target=np.tile(y, 500)).to_csv(big, index=False)
    command = (f"{sys.executable} -m occamlearn predict {model_path} {big} | head -n 1; "
               "exit ${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.stdout == "prediction\n"
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    assert done.returncode in (0, 141)


@pytest.mark.slow  # a child process
def test_a_missing_model_file_is_reported_without_heavy_imports(tmp_path):
    code = ("import sys; from occamlearn.cli import main; "
            f"rc = main(['predict', {str(tmp_path / 'missing.json')!r}, 'x.csv']); "
            "print(rc, sorted(m for m in ('pandas', 'sklearn', 'pysat', 'numba', 'numpy') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "2 []"
    assert "no such model file" in done.stderr


# -- external solvers and their answers
# ---------------------------------------------------------------
def test_a_failed_external_solver_is_an_error_not_a_greedy_tree(capsys, monkeypatch, fitted):
    from occamlearn.maxsat.external import ExternalSolverError

    X, y, _ = fitted
    monkeypatch.setenv("OCCAMLEARN_MAXSAT_COMMAND", "sh -c 'echo solver exploded >&2; exit 3'")
    clf = MinimumPureTreeClassifier(method="maxsat", solver="external", time_limit=30)
    with pytest.raises(ExternalSolverError, match=r"exit code 3.*solver exploded"):
        clf.fit(X, y)
    monkeypatch.setenv("OCCAMLEARN_MAXSAT_COMMAND", "false")
    code, out, err = _run(["fit", "--dataset", "corral", "--method", "maxsat", "--solver",
                           "external", "-q"], capsys)
    assert code == 2 and out == ""
    assert "the external MaxSAT solver 'false' ended (exit code 1)" in err


def test_an_external_solver_ignoring_sigterm_is_killed_within_the_limit():
    from occamlearn.maxsat.external import ExternalBackend
    from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt

    X, y = _table(12)
    X_bin = (pd.get_dummies(X.astype(str)).to_numpy() != 0).astype(np.uint8)
    encoding = encode_mpdt(X_bin, y, 2, 9, 3)
    backend = ExternalBackend(command=f"{FAKE} --sleep 30 --ignore-term {{wcnf}}", kill_grace=2)
    started = time.perf_counter()
    result = backend.solve(encoding.wcnf, deadline=Deadline.after(1.5))
    assert result.stats["killed"] and time.perf_counter() - started < 1.5 + 0.8


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wcnf")
    X, y = _table(12)
    csv = folder / "data.csv"
    X.assign(target=y).to_csv(csv, index=False)
    assert main(["encode", str(csv), "-o", str(folder / "i.wcnf")]) == 0
    return folder, json.loads((folder / "i.wcnf.json").read_text())


@pytest.mark.parametrize("answer, message", [
    ("s OPTIMUM FOUND\no abc\nv 0101\n", r"'o abc' has no cost"),
    ("s MAYBE\nv 01\n", r"unknown status 's MAYBE'"),
    ("s OPTIMUM FOUND\nv 1 -2 999999999999999999999 0\n", r"names no variable of the instance"),
    ("s OPTIMUM FOUND\nv 1 -1 0\n", r"sets variable 1 both true and false"),
    ("s OPTIMUM FOUND\nv 0\n", r"breaks hard clause"),
    ("s OPTIMUM FOUND\nv 1 x 3\n", r"cannot read the v line"),
    ("hello\n", r"no 's' status line and no 'v' model line"),
    ("s UNSATISFIABLE\n", r"no pure tree with at most \d+ nodes"),
])  # fmt: skip
def test_decode_names_what_is_wrong_with_a_solver_output(instance, answer, message):
    from occamlearn.estimators.model_files import decode_solution

    _, sidecar = instance
    with pytest.raises(ValueError, match=message):
        decode_solution(sidecar, answer)


def test_decode_refuses_a_broken_sidecar(instance):
    from occamlearn.estimators.model_files import decode_solution

    _, sidecar = instance
    for key, value, message in (("y", [7], '"y" must hold'), ("X", None, '"X" must be'),
                                ("n_vars", -1, '"n_vars" = -1 is not a count')):
        broken = dict(sidecar, **{key: value})
        with pytest.raises(ValueError, match=message):
            decode_solution(broken, "s OPTIMUM FOUND\nv 0\n")
    del sidecar["variables"]  # module fixture: last use
    with pytest.raises(ValueError, match='the key "variables" is missing'):
        decode_solution(sidecar, "s OPTIMUM FOUND\nv 0\n")
