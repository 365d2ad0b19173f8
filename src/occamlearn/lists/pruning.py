"""Rules grown on some rows and pruned on others (after Cohen's RIPPER / IREP), in likelihood
terms.

The training rows are split once, stratified and shuffled with ``random_state``, into a grow
part (``grow_share``, two thirds by default) and a prune part. The list is built greedily as
in ``hill``: the next rule's condition is found on the grow rows no earlier rule covers, by
the same rule search, direction, constraints and description charge. Then, before it joins
the list, its literals are pruned on the prune rows no earlier rule covers:

* a condition c is scored by its *held-out gain*: the log-likelihood, on those prune rows, of
  the two-region model (c's rows, the rest) minus that of the one-region model (the
  remainder), every rate estimated on the grow rows only, with one pseudo-row of each class
  ((positives + 1) / (rows + 2), Laplace), so a pure grow region meeting a prune row of the
  other label costs a finite amount. This is the gain of Goessling and Kang's list
  likelihood, measured on rows that took no part in choosing c -- where RIPPER scores
  (p - n) / (p + n), the precision of a rule for one class, a probabilistic list is judged by
  the likelihood it states;
* literals are removed one at a time, each time the one whose removal raises the held-out
  gain most, while that gain does not fall (ties go to the shorter condition); a condition
  whose grow rates break the direction (eq. (1)) is never a candidate;
* the list stops (``stop_reason`` "held_out") when the pruned rule's held-out gain is not
  positive: it would make the prune rows less likely.

The grow rows alone choose conditions; the rules' probabilities are then re-estimated on all
training rows. Those may break the direction where a grow rate did not, so the list keeps its
longest prefix whose all-row rates satisfy the direction (and ``monotone``): a prefix of a
directional list is directional, because p_{>k} does not depend on the rules after k.

What it costs: one search on two thirds of the rows, plus a pass over the prune rows per
literal removed. What it risks: conditions found on two thirds of the rows, so concepts
that need every row to be seen (the multiplexer's 64 rows) may be found less often; which
tables gain and lose is measured in ``benchmarks/results/dlist_accuracy_grow_prune.md``.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

from occamlearn.lists.cost import rule_cost
from occamlearn.lists.find import next_rules
from occamlearn.lists.hill import constrained, start
from occamlearn.lists.likelihood import allowed, region_log_likelihood
from occamlearn.lists.problem import prepare
from occamlearn.lists.result import SearchResult
from occamlearn.lists.rules import Found, RuleSearch
from occamlearn.model.decision_list import DecisionList, Rule

__all__ = ["grow_and_prune", "held_out_gain", "split_rows"]

_SIGN = {"positive": 1, "negative": -1, None: 0}
_FLAGS = {"prune": True, "stop": True}


def split_rows(y, grow_share: float, random_state) -> tuple[np.ndarray, np.ndarray] | None:
    """(grow rows, prune rows), stratified on ``y`` and shuffled with ``random_state``; None
    when a class has fewer than 2 rows (no split keeps both classes on both sides)."""
    y = np.asarray(y)
    if np.min(np.bincount(y, minlength=2)) < 2:
        return None
    grow, prune = train_test_split(np.arange(len(y)), train_size=grow_share, stratify=y,
                                   random_state=random_state)
    return np.sort(grow), np.sort(prune)


def _laplace(n, pos):
    return (pos + 1.0) / (n + 2.0)


def _log_likelihood(rate, n, pos):
    return pos * np.log(rate) + (n - pos) * np.log1p(-rate)


def held_out_gain(grow_counts, rest_counts, prune_counts, prune_rest_counts) -> float:
    """The held-out gain of a condition: ``grow_counts`` = (rows, positives) it covers among
    the grow remainder, ``rest_counts`` those it leaves; ``prune_*`` the same on the prune
    remainder (totals or weights). Laplace rates from the grow rows."""
    (n_c, pos_c), (n_r, pos_r) = grow_counts, rest_counts
    (m_c, q_c), (m_r, q_r) = prune_counts, prune_rest_counts
    split = (_log_likelihood(_laplace(n_c, pos_c), m_c, q_c)
             + _log_likelihood(_laplace(n_r, pos_r), m_r, q_r))
    pooled = _log_likelihood(_laplace(n_c + n_r, pos_c + pos_r), m_c + m_r, q_c + q_r)
    return float(split - pooled)


class _Side:
    """One part of the rows as the pruning reads it: the rows no rule covers yet (a mask),
    their labels and weights."""

    def __init__(self, X, y, weight):
        self.X, self.y = X.astype(bool, copy=False), np.asarray(y, dtype=bool)
        self.weight = np.ones(len(self.y)) if weight is None else np.asarray(weight, float)
        self.left = np.ones(len(self.y), dtype=bool)

    def counts(self, literals):
        """((rows, positives) covered, (rows, positives) not covered) among ``left``."""
        hit = self.left & np.all(self.X[:, list(literals)], axis=1)
        miss = self.left & ~hit
        w, wy = self.weight, self.weight * self.y
        return (w[hit].sum(), wy[hit].sum()), (w[miss].sum(), wy[miss].sum())

    def cover(self, literals):
        self.left &= ~np.all(self.X[:, list(literals)], axis=1)


def _prune(literals, grow: _Side, prune: _Side, direction, min_support):
    """The literals kept and their held-out gain (module docstring)."""
    def score(lits):
        covered, rest = grow.counts(lits)
        n, pos = covered[0] + rest[0], covered[1] + rest[1]
        if not allowed(np.array(covered[0]), np.array(covered[1]), n, pos, direction,
                       min_support):
            return -np.inf
        return held_out_gain(covered, rest, *prune.counts(lits))

    best, best_score = tuple(literals), score(literals)
    while len(best) > 1 and _FLAGS["prune"]:
        options = [tuple(x for x in best if x != drop) for drop in best]
        scores = [score(o) for o in options]
        i = int(np.argmax(scores))
        if scores[i] < best_score:
            break
        best, best_score = options[i], scores[i]
    return best, best_score


def _valid_prefix(rates, direction, monotone) -> int:
    """The most rules whose rates ``rates`` (rules then the default's rate after each prefix)
    keep the direction and ``monotone``."""
    sign = _SIGN[direction]
    rule_rates, rest_rates = rates
    for k, (p_k, p_rest) in enumerate(zip(rule_rates, rest_rates)):
        if sign and sign * (p_k - p_rest) < -1e-12:
            return k
        if monotone and sign and k and sign * (rule_rates[k - 1] - p_k) < -1e-12:
            return k
    return len(rule_rates)


def _final_list(conditions, X, y, weight, direction, monotone, mode, feature_names):
    """The list of ``conditions`` with rates on all rows, cut to its directional prefix."""
    side = _Side(X, y, weight)
    rules, rest_rates = [], []
    for lits in conditions:
        (n, pos), (n_rest, pos_rest) = side.counts(lits)
        hit = side.left & np.all(side.X[:, list(lits)], axis=1)
        rules.append((lits, pos / n, int(hit.sum()), int((hit & side.y).sum())))
        rest_rates.append(pos_rest / n_rest if n_rest else pos / n)
        side.cover(lits)
    k = _valid_prefix(([r[1] for r in rules], rest_rates), direction, monotone)
    side = _Side(X, y, weight)
    for lits, *_ in rules[:k]:
        side.cover(lits)
    w = side.weight[side.left]
    n_rest, pos_rest = w.sum(), (w * side.y[side.left]).sum()
    total = side.weight.sum()
    default = pos_rest / n_rest if n_rest else (side.weight * side.y).sum() / max(total, 1e-300)
    target = 0 if direction == "negative" else 1
    kept = tuple(Rule(lits, min(max(p, 0.0), 1.0), n, pos) for lits, p, n, pos in rules[:k])
    return DecisionList(kept, min(max(default, 0.0), 1.0), X.shape[1],
                        int(side.left.sum()), int((side.left & side.y).sum()),
                        () if feature_names is None else tuple(feature_names), mode, target, weighted=weight is not None)


def _list_log_likelihoods(decision_list, X, y, weight):
    """Training log-likelihood after 0, 1, ..., K rules (ML rates, as ``likelihood``)."""
    side = _Side(X, y, weight)
    out, rules_ll = [], 0.0
    for rule in decision_list.rules:
        out.append(rules_ll + float(region_log_likelihood(*_rest(side))))
        (n, pos), _ = side.counts(rule.features)
        rules_ll += float(region_log_likelihood(n, pos))
        side.cover(rule.features)
    out.append(rules_ll + float(region_log_likelihood(*_rest(side))))
    return tuple(out)


def _rest(side):
    w = side.weight[side.left]
    return w.sum(), (w * side.y[side.left]).sum()


def _one_direction(X, y, weight, rows, direction, options, deadline):
    grow_rows, prune_rows = rows
    cost = rule_cost(X.shape[1], options["penalty"])
    problem = prepare(X[grow_rows], y[grow_rows], 1, options["max_conjunction"],
                      options["min_support"], None, None,
                      None if weight is None else weight[grow_rows])
    search = constrained(RuleSearch(options["rule_search"], options["rule_beam_width"],
                                    cost=cost),
                         direction, options["min_support"], options["min_gain"],
                         options["monotone"])
    grow = _Side(X[grow_rows], y[grow_rows], None if weight is None else weight[grow_rows])
    prune = _Side(X[prune_rows], y[prune_rows], None if weight is None else weight[prune_rows])
    remainder, conditions, held_out, reason = start(problem), [], 0.0, "max_rules"
    while len(conditions) < options["max_rules"]:
        if deadline is not None and deadline.expired():
            reason = "time_limit"
            break
        choice = next_rules(problem, remainder, search, 1, deadline)
        if not choice.found:
            reason = choice.reason
            break
        literals, gain = _prune(choice.found[0].literals, grow, prune, direction,
                                  options["min_support"])
        if not gain > 0 and _FLAGS["stop"]:
            reason = "held_out"
            break
        rows = np.bitwise_and.reduce(problem.literals[list(literals)], axis=0) & remainder.rows
        covered, positive = problem.count(rows[None], remainder.rows, remainder.positives)
        remainder = remainder.without(Found(literals, rows, covered[0].item(),
                                            positive[0].item(), 0.0, 0.0))
        grow.cover(literals)
        prune.cover(literals)
        conditions.append(literals)
        held_out += gain
    return conditions, held_out, reason


def grow_and_prune(X, y, *, direction="positive", max_rules=10, max_conjunction=4,
                   min_support=1, min_gain=1e-8, monotone=False, mode="probabilistic",
                   rule_search="beam", rule_beam_width=5, penalty=1.0, sample_weight=None,
                   feature_names=None, grow_share=2 / 3, random_state=0,
                   deadline=None) -> SearchResult | None:
    """A list whose rules are grown on ``grow_share`` of the rows and pruned on the rest
    (module docstring); None when the rows cannot be split (a class with < 2 rows).
    ``direction="both"`` keeps the direction with the larger held-out gain (positive on
    ties)."""
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64)
    rows = split_rows(y, grow_share, random_state)
    if rows is None:
        return None
    options = {"max_rules": max_rules, "max_conjunction": max_conjunction,
               "min_support": min_support, "min_gain": min_gain, "monotone": monotone,
               "rule_search": rule_search, "rule_beam_width": rule_beam_width,
               "penalty": penalty}
    directions = ("positive", "negative") if direction == "both" else (direction,)
    found = [(_one_direction(X, y, sample_weight, rows, d, options, deadline), d)
             for d in directions]
    (conditions, _, reason), chosen = max(found, key=lambda f: f[0][1])
    decision_list = _final_list(conditions, X, y, sample_weight, chosen, monotone, mode,
                                feature_names)
    if len(decision_list.rules) < len(conditions):
        reason = "held_out"
    cost = rule_cost(X.shape[1], penalty)
    return SearchResult(decision_list, _list_log_likelihoods(decision_list, X, y,
                                                             sample_weight),
                        chosen, reason, "grow_prune",
                        tuple(cost(len(r.features)) for r in decision_list.rules))

