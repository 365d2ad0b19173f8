"""What a decision-list search returns: the learned list plus its training trace.

``SearchResult.decision_list`` is the plain ``DecisionList`` model; the result adds what only
the search knows: the log-likelihood after each step (``log_likelihoods[k]`` is the list with
k rules, so entry 0 is the default-only list -- the paper's Fig. 1), the direction searched,
and ``stop_reason``, why the list is not longer:

* ``"max_rules"`` -- it reached ``max_rules``;
* ``"pure"`` -- the rows no rule covers all have one label, nothing can be gained;
* ``"min_support"`` -- no candidate covers at least ``min_support`` of the remaining rows
  (without covering all of them);
* ``"min_gain"`` -- no allowed candidate raises the log-likelihood by more than ``min_gain``;
* ``"monotone"`` -- candidates in the direction would help, but none keeps the rule
  probabilities monotone (Sec. III-A: greedy search often cannot extend such lists);
* ``"penalty"`` -- rules would raise the likelihood, but none by more than its description
  cost (``cost.RuleCost``): the list length chosen on the data;
* ``"time_limit"`` -- the deadline passed; the list is the best found in time;
* ``"outscored"`` -- abandoned because it could no longer beat the other direction's list
  (only a losing list of direction "both" stops so; it is never the answer).

``costs[k]`` is the description cost of rule k (0 without a penalty), so the penalised
log-likelihood that chose the list is ``log_likelihood - sum(costs)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from occamlearn.model.decision_list import DecisionList, Rule, counted_list

__all__ = ["STOP_REASONS", "SearchResult"]

STOP_REASONS = ("max_rules", "pure", "min_support", "min_gain", "monotone", "penalty",
                "time_limit", "outscored")


@dataclass(frozen=True)
class SearchResult:
    """A learned list, the log-likelihood after each step and why the search stopped."""

    decision_list: DecisionList
    log_likelihoods: tuple
    direction: object
    stop_reason: str
    search: str
    costs: tuple = ()

    @property
    def log_likelihood(self) -> float:
        """Training log-likelihood of the final list."""
        return self.log_likelihoods[-1]

    @property
    def penalised_log_likelihood(self) -> float:
        """``log_likelihood`` minus the rules' description costs (what "both" compares)."""
        return self.log_likelihood - sum(self.costs)

    @property
    def rules(self) -> tuple:
        return self.decision_list.rules


def make_list(problem, chosen, n_rest, pos_rest, mode: str, direction) -> DecisionList:
    """DecisionList from the ``Found`` rules ``chosen`` and the remainder's (n, pos).

    With a weighted problem the counts are weights: the probabilities are weighted
    frequencies (``DecisionList.weighted``), while the rules' ``n_covered`` / ``n_positive``
    (and the default's) count the rows themselves."""
    default = pos_rest / n_rest if n_rest else (problem.n_positive / max(problem.n_rows, 1))
    target = 0 if direction == "negative" else 1
    if problem.weight is None:
        return counted_list([(f.literals, f.covered, f.positive) for f in chosen], n_rest,
                            pos_rest, default, problem.n_features, problem.feature_names,
                            mode, target)
    rows = problem.all_rows.copy()
    rules = []
    for f in chosen:
        n_rows, n_pos = problem.row_counts(f.rows, f.rows & problem.positives)
        rules.append(Rule(f.literals, min(max(f.positive / f.covered, 0.0), 1.0), n_rows,
                          n_pos))
        rows &= ~f.rows
    n_default, n_default_positive = problem.row_counts(rows, rows & problem.positives)
    return DecisionList(tuple(rules), min(max(default, 0.0), 1.0), problem.n_features,
                        n_default, n_default_positive, problem.feature_names, mode, target,
                        weighted=True)
