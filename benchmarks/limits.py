"""Do the learners keep their limits on large inputs? Wall time and peak memory vs time_limit.

Each case runs in its own process (``python benchmarks/limits.py --case NAME``), so its peak
RSS is its own (the child's ``getrusage(RUSAGE_SELF).ru_maxrss``, imports included) and a
runaway case is killed at a hard limit instead of taking the run with it. The parent prints a Markdown table: the
time_limit asked for, the wall time of the whole process (start-up, data, fit), the fit alone,
the peak RSS, what the learner returned (status, size, binary features, columns dropped),
and whether the limit was kept (the tests' rule: fit seconds < time_limit * 1.1 + 1).

Cases (random data, fixed seeds):

* ``mpdt``: ``MinimumPureTreeClassifier(binarizer=None, time_limit=5)`` on 200 x 2,000 random
  binary features, random labels.
* ``dtmax``: ``MaxAccuracyTreeClassifier(max_depth=3, binarizer=None, time_limit=5)`` on the
  same shape.
* ``dlist``: ``DecisionListClassifier()`` (default binariser; it has no time limit) on
  100,000 rows x 3 integer columns with 10^5 distinct values each.
* ``strings-dtmax`` / ``strings-mpdt``: ``MaxAccuracyTreeClassifier(max_depth=3,
  time_limit=30)`` / ``MinimumPureTreeClassifier(time_limit=30)`` with the default binariser
  on 20,000 rows: a ``code`` column drawn from 10,000 distinct strings (about 8,650 occur),
  two numeric columns and a noisy label. Before the category cap (``max_categories=64``)
  every string was a feature: DT(max) took 129 s and 5.3 GB, the minimum tree had no tree
  after 98 s at 3.4 GB.
* ``ids-mpdt`` / ``ids-dlist``: a 120-row credit table whose ``customer_id`` and
  ``application_date`` columns are all distinct strings: the default fit drops them (the
  "dropped" column of the table) instead of splitting on ``customer_id != C00060``.

    python benchmarks/limits.py --out benchmarks/results/limits.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

CASES = {  # name: (time_limit asked for, hard limit of the process in seconds)
    "mpdt": (5.0, 180.0),
    "dtmax": (5.0, 180.0),
    "dlist": (None, 600.0),
    "strings-dtmax": (30.0, 300.0),
    "strings-mpdt": (30.0, 300.0),
    "ids-mpdt": (30.0, 180.0),
    "ids-dlist": (None, 180.0),
}


def _many_strings(rows: int = 20_000, distinct: int = 10_000, seed: int = 3):
    """A table with one string column of ``distinct`` possible values, two numbers, a label."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"code": [f"K{v:05d}" for v in rng.integers(0, distinct, rows)],
                      "amount": rng.integers(0, 1000, rows),
                      "score": rng.normal(size=rows).round(2)})
    y = ((X["amount"] > 500) ^ (rng.random(rows) < 0.1)).astype(int).to_numpy()
    return X, y


