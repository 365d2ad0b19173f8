"""Simulated data: directional lists are easier to learn greedily (Goessling and Kang,
Sec. IV-A, Fig. 2).

Each run draws a random ground-truth list of 10 single-feature rules over 1,000 binary features
(``dl_data.random_decision_list``), a training set (1,000 or 10,000 rows) and an independent test
set (10,000 rows) from it, hill-climbs a 10-rule list on the training set and reports

    ratio = log-likelihood of the ground truth / log-likelihood of the learned list

on the test set (both are negative; 1 = as good as the truth, smaller = worse). Settings:

* ``general``: probabilities i.i.d. uniform, learned by the undirected hill climb;
* ``directional``: the same draws sorted to satisfy eq. (1), learned by the directed
  (positive-direction) hill climb;
* ``directional-undirected`` (optional): directional truth, undirected climb -- separates what
  the family gives from what the directed search gives.

Run r of every setting uses the same rule features, the same multiset of probabilities, the same
feature matrices and the same uniform draws behind the labels (the 1,000 training rows are the
first 1,000 of the 10,000), so settings and sizes are compared pairwise, run by run.
Where the paper is silent (see ``dl_data``): features are Bernoulli(0.2); the learned list's test
log-likelihood uses add-one estimates (n_pos + 1) / (n + 2) from its training counts, so that a
rule that saw a single class in training does not score -inf.
"""

from __future__ import annotations

import numpy as np

from occamlearn.experiments.dl_data import random_decision_list, sample_features
from occamlearn.experiments.dl_report import (
    add_output_arguments,
    figure_path,
    plot_link,
    write_text,
)
from occamlearn.experiments.runner import Task, read_results, run_tasks, task_id
from occamlearn.lists.hill import hill_climb
from occamlearn.lists.problem import prepare
from occamlearn.model.decision_list import DecisionList, Rule
from occamlearn.stopping import CLOCK

__all__ = [
    "DESCRIPTION",
    "SETTINGS",
    "add_arguments",
    "flatten",
    "laplace_smoothed",
    "make_tasks",
    "plot_histograms",
    "run",
    "simulate_run",
    "summarise",
    "to_markdown",
]

DESCRIPTION = ("Decision-list paper, Sec. IV-A / Fig. 2: random 10-rule lists, general vs "
               "directional, ratio of true to learned test log-likelihood over many runs")

# setting -> (family of the ground truth, direction of the hill climb)
SETTINGS = {
    "general": ("general", None),
    "directional": ("directional", "positive"),
    "directional-undirected": ("directional", None),
}


def laplace_smoothed(decision_list: DecisionList) -> DecisionList:
    """The same list with every probability replaced by (n_pos + 1) / (n + 2)."""
    rules = tuple(Rule(r.features, (r.n_positive + 1) / (r.n_covered + 2), r.n_covered,
                       r.n_positive) for r in decision_list.rules)
    default = (decision_list.n_default_positive + 1) / (decision_list.n_default + 2)
    return DecisionList(rules, default, decision_list.n_features, decision_list.n_default,
                        decision_list.n_default_positive, decision_list.feature_names,
                        decision_list.mode, decision_list.target_class)


def _fit_and_score(truth, X_train, y_train, X_test, y_test, direction) -> dict:
    """Hill-climb a list as long as ``truth`` and compare both on the test set."""
    started = CLOCK()
    n_rules = len(truth.rules)
    result = hill_climb(prepare(X_train, y_train, max_conjunction=1), direction,
                        max_rules=n_rules)
    learned = laplace_smoothed(result.decision_list)
    ll_truth = truth.log_likelihood(X_test, y_test)
    ll_learned = learned.log_likelihood(X_test, y_test)
    true_features = {r.features[0] for r in truth.rules}
    return {"ratio": ll_truth / ll_learned, "ll_truth": ll_truth, "ll_learned": ll_learned,
            "ll_train": result.log_likelihood, "n_rules_learned": len(result.rules),
            "rules_recovered": sum(r.features[0] in true_features for r in result.rules),
            "stop_reason": result.stop_reason, "seconds": CLOCK() - started}


