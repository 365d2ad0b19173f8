"""The cases of ``benchmarks/limits.py``: the tables and fits of issue 31 (and the earlier
large-input cases), each a function returning ``(estimator, X, y, fit keyword arguments)``.

A case's estimator gets its ``time_limit`` from ``CASES`` when it has that parameter (the
decision list gains one in issue 31; until then its case runs without a limit and its "limit
kept" column says n/a). Tables are random or sklearn's, with fixed seeds, built in the child
process before the clock of the fit starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Case:
    time_limit: float | None  # seconds asked for (None: the estimator has no limit)
    hard_limit: float  # the child is killed after this many seconds
    build: object  # () -> (estimator, X, y, fit kwargs)
    what: str  # one line for the table's legend
    method: str = "fit"  # "fit", "size_error_path", "fits" ((estimator, y) pairs, in
    # turn), or "cli" (build returns the arguments of ``occamlearn``)


def _binary(rows: int, columns: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, (rows, columns)).astype(np.uint8), rng.integers(0, 2, rows)


def _many_strings(rows: int = 20_000, distinct: int = 10_000, seed: int = 3):
    """A table with one string column of ``distinct`` possible values, two numbers, a label."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"code": [f"K{v:05d}" for v in rng.integers(0, distinct, rows)],
                      "amount": rng.integers(0, 1000, rows),
                      "score": rng.normal(size=rows).round(2)})
    y = ((X["amount"] > 500) ^ (rng.random(rows) < 0.1)).astype(int).to_numpy()
    return X, y


