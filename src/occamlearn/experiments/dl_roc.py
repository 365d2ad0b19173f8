"""ROC curves on manufacturing-like data (Goessling and Kang, Sec. IV-C, Fig. 3).

The paper's fuel-pump data are not public, so ``dl_data.manufacturing_like`` simulates a table of
the same shape: parts in production order, a few hundred numeric measurements, about 4 %
defective parts (y = 1), defects announced mostly by extreme values of a few measurements. As in
the paper, the measurements are discretised at empirical quantiles (``QuantileBinarizer``: < 1 %,
< 5 %, < 10 %, < 25 %, in [25 %, 75 %], > 75 %, > 90 %, > 95 %, > 99 %), the models are trained on
the first two thirds of the parts ("two months") and tested on the last third, and all models see
the same binary matrix:

* a directional decision list of up to 10 rules in the "defective" direction (positive), by hill
  climbing; its ROC curve comes from its probabilities, and each dot is the disjunction of its
  first k rules (Sec. III-B). The "intact" direction is learned too, for comparison;
* L1-penalised logistic regression at two strengths, each C found by bisection so that the model
  has (as near as possible) the paper's 13 and 25 nonzero coefficients;
* random forests of 100 and 1,000 trees (scikit-learn defaults otherwise).
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from occamlearn.binarize import QuantileBinarizer
from occamlearn.estimators.decision_list import DecisionListClassifier
from occamlearn.experiments.dl_data import ManufacturingSpec, manufacturing_like
from occamlearn.experiments.dl_report import (
    add_output_arguments,
    figure_path,
    list_block,
    plot_link,
    write_text,
)
from occamlearn.model.decision_list import DEFAULT_RULE
from occamlearn.stopping import CLOCK

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "binarised_data",
    "l1_logistic_with_nonzeros",
    "plot_roc",
    "roc_experiment",
    "rule_points",
    "run",
    "to_markdown",
]

DESCRIPTION = ("Decision-list paper, Sec. IV-C / Fig. 3: ROC of a 10-rule directional list vs L1 "
               "logistic regression and random forests on manufacturing-like data")


def binarised_data(spec: ManufacturingSpec, seed: int = 0) -> dict:
    """Simulate, split in production order and quantile-binarise (fitted on training rows)."""
    X_train, y_train, X_test, y_test, symptoms = manufacturing_like(spec, rng=seed)
    binarizer = QuantileBinarizer().fit(X_train)
    names = list(binarizer.get_feature_names_out())
    return {"train": pd.DataFrame(binarizer.transform(X_train), columns=names), "y_train": y_train,
            "test": pd.DataFrame(binarizer.transform(X_test), columns=names), "y_test": y_test,
            "symptoms": symptoms}


def rule_points(model: DecisionListClassifier, X, y) -> list:
    """(false-positive rate, true-positive rate) of "any of the first k rules applies", k = 1..K."""
    fired = model.list_.apply(np.asarray(X))
    y = np.asarray(y)
    n_pos, n_neg = int(y.sum()), int(len(y) - y.sum())
    points = []
    for k in range(1, len(model.rules_) + 1):
        flagged = (fired != DEFAULT_RULE) & (fired < k)
        points.append((float(np.sum(flagged & (y == 0))) / max(n_neg, 1),
                       float(np.sum(flagged & (y == 1))) / max(n_pos, 1)))
    return points


def _l1_fit(X, y, C: float, seed: int):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, random_state=seed)
    return model.fit(X, y)


def l1_logistic_with_nonzeros(X, y, target: int, max_fits: int = 14, seed: int = 0):
    """L1 logistic regression whose number of nonzero coefficients is closest to ``target``.

    Starts at scikit-learn's ``l1_min_c`` (every coefficient zero), grows C tenfold until the
    count reaches ``target``, then bisects log C; stops at an exact hit or after ``max_fits``
    fits. Returns ``(model, C, nonzeros)``; ties go to the sparser model.
    """
    from sklearn.svm import l1_min_c

    if target < 1:
        raise ValueError(f"target nonzero count must be >= 1; got {target}")
    low = float(l1_min_c(X, y, loss="log"))
    best = None
    high, fits = low, 0
    while fits < max_fits:
        high *= 10.0
        model = _l1_fit(X, y, high, seed)
        fits += 1
        count = int(np.count_nonzero(model.coef_))
        best = _closer(best, (model, high, count), target)
        if count >= target:
            break
        low = high
    while fits < max_fits and best[2] != target:
        middle = float(np.sqrt(low * high))
        model = _l1_fit(X, y, middle, seed)
        fits += 1
        count = int(np.count_nonzero(model.coef_))
        best = _closer(best, (model, middle, count), target)
        if count < target:
            low = middle
        else:
            high = middle
    return best


def _closer(best, candidate, target):
    if best is None:
        return candidate
    key = (abs(candidate[2] - target), candidate[2])
    return candidate if key < (abs(best[2] - target), best[2]) else best


def _curve(name, scores, y, started, **extra) -> dict:
    from sklearn.metrics import roc_auc_score, roc_curve

    fpr, tpr, _ = roc_curve(y, scores)
    return {"name": name, "auc": float(roc_auc_score(y, scores)), "fpr": fpr, "tpr": tpr,
            "seconds": CLOCK() - started, **extra}


def roc_experiment(spec: ManufacturingSpec | None = None, seed: int = 0,
                   max_rules: int = 10, l1_nonzeros=(13, 25), forest_trees=(100, 1000),
                   n_jobs: int = -1, progress: bool = False) -> dict:
    """Fit every model on the training months; ROC data on the test month (default spec:
    ``ManufacturingSpec()``). ``progress`` names each stage on stderr as it starts."""
    from scipy import sparse
    from sklearn.ensemble import RandomForestClassifier

    def stage(text: str) -> float:
        if progress:
            print(f"roc: {text} ...", file=sys.stderr, flush=True)
        return CLOCK()

    stage("simulating and quantile-binarising")
    data = binarised_data(spec if spec is not None else ManufacturingSpec(), seed)
    X_train, y_train, X_test, y_test = data["train"], data["y_train"], data["test"], data["y_test"]
    curves, lists = [], {}
    for direction, label in (("positive", "defective"), ("negative", "intact")):
        started = stage(f"decision list, '{label}' direction")
        model = DecisionListClassifier(direction=direction, max_rules=max_rules,
                                       rule_search="enumerate", penalty=None,
                                       max_conjunction=1, binarizer=None,
                                       positive_class=1).fit(X_train, y_train)
        lists[label] = model
        curves.append(_curve(f"decision list, '{label}' direction ({len(model.rules_)} rules)",
                             model.predict_proba(X_test)[:, 1], y_test, started,
                             kind="list", direction=label, points=rule_points(model, X_test,
                                                                              y_test),
                             train_log_likelihood=model.log_likelihood_))
    train_sparse = sparse.csr_matrix(X_train.to_numpy(), dtype=np.float64)
    test_sparse = sparse.csr_matrix(X_test.to_numpy(), dtype=np.float64)
    for target in l1_nonzeros:
        started = stage(f"L1 logistic regression aiming at {target} nonzero coefficients")
        model, C, count = l1_logistic_with_nonzeros(train_sparse, y_train, target, seed=seed)
        curves.append(_curve(f"L1 logistic regression ({count} nonzero)",
                             model.predict_proba(test_sparse)[:, 1], y_test, started,
                             kind="l1", C=C, nonzeros=count))
    for trees in forest_trees:
        started = stage(f"random forest of {trees} trees")
        forest = RandomForestClassifier(n_estimators=trees, n_jobs=n_jobs, random_state=seed)
        forest.fit(X_train.to_numpy(), y_train)
        curves.append(_curve(f"random forest ({trees} trees)",
                             forest.predict_proba(X_test.to_numpy())[:, 1], y_test, started,
                             kind="forest", trees=trees))
    return {"curves": curves, "lists": lists, "symptoms": data["symptoms"],
            "shape": (len(y_train), len(y_test), X_train.shape[1]),
            "positive_rate": (float(np.mean(y_train)), float(np.mean(y_test)))}


def plot_roc(results: dict, path) -> None:
    """ROC curves of every model; the defective-direction list also as one dot per rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = figure_path(path)
    fig, ax = plt.subplots(figsize=(6, 5))
    for curve in results["curves"]:
        if curve["kind"] == "list" and curve["direction"] != "defective":
            continue
        line, = ax.plot(curve["fpr"], curve["tpr"], label=f"{curve['name']}, "
                        f"AUC {curve['auc']:.3f}", linewidth=1.2)
        if curve["kind"] == "list":
            fpr, tpr = zip(*curve["points"])
            ax.plot(fpr, tpr, "o", color=line.get_color(), markersize=4)
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.6, linestyle=":")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("Manufacturing-like data (test month), y = 1: defective")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def to_markdown(results: dict, config: dict, plot_name=None) -> str:
    n_train, n_test, n_binary = results["shape"]
    train_rate, test_rate = results["positive_rate"]
    lines = ["# ROC: directional decision list vs L1 logistic regression and random forests", "",
             ("Directional Decision Lists, Sec. IV-C / Fig. 3, on simulated manufacturing-like "
             "data (the paper's fuel-pump data are not public)."), "",
             "Configuration: " + ", ".join(f"{k} = {v}" for k, v in config.items()), "",
             (f"Data: {n_train:,} training and {n_test:,} test parts (production order), "
             f"{n_binary:,} quantile indicators; defective: {100 * train_rate:.1f} % (train), "
             f"{100 * test_rate:.1f} % (test). Measurements that drive the defects: "
             f"{', '.join(results['symptoms'])}."), "",
             "| model | test AUC | details | fit seconds |", "|---|---|---|---|"]
    for curve in results["curves"]:
        if curve["kind"] == "list":
            details = f"training log-likelihood {curve['train_log_likelihood']:.1f}"
        elif curve["kind"] == "l1":
            details = f"C = {curve['C']:.4g}"
        else:
            details = "scikit-learn defaults"
        lines.append(f"| {curve['name']} | {curve['auc']:.4f} | {details} | "
                     f"{curve['seconds']:.1f} |")
    lines += ["", ("Each dot of the decision list in the figure is \"any of its first k rules "
              "applies\" (test month):"), "", "| k | false positive rate | true positive rate |",
              "|---|---|---|"]
    first = next(c for c in results["curves"] if c["kind"] == "list")
    for k, (fpr, tpr) in enumerate(first["points"], start=1):
        lines.append(f"| {k} | {fpr:.4f} | {tpr:.4f} |")
    if plot_name:
        lines += ["", f"![ROC curves]({plot_name})"]
    for label, model in results["lists"].items():
        lines += ["", f"## '{label}' direction", "", list_block(model.list_, decimals=3)]
    return "\n".join(lines)