def simulate_run(run: int, settings=("general", "directional"), train_sizes=(1000, 10_000),
                 seed: int = 0, n_features: int = 1000, n_rules: int = 10, n_test: int = 10_000,
                 feature_probability: float = 0.2) -> dict:
    """Run ``run`` of every setting and training size: ``{"results": [one dict per pair]}``.

    The features, the uniform draws behind the labels, the rule features and the multiset of
    probabilities depend on ``(seed, run)`` only; the smaller training sets are prefixes of the
    largest. So settings and sizes are compared on the same data, up to the labels' probabilities.
    """
    for setting in settings:
        if setting not in SETTINGS:
            raise ValueError(f"settings: unknown setting {setting!r}; choose from "
                             f"{', '.join(SETTINGS)}")
    truth_seed, test_seed, train_seed = np.random.SeedSequence([seed, run]).spawn(3)
    test_rng, train_rng = np.random.default_rng(test_seed), np.random.default_rng(train_seed)
    X_test = sample_features(n_test, n_features, feature_probability, test_rng)
    u_test = test_rng.random(n_test)
    X_train = sample_features(max(train_sizes), n_features, feature_probability, train_rng)
    u_train = train_rng.random(max(train_sizes))
    results = []
    for setting in settings:
        family, direction = SETTINGS[setting]
        truth = random_decision_list(n_features, n_rules, family,
                                     np.random.default_rng(truth_seed))
        y_test = (u_test < truth.predict_positive_probability(X_test)).astype(np.int8)
        y_train = (u_train < truth.predict_positive_probability(X_train)).astype(np.int8)
        for n_train in train_sizes:
            score = _fit_and_score(truth, X_train[:n_train], y_train[:n_train], X_test, y_test,
                                   direction)
            results.append({"setting": setting, "n_train": int(n_train), **score})
    return {"results": results}


def make_tasks(settings, train_sizes, runs: int, seed: int = 0, n_features: int = 1000,
               n_rules: int = 10, n_test: int = 10_000, feature_probability: float = 0.2) -> list:
    """One ``Task`` per run; the key holds the whole configuration, so a results file never
    mixes configurations."""
    for setting in settings:
        if setting not in SETTINGS:
            raise ValueError(f"--settings: unknown setting {setting!r}; choose from "
                             f"{', '.join(SETTINGS)}")
    config = {"settings": list(settings), "train_sizes": [int(n) for n in train_sizes],
              "seed": seed, "n_features": n_features, "n_rules": n_rules, "n_test": n_test,
              "feature_probability": feature_probability}
    return [Task(key={"run": run, **config}, kwargs={"run": run, **config})
            for run in range(runs)]


def flatten(records: list) -> list:
    """Per-run records of ``run_tasks`` -> one dict per (run, setting, n_train)."""
    return [{"run": record["run"], **result} for record in records
            for result in record["results"]]


def summarise(records: list) -> list:
    """Per (setting, n_train): runs, mean / median / 10th percentile of the ratio, share of
    runs within 1 % of the truth, mean rules recovered and mean seconds."""
    groups: dict = {}
    for record in records:
        groups.setdefault((record["setting"], record["n_train"]), []).append(record)
    rows = []
    for (setting, n_train), group in groups.items():
        ratio = np.array([r["ratio"] for r in group])
        rows.append({"setting": setting, "n_train": n_train, "runs": len(group),
                     "mean": float(ratio.mean()), "median": float(np.median(ratio)),
                     "p10": float(np.percentile(ratio, 10)),
                     "within_1pct": float(np.mean(ratio >= 0.99)),
                     "recovered": float(np.mean([r["rules_recovered"] for r in group])),
                     "seconds": float(np.mean([r["seconds"] for r in group]))})
    return rows


