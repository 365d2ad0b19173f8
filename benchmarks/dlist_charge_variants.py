"""Does a different CHARGE for a rule -- how its rate is coded, or a threshold calibrated on
permuted labels -- close append without costing another table? Test accuracy of
``DecisionListClassifier`` variants over many splits, paired.

Issue 34 asks that no table of ``dlist_accuracy.py`` (5 stratified 64/36 splits) fall more than
3 points below the best peer; append does. ``dlist_growth_variants.py`` measured how rules grow
(beams, a structured count of conditions, held-out lengths); this script measures what a rule
is charged, each variant changing one thing for every table and leaving the rest of the
default (beam of 5, rates shrunk on 5 folds) as it is:

* ``default`` -- ``DecisionListClassifier()``: a rule's score is its maximum-likelihood gain
  less log M_k (``lists.cost``); its rate is free (not charged);
* ``numpy-unpruned`` -- the default's score on the numpy engine with the refinement-bound
  pruning off: the control of the three ``bayes-*`` variants and ``ripper-mdl``, which run so
  (the bound is proved for the maximum-likelihood gain only); the beam then extends members
  the bound would have dropped, so its lists may differ a little from the default's;
* ``bayes-kt`` -- each region's log-likelihood is the Beta(1/2, 1/2) (Jeffreys,
  Krichevsky-Trofimov) marginal likelihood of its labels, the mixture code of MDL, instead of
  the maximised one: a rule's rate is then paid for (about half a log of its rows) instead of
  free. The conjunction charge log M_k stays; the score is this gain less the charge, in the
  search and in the stopping test;
* ``bayes-uniform`` -- the same with a Beta(1, 1) prior (Laplace's mixture: a region of n
  rows and p positives costs log(n + 1) + log C(n, p), RIPPER's code for exceptions);
* ``bayes-kt-stop`` -- the search ranks by the default score; a rule is kept only if its
  Beta(1/2, 1/2) gain also exceeds its charge (the mixture code as the stopping test only);
* ``ripper-mdl`` -- RIPPER's description length read per rule: the Beta(1, 1) code of the
  regions and half the conjunction charge (``penalty=0.5``: RIPPER halves its theory bits for
  redundancy, Cohen 1995);
* ``perm-q50``, ``perm-q95``, ``perm-matched`` -- a Westfall-Young charge: on each training
  split the labels are permuted P = 40 times and, for k = 1..4, the best gain of a first rule
  of at most k literals (the default's beam, uncharged, either direction) is recorded; the
  charge of k literals is a quantile of that maximum instead of log M_k: the median (q50), the
  95th percentile (q95), or (matched) the quantile at which the 1-literal noise maximum equals
  log M_1 = log d, so that one literal is charged as now and longer conditions at the same
  estimated error rate. A maximum over every condition the search chose among, it counts the
  thresholds of one column as the correlated tests they are, where log M_k counts each as new
  (Bonferroni). The same table charges the held-out folds' searches.

The first 5 splits are the benchmark's; their means are listed apart.

    python benchmarks/dlist_charge_variants.py --splits 30 \\
        --out benchmarks/results/dlist_variants_lacc10.md
    python benchmarks/dlist_charge_variants.py --charges --tables append hepa

``--charges`` prints, on each of the benchmark's 5 splits of the named tables, log M_k against
the q50 and q95 permutation charges (k = 1..4) and the default's and perm-q50's rules.
``--blocks`` prints, for the named tables, the default's and scikit-learn's depth-3 tree's
test accuracy on ``--splits`` splits cut into blocks of 5 consecutive ones (the benchmark's
5 splits are the first block): how far the gap the issue judges moves from one block of 5
splits to the next.

    python benchmarks/dlist_charge_variants.py --blocks --splits 30 --tables append
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager

import numpy as np
from sklearn.model_selection import train_test_split

import occamlearn.lists as lists_api
import occamlearn.lists.folds as fold_module
import occamlearn.lists.levels as levels_module
import occamlearn.lists.rules as rules_module
from occamlearn import DecisionListClassifier
from occamlearn.lists import learn_decision_list
from occamlearn.lists.cost import RuleCost, rule_cost
from occamlearn.lists.likelihood import gains as likelihood_gains
from occamlearn.lists.rules import scored as default_scored

sys.path.insert(0, os.path.dirname(__file__))
from dlist_default_variants import variants_main  # noqa: E402

VARIANTS = ("default", "numpy-unpruned", "bayes-kt", "bayes-uniform", "bayes-kt-stop",
            "ripper-mdl", "perm-q50", "perm-q95", "perm-matched")
PERMUTATIONS, MAX_LITERALS = 40, 4


def log_marginal(n, pos, a: float):
    """log of the Beta(a, a) marginal likelihood of ``pos`` ones among ``n`` labels (one
    sequence, not the count): log B(pos + a, n - pos + a) - log B(a, a)."""
    n, pos = np.asarray(n, dtype=np.float64), np.asarray(pos, dtype=np.float64)
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    return (lg(pos + a) + lg(n - pos + a) - lg(n + 2 * a)
            - (2 * math.lgamma(a) - math.lgamma(2 * a)))


def mixture_gains(covered, positive, n_rest, pos_rest, a: float):
    """The gain of splitting the remainder by each condition, each region coded by the
    Beta(a, a) mixture."""
    return (log_marginal(covered, positive, a)
            + log_marginal(n_rest - covered, pos_rest - positive, a)
            - float(log_marginal(n_rest, pos_rest, a)))


def mixture_scored(a, stop_only: bool):
    """A replacement for ``rules.scored`` (unweighted problems): ``rules.scored`` with the
    mixture gain in place of ``likelihood.gains``, or (``stop_only``) the default's scores
    with the mixture gain less the charge as a further stopping test; ``a`` None: the
    default's scores (the control of the engine change)."""
    def mixture(covered, positive, n_rest, pos_rest, f):
        return mixture_gains(covered, positive, n_rest, pos_rest, a)

    def scored(covered, positive, remainder, search, cost, f):
        if a is None:
            return default_scored(covered, positive, remainder, search, cost, f)
        if not stop_only:
            rules_module.gains = mixture
            try:
                return default_scored(covered, positive, remainder, search, cost, f)
            finally:
                rules_module.gains = likelihood_gains
        scores = default_scored(covered, positive, remainder, search, cost, f)
        mix = mixture_gains(covered, positive, remainder.n, remainder.pos, a)
        return scores._replace(eligible=scores.eligible & (mix - cost > 0))
    return scored


