"""Missing values, dates, mixed-type and decimal-comma columns, and column labels (issue 20).

The central check reads the *printed* model, not the conditions: a small parser evaluates
each printed test (``income < 3 or missing``, ``colour in {a, b}``, ``income is missing``) on
the raw rows, walks the printed tree (or list) and must reach what ``predict`` returns; and
at every node exactly one of the two printed branches must hold. Minimum trees are checked
against an independent brute force on the binarised data.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from bruteforce import minimum_tree_size
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn import (
    DecisionListClassifier,
    MaxAccuracyTreeClassifier,
    MinimumPureTreeClassifier,
    save_model,
)
from occamlearn.binarize import ConditionBinarizer, FeatureBinarizer, ThresholdBinarizer
from occamlearn.estimators.model_files import load_model
from occamlearn.export import export_graphviz, export_html
from occamlearn.model.conditions import Condition

# -- the printed words, evaluated on raw rows ---------------------------------------------------
_ATOMS = [
    (re.compile(r"^(?P<col>\w+) is (?P<neg>not )?missing$"), "missing"),
    (re.compile(r"^(?P<lo>[-\d.e]+) <= (?P<col>\w+) (?P<op><=?) (?P<hi>[-\d.e]+)$"), "interval"),
    (re.compile(r"^(?P<col>\w+) (?P<neg>not )?in \{(?P<values>.*)\}$"), "set"),
    (re.compile(r"^(?P<col>\w+) (?P<op>==|!=|<=|>=|<|>) (?P<value>.+)$"), "compare"),
]
_OPS = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
        ">": np.greater, ">=": np.greater_equal}


def _same(value, text) -> bool:
    """A printed value names a raw one: equal as numbers when both read as numbers (``2``
    names ``'2'``, ``2`` and ``2.0``), else as text."""
    try:
        return float(value) == float(text)
    except (TypeError, ValueError):
        return str(value) == text


def _atom(text: str, row: dict, column: str | None):
    """(truth, column) of one printed test on a raw row; a missing value satisfies only the
    words that say ``missing``."""
    if text == "missing":
        return pd.isna(row[column]), column
    for pattern, kind in _ATOMS:
        match = pattern.match(text)
        if match is None:
            continue
        col = match["col"]
        value = row[col]
        if kind == "missing":
            return bool(pd.isna(value)) != bool(match["neg"]), col
        if pd.isna(value):
            return False, col
        if kind == "interval":
            upper = _OPS[match["op"]](float(value), float(match["hi"]))
            return float(match["lo"]) <= float(value) and bool(upper), col
        if kind == "set":
            inside = any(_same(value, v) for v in match["values"].split(", "))
            return inside != bool(match["neg"]), col
        if match["op"] in ("==", "!="):
            return _same(value, match["value"]) == (match["op"] == "=="), col
        return bool(_OPS[match["op"]](float(value), float(match["value"]))), col
    raise AssertionError(f"unparsed printed test {text!r}")


def holds(text: str, row: dict) -> bool:
    """Whether a printed test (a union joined by ``or``, conjunctions by ``&``) holds."""
    for conjunct in text.split(" & "):
        conjunct = conjunct.strip()
        conjunct = conjunct[1:-1] if conjunct.startswith("(") else conjunct
        column, truth = None, False
        for part in conjunct.split(" or "):
            value, column = _atom(part, row, column)
            truth = truth or value
        if not truth:
            return False
    return True


def _columns_in(text: str) -> set:
    return {m for m in re.findall(r"[A-Za-z_]\w*", text)
            if m not in ("or", "in", "not", "is", "missing")}


def printed_tree_prediction(text: str, row: dict) -> str:
    """Walk the printed tree (``|--- test`` lines) on a raw row; return the leaf's class.

    A value missing in a column whose printed tests never mention ``missing`` (the column had
    none in fit) satisfies neither branch; the documented rule sends it to the first, "no",
    branch."""
    lines = [line for line in text.splitlines() if "|---" in line]
    if not lines:
        return text.split("class: ")[1].split()[0]
    depth, position = 0, 0
    while True:
        branches = [k for k in range(position, len(lines))
                    if lines[k].index("|---") // 4 == depth]
        line = lines[branches[0]].split("|--- ", 1)[1]
        if line.startswith("class: "):
            return line[len("class: "):].split(" [")[0]
        # the two branches of this node are the next two lines at this depth
        first, second = branches[0], next(k for k in branches[1:])
        texts = [lines[k].split("|--- ", 1)[1] for k in (first, second)]
        truths = [holds(t, row) for t in texts]
        unmentioned = "missing" not in texts[0] + texts[1] and any(
            pd.isna(row[c]) for c in _columns_in(texts[0]) if c in row)
        if unmentioned:
            truths = [True, False]
        assert sum(truths) == 1, (texts, row)
        position = (first if truths[0] else second) + 1
        depth += 1


def printed_list_rule(text: str, row: dict) -> int:
    """Index of the first printed rule that holds on a raw row (-1: the ELSE line)."""
    rules = [line for line in text.splitlines() if line.startswith(("IF ", "ELSE IF "))]
    for k, line in enumerate(rules):
        condition = line.split("IF ", 1)[1].rsplit(" THEN ", 1)[0]
        if holds(condition, row):
            return k
    return -1


def _rows(X: pd.DataFrame) -> list[dict]:
    return [dict(zip(X.columns, values)) for values in X.astype(object).itertuples(index=False)]


def assert_print_matches_predict(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        predicted = model.predict(X)
    if isinstance(model, DecisionListClassifier):
        fired = model.list_.apply(model.binarizer_.transform(X))
        text = model.export_text()
        for k, row in enumerate(_rows(X)):
            assert printed_list_rule(text, row) == (fired[k] if fired[k] >= 0 else -1), row
        return
    text = model.export_text()
    for k, row in enumerate(_rows(X)):
        assert printed_tree_prediction(text, row) == str(predicted[k]), (text, row)


# -- tiny tables with missing cells ------------------------------------------------------------
@st.composite
def tables_with_missing(draw):
    n = draw(st.integers(3, 8))
    income = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 4.0, None]), min_size=n,
                           max_size=n))
    colour = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
    rule = draw(st.sampled_from(["income", "colour", "mixed"]))
    X = pd.DataFrame({"income": pd.array(income, dtype="Float64").astype(float),
                      "colour": pd.Series(colour, dtype=object)})
    if rule == "income":
        y = [int(v is None or v >= 3) for v in income]
    elif rule == "colour":
        y = [int(c in ("a", None)) for c in colour]
    else:
        y = [int((v is None) != (c == "b")) for v, c in zip(income, colour)]
    return X, np.asarray(y)


_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(tables_with_missing())
def test_minimum_tree_with_missing_cells_is_pure_minimum_and_printed_as_it_predicts(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    X_bin = model.binarizer_.transform(X)
    assert (model.tree_.predict(X_bin) == np.searchsorted(model.classes_, y)).all()  # pure
    assert model.tree_.n_nodes == minimum_tree_size(X_bin, np.searchsorted(model.classes_, y))
    assert_print_matches_predict(model, X)
    # rows the model never saw, missing anywhere, follow the printed words too
    assert_print_matches_predict(model, X.iloc[::-1].assign(income=np.nan))


def fewest_errors(X_bin: np.ndarray, y: np.ndarray, depth: int) -> int:
    """Brute force: the fewest training errors of any tree of depth <= ``depth``."""
    def best(rows: np.ndarray, depth: int) -> int:
        errors = int(rows.sum() - np.bincount(y[rows]).max()) if rows.any() else 0
        if depth == 0 or errors == 0:
            return errors
        for f in range(X_bin.shape[1]):
            ones = rows & (X_bin[:, f] == 1)
            errors = min(errors, best(ones, depth - 1) + best(rows & ~ones, depth - 1))
        return errors

    return best(np.ones(len(y), dtype=bool), depth)


@_SETTINGS
@given(tables_with_missing())
def test_dtmax_and_decision_list_with_missing_cells_predict_as_printed(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        dtmax = MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)
    X_bin = dtmax.binarizer_.transform(X)
    assert dtmax.training_errors_ == fewest_errors(X_bin, y, 2)  # most accurate at depth 2
    assert_print_matches_predict(dtmax, X)
    if len(set(y.tolist())) == 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            dlist = DecisionListClassifier(max_rules=4).fit(X, y)
        assert_print_matches_predict(dlist, X)
        assert_print_matches_predict(dlist, X.assign(colour=None))


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_nan_none_and_pd_na_are_one_missing_value(missing):
    X = pd.DataFrame({"income": pd.Series([10, 20, missing, 40, 50, missing], dtype=object),
                      "colour": pd.Series(["a", missing, "b", "a", "b", "a"], dtype=object)})
    y = [0, 0, 1, 1, 1, 1]
    model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    names = list(model.feature_names_)
    assert "income is missing" in names and "colour is missing" in names
    assert "income >= 30 or missing" in names  # numeric, whatever marks the gap
    reference = X.astype(object).where(X.notna(), np.nan)
    assert (model.predict(X) == model.predict(reference)).all()
    assert_print_matches_predict(model, X)


def test_the_search_chooses_the_side_of_missing_values():
    """``income >= 30 or missing`` separates in one test what ``income >= 30`` and ``income
    is missing`` need two for: the minimum tree takes it, printed in words."""
    X = pd.DataFrame({"income": [10.0, 20.0, np.nan, 40.0, 50.0, np.nan]})
    y = [0, 0, 1, 1, 1, 1]
    model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    assert model.tree_.n_nodes == 3
    text = model.export_text()
    assert "|--- income < 30\n" in text and "|--- income >= 30 or missing\n" in text
    one_side = MinimumPureTreeClassifier(
        binarizer=ThresholdBinarizer(missing_sides="one"), time_limit=30).fit(X, y)
    assert one_side.tree_.n_nodes == 5  # the indicator costs one more test
    assert "income is missing" in one_side.export_text()


def test_every_export_and_the_model_file_say_the_same_words(tmp_path):
    X = pd.DataFrame({"income": [10.0, 20.0, np.nan, 40.0, 50.0, np.nan, 30.0],
                      "colour": ["a", "b", None, "a", "b", "b", None]})
    y = [0, 0, 1, 1, 1, 1, 0]
    for model in (MinimumPureTreeClassifier(time_limit=30).fit(X, y),
                  MaxAccuracyTreeClassifier(max_depth=2).fit(X, y)):
        text, dot, html = model.export_text(), export_graphviz(model), export_html(model)
        tested = [model.binarizer_.conditions_[f] for f in model.tree_.feature if f >= 0]
        assert any("missing" in c.describe(True) + c.describe() for c in tested)
        for c in tested:  # the text shows both branches, DOT and HTML the test itself
            assert f"|--- {c.describe(True)}\n" in text and f"|--- {c.describe()}\n" in text
            assert f'[label="{c.describe()}"]' in dot
            assert c.describe().replace("<", "&lt;").replace(">", "&gt;") in html
        save_model(model, tmp_path / "m.json")
        loaded = load_model(tmp_path / "m.json")
        assert loaded.export_text() == model.export_text()
        assert (loaded.predict(X) == model.predict(X)).all()
    dlist = DecisionListClassifier(max_rules=3).fit(X, y)
    save_model(dlist, tmp_path / "l.json")
    loaded = load_model(tmp_path / "l.json")
    assert loaded.export_text() == dlist.export_text()
    assert (loaded.predict(X) == dlist.predict(X)).all()
    rule = dlist.export_text().splitlines()[0].split("IF ")[1].split(" THEN")[0]
    assert "missing" in rule
    assert rule.replace("<", "&lt;").replace(">", "&gt;") in export_html(dlist)


def test_a_missing_value_where_fit_saw_none_takes_every_no_branch_and_warns(tmp_path):
    """The documented rule: every condition on the column is false, so a tree takes the "no"
    branch of each test on it -- in memory and after a round trip through a file."""
    X = pd.DataFrame({"income": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0],
                      "age": [1, 5, 2, 6, 3, 7]})
    y = [0, 0, 1, 1, 0, 1]
    model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    new = X.assign(income=np.nan)
    with pytest.warns(UserWarning, match=r"column 'income' had no missing values in fit but "
                                         r"is missing in row\(s\) 0, 1, 2, 3, 4, \.\.\."):
        predicted = model.predict(new)
    # walk the tree: at a test on income go to the left ("no") child
    conditions = model.binarizer_.conditions_
    tree = model.tree_
    for k, row in enumerate(_rows(new)):
        node = 0
        while tree.feature[node] >= 0:
            c = conditions[tree.feature[node]]
            goes_right = False if c.column == "income" else bool(c.evaluate(
                pd.DataFrame([row]))[0])
            node = tree.right[node] if goes_right else tree.left[node]
        assert model.classes_[tree.label[node]] == predicted[k]
    save_model(model, tmp_path / "m.json")
    with pytest.warns(UserWarning, match="had no missing values in fit"):
        assert (load_model(tmp_path / "m.json").predict(new) == predicted).all()


def test_missing_values_in_arrays_and_binary_columns():
    X = np.array([[0, 1.5], [1, np.nan], [np.nan, 2.5], [1, 0.5], [0, np.nan]])
    y = [0, 1, 1, 0, 1]
    binarizer = ThresholdBinarizer().fit(X)
    names = list(binarizer.get_feature_names_out())
    assert names[:3] == ["x0 is missing", "x0 == 1", "x0 == 1 or missing"]
    model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    assert (model.predict(X) == y).all()
    assert FeatureBinarizer().fit(X).transform(X).shape[0] == 5


def test_condition_words_and_json_for_missing():
    c = Condition("income", ">=", 30900, 0, missing=False)
    assert (str(c), c.describe(True)) == ("income >= 30900", "income < 30900 or missing")
    t = Condition("income", ">=", 30900, 0, missing=True)
    assert (str(t), t.describe(True)) == ("income >= 30900 or missing", "income < 30900")
    m = Condition("income", "missing", None, 0)
    assert (str(m), m.describe(True)) == ("income is missing", "income is not missing")
    frame = pd.DataFrame({"income": [np.nan, 1e5, 1.0]})
    assert c.evaluate(frame).tolist() == [False, True, False]
    assert t.evaluate(frame).tolist() == [True, True, False]
    assert m.evaluate(frame).tolist() == [True, False, False]
    for condition in (c, t, m):
        assert Condition.from_dict(condition.to_dict()) == condition
    with pytest.raises(ValueError, match="'missing' condition takes value=None"):
        Condition("income", "missing", 3)


# -- dates ---------------------------------------------------------------------------------------
def test_dates_are_ordered_and_printed_as_dates(tmp_path):
    days = pd.to_datetime(["2022-06-20", "2022-06-21", "2022-06-22", "2022-06-23",
                           "2022-06-24", "2022-06-25"])
    X = pd.DataFrame({"application_date": days})
    y = [0, 0, 0, 1, 1, 1]
    model = MinimumPureTreeClassifier(time_limit=30).fit(X, y)
    text = model.export_text()
    assert "|--- application_date < 2022-06-23\n" in text
    assert "|--- application_date >= 2022-06-23\n" in text
    # Timestamp objects and a later date read the same way
    objects = pd.DataFrame({"application_date": list(days) + [pd.Timestamp("2030-01-01")]})
    assert model.predict(objects).tolist() == [*y, 1]
    save_model(model, tmp_path / "d.json")
    assert load_model(tmp_path / "d.json").export_text() == text
    with_time = X.assign(application_date=days + pd.Timedelta(hours=6))
    assert "2022-06-23" in MinimumPureTreeClassifier().fit(with_time, y).export_text()


# -- mixed types, decimal commas, labels -----------------------------------------------------------
def test_a_column_mixing_2_and_text_2_prints_what_it_predicts():
    """Issue 20: ``m == 2 -> class 1`` was printed while predict on '2' returned 0."""
    X = pd.DataFrame({"m": pd.Series(["2", 2, "a", "a", 1, "b"], dtype=object)})
    y = [1, 1, 0, 0, 0, 0]
    with pytest.warns(UserWarning, match="column 'm' mixes numbers and text"):
        model = MinimumPureTreeClassifier().fit(X, y)
    assert "m == 2" in model.export_text()
    assert model.predict(pd.DataFrame({"m": ["2", 2, 2.0, "a"]})).tolist() == [1, 1, 1, 0]
    assert_print_matches_predict(model, X)
    numeric = pd.DataFrame({"m": pd.Series(["2", 2, "3", 3, 1, "1"], dtype=object)})
    with pytest.warns(UserWarning, match="column 'm' mixes numbers and numeric text"):
        model = MinimumPureTreeClassifier().fit(numeric, [1, 1, 0, 0, 0, 0])
    assert model.predict(pd.DataFrame({"m": ["2", 2]})).tolist() == [1, 1]


def test_a_decimal_comma_is_a_number_not_a_category():
    X = pd.DataFrame({"a": ["1,5", "2,5", "0,5", "3"]})
    with pytest.warns(UserWarning, match=r"column 'a' holds numbers written with a decimal "
                                         r"comma \('1,5'\): read as numbers"):
        model = MinimumPureTreeClassifier().fit(X, [0, 1, 0, 1])
    assert "a < 2.0" in model.export_text()
    assert model.predict(pd.DataFrame({"a": ["1,7", 2.2]})).tolist() == [0, 1]


def test_repeated_names_are_our_own_error_naming_them():
    X = pd.DataFrame([[1, 2, 3], [2, 3, 4]], columns=["a", "b", "a"])
    for model in (MinimumPureTreeClassifier(), DecisionListClassifier(),
                  MaxAccuracyTreeClassifier()):
        with pytest.raises(ValueError, match=r"X repeats the column name\(s\) 'a'"):
            model.fit(X, [0, 1])
    with pytest.raises(ValueError, match=r"X repeats the column name\(s\) 'a'"):
        ConditionBinarizer([Condition("a", ">=", 2)]).fit(X).transform(X)


def test_integer_column_labels_print_unambiguously_everywhere():
    X = pd.DataFrame([[0, 1.5], [1, 2.5], [2, 0.5], [3, 1.0]])
    y = [0, 1, 1, 0]
    model = MinimumPureTreeClassifier().fit(X, y)
    assert all(name.startswith("x[") for name in model.feature_names_)
    text = model.export_text()
    assert "x[0] < 1" in text and "|--- 0 <" not in text
    assert '[label="x[0] >= 1"]' in export_graphviz(model)
    names = ThresholdBinarizer().fit(X).get_feature_names_out()
    assert names[0] == "x[0] >= 1"
    # the condition reads the user's frame by position
    assert model.binarizer_.conditions_[0].evaluate(X).tolist() == [False, True, True, True]
    assert (model.predict(X) == y).all()


# -- the command line: --sep and --decimal -------------------------------------------------------
def test_cli_reads_semicolon_csv_with_decimal_commas(tmp_path, capsys):
    from occamlearn.cli import main

    path = tmp_path / "eu.csv"
    path.write_text("a;b;target\n1,5;x;0\n2,5;y;1\n0,5;x;0\n3;y;1\n")
    assert main(["fit", str(path), "-q"]) == 2
    assert "are its fields separated by ';'? pass --sep ';'" in capsys.readouterr().err
    assert main(["binarize", str(path), "--sep", ";", "--decimal", ","]) == 0
    assert "b == y" in capsys.readouterr().out
    model = tmp_path / "m.json"
    assert main(["fit", str(path), "--sep", ";", "--decimal", ",", "-q", "-o", str(model)]) == 0
    assert "|--- a >= 2.0\n" in capsys.readouterr().out
    assert main(["predict", str(model), str(path), "--sep", ";", "--decimal", ","]) == 0
    assert capsys.readouterr().out.split() == ["prediction", "0", "1", "0", "1"]
    # quoted decimal commas in an ordinary CSV: numbers, with a warning
    quoted = tmp_path / "q.csv"
    quoted.write_text('a,target\n"1,5",0\n"2,5",1\n"0,5",0\n3,1\n')
    assert main(["fit", str(quoted), "-q"]) == 0
    out, err = capsys.readouterr()
    assert "|--- a >= 2.0\n" in out and "decimal comma ('1,5')" in err
    tabbed = tmp_path / "t.tsv"
    tabbed.write_text("a\tb\ttarget\n1\tx\t0\n2\ty\t1\n")
    assert main(["binarize", str(tabbed), "--sep", "tab"]) == 0
