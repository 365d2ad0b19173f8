"""Decision lists on held-out rows: occamlearn against the rule learners users would pick instead.

Every two-class bundled dataset plus scikit-learn's breast_cancer, 5 stratified 64/36 splits
(``--splits N`` for more: the tables are small, so one split moves a mean by a few points)
(``train_test_split(X, y, train_size=0.64, stratify=y, random_state=s)``, s = 0..4), every
learner with its defaults, in one run (every learner fitted once, untimed, before the
timing starts: its first call in a process pays one-off costs). Per learner and table: mean
test accuracy, rules (the default rule not counted; a tree's leaves), mean conditions per
rule (a tree: mean leaf depth), fit seconds (wall and CPU; the peers are single-threaded, so
CPU seconds are the fairer measure on a shared machine).

Learners (peers installed in the benchmark venv only, never occamlearn dependencies):

* ``ours`` -- ``DecisionListClassifier()``; ``ours-tuned`` -- the same tuned by scikit-learn's
  ``GridSearchCV`` (3 stratified folds of the training split, shuffled with the split's seed)
  over ``TUNED``: ``penalty`` and ``max_conjunction``; its fit seconds include the search;
* ``ours-exact`` -- ``DecisionListClassifier(rule_search="exact")`` (each rule the best
  conjunction, by branch and bound; not run unless named in ``--learners``);
* ``ours-pruned`` -- the default list with its tail pruned on held-out rows (3 folds of the
  training split choose how many rules to keep; not run unless named);
* ``ours-validated`` -- ``DecisionListClassifier(validation_folds=3)``: the length also
  checked on held-out folds (``occamlearn.lists.crossfit``; not run unless named);
* ``ours-unshrunk`` -- ``DecisionListClassifier(shrinkage_folds=None)``: the training rates
  as they are (the default before the rates were shrunk); ``ours-shrunk-3`` -- the factor
  chosen on 3 folds instead of 5 (neither run unless named);
* ``ripper`` -- wittgenstein's ``RIPPER(random_state=s)`` on the raw table (it discretises
  numbers itself), rules for the training split's minority class;
* ``greedy-rule-list`` -- imodels' ``GreedyRuleListClassifier()`` on the table with categories
  one-hot encoded;
* ``corels`` -- ``CorelsClassifier()`` (defaults: ``c=0.01, max_card=2``) on
  ``ThresholdBinarizer(max_thresholds=8)`` features (CORELS adds their negations itself);
  skipped when ``corels`` does not import;
* ``majority`` -- the training split's majority class for every row (a yardstick for how much
  the rules add; not a peer);
* ``tree-3`` / ``tree-5`` -- scikit-learn's ``DecisionTreeClassifier(max_depth=3 / 5,
  random_state=0)`` on the one-hot table.

A second part (``--speed``) times the default fit on 100,000 x 2,000 random binary features
(labels from a planted 10-rule directional list), fits the 958 x 9 tic-tac-toe table with
``max_conjunction=3`` (before rule growth, enumerating those conjunctions refused with "more
than 4 GiB"), and fits 300 x 3,000 random numbers with ``time_limit=5`` (the binariser's
share timed apart), each in its own process with its peak RSS.

    python benchmarks/dlist_accuracy.py --speed --out benchmarks/results/dlist_accuracy.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from occamlearn import DecisionListClassifier
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.datasets import list_datasets, load_dataset
from occamlearn.estimators.decision_list import LIST_BINARIZERS
from occamlearn.lists.crossfit import prefix
from occamlearn.lists.levels import load_kernels

TUNED = {"penalty": [0.5, 1.0, 2.0], "max_conjunction": [1, 2, 4]}
SPLITS = 5


def two_class_tables() -> dict:
    """name -> loader of (X DataFrame, y array): bundled two-class datasets + breast_cancer."""
    tables = {}
    for name in list_datasets():
        X, y = load_dataset(name)
        if len(np.unique(y)) == 2:
            tables[name] = (X, np.asarray(y))
    from sklearn.datasets import load_breast_cancer

    cancer = load_breast_cancer(as_frame=True)
    tables["breast_cancer"] = (cancer.data, cancer.target.to_numpy())
    return tables


def one_hot(X_train: pd.DataFrame, X_test: pd.DataFrame):
    """Categorical columns one-hot encoded on the training split's categories."""
    categorical = [c for c in X_train.columns
                   if not pd.api.types.is_numeric_dtype(X_train[c])
                   or isinstance(X_train[c].dtype, pd.CategoricalDtype)]
    train = pd.get_dummies(X_train.astype({c: str for c in categorical}), columns=categorical)
    test = pd.get_dummies(X_test.astype({c: str for c in categorical}), columns=categorical)
    test = test.reindex(columns=train.columns, fill_value=0)
    return train.astype(float), test.astype(float)


