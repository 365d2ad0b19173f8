"""A newcomer's credit table with missing cells and a date column: fit time and peak memory.

Issue 20 found every estimator refusing such a table ("column 'income' (row 1) contains NaN")
while scikit-learn's ``DecisionTreeClassifier`` fitted it in 0.03 s. This builds the table
(``--rows`` rows; income with 10 % missing, housing with 5 % missing, an application date,
an age), labels it by a rule that uses the missing values (approved when income >= 30 900 or
missing, unless age < 25), and fits each estimator in its own process, reporting seconds,
peak resident memory, the model's size, its status and its training accuracy. scikit-learn's
tree fits the same table with the date as days and housing one-hot (it needs numbers).

    python benchmarks/missing_values.py --rows 5000 --time-limit 60
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time

import numpy as np
import pandas as pd


def credit_table(rows: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    income = rng.integers(12, 90, rows) * 1000.0
    income[rng.random(rows) < 0.10] = np.nan
    housing = rng.choice(np.array(["rent", "own", "family"], dtype=object), rows)
    housing[rng.random(rows) < 0.05] = None
    age = rng.integers(18, 80, rows)
    dates = pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 365, rows), "D")
    X = pd.DataFrame({"income": income, "housing": housing, "age": age,
                      "application_date": dates})
    y = ((np.isnan(income) | (income >= 30900)) & (age >= 25)).astype(int)
    return X, y


def _fit(name: str, rows: int, time_limit: float, queue) -> None:
    import warnings

    from sklearn.tree import DecisionTreeClassifier

    import occamlearn

    X, y = credit_table(rows)
    started = time.perf_counter()  # imports done: the fit alone is timed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "sklearn DecisionTreeClassifier":
            numeric = pd.get_dummies(X.assign(
                application_date=(X.application_date - pd.Timestamp("1970-01-01")).dt.days))
            model = DecisionTreeClassifier(random_state=0).fit(numeric, y)
            size, status, accuracy = model.tree_.node_count, "-", model.score(numeric, y)
        else:
            model = {
                "MinimumPureTreeClassifier": lambda: occamlearn.MinimumPureTreeClassifier(
                    time_limit=time_limit),
                "MaxAccuracyTreeClassifier": lambda: occamlearn.MaxAccuracyTreeClassifier(
                    max_depth=3, time_limit=time_limit),
                "DecisionListClassifier": lambda: occamlearn.DecisionListClassifier(
                    max_rules=4),
            }[name]().fit(X, y)
            size = getattr(model, "n_nodes_", None) or f"{len(model.rules_)} rules"
            status = getattr(model, "status_", "-")
            accuracy = model.score(X, y)
    seconds = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = model.export_text() if hasattr(model, "export_text") else ""
    queue.put((name, seconds, peak_mib, size, status, accuracy, "missing" in text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    names = ["sklearn DecisionTreeClassifier", "MinimumPureTreeClassifier",
             "MaxAccuracyTreeClassifier", "DecisionListClassifier"]
    print(f"| estimator ({args.rows} rows) | seconds | peak MiB | size | status | "
          "training accuracy | prints 'missing' |")
    print("|---|---:|---:|---|---|---:|---|")
    context = multiprocessing.get_context("spawn")
    for name in names:
        queue = context.Queue()
        process = context.Process(target=_fit, args=(name, args.rows, args.time_limit, queue))
        process.start()
        name, seconds, peak, size, status, accuracy, says = queue.get()
        process.join()
        print(f"| {name} | {seconds:.2f} | {peak:.0f} | {size} | {status} | {accuracy:.4f} | "
              f"{'yes' if says else 'no'} |")


if __name__ == "__main__":
    main()
