"""Rates that rows outside the search confirm: shrinkage chosen on held-out folds.

A list's rate p_k is the positive share of the training rows its rule covers. But the rule
was chosen among many conditions because the rate of its rows stands out, so on rows the
search has not seen the same region's rate lies closer to the rate of the whole table (the
winner's curse; regression to the mean). On a small table the difference flips predictions:
on hepa, a default region of 17 training rows at rate 0.18 held 64 % positives among the test
rows; on spect, regions at 0.39-0.54 held 0.44-0.54. The description-length charge (``cost``)
does not see it -- those rules are not noise, their rates are overstated.

So a list states p'_k = b + lambda (p_k - b) for every rule and its default, b the training
rate of all rows and lambda in (0, 1] one factor for the whole list: Copas's shrinkage of a
fitted predictor (*Regression, prediction and shrinkage*, 1983), its factor estimated by
cross-validation as van Houwelingen and le Cessie estimate theirs (*Predictive value of
statistical models*, 1990). The training rows are split into ``folds`` stratified folds
(shuffled with ``random_state``, so the factor is deterministic). On each fold the same
search, in the list's direction and at most as long, learns a list on the other folds; each
held-out row gets its region's rate shrunk by lambda toward the fold's training rate (the
fold list's rate with one pseudo-row of each class, (positives + 1) / (rows + 2), Laplace, so
a pure region meeting a row of the other label costs a finite amount); the factor kept is the
grid value (``SHRINKAGE_GRID``, steps of 0.05) with the largest summed held-out
log-likelihood, ties to the larger. Every row is held out once, so the factor measures how far
this search's rates overstate themselves on rows it did not see -- a property of the search
on this table, which the list learned on all rows shares.

Why one affine map toward b: it keeps the list directional (and monotone). p'_k and the pooled
stated rate of the rows after rule k are the same affine image of p_k and p_{>k}, so eq. (1)
holds after as before, with no rule to re-check. And the amount comes from the data: fixed
m-estimates (m = 1..8) moved hepa and spect by at most 0.7 points and lost mux6 at m = 8
(``benchmarks/results/dlist_selection_bias.md``), where the factor is 1 on corral, monks-1,
monks-3 and tic-tac-toe, 0.75-1 on mux6 (whose fold lists, on 66 rows, miss part of the
concept; its rates stay on their side of 0.5) and 0.45-0.65 on hepa and spect (5 splits each).

What it changes: the stated probabilities, and through them the predictions; no rule and no
length (``log_likelihood_`` stays the training one). What it costs: ``folds`` more searches,
each in one direction on (folds - 1) / folds of the rows, stopped at the list's length, on the
rows the full search packed (``folds.FoldSearch``); a list of no rules needs none.
``DecisionListClassifier`` uses 5 folds on tables of at most ``SHRINKAGE_MAX_ROWS`` rows: on
3 folds the fold lists, learned on two thirds of the rows,
understate the rules of the smallest tables (measured in
``benchmarks/results/dlist_accuracy_shrunk_30splits.md``); above 10,000 rows the folds cost
seconds while a region's rate rests on enough rows that its overstatement is small.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occamlearn.lists.folds import RegionGrid, fold_numbers

__all__ = ["SHRINKAGE_FOLDS", "SHRINKAGE_GRID", "SHRINKAGE_MAX_ROWS", "shrinkage_factor",
           "shrunk"]

# The factors tried, in steps of 0.05 (a finer step moves a rate by less than one row's share
# on the tables where shrinking matters), never 0: a list shrunk to nothing would state one
# rate for every row and lose the order of its regions (its ROC curve).
SHRINKAGE_GRID = np.round(np.linspace(0.05, 1.0, 20), 2)
# DecisionListClassifier's default (module docstring).
SHRINKAGE_FOLDS = 5
SHRINKAGE_MAX_ROWS = 10_000


def _base_rate(y, weight) -> float:
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=np.float64)
    total = float(w.sum())
    return float(np.dot(w, np.asarray(y) == 1) / total) if total > 0 else 0.5


def shrinkage_factor(searches, max_rules: int, folds: int, random_state=None, deadline=None):
    """The factor lambda in ``SHRINKAGE_GRID`` whose shrunk rates give the held-out rows the
    largest log-likelihood (ties to the larger factor), and that log-likelihood per factor;
    (None, None) when the deadline passes first or a class has fewer rows than ``folds``.

    ``searches`` (``folds.FoldSearch``) learns a list on the training rows of each fold and
    counts the held-out rows of each of its regions (``fold_region_rates``).
    On each fold the list learned on the other folds states, for each of its regions,
    b + lambda (t - b): t the region's training rate with one pseudo-row of each class
    (Laplace), b the rate of all the rows it was learned on.
    """
    y, weight = np.asarray(searches.labels), searches.weight
    if max_rules == 0 or np.min(np.bincount(y, minlength=2)) < folds:
        return None, None
    fold_of = fold_numbers(y, folds, random_state)
    rates = searches.fold_region_grid(fold_of, folds, max_rules, deadline)
    if rates is None:
        return None, None
    bases = rates.fit_rates
    if bases is None:
        bases = fold_base_rates(y, weight, fold_of, folds)
    scores = held_out_scores(rates, bases)
    if deadline is not None and deadline.expired():  # the last fold may have been cut short
        return None, None
    best = len(scores) - 1 - int(np.argmax(scores[::-1]))
    return float(SHRINKAGE_GRID[best]), scores


def fold_base_rates(y, weight, fold_of, folds: int) -> list[float]:
    """b of each fold: ``_base_rate`` of the rows not held out in it. Unweighted, from the
    rows and positives each fold holds out: ``_base_rate`` then divides two sums of 0/1
    values, which float64 holds exactly (below 2 ** 53), so the quotient of the two counts is
    the same float."""
    if weight is not None:
        return [_base_rate(y[fold_of != i], weight[fold_of != i]) for i in range(folds)]
    held = np.bincount(fold_of, minlength=folds)
    held_positive = np.bincount(fold_of[y == 1], minlength=folds)
    fit, fit_positive = len(y) - held, int(np.count_nonzero(y == 1)) - held_positive
    return [float(p) / float(n) if n > 0 else 0.5 for n, p in zip(fit.tolist(),
                                                                  fit_positive.tolist())]


def held_out_scores(rates, bases) -> np.ndarray:
    """The held-out log-likelihood of each factor of ``SHRINKAGE_GRID``, summed over the
    folds: fold i's ``rates`` entry (rows and rate of each region on its fit rows, held-out
    rows and positives reaching it; a ``folds.RegionGrid`` or ``fold_region_rates``' list)
    with its base rate ``bases[i]``.

    The regions of every fold are scored in one pass of array operations over the grid
    (fold i in row i, zeros after its regions) rather than one per fold. Each element's
    value is the same arithmetic on the same operands as fold by fold (b + lambda (t - b),
    then the two logs of contiguous arrays); a padding cell has no held-out row, so its term
    is 0 * log(q) + 0 * log1p(-q) = -0.0 (q lies strictly inside (0, 1): t does, b in [0, 1],
    lambda in (0, 1]), which leaves any sum it joins unchanged. Fold by fold, each fold's
    terms summed as a contiguous (factors, regions) array, numpy adds fewer than 8 values
    one by one, left to right (its pairwise summation starts only at 8), so where no fold
    has more than ``_ADDED_IN_ORDER`` regions the columns are added left to right here;
    otherwise each fold's terms are copied to a contiguous array of its own shape and
    summed as before. Either way every fold's sum and the running total over the folds are
    the same floats."""
    grid = rates if isinstance(rates, RegionGrid) else RegionGrid.of(rates)
    n, p, rows, positives = grid.rows, grid.rates, grid.held, grid.held_positive
    b = np.asarray(bases, dtype=np.float64)[:, None]
    t = (p * n + 1.0) / (n + 2.0)
    q = b + SHRINKAGE_GRID[:, None, None] * (t - b)
    terms = positives * np.log(q) + (rows - positives) * np.log1p(-q)
    scores = np.zeros(len(SHRINKAGE_GRID))
    if terms.shape[2] <= _ADDED_IN_ORDER:
        fold_sums = terms[:, :, 0]
        for column in range(1, terms.shape[2]):
            fold_sums = fold_sums + terms[:, :, column]
        for i in range(len(grid.sizes)):
            scores += fold_sums[:, i]
        return scores
    for i, size in enumerate(grid.sizes):
        scores += np.ascontiguousarray(terms[:, i, :size]).sum(axis=1)
    return scores


# The most values numpy's sum adds one by one, in order (``held_out_scores``).
_ADDED_IN_ORDER = 7


def shrunk(decision_list, factor: float, y, weight=None):
    """``decision_list`` stating b + ``factor`` (p - b) for each of its probabilities p, b the
    rate of the training labels ``y`` (weighted by ``weight``); its ``shrinkage`` records
    ``factor``. A factor in [0, 1] keeps a directional (or monotone) list so: p_k and the
    pooled rate of the rows after it move by the same affine map."""
    if factor == 1.0:
        return decision_list
    b = _base_rate(y, weight)
    rules = tuple(replace(r, probability=min(max(b + factor * (r.probability - b), 0.0), 1.0))
                  for r in decision_list.rules)
    default = min(max(b + factor * (decision_list.default_probability - b), 0.0), 1.0)
    return replace(decision_list, rules=rules, default_probability=default, shrinkage=factor)