def _timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


# -- the learners: (X_train, y_train, X_test, seed) -> dict -------------------------------------
def _ours(grid=None, **params):
    def run(X_train, y_train, X_test, seed):
        from sklearn.model_selection import GridSearchCV, StratifiedKFold

        def fit():
            if grid is None:
                return DecisionListClassifier(**params).fit(X_train, y_train)
            folds = StratifiedKFold(3, shuffle=True, random_state=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                search = GridSearchCV(DecisionListClassifier(), grid, cv=folds)
                return search.fit(X_train, y_train).best_estimator_

        model, wall, cpu = _timed(fit)
        lengths = [len(rule.features) for rule in model.rules_]
        out = {"pred": model.predict(X_test), "rules": len(lengths),
               "conditions": float(np.mean(lengths)) if lengths else 0.0, "wall": wall,
               "cpu": cpu, "note": model.stop_reason_,
               "params": {k: model.get_params()[k] for k in (grid or {})}}
        if grid is None and not params:  # the default's binarising alone, timed apart
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out["binarise_cpu"] = _timed(
                    lambda: LIST_BINARIZERS["readable"]().fit_transform(X_train))[2]
        return out
    return run


def _pruned(X_train, y_train, X_test, seed):
    """The default list with its tail pruned on held-out rows: 3 stratified folds of the
    training split pick the prefix length with the best mean validation accuracy (ties to the
    shorter), and the list fitted on the whole split keeps that many rules."""
    from sklearn.model_selection import StratifiedKFold

    def fit():
        folds = StratifiedKFold(3, shuffle=True, random_state=seed)
        correct = np.zeros(11)
        y = np.asarray(y_train)
        for fit_rows, check_rows in folds.split(X_train, y):
            part = DecisionListClassifier().fit(X_train.iloc[fit_rows], y[fit_rows])
            binary = part.binarizer_.transform(X_train.iloc[check_rows])
            truth = y[check_rows] == part.positive_class_
            for k in range(11):
                shown = prefix(part.list_, k, None, None)  # unweighted: counts suffice
                correct[k] += np.sum((shown.predict(binary) == 1) == truth)
        model = DecisionListClassifier().fit(X_train, y)
        model.list_ = prefix(model.list_, int(np.argmax(correct)), None, None)
        model.rules_ = model.list_.rules
        return model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, wall, cpu = _timed(fit)
    lengths = [len(rule.features) for rule in model.rules_]
    return {"pred": model.predict(X_test), "rules": len(lengths),
            "conditions": float(np.mean(lengths)) if lengths else 0.0, "wall": wall, "cpu": cpu}


def _ripper(X_train, y_train, X_test, seed):
    import wittgenstein

    values, counts = np.unique(y_train, return_counts=True)
    positive = values[np.argmin(counts)]
    frame = X_train.astype({c: str for c in X_train.columns
                            if isinstance(X_train[c].dtype, pd.CategoricalDtype)})
    test = X_test.astype({c: str for c in X_test.columns
                          if isinstance(X_test[c].dtype, pd.CategoricalDtype)})
    model = wittgenstein.RIPPER(random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, wall, cpu = _timed(lambda: model.fit(frame, y_train, pos_class=positive))
        hit = np.asarray(model.predict(test), dtype=bool)
    other = values[values != positive][0]
    lengths = [len(rule.conds) for rule in model.ruleset_.rules]
    return {"pred": np.where(hit, positive, other), "rules": len(lengths),
            "conditions": float(np.mean(lengths)) if lengths else 0.0, "wall": wall, "cpu": cpu}


def _greedy_rule_list(X_train, y_train, X_test, seed):
    from imodels import GreedyRuleListClassifier

    train, test = one_hot(X_train, X_test)
    values = np.unique(y_train)
    model = GreedyRuleListClassifier()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, wall, cpu = _timed(lambda: model.fit(train.to_numpy(), (y_train == values[1])
                                                .astype(int), feature_names=list(train.columns)))
        proba = np.asarray(model.predict_proba(test.to_numpy()))[:, 1]
    n_rules = sum(1 for rule in model.rules_ if "col" in rule)
    return {"pred": np.where(proba > 0.5, values[1], values[0]), "rules": n_rules,
            "conditions": 1.0 if n_rules else 0.0, "wall": wall, "cpu": cpu}


def _corels(X_train, y_train, X_test, seed):
    from corels import CorelsClassifier

    binarizer = ThresholdBinarizer(max_thresholds=8).fit(X_train)
    train = np.asarray(binarizer.transform(X_train), dtype=np.uint8)
    test = np.asarray(binarizer.transform(X_test), dtype=np.uint8)
    values = np.unique(y_train)
    model = CorelsClassifier(verbosity=[])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, wall, cpu = _timed(lambda: model.fit(
            train, (y_train == values[1]).astype(int),
            features=[f"f{j}" for j in range(train.shape[1])]))
    rules = model.rl().rules[:-1]  # the last one is the default
    lengths = [len(rule["antecedents"]) for rule in rules]
    return {"pred": np.where(model.predict(test), values[1], values[0]), "rules": len(lengths),
            "conditions": float(np.mean(lengths)) if lengths else 0.0, "wall": wall, "cpu": cpu}


def _tree(depth):
    def run(X_train, y_train, X_test, seed):
        from sklearn.tree import DecisionTreeClassifier

        train, test = one_hot(X_train, X_test)
        model = DecisionTreeClassifier(max_depth=depth, random_state=0)
        _, wall, cpu = _timed(lambda: model.fit(train, y_train))
        tree = model.tree_
        leaves = np.flatnonzero(tree.children_left == -1)
        depths = np.zeros(tree.node_count, dtype=int)
        for node in range(tree.node_count):  # parents come before their children
            for child in (tree.children_left[node], tree.children_right[node]):
                if child != -1:
                    depths[child] = depths[node] + 1
        return {"pred": model.predict(test), "rules": len(leaves),
                "conditions": float(depths[leaves].mean()), "wall": wall, "cpu": cpu}
    return run


def _majority(X_train, y_train, X_test, seed):
    """The constant classifier: the training split's majority class (a yardstick, no peer)."""
    values, counts = np.unique(y_train, return_counts=True)
    return {"pred": np.full(len(X_test), values[np.argmax(counts)]), "rules": 0,
            "conditions": 0.0, "wall": 0.0, "cpu": 0.0}


LEARNERS = {
    "ours": _ours(),
    "ours-tuned": _ours(TUNED),
    "ours-exact": _ours(rule_search="exact"),
    "ours-pruned": _pruned,
    "ours-validated": _ours(validation_folds=3),
    "ours-unshrunk": _ours(shrinkage_folds=None),
    "ours-shrunk-3": _ours(shrinkage_folds=3),
    "ripper": _ripper,
    "greedy-rule-list": _greedy_rule_list,
    "corels": _corels,
    "tree-3": _tree(3),
    "tree-5": _tree(5),
    "majority": _majority,
}
PEERS = ("ripper", "greedy-rule-list", "corels", "tree-3", "tree-5")


def _available(name: str) -> bool:
    module = {"ripper": "wittgenstein", "greedy-rule-list": "imodels", "corels": "corels"}
    try:
        __import__(module.get(name, "sklearn"))
    except ImportError:
        return False
    return True


def warm_up(learners, X, y) -> None:
    """One untimed fit of every learner on the first split of ``X``, ``y`` before any timing:
    a learner's first call in a process pays one-off costs (lazy imports, compiled dispatch,
    caches) that would otherwise land on whichever table comes first (ours took 14 ms on
    append's first split and 5-6 ms on its other four, unwarmed)."""
    X_train, X_test, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                                   random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for learner in learners:
            try:
                LEARNERS[learner](X_train, y_train, X_test, 0)
            except Exception:  # a peer failing here fails again, recorded, in run_table
                pass


def run_table(name, X, y, learners, log, splits=SPLITS):
    rows = []
    for seed in range(splits):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, train_size=0.64, stratify=y, random_state=seed)
        values, counts = np.unique(y_train, return_counts=True)
        minority = values[np.argmin(counts)]
        for learner in learners:
            try:
                out = LEARNERS[learner](X_train, y_train, X_test, seed)
            except Exception as exc:  # a peer failing on a table is a result, not a crash
                out = {"pred": None, "error": f"{type(exc).__name__}: {exc}"[:200]}
            pred = out.pop("pred")
            out["accuracy"] = None if pred is None else float(np.mean(pred == y_test))
            out["minority"] = None if pred is None else float(np.mean(pred == minority))
            row = {"table": name, "split": seed, "learner": learner, **out}
            rows.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()
    return rows


# -- speed and memory, each case in its own process --------------------------------------------
def planted_binary(n_rows=100_000, n_features=2_000, n_rules=10, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n_rows, n_features)) < density
    features = rng.choice(n_features, size=n_rules, replace=False)
    probabilities = np.sort(rng.random(n_rules + 1))[::-1]
    p = np.full(n_rows, probabilities[-1])
    for feature, prob in zip(features[::-1], probabilities[-2::-1]):
        p[X[:, feature]] = prob
    return X.astype(np.uint8), (rng.random(n_rows) < p).astype(np.uint8)