def _three_permutations(rows: int = 100_000, seed: int = 2):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"c{j}": rng.permutation(rows) for j in range(3)})
    y = (X["c0"] + rng.integers(0, rows // 2, rows) > rows).astype(int).to_numpy()
    return X, y


def _ids(rows: int = 120):
    """A small credit table whose ``customer_id`` and ``application_date`` are all distinct:
    a default fit drops them rather than split on ``customer_id != C00060``."""
    import pandas as pd

    X, y, _ = credit_table(rows, seed=0)
    X["application_date"] = pd.date_range("2022-01-01", periods=rows).strftime("%Y-%m-%d")
    return X, y


def credit_table(rows: int = 1_400, seed: int = 5):
    """A credit-like file as a user brings it: 1,400 rows x 10 columns with an id, a date,
    missing values in three columns, categories, integer and float amounts, a noisy label,
    and one weight per row."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    income = rng.lognormal(10.5, 0.5, rows).round(-2)
    age = rng.integers(18, 80, rows).astype(float)
    debt = (income * rng.uniform(0, 0.8, rows)).round(0)
    X = pd.DataFrame({
        "customer_id": [f"C{i:06d}" for i in rng.permutation(rows)],
        "application_date": (pd.Timestamp("2021-01-01")
                             + pd.to_timedelta(rng.integers(0, 630, rows), unit="D")
                             ).strftime("%Y-%m-%d"),
        "income": income,
        "age": age,
        "debt": debt,
        "months_employed": rng.integers(0, 400, rows).astype(float),
        "purpose": rng.choice(["car", "house", "education", "business", "other"], rows),
        "region": rng.choice([f"R{r}" for r in range(12)], rows),
        "open_loans": rng.poisson(2, rows).astype(float),
        "score": rng.normal(600, 80, rows).round(0),
    })
    for column, share in (("income", 0.05), ("months_employed", 0.1), ("score", 0.03)):
        X.loc[rng.random(rows) < share, column] = np.nan
    risk = (debt / income) * 3 - (X["score"].fillna(600) - 600) / 80 + rng.normal(0, 1, rows)
    y = (risk > 1.2).astype(int).to_numpy()
    weight = rng.choice([1.0, 2.0, 3.0], rows)
    return X, y, weight


def _xor_floats(rows: int = 6_000, columns: int = 3_000, seed: int = 0):
    """Uniform floats, y the xor of three thresholds (columns 0-2): a wide float table on
    which the readable binariser's per-column costs alone took 3.5 s (issue 34)."""
    rng = np.random.default_rng(seed)
    X = rng.random((rows, columns))
    return X, ((X[:, 0] > .5) ^ (X[:, 1] > .5) ^ (X[:, 2] > .5)).astype(int)


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:600], y[:600]


def _numeric(rows: int, columns: int, seed: int = 0, informative: int | None = None):
    from sklearn.datasets import make_classification

    return make_classification(n_samples=rows, n_features=columns,
                               n_informative=informative or min(columns, 8),
                               n_redundant=0 if columns < 10 else 2, random_state=seed)


ESTIMATORS = {"mpdt": "MinimumPureTreeClassifier", "dtmax": "MaxAccuracyTreeClassifier",
              "dlist": "DecisionListClassifier"}


def _estimator(kind: str, **options):
    """``kind``'s estimator, importing that one only (as a user's script would)."""
    import occamlearn

    return getattr(occamlearn, ESTIMATORS[kind])(**options)


def _fit(kind, data, **options):
    """A case builder: ``kind``'s estimator with ``options`` on ``data()`` (X, y[, weight])."""
    def build():
        X, y, *weight = data()
        return _estimator(kind, **options), X, y, (
            {"sample_weight": weight[0]} if weight else {})
    build.kind, build.data = kind, data  # read by startup_parts.py, which times them apart
    return build


def _three_fits(data):
    """A case builder: the three estimators' default fits on ``data()``, one after the other
    in one process (issue 31's memory finding came from such a process). The decision list,
    which is binary, learns the first class against the rest."""
    def build():
        X, y, *weight = data()
        fit_options = {"sample_weight": weight[0]} if weight else {}
        binary = (y == np.unique(y)[0]).astype(int)
        return [(_estimator("mpdt"), y), (_estimator("dtmax"), y),
                (_estimator("dlist"), binary)], X, y, fit_options
    return build


CASES = {
    # binary matrices and string columns (the earlier cases)
    "mpdt": Case(5.0, 180.0, _fit("mpdt", lambda: _binary(200, 2000), binarizer=None,
                                  on_conflict="majority"),
                 "MinimumPureTreeClassifier on 200 x 2,000 random 0/1 columns, random labels"),
    "dtmax": Case(5.0, 180.0, _fit("dtmax", lambda: _binary(200, 2000, seed=1), max_depth=3,
                                   binarizer=None),
                  "MaxAccuracyTreeClassifier(max_depth=3) on the same shape"),
    "dlist": Case(None, 600.0, _fit("dlist", _three_permutations),
                  "DecisionListClassifier on 100,000 rows x 3 integer columns, 10^5 values each"),
    "strings-dtmax": Case(30.0, 300.0, _fit("dtmax", _many_strings, max_depth=3),
                          "DT(max) depth 3 on 20,000 rows with a 10,000-string column"),
    "strings-mpdt": Case(30.0, 300.0, _fit("mpdt", _many_strings),
                         "minimum pure tree on the same 20,000 rows"),
    "ids-mpdt": Case(30.0, 180.0, _fit("mpdt", _ids),
                     "minimum pure tree on 120 rows with an id and a date column"),
    "ids-dlist": Case(None, 180.0, _fit("dlist", _ids), "decision list on the same 120 rows"),
    # issue 31: time limits
    "bc-errors-5": Case(5.0, 180.0, _fit("mpdt", _breast_cancer, max_errors=5),
                        "breast_cancer 569 x 30, max_errors=5"),
    "bc-errors-20": Case(20.0, 240.0, _fit("mpdt", _breast_cancer, max_errors=5),
                         "breast_cancer 569 x 30, max_errors=5"),
    "bc-default": Case(60.0, 300.0, _fit("mpdt", _breast_cancer),
                       "breast_cancer 569 x 30, the default fit (60 s, not proven)"),
    "bc-alg3": Case(10.0, 240.0, _fit("mpdt", _breast_cancer, n_solutions=10,
                                      selection_size=0.2, random_state=0),
                    "breast_cancer, Alg. 3 (10 trees, 20 % selection)"),
    "bc-alg3-errors": Case(10.0, 240.0, _fit("mpdt", _breast_cancer, n_solutions=10,
                                             selection_size=0.2, max_errors=5,
                                             random_state=0),
                           "breast_cancer, Alg. 3 with max_errors=5"),
    "dtmax-leaves": Case(20.0, 300.0, _fit("dtmax", lambda: _numeric(5_000, 20), max_depth=None,
                                           max_leaves=40),
                         "make_classification 5,000 x 20, DT(max) max_depth=None, "
                         "max_leaves=40"),
    "bc-path": Case(20.0, 240.0, _fit("dtmax", _breast_cancer, max_depth=None, max_leaves=12),
                    "breast_cancer size_error_path up to 12 leaves", "size_error_path"),
    "mpdt-100k": Case(10.0, 300.0, _fit("mpdt", lambda: _numeric(100_000, 10)),
                      "make_classification 100,000 x 10 numeric"),
    "mpdt-100k-errors": Case(10.0, 300.0, _fit("mpdt", lambda: _numeric(100_000, 10),
                                               max_errors=500),
                             "the same, max_errors=500"),
    "mpdt-wide": Case(20.0, 300.0, _fit("mpdt", lambda: _numeric(300, 3_000)),
                      "make_classification 300 x 3,000 numeric"),
    "dlist-wide": Case(20.0, 300.0, _fit("dlist", lambda: _numeric(300, 3_000)),
                       "DecisionListClassifier on 300 x 3,000 numeric"),
    # issue 34: wide float tables under a short limit
    "dlist-floats-1": Case(1.0, 120.0, _fit("dlist", _xor_floats, max_rules=40),
                           "DecisionListClassifier(max_rules=40) on 6,000 x 3,000 uniform "
                           "floats, y = xor of 3 thresholds"),
    "dlist-floats-3": Case(3.0, 120.0, _fit("dlist", _xor_floats, max_rules=40),
                           "the same at 3 s"),
    "dlist-floats-6": Case(6.0, 120.0, _fit("dlist", _xor_floats, max_rules=40),
                           "the same at 6 s"),
    "dlist-floats-10": Case(10.0, 120.0, _fit("dlist", _xor_floats, max_rules=40),
                            "the same at 10 s"),
    "mpdt-floats-1": Case(1.0, 180.0, _fit("mpdt", _xor_floats),
                          "MinimumPureTreeClassifier on the same 6,000 x 3,000 floats"),
    "mpdt-floats-3": Case(3.0, 180.0, _fit("mpdt", _xor_floats), "the same at 3 s"),
    "dtmax-floats-1": Case(1.0, 180.0, _fit("dtmax", _xor_floats),
                           "MaxAccuracyTreeClassifier (depth 3) on the same floats"),
    "dtmax-floats-3": Case(3.0, 180.0, _fit("dtmax", _xor_floats), "the same at 3 s"),
    "path-floats-1": Case(1.0, 180.0, _fit("dtmax", _xor_floats, max_leaves=8),
                          "size_error_path up to 8 leaves (depth 3) on the same floats",
                          "size_error_path"),
    "path-floats-3": Case(3.0, 180.0, _fit("dtmax", _xor_floats, max_leaves=8),
                          "the same at 3 s", "size_error_path"),
    # issue 31: memory of the default fits
    "digits-mpdt": Case(60.0, 300.0, _fit("mpdt", _digits), "digits 600 x 64 (10 classes)"),
    "digits-dtmax": Case(60.0, 300.0, _fit("dtmax", _digits), "digits, DT(max) depth 3"),
    "digits-dlist": Case(None, 300.0, _fit("dlist", lambda: (_digits()[0],
                                                             (_digits()[1] == 0).astype(int))),
                         "digits 0 vs rest, decision list"),
    "credit-mpdt": Case(60.0, 300.0, _fit("mpdt", credit_table),
                        "credit-like 1,400 x 10 with ids, dates, missing values, weights"),
    "credit-dtmax": Case(60.0, 300.0, _fit("dtmax", credit_table), "the same, DT(max) depth 3"),
    "credit-dlist": Case(None, 300.0, _fit("dlist", credit_table), "the same, decision list"),
    "digits-three": Case(None, 400.0, _three_fits(_digits),
                         "digits: the three default fits (each its default limit) in one "
                         "process, in turn", "fits"),
    # the command line: --time-limit counts from the command's start
    "cli-haber": Case(10.0, 120.0, lambda: ["fit", "--dataset", "haber", "--time-limit", "10",
                                            "-q"],
                      "occamlearn fit --dataset haber --time-limit 10", "cli"),
    "cli-haber-depth": Case(5.0, 120.0, lambda: ["fit", "--dataset", "haber", "--max-depth",
                                                 "4", "--time-limit", "5", "-q"],
                            "occamlearn fit --dataset haber --max-depth 4 --time-limit 5",
                            "cli"),
    "credit-three": Case(None, 400.0, _three_fits(credit_table),
                         "credit-like: the three default fits in one process, in turn", "fits"),
}
