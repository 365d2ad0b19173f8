"""Columns users should not learn from (issue: data as users bring it).

Identifier-like columns (every value a distinct string, or integers counting the rows) are
dropped with one warning naming them, unless kept on purpose; categories beyond
``max_categories`` fold into "other" with a warning naming the column and the count.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from occamlearn import DecisionListClassifier, MinimumPureTreeClassifier
from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer, ThresholdBinarizer
from occamlearn.binarize.column_roles import MIN_IDENTIFIER_ROWS, kept_categories
from occamlearn.cli import main

BINARIZERS = [ThresholdBinarizer, QuantileBinarizer,
              lambda **kw: FeatureBinarizer(encoding="onehot", **kw)]


def credit(rows=40, noise=0.15, seed=0):
    """A hand-made credit table: an id, a date written as text, two numbers, a category."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "customer_id": [f"C{i:05d}" for i in range(rows)],
        "application_date": pd.date_range("2022-01-01", periods=rows).strftime("%Y-%m-%d"),
        "income": rng.integers(10, 100, rows) * 1000,
        "age": rng.integers(18, 80, rows),
        "purpose": rng.choice(["car", "house", "education"], rows),
    })
    y = ((X["income"] > 50_000) ^ (rng.random(rows) < noise)).astype(int).to_numpy()
    return X, y


def identifier_warnings(record) -> list[str]:
    return [str(w.message) for w in record if "identifier-like" in str(w.message)]


# -- identifiers ---------------------------------------------------------------------------------
def test_the_minimum_tree_no_longer_splits_on_customer_id():
    """It split on ``customer_id != C00060`` and ``application_date != 2022-06-23``."""
    X, y = credit()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = MinimumPureTreeClassifier(time_limit=20).fit(X, y)
    found = identifier_warnings(record)
    assert len(found) == 1  # ONE warning naming both
    assert "'customer_id'" in found[0] and "'application_date'" in found[0]
    assert "drop_identifiers=False" in found[0]
    assert model.binarizer_.identifier_columns_ == ["customer_id", "application_date"]
    text = model.export_text()
    assert "customer_id" not in text and "application_date" not in text
    assert not any(("customer_id" in f or "application_date" in f)
                   for f in model.feature_names_)
    # and new customers are predicted (their ids were never features)
    new = X.head(3).assign(customer_id=["C99999", "X", "Y"])
    assert model.predict(new).shape == (3,)


def test_kept_on_purpose_the_ids_are_learnt_again():
    """The same fit with ``drop_identifiers=False`` memorises ids: that is what the default
    now prevents (this is the behaviour the issue found)."""
    X, y = credit()
    model = MinimumPureTreeClassifier(binarizer=ThresholdBinarizer(drop_identifiers=False),
                                      time_limit=20).fit(X, y)
    assert model.binarizer_.identifier_columns_ == []
    assert "customer_id ==" in model.export_text() or "application_date ==" in \
        model.export_text()


def test_the_decision_list_has_no_rule_on_an_identifier():
    """9 of 10 rules were ``IF customer_id == C000xx THEN p=1.00 (n=1)``."""
    X, y = credit(rows=120, noise=0.3, seed=1)
    with pytest.warns(UserWarning, match="identifier-like"):
        rules = DecisionListClassifier().fit(X, y)
    text = rules.export_text()
    assert "customer_id" not in text and "application_date" not in text
    kept = ThresholdBinarizer(drop_identifiers=False)
    unpenalised = DecisionListClassifier(binarizer=kept, penalty=None,
                                         max_conjunction=1).fit(X, y)
    memorised = [r for r in unpenalised.export_text().splitlines()
                 if "customer_id ==" in r or "application_date ==" in r]
    assert len(memorised) >= 3 and all("(n=1" in r for r in memorised)
    # the description-length penalty refuses them too: a one-row rule never pays
    penalised = DecisionListClassifier(binarizer=kept).fit(X, y).export_text()
    assert "customer_id ==" not in penalised and "application_date ==" not in penalised


@pytest.mark.parametrize("make", BINARIZERS)
def test_every_binarizer_drops_identifiers(make):
    n = 30
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"row": np.arange(1, n + 1), "name": [f"n{i}" for i in range(n)],
                      "x": rng.integers(0, 5, n)})
    with pytest.warns(UserWarning, match="'row' .*counts the rows.*'name'") as record:
        fitted = make().fit(X)
    assert len(identifier_warnings(record)) == 1
    assert fitted.identifier_columns_ == ["row", "name"]
    assert set(fitted.dropped_columns_) == {"row", "name"}
    assert {c.column for c in fitted.conditions_} == {"x"}
    assert fitted.transform(X).shape[0] == n


def test_what_is_not_an_identifier_is_kept():
    n = 40
    rng = np.random.default_rng(1)
    X = pd.DataFrame({
        "shuffled": rng.permutation(n),          # distinct integers, not counting the rows
        "measure": rng.normal(size=n),           # distinct floats: ordered, thresholds generalise
        "repeats": [f"s{i % 20}" for i in range(n)],  # strings, but each twice
        "counting_down": np.arange(n)[::-1],     # not a row count either
    })
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = ThresholdBinarizer().fit(X)
    assert fitted.identifier_columns_ == []