def speed_case(case: str) -> dict:
    if case == "100k-x-2000":
        X, y = planted_binary()
        DecisionListClassifier(binarizer=None, max_rules=2).fit(X[:2000], y[:2000])  # warm
        model, wall, cpu = _timed(lambda: DecisionListClassifier(binarizer=None).fit(X, y))
        table_model, table_wall, table_cpu = _timed(
            lambda: DecisionListClassifier().fit(pd.DataFrame(X), y))
        return {"wall": wall, "cpu": cpu, "rules": len(model.rules_),
                "stop": model.stop_reason_, "table_wall": table_wall, "table_cpu": table_cpu,
                "table_rules": len(table_model.rules_)}
    if case == "300-x-3000":
        rng = np.random.default_rng(0)
        X = pd.DataFrame(rng.normal(size=(300, 3000)), columns=[f"c{j}" for j in range(3000)])
        y = (X["c0"] + X["c1"] + rng.normal(size=300) > 0).astype(int)
        binarised, binarise_wall, _ = _timed(
            lambda: LIST_BINARIZERS["readable"]().fit_transform(X))
        model, wall, cpu = _timed(lambda: DecisionListClassifier(time_limit=5).fit(X, y))
        return {"wall": wall, "cpu": cpu, "rules": len(model.rules_),
                "stop": model.stop_reason_, "binarise_wall": binarise_wall,
                "literals": binarised.shape[1]}
    X, y = load_dataset("tic-tac-toe")
    model, wall, cpu = _timed(lambda: DecisionListClassifier(max_conjunction=3).fit(X, y))
    return {"wall": wall, "cpu": cpu, "rules": len(model.rules_), "stop": model.stop_reason_,
            "accuracy": float(model.score(X, y))}


