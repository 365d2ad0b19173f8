"""Honest defaults, and the command line and Python agreeing on them (issue: data as users
bring it): ten identical rows, time limits, ``n_jobs=-1``, the warning that a pure tree is
the wrong question, ``verbose``, binariser defaults, ``prefer_small``, ``set_params`` errors,
and "same data -> same model" from the CLI and from Python for every model kind.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    load_dataset,
)
from occamlearn.cli import build_parser, main
from occamlearn.estimators._base import (
    BINARIZERS,
    DEFAULT_TIME_LIMIT,
    no_limit_as_none,
    resolve_n_jobs,
)
from occamlearn.estimators.model_files import load_model


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- ten identical rows ----------------------------------------------------------------------
@pytest.mark.parametrize("labels, kept", [
    ([0, 1] * 5, 0),                 # a tie: the smallest label wins (documented rule)
    (["b", "a"] * 5, "a"),           # ... in sorted order, whatever the row order
    ([1, 1, 0, 1, 0, 1, 1, 0, 1, 0], 1),  # 6 against 4: the majority
])
def test_identical_rows_give_a_one_leaf_tree(labels, kept):
    """It was "X has 0 rows but y has 10 labels" (every column constant, so dropped)."""
    X = pd.DataFrame({"a": [1] * 10, "b": ["x"] * 10})
    with pytest.warns(UserWarning, match="set aside"):
        model = MinimumPureTreeClassifier().fit(X, labels)
    assert model.n_nodes_ == 1 and model.status_ == "optimal"
    assert model.predict(X.head(1))[0] == kept
    minority = min(labels.count(c) for c in set(labels))
    assert model.training_errors_ == minority == model.n_conflicts_removed_


def test_identical_rows_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("a,target\n1,0\n1,1\n")
    code, out, err = _run(["fit", path, "-q"], capsys)
    assert code == 0 and "class: 0" in out and "1 nodes" in out
    assert "set aside" in err


# -- time limits ---------------------------------------------------------------------------
def test_one_finite_default_time_limit_in_python_and_the_cli():
    from occamlearn.cli.trees import DEFAULT_TIME_LIMIT as CLI_DEFAULT

    assert 0 < DEFAULT_TIME_LIMIT <= 600
    assert MinimumPureTreeClassifier().time_limit == DEFAULT_TIME_LIMIT
    assert MaxAccuracyTreeClassifier().time_limit == DEFAULT_TIME_LIMIT
    assert CLI_DEFAULT == DEFAULT_TIME_LIMIT
    assert build_parser().parse_args(["fit", "x.csv"]).time_limit == DEFAULT_TIME_LIMIT


@pytest.mark.parametrize("text", ["0", "0.0", "none", "None"])
def test_cli_zero_and_none_mean_no_limit(text):
    assert build_parser().parse_args(["fit", "x.csv", "--time-limit", text]).time_limit is None


@pytest.mark.parametrize("estimator", [MinimumPureTreeClassifier, MaxAccuracyTreeClassifier])
@pytest.mark.parametrize("no_limit", [None, 0])
def test_python_none_and_zero_mean_no_limit(estimator, no_limit):
    assert no_limit_as_none(no_limit) is None
    X = pd.DataFrame({"a": [0, 1, 2, 3], "b": [1, 0, 1, 0]})
    model = estimator(time_limit=no_limit).fit(X, [0, 0, 1, 1])
    assert model.status_ == "optimal"
    with pytest.raises(ValueError, match="'time_limit' parameter"):
        estimator(time_limit=-1).fit(X, [0, 0, 1, 1])


# -- n_jobs ----------------------------------------------------------------------------------
def test_n_jobs_as_scikit_learn_reads_it():
    from joblib import cpu_count

    assert resolve_n_jobs(None) == 1
    assert resolve_n_jobs(-1) == cpu_count() == os.cpu_count()
    assert resolve_n_jobs(-2) == max(cpu_count() - 1, 1)
    with pytest.raises(ValueError, match="n_jobs=0"):
        resolve_n_jobs(0)
    X = pd.DataFrame({"a": [0, 1, 2, 3], "b": [1, 0, 1, 0]})
    model = MinimumPureTreeClassifier(n_jobs=-1).fit(X, [0, 1, 1, 0])
    assert model.status_ == "optimal" and model.n_nodes_ == 5
    with pytest.raises(ValueError, match="n_jobs=0"):
        MinimumPureTreeClassifier(n_jobs=0).fit(X, [0, 1, 1, 0])


# -- a pure tree is the wrong question -------------------------------------------------------
def _memorise_warnings(record):
    return [str(w.message) for w in record if "memorises noise" in str(w.message)]


def test_noisy_random_data_warns_once_and_points_elsewhere(random_binary):
    X, y = random_binary(200, 12, seed=4, distinct=True)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = MinimumPureTreeClassifier(binarizer=None, time_limit=5).fit(X, y)
    found = _memorise_warnings(record)
    assert len(found) == 1
    assert "max_errors" in found[0] and "MaxAccuracyTreeClassifier" in found[0]
    assert (model.lower_bound_ + 1) // 2 > 0.1 * len(y)


def test_the_tree_found_warns_before_the_bound_proves_it(random_binary):
    """The bound rises slowly on many rows; the tree found already has a leaf for every few
    stray rows, and says so."""
    X, y = random_binary(3000, 14, seed=2, distinct=True)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = MinimumPureTreeClassifier(binarizer=None, time_limit=2).fit(X, y)
    found = _memorise_warnings(record)
    assert len(found) == 1 and "pure tree found has" in found[0]
    assert (model.lower_bound_ + 1) // 2 <= 0.1 * len(y) < model.tree_.n_leaves


@pytest.mark.parametrize("name", ["mux6", "iris", "monks-3"])
def test_clean_data_does_not_warn(name):
    X, y = load_dataset(name)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    assert _memorise_warnings(record) == []


def test_an_error_budget_does_not_warn(random_binary):
    X, y = random_binary(60, 8, seed=4, distinct=True)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        MinimumPureTreeClassifier(binarizer=None, max_errors=20, time_limit=5).fit(X, y)
    assert _memorise_warnings(record) == []


# -- verbose ---------------------------------------------------------------------------------
@pytest.mark.parametrize("estimator, words", [
    (MinimumPureTreeClassifier(verbose=1), "pure tree with"),
    (MaxAccuracyTreeClassifier(max_depth=2, verbose=1), "training errors"),
])
def test_verbose_prints_progress_lines_to_stderr(capsys, estimator, words):
    X, y = load_dataset("mux6")
    estimator.fit(X, y)
    out, err = capsys.readouterr()
    assert out == ""
    assert any(words in line for line in err.splitlines())
    assert all(line.startswith(f"[{type(estimator).__name__}]") for line in err.splitlines())


# -- one default binariser everywhere --------------------------------------------------------
def test_dlist_binarizer_choices_and_default_match_python():
    from occamlearn.cli.lists import BINARIZERS as DLIST_CHOICES

    assert set(DLIST_CHOICES) == set(BINARIZERS) | {"none"}
    args = build_parser().parse_args(["dlist", "x.csv"])
    assert args.binarizer == DecisionListClassifier().binarizer == "readable"
    assert build_parser().parse_args(["dlist", "x.csv", "--binarizer", "readable"])


def test_cli_binarize_defaults_to_what_fit_uses(capsys):
    code, out, _ = _run(["binarize", "--dataset", "iris"], capsys)
    assert code == 0
    X, y = load_dataset("iris")  # fit binarises with the labels: every cut a tree can need
    expected = BINARIZERS[MinimumPureTreeClassifier().binarizer]().fit(X, y)
    assert out.splitlines() == list(expected.get_feature_names_out())
    assert "petal-length >= 2.0" in out.splitlines()  # the README tree's first test


def test_dtmax_smallest_among_the_most_accurate_in_both():
    """The README's promise; the CLI and Python returned 7 and 15 nodes."""
    assert MaxAccuracyTreeClassifier().prefer_small is True
    assert build_parser().parse_args(["fit", "x.csv", "--max-depth", "3"]).prefer_small
    X, y = load_dataset("monks-3")
    small = MaxAccuracyTreeClassifier(max_depth=3).fit(X, y)
    first = MaxAccuracyTreeClassifier(max_depth=3, prefer_small=False).fit(X, y)
    assert small.training_errors_ == first.training_errors_
    assert small.n_nodes_ < first.n_nodes_  # 9 vs 13 on monks-3


