"""Titanic: the top rules in each direction (Goessling and Kang, Sec. IV-B).

2,201 people, target 1 = survived. The table is one-hot encoded (class first/second/third/crew,
age adult/child, sex male/female) and conditions are conjunctions of up to ``max_conjunction``
(default 2) of these primitives. A 3-rule list is hill-climbed in the "died" direction (rules
characterise y = 0: ``direction="negative"``) and in the "survived" direction (``"positive"``).

The paper reports "died": male adult, third class, adult in second class; "survived": female,
child, male in first class. Both of the paper's lists are also refitted here (their probabilities
estimated on the data, in the paper's order) so that their training log-likelihood can be set
against the greedy lists'.
"""

from __future__ import annotations

import numpy as np

from occamlearn.datasets import load_dataset
from occamlearn.estimators.decision_list import DecisionListClassifier
from occamlearn.experiments.dl_report import (
    add_output_arguments,
    figure_path,
    list_block,
    plot_link,
    write_text,
)
from occamlearn.model.decision_list import DecisionList, Rule

__all__ = [
    "DESCRIPTION",
    "PAPER_LISTS",
    "add_arguments",
    "plot_log_likelihoods",
    "refit_list",
    "run",
    "titanic_lists",
    "to_markdown",
]

DESCRIPTION = ("Decision-list paper, Sec. IV-B: Titanic, the top three rules in the 'died' and "
               "'survived' directions")

# direction name -> search direction (target 1 = survived)
DIRECTIONS = {"died": "negative", "survived": "positive"}

# the paper's top-three conditions, as conjunctions of the one-hot feature names
PAPER_LISTS = {
    "died": (("age == adult", "sex == male"), ("class == third",),
             ("class == second", "age == adult")),
    "survived": (("sex == female",), ("age == child",), ("class == first", "sex == male")),
}


def refit_list(X_bin, y, conditions, feature_names) -> DecisionList:
    """The list with the given ordered conditions (tuples of feature names) and probabilities
    estimated on ``(X_bin, y)``: each rule's p is the share of positives among the rows it
    covers that no earlier rule covers, the default's among the rest."""
    index = {name: i for i, name in enumerate(feature_names)}
    y = np.asarray(y)
    remaining = np.ones(len(y), dtype=bool)
    rules = []
    for condition in conditions:
        missing = [name for name in condition if name not in index]
        if missing:
            raise ValueError(f"conditions: unknown feature {missing[0]!r}; known: "
                             f"{', '.join(feature_names)}")
        features = tuple(index[name] for name in condition)
        covered = remaining & np.all(X_bin[:, list(features)] != 0, axis=1)
        n, positive = int(covered.sum()), int(y[covered].sum())
        rules.append(Rule(features, positive / n if n else 0.0, n, positive))
        remaining &= ~covered
    n_rest, pos_rest = int(remaining.sum()), int(y[remaining].sum())
    return DecisionList(tuple(rules), pos_rest / n_rest if n_rest else 0.0, X_bin.shape[1],
                        n_rest, pos_rest, tuple(feature_names))


def _prefix_log_likelihoods(decision_list: DecisionList, X_bin, y) -> list:
    """Training log-likelihood of the list cut after 0, 1, ..., K rules (defaults refitted)."""
    names = decision_list.feature_names
    conditions = [tuple(names[f] for f in r.features) for r in decision_list.rules]
    return [refit_list(X_bin, y, conditions[:k], names).log_likelihood(X_bin, y)
            for k in range(len(conditions) + 1)]


def titanic_lists(max_rules: int = 3, max_conjunction: int = 2) -> dict:
    """``{"died"|"survived": {"learned": estimator, "paper": DecisionList, "X_bin", "y"}}``."""
    X, y = load_dataset("titanic")
    y = np.asarray(y)
    out = {}
    for name, direction in DIRECTIONS.items():
        model = DecisionListClassifier(direction=direction, max_rules=max_rules,
                                       rule_search="enumerate", penalty=None,
                                       max_conjunction=max_conjunction, binarizer="onehot",
                                       positive_class=1).fit(X, y)
        X_bin = model.binarizer_.transform(X)
        names = tuple(model.feature_names_)
        paper = refit_list(X_bin, y, PAPER_LISTS[name], names)
        out[name] = {"learned": model, "paper": paper, "X_bin": X_bin, "y": y}
    return out