def run_speed_case(case: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--speed-case", case], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- report -------------------------------------------------------------------------------------
def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("wittgenstein", "imodels", "corels", "scikit-learn"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} not installed")
    return ", ".join(found)


def summarise(rows: list, learners: list) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame = frame[frame["learner"].isin(learners)]
    return frame.groupby(["table", "learner"]).agg(
        accuracy=("accuracy", "mean"), rules=("rules", "mean"),
        conditions=("conditions", "mean"), cpu=("cpu", "mean"), wall=("wall", "mean"),
        minority=("minority", "mean"),
        failed=("accuracy", lambda a: int(a.isna().sum()))).reset_index()


CONCEPTS = ("monks-1", "monks-3", "mux6", "corral")


def _gaps(acc, by_table, peers, mine) -> list:
    """Per table: ``mine`` against the best peer, with the paired standard error."""
    lines = ["", f"| table | {mine} | best peer | gap | paired SE of the gap | within 3 points |",
             "|---|---|---|---|---|---|"]
    for table, row in by_table.iterrows():
        best = row[peers].idxmax()
        diff = acc.loc[table, mine] - acc.loc[table, best]
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        lines.append(f"| {table} | {row[mine]:.3f} | {row[best]:.3f} ({best}) | "
                     f"{row[mine] - row[best]:+.3f} | {se:.3f} | "
                     f"{'yes' if row[mine] >= row[best] - 0.03 - 1e-9 else 'NO'} |")
    return lines


def done_when(rows: list, learners: list) -> list:
    """The issue's targets, each with the numbers it is judged on."""
    if "ours" not in learners:
        return []
    frame = pd.DataFrame(rows)
    acc = frame.pivot_table(index=["table", "split"], columns="learner", values="accuracy")
    peers = [p for p in PEERS if p in acc.columns]
    if not peers:
        return []
    by_table = acc.groupby(level="table").mean()
    lines = ["", "## The targets (issue 34)", ""]
    mean = by_table.mean()
    for peer in ("ripper", "tree-3"):
        if peer in mean:
            verdict = "met" if mean["ours"] >= mean[peer] else "NOT met"
            lines.append(f"- mean test accuracy: ours {mean['ours']:.3f} vs {peer} "
                         f"{mean[peer]:.3f}: {verdict}")
    for mine in [c for c in acc.columns if str(c).startswith("ours") and c != "ours-tuned"]:
        if mine in acc.columns:
            lines += _gaps(acc, by_table, peers, mine)
    rules = frame.pivot_table(index="table", columns="learner", values="rules").mean()
    if "ripper" in rules:
        lines += ["", f"- rules on average: ours {rules['ours']:.2f} vs RIPPER "
                  f"{rules['ripper']:.2f}: "
                  f"{'met' if rules['ours'] < rules['ripper'] else 'NOT met'}"]
    for table in CONCEPTS:
        if table in by_table.index:
            row = by_table.loc[table]
            lines.append(f"- {table}: ours {row['ours']:.3f} vs best peer {row[peers].max():.3f}"
                         f": {'met' if row['ours'] >= row[peers].max() - 1e-9 else 'NOT met'}")
    ttt = frame[(frame.table == "tic-tac-toe") & (frame.learner == "ours")]
    if len(ttt):
        lines.append(f"- tic-tac-toe: ours {ttt.rules.mean():.1f} rules (at most "
                     f"{ttt.rules.max()}), test accuracy {ttt.accuracy.mean():.3f}: "
                     + ("met" if ttt.rules.max() <= 10 and ttt.accuracy.mean() >= 0.97
                        else "NOT met"))
    cpu = frame.pivot_table(index="table", columns="learner", values="cpu")
    if "ripper" in cpu:
        ratio = cpu["ripper"] / cpu["ours"]
        lines += ["", "Fit CPU seconds, RIPPER / ours (target >= 10 on every table): " + ", ".join(
            f"{table} {value:.1f}" for table, value in ratio.items())
            + f"; smallest {ratio.min():.1f} ({ratio.idxmin()})"]
        ours = frame[frame.learner == "ours"]
        if "binarise_cpu" in ours:
            binarise = ours.groupby("table").binarise_cpu.mean()
            search = (cpu["ours"] - binarise).clip(lower=1e-4)
            lines += ["", "The default's binarising alone (`RuleLiterals(ThresholdBinarizer())"
                      ".fit_transform`, timed apart), CPU seconds: " + ", ".join(
                          f"{table} {value:.3f}" for table, value in binarise.items()),
                      "", "RIPPER / ours without binarising: " + ", ".join(
                          f"{table} {value:.1f}" for table, value in
                          (cpu["ripper"] / search).items())]
    return lines


def markdown(args, rows, learners, speed, started, load_before) -> str:
    summary = summarise(rows, learners)
    tables = list(dict.fromkeys(r["table"] for r in rows))
    peers = [name for name in learners if name in PEERS]

    def cell(table, learner, field, fmt):
        hit = summary[(summary.table == table) & (summary.learner == learner)]
        if hit.empty or pd.isna(hit[field].iloc[0]):
            return "-"
        return format(hit[field].iloc[0], fmt)

    lines = ["# Decision lists on held-out rows, against peers", "",
             f"Command: `{' '.join(['python', *sys.argv])}`", "",
             f"Commit {_commit()}; {platform.machine()}, {os.cpu_count()} cores shared with other "
             f"jobs (load average {load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at "
             f"the end); Python {platform.python_version()}; {_versions()}. "
             f"{time.perf_counter() - started:.0f} s in all.", "",
             f"{args.splits} stratified 64/36 splits (random_state 0..{args.splits - 1}); "
             f"ours-tuned = GridSearchCV over "
             f"`{TUNED}` (3 folds of the training split).", "",
             "## Mean test accuracy", "",
             "| table | " + " | ".join(learners) + " | best peer |",
             "|---|" + "---|" * (len(learners) + 1)]
    for table in tables:
        best = max((summary[(summary.table == table) & (summary.learner == p)].accuracy.max()
                    for p in peers), default=np.nan)
        lines.append(f"| {table} | " + " | ".join(cell(table, learner, "accuracy", ".3f")
                                                  for learner in learners)
                     + (f" | {best:.3f} |" if peers else " | - |"))
    means = summary.groupby("learner")[["accuracy", "rules", "conditions", "minority",
                                        "cpu"]].mean()
    lines.append("| **mean** | " + " | ".join(
        f"**{means.loc[learner, 'accuracy']:.3f}**" if learner in means.index else "-"
        for learner in learners) + " | |")
    for field, title, fmt in (("rules", "Rules (default not counted; trees: leaves)", ".1f"),
                              ("conditions", "Mean conditions per rule (trees: leaf depth)",
                               ".2f"),
                              ("minority", "Share of test rows predicted as the training "
                               "split's minority class", ".3f"),
                              ("cpu", "Fit CPU seconds", ".3f")):
        lines += ["", f"## {title}", "", "| table | " + " | ".join(learners) + " |",
                  "|---|" + "---|" * len(learners)]
        for table in tables:
            lines.append(f"| {table} | " + " | ".join(cell(table, learner, field, fmt)
                                                      for learner in learners) + " |")
        lines.append("| **mean** | " + " | ".join(
            f"**{means.loc[learner, field]:{fmt}}**" if learner in means.index else "-"
            for learner in learners) + " |")
    lines += done_when(rows, learners)
    errors = [r for r in rows if r.get("error")]
    if errors:
        lines += ["", "## Failed fits", ""] + [
            f"- {r['learner']} on {r['table']} split {r['split']}: {r['error']}" for r in errors]
    if speed:
        lines += ["", "## Speed and memory (each case in its own process)", "",
                  "| case | result |", "|---|---|"]
        lines += [f"| {case} | {json.dumps(result)} |" for case, result in speed.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PATH.md", help="write the Markdown table here (the "
                        "raw rows go to PATH.jsonl)")
    parser.add_argument("--learners", nargs="+", choices=list(LEARNERS),
                        default=[name for name in LEARNERS
                                 if name == "ours" or not name.startswith("ours")
                                 or name in ("ours-tuned", "ours-unshrunk")])
    parser.add_argument("--tables", nargs="+", help="only these tables (default: all)")
    parser.add_argument("--splits", type=int, default=SPLITS,
                        help=f"stratified splits, random_state 0..N-1 (default {SPLITS})")
    parser.add_argument("--speed", action="store_true", help="also run the speed cases")
    parser.add_argument("--speed-case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_case:
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
        result = speed_case(args.speed_case)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    started, load_before = time.perf_counter(), os.getloadavg()
    load_kernels()  # the rule growing's compiled levels, compiled if not cached
    learners = [name for name in args.learners if _available(name)]
    tables = two_class_tables()
    names = args.tables or list(tables)
    warm_up(learners, *tables[names[0]])
    log_path = Path(args.out).with_suffix(".jsonl") if args.out else Path(os.devnull)
    rows = []
    with open(log_path, "w") as log:
        for name in names:
            X, y = tables[name]
            rows += run_table(name, X, y, learners, log, args.splits)
            done = summarise(rows, learners)
            print(done[done.table == name].to_string(index=False), flush=True)
    speed = {case: run_speed_case(case) for case in ("100k-x-2000", "tic-tac-toe-3",
                                                     "300-x-3000")} if args.speed else {}
    text = markdown(args, rows, learners, speed, started, load_before)
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