def test_set_params_error_names_the_parameter_not_the_tree():
    X, y = load_dataset("mux6")
    model = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="Invalid parameter 'nope' for estimator "
                       "MaxAccuracyTreeClassifier. Valid parameters are") as caught:
        model.set_params(nope=1)
    assert "|---" not in str(caught.value) and "nodes" not in str(caught.value)
    assert model.set_params(max_depth=3).max_depth == 3


# -- same data, same model -------------------------------------------------------------------
@pytest.mark.parametrize("argv, python", [
    (["fit", "--dataset", "mux6"], lambda: MinimumPureTreeClassifier()),
    (["fit", "--dataset", "haber", "--max-depth", "3"],
     lambda: MaxAccuracyTreeClassifier(max_depth=3)),
    (["dlist", "--dataset", "titanic"], lambda: DecisionListClassifier()),
])
def test_the_cli_and_python_learn_the_same_model(tmp_path, capsys, argv, python):
    path = tmp_path / "model.json"
    code, _, _ = _run([*argv, "-q", "-o", path] if argv[0] == "fit" else [*argv, "-o", path],
                      capsys)
    assert code == 0
    from_cli = load_model(path)
    X, y = load_dataset(argv[2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_python = python().fit(X, y)
    assert list(from_cli.feature_names_) == list(from_python.feature_names_)
    assert from_cli.export_text() == from_python.export_text()
    np.testing.assert_array_equal(from_cli.predict(X), from_python.predict(X))
