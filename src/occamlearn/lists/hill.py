"""Hill climbing for (directional) decision lists (Goessling and Kang, Sec. II-III).

At each step every candidate condition is scored as the next rule on the rows no earlier rule
covers (one vectorised popcount pass, ``bits.count_covered``), and the one with the largest
log-likelihood gain that satisfies the direction -- eq. (1), p_k >= p_{>k} for "positive" --
is appended: the paper's directed greedy search. ``direction=None`` is the general, undirected
list. Ties go to the candidate that comes first (smaller conditions, then lower indices).
"""

from __future__ import annotations

import numpy as np

from occamlearn.lists.likelihood import region_log_likelihood, score_extensions
from occamlearn.lists.result import SearchResult, make_list

__all__ = ["hill_climb", "stop_reason_for"]


def stop_reason_for(extensions, min_gain: float, n_rest: int, pos_rest: int):
    """Why no candidate can be appended (None if the best one can)."""
    best = float(extensions.gain.max()) if len(extensions.gain) else -np.inf
    if best > min_gain:
        return None
    if pos_rest == 0 or pos_rest == n_rest:
        return "pure"
    if not extensions.any_supported:
        return "min_support"
    if extensions.best_unmonotone > min_gain:
        return "monotone"
    return "min_gain"


def hill_climb(problem, direction="positive", max_rules: int = 10, min_support: int = 1,
               min_gain: float = 1e-8, monotone: bool = False,
               mode: str = "probabilistic") -> SearchResult:
    """Greedily append the best allowed rule until a stopping rule applies."""
    columns = problem.candidates.columns
    rows, positives = problem.all_rows.copy(), problem.positives.copy()
    n_rest, pos_rest = problem.n_rows, problem.n_positive
    chosen, previous, rules_ll = [], None, 0.0
    history = [float(region_log_likelihood(n_rest, pos_rest))]
    reason = "max_rules"
    while len(chosen) < max_rules:
        covered, positive = problem.count_covered(rows, positives)
        ext = score_extensions(covered, positive, n_rest, pos_rest, direction, min_support,
                               previous, monotone)
        reason = stop_reason_for(ext, min_gain, n_rest, pos_rest)
        if reason is not None:
            break
        best = int(np.argmax(ext.gain))
        n_c, pos_c = covered[best].item(), positive[best].item()
        chosen.append((best, n_c, pos_c))
        previous = (n_c, pos_c)
        rows &= ~columns[best]
        positives &= ~columns[best]
        n_rest, pos_rest = n_rest - n_c, pos_rest - pos_c
        rules_ll += float(region_log_likelihood(n_c, pos_c))
        history.append(rules_ll + float(region_log_likelihood(n_rest, pos_rest)))
    else:
        reason = "max_rules"
    return SearchResult(make_list(problem, chosen, n_rest, pos_rest, mode, direction),
                        tuple(history), direction, reason, "hill", len(problem.candidates))
