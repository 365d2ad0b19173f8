"""How the version-1 model files here were made, once, by occamlearn at commit 3fadb82 (the
last version-1 writer), run from the repository root. Kept to show what they hold; run today
it writes the current version. ``expected.json`` holds each model's predictions, probabilities
and printed text on ``data.csv`` at the time."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from occamlearn import DecisionListClassifier, MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.estimators.model_files import save_model

OUT = Path("tests/data/model_files_v1")


def table():
    rng = np.random.default_rng(7)
    n = 60
    X = pd.DataFrame({"age": rng.integers(18, 70, n), "income": rng.normal(40, 10, n).round(1),
                      "city": rng.choice(["Lleida", "Girona", "Vic"], n)})
    y = np.where((X.age > 40) ^ (X.city == "Vic") | (X.income > 55), "yes", "no")
    flip = rng.choice(n, 4, replace=False)
    X.iloc[flip[1]] = X.iloc[flip[0]].values  # a duplicate row with another label: a conflict
    y[flip[1]] = "no" if y[flip[0]] == "yes" else "yes"
    return X, y


def binary_input(X):
    """The 0/1 matrix the ``binarizer=None`` model reads."""
    return (X[["age"]] > 40).astype(int).assign(v=(X.city == "Vic").astype(int)).to_numpy()


def main():
    X, y = table()
    X.assign(label=y).to_csv(OUT / "data.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {
            "mpdt": MinimumPureTreeClassifier(time_limit=60).fit(X, y),
            "mpdt_alg3": MinimumPureTreeClassifier(n_solutions=3, selection_size=0.25,
                                                   random_state=0, time_limit=60).fit(X, y),
            "mpdt_binary_input": MinimumPureTreeClassifier(binarizer=None).fit(binary_input(X),
                                                                               y),
            "dtmax": MaxAccuracyTreeClassifier(max_depth=2).fit(X, y),
            "dlist": DecisionListClassifier(max_rules=4).fit(X, y),
        }
    expected = {}
    for name, model in models.items():
        save_model(model, OUT / f"{name}.json")
        X_in = binary_input(X) if name == "mpdt_binary_input" else X
        expected[name] = {"predict": model.predict(X_in).tolist(),
                          "predict_proba": model.predict_proba(X_in).tolist(),
                          "text": str(model)}
    save_model(models["dlist"].list_, OUT / "bare_list.json")
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