@contextmanager
def mixture_coded(a, stop_only: bool = False):
    """Every search scored by ``mixture_scored`` on the numpy engine, refinement pruning off."""
    saved = (levels_module.scored, levels_module.refinement_bound, levels_module.ENGINE)

    def no_bound(covered, *args, **kwargs):
        return np.full(np.shape(covered), np.inf)
    levels_module.scored = mixture_scored(a, stop_only)
    levels_module.refinement_bound = no_bound
    levels_module.ENGINE = "numpy"
    try:
        yield
    finally:
        levels_module.scored, levels_module.refinement_bound, levels_module.ENGINE = saved


def noise_gains(X_bin, labels, permutations: int = PERMUTATIONS, seed: int = 0) -> np.ndarray:
    """(permutations, MAX_LITERALS): the best gain of a first rule of at most k literals
    (column k - 1) found by the default's beam, uncharged, in either direction, on permuted
    labels."""
    rng = np.random.default_rng(seed)
    best = np.zeros((permutations, MAX_LITERALS))
    for p in range(permutations):
        shuffled = rng.permutation(labels)
        for k in range(1, MAX_LITERALS + 1):
            for direction in ("positive", "negative"):
                result = learn_decision_list(X_bin, shuffled, direction=direction,
                                             max_rules=1, max_conjunction=k,
                                             rule_search="beam", rule_beam_width=5)
                if result.decision_list.rules:
                    best[p, k - 1] = max(best[p, k - 1], result.log_likelihoods[-1]
                                         - result.log_likelihoods[0])
    return np.maximum.accumulate(best, axis=1)


def matched_quantile(noise: np.ndarray, n_features: int) -> float:
    """The share of the 1-literal noise maxima at or below log M_1 = log d: the level at which
    the default's charge of one literal stops noise rules, estimated."""
    return float(np.mean(noise[:, 0] <= rule_cost(n_features, 1.0)(1)))


def permutation_cost(noise: np.ndarray, n_features: int, quantile) -> RuleCost:
    """``RuleCost`` whose k-literal charge is the ``quantile`` of the noise maxima (k beyond
    MAX_LITERALS: the charge of MAX_LITERALS); ``quantile`` "matched": ``matched_quantile``."""
    if quantile == "matched":
        quantile = matched_quantile(noise, n_features)
    cost = RuleCost(n_features, 1.0)
    per_k = np.maximum.accumulate(np.quantile(noise, quantile, axis=0, method="higher"))
    table = np.full(n_features + 1, per_k[-1])
    table[0] = 0.0
    table[1:MAX_LITERALS + 1] = per_k[:n_features]
    cost._table = table
    cost._table.flags.writeable = False
    return cost