def _credit(rows: int = 120, seed: int = 0):
    """A hand-made credit table with an id and a date column (all values distinct)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "customer_id": [f"C{i:05d}" for i in range(rows)],
        "application_date": pd.date_range("2022-01-01", periods=rows).strftime("%Y-%m-%d"),
        "income": rng.integers(10, 100, rows) * 1000,
        "age": rng.integers(18, 80, rows),
        "purpose": rng.choice(["car", "house", "education"], rows),
    })
    y = ((X["income"] > 50_000) ^ (rng.random(rows) < 0.15)).astype(int).to_numpy()
    return X, y


def _binary(rows: int, columns: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, (rows, columns)).astype(np.uint8), rng.integers(0, 2, rows)


def run_case(name: str) -> dict:
    """Fit one case in this process; the seconds of the fit and what it returned."""
    if name == "mpdt":
        from occamlearn import MinimumPureTreeClassifier

        X, y = _binary(200, 2000)
        model = MinimumPureTreeClassifier(binarizer=None, on_conflict="majority",
                                          time_limit=CASES[name][0])
    elif name == "dtmax":
        from occamlearn import MaxAccuracyTreeClassifier

        X, y = _binary(200, 2000, seed=1)
        model = MaxAccuracyTreeClassifier(max_depth=3, binarizer=None,
                                          time_limit=CASES[name][0])
    elif name == "dlist":
        import pandas as pd

        from occamlearn import DecisionListClassifier

        rng = np.random.default_rng(2)
        n = 100_000
        X = pd.DataFrame({f"c{j}": rng.permutation(n) for j in range(3)})
        y = (X["c0"] + rng.integers(0, n // 2, n) > n).astype(int).to_numpy()
        model = DecisionListClassifier()
    elif name.startswith(("strings-", "ids-")):
        from occamlearn import (
            DecisionListClassifier,
            MaxAccuracyTreeClassifier,
            MinimumPureTreeClassifier,
        )

        X, y = _many_strings() if name.startswith("strings-") else _credit()
        limit = CASES[name][0]
        model = {"dtmax": lambda: MaxAccuracyTreeClassifier(max_depth=3, time_limit=limit),
                 "mpdt": lambda: MinimumPureTreeClassifier(time_limit=limit),
                 "dlist": DecisionListClassifier}[name.split("-")[1]]()
    else:
        raise ValueError(f"unknown case {name!r}; cases: {', '.join(CASES)}")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what was dropped or folded is read off the model
        model.fit(X, y)
    seconds = time.perf_counter() - start
    out = {"fit_seconds": seconds,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if hasattr(model, "tree_"):
        out.update(status=model.status_, size=int(model.n_nodes_))
    else:
        out.update(status=model.stop_reason_, size=len(model.rules_))
    binarizer = getattr(model, "binarizer_", None)
    if binarizer is not None:
        out.update(features=len(model.feature_names_),
                   dropped=", ".join(binarizer.dropped_columns_) or "-")
    return out


def measure(name: str) -> dict:
    """Run ``name`` in a child process; wall time, peak RSS and the child's report."""
    limit, hard = CASES[name]
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                              text=True, timeout=hard)
    except subprocess.TimeoutExpired:
        return {"case": name, "time_limit": limit, "wall_seconds": time.perf_counter() - start,
                "error": f"killed at the hard limit of {hard:g} s"}
    wall = time.perf_counter() - start
    row = {"case": name, "time_limit": limit, "wall_seconds": wall}
    if done.returncode != 0:
        row["error"] = (done.stderr.strip().splitlines() or ["?"])[-1][:200]
        return row
    row.update(json.loads(done.stdout.strip().splitlines()[-1]))
    return row


def table(rows: list[dict]) -> str:
    lines = ["| case | time_limit (s) | wall (s) | fit (s) | peak RSS (MB) | status | size | "
             "binary features | dropped | limit kept |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        limit = row["time_limit"]
        fit = row.get("fit_seconds")
        kept = ("n/a" if limit is None else "no (" + row["error"] + ")" if "error" in row
                else "yes" if fit < limit * 1.1 + 1.0 else f"no (+{fit - limit:.1f} s)")
        rss = row.get("peak_rss_mb")
        lines.append(
            f"| {row['case']} | {'none' if limit is None else f'{limit:g}'} | "
            f"{row['wall_seconds']:.1f} | {'' if fit is None else f'{fit:.1f}'} | "
            f"{'' if rss is None else f'{rss:.0f}'} | {row.get('status', row.get('error', ''))}"
            f" | {row.get('size', '')} | {row.get('features', '')} | {row.get('dropped', '')}"
            f" | {kept} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), help="run one case here (child)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--out", help="write the Markdown table here too")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case)))
        return 0
    rows = []
    for name in args.cases:  # one at a time, each its own process (peak RSS: the child's)
        rows.append(measure(name))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    text = (f"# Limits: wall time and peak RSS vs time_limit\n\n"
            f"`python benchmarks/limits.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())},"
            f" Python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
            f"{os.getloadavg()[0]:.1f} at the end.\n\n" + table(rows))
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
