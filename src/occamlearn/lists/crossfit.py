"""Choosing a list's length on held-out rows: cross-fitted prefixes.

The description-length charge (``cost``) stops rules that noise alone would produce, but it
cannot see the other error of a greedy list on a small table: a rule that is real on the
training rows, yet whose region's rate sits so close to 0.5 (or to the rate of the rows after
it) that rows it has not seen land on the other side. Its training rate is the rate of the
rows it was chosen for, so it is biased away from the rest of the list; only rows that took no
part in choosing it can tell.

Cross-fitting asks them. The training rows are split into ``folds`` stratified folds (shuffled
with ``random_state``, so the choice is deterministic). For each fold the same search, with the
same options, learns a list on the other folds, at most as long as the list learned on all
rows; every prefix of it (its first k rules, the rows of the rules after k sent to a default
refitted on them) is scored on the held-out fold by its log-likelihood. The length kept is the
shortest k whose summed held-out log-likelihood is within one standard error of the best
prefix's (the one-standard-error rule of Breiman, Friedman, Olshen and Stone's cost-complexity
pruning; the standard error of the paired per-row differences), and the list learned on all
rows keeps its first k rules. Every row is held out exactly once, so the score is an honest
estimate of how each prefix length does on rows the search did not see -- of the length, not
of one particular list.

The held-out probabilities are the fold list's rates with one pseudo-row of each class
((positives + 1) / (rows + 2), Laplace), so that a pure region meeting a row of the other
label costs a finite amount. A prefix of a directional (or monotone) list is directional (or
monotone) too: the new default holds exactly the rows whose rate ``p_{>k}`` the constraint
already compared with ``p_k``.

What it costs: ``folds`` more searches, each on (folds - 1) / folds of the rows and stopped at
the full list's length (the rows are binarised once); a list of no rules needs none.

Why it is an option (``DecisionListClassifier(validation_folds=3)``) and not the default: the
held-out rows judge lists learned on two thirds of the rows, which on a small table find fewer
real rules than the whole table supports, so the check is pessimistic exactly where it is
needed. Over 30 splits (``benchmarks/results/dlist_accuracy_30splits.md``) it moves hepa and
spect towards the best peer, and append away from it, below the depth-3 tree by more than it
gained elsewhere: it predicts the minority class less than half as often as the
peers on append. What the peers do better on hepa and spect is where their rules point, not
how many they keep: on hepa RIPPER predicts the minority class more often than our list, and
is right more often, with conditions pruned literal by literal on rows held out from growing
them; on spect imodels' greedy rule list predicts it as often as ours, with single features
where ours uses conjunctions of about three. Both are changes to how a rule is grown, not to
the list's length.

Growing each rule on two thirds of the rows and pruning its literals on the rest, by the
held-out likelihood gain (after RIPPER), was measured and removed (commit 3d4f7d2,
``benchmarks/results/dlist_accuracy_shrunk_30splits.md``): it moves hepa and spect as this
check does and loses append and audio as much, for the same reason (conditions found on two
thirds of the rows). What the default does instead is keep the list and state its rates as
held-out rows see them (``shrinkage``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occamlearn.lists.folds import stratified_folds

__all__ = ["choose_length", "prefix"]


def prefix(decision_list, k: int, X, y, weight=None):
    """The first ``k`` rules of ``decision_list``; the rows of the dropped rules (and of the
    old default) go to a default whose probability is refitted on the training rows ``X``,
    ``y`` (weighted by ``weight`` when the list is weighted)."""
    if k >= len(decision_list.rules):
        return decision_list
    dropped = decision_list.rules[k:]
    n = decision_list.n_default + sum(r.n_covered for r in dropped)
    positive = decision_list.n_default_positive + sum(r.n_positive for r in dropped)
    probability = positive / n if n else decision_list.default_probability
    if decision_list.weighted and weight is not None:
        fired = decision_list.apply(X)
        rest = (fired == -1) | (fired >= k)
        total = float(np.sum(weight[rest]))
        if total > 0:
            probability = float(np.sum(weight[rest] * (np.asarray(y)[rest] == 1)) / total)
    return replace(decision_list, rules=decision_list.rules[:k],
                   default_probability=probability, n_default=n,
                   n_default_positive=positive)


def _held_out(decision_list, max_rules: int, X, y, weight) -> np.ndarray:
    """(max_rules + 1, rows): the held-out log-likelihood of each row under each prefix
    (prefixes beyond the list's length are the whole list)."""
    fired = decision_list.apply(X)
    rules = decision_list.rules
    n = np.array([r.n_covered for r in rules] + [decision_list.n_default], dtype=np.float64)
    p = np.append([r.probability for r in rules], decision_list.default_probability)
    is_positive = np.asarray(y) == 1
    out = np.empty((max_rules + 1, len(fired)))
    for k in range(max_rules + 1):
        k_used = min(k, len(rules))
        # the default of prefix k: the rows of rule k and after, pooled with their counts
        rest_n = n[k_used:].sum()
        rest_p = float(np.dot(n[k_used:], p[k_used:]) / rest_n) if rest_n else p[-1]
        rates = np.append((p[:k_used] * n[:k_used] + 1) / (n[:k_used] + 2),
                          (rest_p * rest_n + 1) / (rest_n + 2))
        where = np.where((fired == -1) | (fired >= k_used), k_used, fired)
        row_p = rates[where]
        out[k] = np.log(np.where(is_positive, row_p, 1.0 - row_p))
    return out if weight is None else out * weight


def choose_length(searches, max_rules: int, folds: int, random_state=None, deadline=None):
    """How many rules to keep, and the held-out log-likelihood of each prefix (None, None
    when the deadline passes before every fold is searched, or a class has fewer rows than
    ``folds``).

    ``searches`` (``folds.FoldSearch``) learns a list of at most ``max_rules`` rules on the
    training rows of each fold (``fit_list``); its ``X``, ``labels`` and ``weight`` are the
    rows the held-out folds are drawn from.
    """
    X, y, weight = searches.X, np.asarray(searches.labels), searches.weight
    if max_rules == 0 or np.min(np.bincount(y, minlength=2)) < folds:
        return None, None
    scores = np.zeros((max_rules + 1, len(y)))
    for fit_rows, check_rows in stratified_folds(y, folds, random_state):
        if deadline is not None and deadline.expired():
            return None, None
        fold_list = searches.fit_list(fit_rows, max_rules)
        scores[:, check_rows] = _held_out(fold_list, max_rules, X[check_rows], y[check_rows],
                                          None if weight is None else weight[check_rows])
    if deadline is not None and deadline.expired():  # the last fold may have been cut short
        return None, None
    totals = scores.sum(axis=1)
    best = int(np.argmax(totals))
    for k in range(best + 1):  # the shortest prefix within one standard error of the best
        difference = scores[best] - scores[k]
        if difference.sum() <= np.sqrt(len(difference)) * difference.std():
            return k, totals
    return best, totals