def add_arguments(parser) -> None:
    defaults = ManufacturingSpec()
    parser.add_argument("--rows", type=int, default=defaults.n_rows,
                        help=f"parts (default: {defaults.n_rows}; a third is the test month)")
    parser.add_argument("--columns", type=int, default=defaults.n_columns,
                        help=f"numeric measurements (default: {defaults.n_columns})")
    parser.add_argument("--max-rules", type=int, default=10, help="rules (default: 10)")
    parser.add_argument("--l1-nonzeros", type=int, nargs="+", default=[13, 25], metavar="K",
                        help="nonzero coefficients aimed at by each L1 model (default: 13 25)")
    parser.add_argument("--forest-trees", type=int, nargs="+", default=[100, 1000], metavar="T",
                        help="trees of each random forest (default: 100 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="cores for the forests (all)")
    add_output_arguments(parser, "dl_roc")


def run(args) -> int:
    if args.max_rules < 1:
        raise ValueError(f"--max-rules must be >= 1; got {args.max_rules}")
    if min(args.l1_nonzeros) < 1 or min(args.forest_trees) < 1:
        raise ValueError(f"--l1-nonzeros and --forest-trees must be >= 1; got "
                         f"{args.l1_nonzeros} and {args.forest_trees}")
    spec = ManufacturingSpec(n_rows=args.rows, n_columns=args.columns)
    config = {"rows": args.rows, "columns": args.columns, "max rules": args.max_rules,
              "L1 nonzeros aimed at": args.l1_nonzeros, "forest trees": args.forest_trees,
              "seed": args.seed}
    results = roc_experiment(spec, args.seed, args.max_rules, args.l1_nonzeros,
                             args.forest_trees, args.n_jobs, progress=True)
    for curve in results["curves"]:
        print(f"{curve['name']:>50}: test AUC {curve['auc']:.4f} ({curve['seconds']:.1f} s)")
    print(results["lists"]["defective"].list_.to_text(decimals=3))
    if args.plot:
        plot_roc(results, args.plot)
        print(f"plot written to {args.plot}")
    if args.markdown:
        write_text(args.markdown, to_markdown(results, config, plot_link(args)))
        print(f"summary written to {args.markdown}")
    return 0
