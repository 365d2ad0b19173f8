"""How these version-1 model files were made, once, by occamlearn at commit 3fadb82 (the last
version-1 writer); kept to show what they hold. Running it today writes the current version.
import json, warnings
from pathlib import Path
import numpy as np, pandas as pd
from occamlearn import DecisionListClassifier, MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.export.tree_json import save_model
from occamlearn.export.decision_list import save_list

out = Path("tests/data/model_files_v1")
rng = np.random.default_rng(7)
n = 60
X = pd.DataFrame({"age": rng.integers(18, 70, n), "income": rng.normal(40, 10, n).round(1),
                  "city": rng.choice(["Lleida", "Girona", "Vic"], n)})
y = np.where((X.age > 40) ^ (X.city == "Vic") | (X.income > 55), "yes", "no")
flip = rng.choice(n, 4, replace=False)
X.iloc[flip[1]] = X.iloc[flip[0]].values  # a duplicate row with another label: a conflict
y[flip[1]] = "no" if y[flip[0]] == "yes" else "yes"
X.assign(label=y).to_csv(out / "data.csv", index=False)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    models = {
        "mpdt": MinimumPureTreeClassifier(time_limit=60).fit(X, y),
        "mpdt_alg3": MinimumPureTreeClassifier(n_solutions=3, selection_size=0.25, random_state=0, time_limit=60).fit(X, y),
        "mpdt_binary_input": MinimumPureTreeClassifier(binarizer=None).fit((X[["age"]] > 40).astype(int).assign(v=(X.city == "Vic").astype(int)).to_numpy(), y),
        "dtmax": MaxAccuracyTreeClassifier(max_depth=2).fit(X, y),
        "dlist": DecisionListClassifier(max_rules=4).fit(X, y),
    }
expected = {}
for name, model in models.items():
    path = out / f"{name}.json"
    (save_list if name == "dlist" else save_model)(model, path)
    Xp = X if name != "mpdt_binary_input" else (X[["age"]] > 40).astype(int).assign(v=(X.city == "Vic").astype(int)).to_numpy()
    expected[name] = {"predict": model.predict(Xp).tolist(),
                      "predict_proba": model.predict_proba(Xp).tolist(),
                      "text": str(model)}
    print(name, getattr(model, "n_nodes_", None), getattr(model, "conflict_rows_", None))
save_list(models["dlist"].list_, out / "bare_list.json")
(out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