def test_small_tables_keep_distinct_strings():
    n = MIN_IDENTIFIER_ROWS - 1
    X = pd.DataFrame({"name": [f"n{i}" for i in range(n)]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ThresholdBinarizer().fit(X).identifier_columns_ == []


def test_identifiers_are_kept_on_purpose():
    X, _ = credit()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        everything = ThresholdBinarizer(drop_identifiers=False).fit(X)
        named = ThresholdBinarizer(categorical=["customer_id", "application_date"]).fit(X)
    for fitted in (everything, named):
        assert fitted.identifier_columns_ == []
        assert {"customer_id", "application_date"} <= {c.column for c in fitted.conditions_}
    with pytest.warns(UserWarning, match="'application_date'") as record:
        one = ThresholdBinarizer(categorical=["customer_id"]).fit(X)
    assert one.identifier_columns_ == ["application_date"]
    assert "customer_id" not in identifier_warnings(record)[0]


def test_an_integer_row_number_array_column_is_dropped():
    n = 25
    X = np.column_stack([np.arange(n), np.arange(n) % 3])
    with pytest.warns(UserWarning, match="'x0' .*counts the rows"):
        fitted = ThresholdBinarizer().fit(X)
    assert [c.column for c in fitted.conditions_] == ["x1", "x1"]


# -- category cap --------------------------------------------------------------------------------
def many_categories(rows=400, distinct=100, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.zipf(1.5, rows) % distinct
    return pd.DataFrame({"code": [f"k{c:03d}" for c in codes],
                         "n": rng.integers(0, 3, rows)})


@pytest.mark.parametrize("make", BINARIZERS)
def test_categories_beyond_the_cap_fold_into_other(make):
    X = many_categories()
    distinct = X["code"].nunique()
    assert distinct > 20
    with pytest.warns(UserWarning, match=rf"'code': {distinct - 20} categories \(\d+ rows\)"):
        fitted = make(max_categories=20).fit(X)
    tests = [c for c in fitted.conditions_ if c.column == "code"]
    assert len(tests) == 20 and all(c.op == "==" for c in tests)
    # the kept ones are the most frequent
    counts = X["code"].value_counts()
    assert {c.value for c in tests} == set(kept_categories(
        tuple(sorted(counts.index)), X["code"].to_numpy(), 20))
    assert min(counts[c.value] for c in tests) >= counts.drop([c.value for c in tests]).max()
    # folded values: every code test false, and known (no "unseen in fit" warning)
    rare = X[~X["code"].isin([c.value for c in tests])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        matrix = fitted.transform(rare)
    columns = [k for k, c in enumerate(fitted.conditions_) if c.column == "code"]
    assert matrix[:, columns].sum() == 0
    # no cap: every category keeps its test
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        uncapped = make(max_categories=None).fit(X)
    assert sum(c.column == "code" for c in uncapped.conditions_) == distinct


def test_the_default_cap_is_64_and_ties_keep_the_column_order():
    values = tuple(f"v{i:02d}" for i in range(70))
    data = np.asarray(values + values[:3], dtype=object)  # v00..v02 twice, the rest once
    assert kept_categories(values, data, 64) == values[:64]
    assert ThresholdBinarizer().max_categories == 64


def test_ten_thousand_distinct_strings_make_64_features():
    """The newcomer case (DT(max) took 129 s and 5.3 GB): the binary matrix stays small.
    Time and memory of the whole fit are measured in ``benchmarks/limits.py``."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"code": [f"K{v:05d}" for v in rng.integers(0, 10_000, 20_000)],
                      "amount": rng.integers(0, 1000, 20_000)})
    assert X["code"].nunique() > 8_000
    with pytest.warns(UserWarning, match=r"'code': \d+ categories"):
        fitted = ThresholdBinarizer().fit(X)
    assert sum(c.column == "code" for c in fitted.conditions_) == 64
    assert fitted.transform(X).shape == (20_000, 64 + 32)


def test_cli_flags_keep_identifiers_and_set_the_cap(tmp_path, capsys):
    X, y = credit()
    path = tmp_path / "credit.csv"
    X.assign(target=y).to_csv(path, index=False)
    assert main(["binarize", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "customer_id" not in out and "identifier-like column(s): 'customer_id'" in err
    assert "--keep-identifiers" in err
    assert main(["binarize", str(path), "--keep-identifiers", "--max-categories", "5"]) == 0
    out, err = capsys.readouterr()
    assert sum(line.startswith("customer_id ==") for line in out.splitlines()) == 5
    assert "'customer_id': 35 categories" in err and "Pass --max-categories 0 " in err
    assert main(["dlist", str(path), "--keep-identifiers", "--max-categories", "0"]) == 0
    assert "identifier" not in capsys.readouterr().err
    assert main(["fit", str(path), "-q", "--time-limit", "5"]) == 0
    err = capsys.readouterr().err
    # the CSV's ISO dates are read as dates (an ordered column), not as 60 distinct texts
    assert "column(s) 'application_date' hold dates" in err
    assert "warning: ThresholdBinarizer dropped 1 identifier-like column(s): 'customer_id'" \
        in err
    assert "ThresholdBinarizer(drop_identifiers=False) as its binarizer" in err