def paired_comparison(records: list, first: str, second: str) -> dict:
    """Per n_train: shares of runs where ``first``'s ratio is above, equal to (within 1e-12) and
    below ``second``'s on the same run."""
    ratio = {(r["setting"], r["n_train"], r["run"]): r["ratio"] for r in records}
    diffs: dict = {}
    for (setting, n_train, run), value in ratio.items():
        other = ratio.get((second, n_train, run))
        if setting == first and other is not None:
            diffs.setdefault(n_train, []).append(value - other)
    return {n: {"above": float(np.mean(np.array(d) > 1e-12)),
                "equal": float(np.mean(np.abs(d) <= 1e-12)),
                "below": float(np.mean(np.array(d) < -1e-12))} for n, d in sorted(diffs.items())}


PAIRINGS = (
    ("directional", "general", ("directional truth + directed climb vs general truth + "
     "undirected climb (the paper's comparison)")),
    ("directional", "directional-undirected", ("directed vs undirected climb on the same "
     "directional truth and data")),
)


def plot_histograms(records: list, path) -> None:
    """One panel per training size, one histogram of ratios per setting (Fig. 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = figure_path(path)
    sizes = sorted({r["n_train"] for r in records})
    settings = [s for s in SETTINGS if any(r["setting"] == s for r in records)]
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.5 * len(sizes), 4), squeeze=False)
    for ax, n_train, label in zip(axes[0], sizes, "abcdefgh"):
        values = {s: [r["ratio"] for r in records if r["setting"] == s and r["n_train"] == n_train]
                  for s in settings}
        low = min(min(v) for v in values.values() if v)
        high = max(max(v) for v in values.values() if v)
        bins = np.linspace(low, max(high, low + 1e-6), 41)
        for setting in settings:
            family, direction = SETTINGS[setting]
            climb = "directed (positive)" if direction else "undirected"
            ax.hist(values[setting], bins=bins, alpha=0.55,
                    label=f"{family} truth, {climb} climb")
        ax.set_title(f"({label}) {n_train:,} training examples")
        ax.set_xlabel("test log-likelihood ratio (truth / learned)")
        ax.set_ylabel("runs")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def to_markdown(records: list, config: dict, plot_name=None, elapsed=None) -> str:
    """Summary table and paired comparisons; ``elapsed`` = ((runs computed, seconds), runs)."""
    lines = ["# Simulated decision lists: general vs directional", "",
             ("Directional Decision Lists, Sec. IV-A / Fig. 2. Ratio = test log-likelihood of the "
              "ground truth / of the learned list (1 = as good as the truth; higher is "
              "better)."), "",
             "Configuration: " + ", ".join(f"{k} = {v}" for k, v in config.items()), ""]
    if elapsed is not None:
        computed, total = elapsed
        lines += [(f"Wall time of the invocation that wrote this file: {computed[1]:.0f} s, "
                  f"computing {computed[0]} of the {total} runs (the others were read back from "
                  "the results file)."), ""]
    lines += [("| setting | n_train | runs | mean ratio | median | 10th pct | runs >= 0.99 "
              "| true rules recovered | fit seconds |"), "|---|---|---|---|---|---|---|---|---|"]
    for row in sorted(summarise(records), key=lambda r: (r["n_train"], r["setting"])):
        lines.append(f"| {row['setting']} | {row['n_train']:,} | {row['runs']} | "
                     f"{row['mean']:.4f} | {row['median']:.4f} | {row['p10']:.4f} | "
                     f"{100 * row['within_1pct']:.1f} % | {row['recovered']:.2f} | "
                     f"{row['seconds']:.2f} |")
    pairs = [(a, b, text, paired_comparison(records, a, b)) for a, b, text in PAIRINGS]
    pairs = [pair for pair in pairs if pair[3]]
    if pairs:
        lines += ["", ("Paired by run (same rule features, same probabilities up to order, same "
                  "features and label draws):"), "",
                  "| comparison | n_train | first higher | equal | second higher |",
                  "|---|---|---|---|---|"]
        for _, _, text, shares in pairs:
            for n, share in shares.items():
                lines.append(f"| {text} | {n:,} | {100 * share['above']:.1f} % | "
                             f"{100 * share['equal']:.1f} % | {100 * share['below']:.1f} % |")
    if plot_name:
        lines += ["", f"![histograms of the ratio]({plot_name})"]
    return "\n".join(lines)


def add_arguments(parser) -> None:
    parser.add_argument("--runs", type=int, default=1000, help="runs per setting and size "
                        "(default: 1000)")
    parser.add_argument("--train-sizes", type=int, nargs="+", default=[1000, 10_000],
                        metavar="N", help="training-set sizes (default: 1000 10000)")
    parser.add_argument("--test-size", type=int, default=10_000, help="test rows (default 10000)")
    parser.add_argument("--features", type=int, default=1000, help="binary features (1000)")
    parser.add_argument("--rules", type=int, default=10, help="rules per list (default: 10)")
    parser.add_argument("--feature-probability", type=float, default=0.2,
                        help="P(feature = 1) for every feature (default: 0.2; the paper is silent)")
    parser.add_argument("--settings", nargs="+", default=["general", "directional"],
                        metavar="NAME", help=f"any of {', '.join(SETTINGS)} "
                        "(default: general directional)")
    parser.add_argument("--seed", type=int, default=0, help="base random seed (default: 0)")
    parser.add_argument("--results", default="dl_simulated.jsonl", metavar="PATH",
                        help="JSON-lines file of per-run results; finished runs are not redone "
                        "(default: dl_simulated.jsonl)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="processes (default: all cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address")
    parser.add_argument("--local-cluster", action="store_true", help="use a Dask LocalCluster")
    add_output_arguments(parser, "dl_simulated")


def _check_args(args) -> None:
    for name in ("runs", "test_size", "features", "rules"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1; got {getattr(args, name)}")
    if min(args.train_sizes) < 1:
        raise ValueError(f"--train-sizes must all be >= 1; got {args.train_sizes}")
    if args.rules > args.features:
        raise ValueError(f"--rules ({args.rules}) must not exceed --features ({args.features})")
    if not 0.0 < args.feature_probability < 1.0:
        raise ValueError(f"--feature-probability must lie in (0, 1); got "
                         f"{args.feature_probability}")


def _finished_tasks(tasks: list, results_path) -> int:
    """How many of ``tasks`` already have a record in ``results_path``."""
    names = {name for task in tasks for name in task.key}
    finished = {task_id({k: r[k] for k in names if k in r}) for r in read_results(results_path)}
    return sum(task_id(task.key) in finished for task in tasks)


def run(args) -> int:
    _check_args(args)
    config = {"runs": args.runs, "train sizes": args.train_sizes, "test size": args.test_size,
              "features": args.features, "rules": args.rules,
              "feature probability": args.feature_probability, "seed": args.seed}
    tasks = make_tasks(args.settings, args.train_sizes, args.runs, args.seed, args.features,
                       args.rules, args.test_size, args.feature_probability)
    done_before = _finished_tasks(tasks, args.results)
    started = CLOCK()
    records = flatten(run_tasks(simulate_run, tasks, args.results, n_jobs=args.n_jobs,
                                scheduler=args.scheduler, local_cluster=args.local_cluster))
    elapsed = ((len(tasks) - done_before, CLOCK() - started), len(tasks))
    for row in sorted(summarise(records), key=lambda r: (r["n_train"], r["setting"])):
        print(f"{row['setting']:>24} n_train={row['n_train']:>6}: median ratio "
              f"{row['median']:.4f}, mean {row['mean']:.4f}, >= 0.99 in "
              f"{100 * row['within_1pct']:.1f} % of {row['runs']} runs")
    if args.plot:
        plot_histograms(records, args.plot)
        print(f"plot written to {args.plot}")
    if args.markdown:
        write_text(args.markdown, to_markdown(records, config, plot_link(args), elapsed))
        print(f"summary written to {args.markdown}")
    return 0