def _conditions(decision_list: DecisionList) -> list:
    return [decision_list.condition_text(r) for r in decision_list.rules]


def plot_log_likelihoods(results: dict, path) -> None:
    """Training log-likelihood after k rules: greedy lists (solid) and the paper's (dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    path = figure_path(path)
    fig, ax = plt.subplots(figsize=(6, 4))
    for (name, entry), color in zip(results.items(), ("tab:red", "tab:blue")):
        learned = entry["learned"].log_likelihoods_
        paper = _prefix_log_likelihoods(entry["paper"], entry["X_bin"], entry["y"])
        ax.plot(range(len(learned)), learned, "o-", color=color, label=f"'{name}', hill climb")
        ax.plot(range(len(paper)), paper, "s--", color=color, alpha=0.6,
                label=f"'{name}', paper's list")
    ax.set_xlabel("number of rules")
    ax.set_ylabel("training log-likelihood")
    ax.set_title("Titanic (y = 1: survived)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def to_markdown(results: dict, plot_name=None) -> str:
    lines = ["# Titanic: top rules in each direction", "",
             ("Directional Decision Lists, Sec. IV-B. 2,201 people, y = 1 = survived; one-hot "
             "features, conditions = conjunctions of up to 2 of them, hill climbing, 3 rules. "
             "\"Paper's list\" = the paper's conditions in its order, probabilities refitted "
             "here."), "",
             "| direction | rank | hill climb | paper | same? |", "|---|---|---|---|---|"]
    for name, entry in results.items():
        learned = _conditions(entry["learned"].list_)
        paper = _conditions(entry["paper"])
        for rank, (ours, theirs) in enumerate(zip(learned, paper), start=1):
            lines.append(f"| {name} | {rank} | `{ours}` | `{theirs}` | "
                         f"{'yes' if ours == theirs else 'no'} |")
    lines += ["", "| direction | training log-likelihood, hill climb | paper's list |",
              "|---|---|---|"]
    for name, entry in results.items():
        paper_ll = entry["paper"].log_likelihood(entry["X_bin"], entry["y"])
        lines.append(f"| {name} | {entry['learned'].log_likelihood_:.1f} | {paper_ll:.1f} |")
    if plot_name:
        lines += ["", f"![log-likelihood against list length]({plot_name})"]
    for name, entry in results.items():
        lines += ["", f"## '{name}' direction", "", "Hill climb:", "",
                  list_block(entry["learned"].list_), "", "Paper's list, refitted:", "",
                  list_block(entry["paper"])]
    return "\n".join(lines)


def add_arguments(parser) -> None:
    parser.add_argument("--max-rules", type=int, default=3, help="rules per list (default: 3)")
    parser.add_argument("--max-conjunction", type=int, default=2,
                        help="primitives per condition at most (default: 2)")
    add_output_arguments(parser, "dl_titanic")


def run(args) -> int:
    for name in ("max_rules", "max_conjunction"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1; got {getattr(args, name)}")
    results = titanic_lists(args.max_rules, args.max_conjunction)
    for name, entry in results.items():
        print(f"== '{name}' direction (hill climb):")
        print(entry["learned"].list_.to_text())
        print(f"   paper: {'; '.join(_conditions(entry['paper']))}")
        print()
    if args.plot:
        plot_log_likelihoods(results, args.plot)
        print(f"plot written to {args.plot}")
    if args.markdown:
        write_text(args.markdown, to_markdown(results, plot_link(args)))
        print(f"summary written to {args.markdown}")
    return 0