@contextmanager
def charged(cost: RuleCost):
    """Every search of a fit over ``cost.n_features`` literals charged ``cost``."""
    def replacement(n_features, penalty):
        base = rule_cost(n_features, penalty)
        return cost if base and n_features == cost.n_features else base
    lists_api.rule_cost = fold_module.rule_cost = replacement
    try:
        yield
    finally:
        lists_api.rule_cost = fold_module.rule_cost = rule_cost


def binarized(X_train, y_train):
    raw = DecisionListClassifier(shrinkage_folds=None).fit(X_train, y_train)
    X_bin = np.asarray(raw.binarizer_.transform(X_train)).astype(np.uint8)
    labels = (np.asarray(y_train) == raw.positive_class_).astype(np.uint8)
    return raw, X_bin, labels


def split_scores(X_train, X_test, y_train, y_test) -> list:
    def score():
        return DecisionListClassifier().fit(X_train, y_train).score(X_test, y_test)
    scores = [score()]
    for a, stop_only in ((None, False), (0.5, False), (1.0, False), (0.5, True)):
        with mixture_coded(a, stop_only):
            scores.append(score())
    with mixture_coded(1.0):
        scores.append(DecisionListClassifier(penalty=0.5).fit(X_train, y_train)
                      .score(X_test, y_test))
    raw, X_bin, labels = binarized(X_train, y_train)
    noise = noise_gains(X_bin, labels)
    for quantile in (0.5, 0.95, "matched"):
        with charged(permutation_cost(noise, X_bin.shape[1], quantile)):
            scores.append(score())
    return scores


def charges(tables) -> str:
    """Per benchmark split: log M_k and the permutation charges for k = 1..4, and the
    default's and the q50 list's rules."""
    lines = ["| table | split | log M_k, k=1..4 | noise max q50 | noise max q95 | default "
             "rules | perm-q50 rules |", "|---" * 7 + "|"]
    for name, (X, y) in tables.items():
        for s in range(5):
            X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                                      random_state=s)
            raw, X_bin, labels = binarized(X_train, y_train)
            d, noise = X_bin.shape[1], noise_gains(X_bin, labels)
            base = rule_cost(d, 1.0)
            q50, q95 = (permutation_cost(noise, d, q) for q in (0.5, 0.95))
            with charged(q50):
                model = DecisionListClassifier().fit(X_train, y_train)
            lines.append(
                f"| {name} | {s} | " + ", ".join(f"{base(k):.1f}" for k in range(1, 5))
                + " | " + ", ".join(f"{q50(k):.1f}" for k in range(1, 5)) + " | "
                + ", ".join(f"{q95(k):.1f}" for k in range(1, 5)) + " | "
                + _rules_text(raw) + " | " + _rules_text(model) + " |")
    return "\n".join(lines) + "\n"


def blocks(tables, splits: int) -> str:
    """Per table, the default's and the depth-3 tree's mean test accuracy on each block of 5
    consecutive splits, and the gap with its paired SE over the block."""
    from sklearn.tree import DecisionTreeClassifier

    lines = ["| table | splits | default | tree-3 | default - tree-3 (SE) |", "|---" * 5 + "|"]
    for name, (X, y) in tables.items():
        ours, tree = np.zeros(splits), np.zeros(splits)
        for s in range(splits):
            X_train, X_test, y_train, y_test = train_test_split(
                X, y, train_size=0.64, stratify=y, random_state=s)
            ours[s] = DecisionListClassifier().fit(X_train, y_train).score(X_test, y_test)
            values = np.asarray(X_train, dtype=float)
            tree[s] = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
                values, y_train).score(np.asarray(X_test, dtype=float), y_test)
        for start in [*range(0, splits - 4, 5), None]:
            part = slice(None) if start is None else slice(start, start + 5)
            gap = ours[part] - tree[part]
            label = f"0..{splits - 1}" if start is None else f"{start}..{start + 4}"
            lines.append(f"| {name} | {label} | {ours[part].mean():.3f} | "
                         f"{tree[part].mean():.3f} | {gap.mean():+.3f} "
                         f"({gap.std(ddof=1) / np.sqrt(len(gap)):.3f}) |")
    return "\n".join(lines) + "\n"


def _rules_text(model) -> str:
    return "; ".join(f"{model.list_.condition_text(r)} ({r.n_positive}/{r.n_covered})"
                     for r in model.rules_) or "none"


def main():
    variants_main(__doc__, "Variants of what the default decision list charges a rule",
                  "dlist_charge_variants.py", VARIANTS, split_scores, {
                      "--charges": ("print log M_k against the permutation charges instead",
                                    lambda t, _: charges(t)),
                      "--blocks": ("print the default against the depth-3 tree by blocks of 5 "
                                   "splits", lambda t, args: blocks(t, args.splits))})


if __name__ == "__main__":
    main()
