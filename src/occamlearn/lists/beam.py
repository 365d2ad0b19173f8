"""Beam search for (directional) decision lists (Goessling and Kang, Sec. II).

Each step extends every list in the beam by each of its ``beam_width`` best allowed rules
(the same scoring and constraints as ``hill.hill_climb``) and keeps the ``beam_width`` best
children by training log-likelihood. Of children leaving exactly the same rows uncovered (and,
with ``monotone``, ending in a rule of the same probability) only the best is kept: all their
continuations are the same, so the others can never win. A list that cannot be extended is set
aside as finished; the answer is the best list seen. With ``beam_width=1`` this is exactly hill
climbing (the paper, Sec. II; the tests check it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from occamlearn.lists.hill import stop_reason_for
from occamlearn.lists.likelihood import region_log_likelihood, score_extensions
from occamlearn.lists.result import SearchResult, make_list

__all__ = ["beam_search"]


@dataclass(frozen=True, eq=False)
class _Partial:
    chosen: tuple        # ((candidate, n_covered, n_positive), ...)
    rows: np.ndarray     # packed rows no rule covers
    positives: np.ndarray
    n_rest: int
    pos_rest: int
    rules_ll: float      # log-likelihood of the rule regions
    history: tuple       # log-likelihood after 0..k rules

    @property
    def log_likelihood(self) -> float:
        return self.history[-1]

    def extend(self, column, n_c: int, pos_c: int, candidate: int) -> _Partial:
        n_rest, pos_rest = self.n_rest - n_c, self.pos_rest - pos_c
        rules_ll = self.rules_ll + float(region_log_likelihood(n_c, pos_c))
        total = rules_ll + float(region_log_likelihood(n_rest, pos_rest))
        return _Partial(self.chosen + ((candidate, n_c, pos_c),), self.rows & ~column,
                        self.positives & ~column, n_rest, pos_rest, rules_ll,
                        self.history + (total,))


def _top(gain: np.ndarray, width: int, min_gain: float) -> np.ndarray:
    """Indices of the ``width`` largest gains above ``min_gain``, ties to lower indices."""
    valid = np.flatnonzero(gain > min_gain)
    if len(valid) > width:
        threshold = np.partition(gain[valid], len(valid) - width)[len(valid) - width]
        valid = valid[gain[valid] >= threshold]
    return valid[np.argsort(-gain[valid], kind="stable")[:width]]


def beam_search(problem, beam_width: int = 10, direction="positive", max_rules: int = 10,
                min_support: int = 1, min_gain: float = 1e-8, monotone: bool = False,
                mode: str = "probabilistic") -> SearchResult:
    """Best list found by a beam of ``beam_width`` partial lists."""
    if isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer)) \
            or beam_width < 1:
        raise ValueError(f"beam_width must be an int >= 1; got {beam_width!r}")
    columns = problem.candidates.columns
    n, pos = problem.n_rows, problem.n_positive
    root = _Partial((), problem.all_rows.copy(), problem.positives.copy(), n, pos, 0.0,
                    (float(region_log_likelihood(n, pos)),))
    beams, finished = [root], []
    while beams:
        children = []
        growing = [beam for beam in beams if len(beam.chosen) < max_rules]
        finished.extend((beam, "max_rules") for beam in beams if len(beam.chosen) >= max_rules)
        if growing:  # one pass over the candidate columns counts for every beam
            covered, positive = problem.count_covered(np.stack([b.rows for b in growing]),
                                                      np.stack([b.positives for b in growing]))
        for rank, beam in enumerate(growing):
            previous = beam.chosen[-1][1:] if beam.chosen else None
            ext = score_extensions(covered[rank], positive[rank], beam.n_rest, beam.pos_rest,
                                   direction, min_support, previous, monotone)
            reason = stop_reason_for(ext, min_gain, beam.n_rest, beam.pos_rest)
            if reason is not None:
                finished.append((beam, reason))
                continue
            for order, c in enumerate(_top(ext.gain, beam_width, min_gain)):
                child = beam.extend(columns[c], covered[rank, c].item(),
                                    positive[rank, c].item(), int(c))
                children.append((-child.log_likelihood, rank, order, child))
        children.sort(key=lambda item: item[:3])
        beams, seen = [], set()
        for *_, child in children:
            last = child.chosen[-1]
            key = (child.rows.tobytes(), last[2] / last[1] if monotone else None)
            if key not in seen:
                seen.add(key)
                beams.append(child)
            if len(beams) == beam_width:
                break
    best, reason = max(finished, key=lambda item: (item[0].log_likelihood, -len(item[0].chosen)))
    decision_list = make_list(problem, best.chosen, best.n_rest, best.pos_rest, mode, direction)
    return SearchResult(decision_list, best.history, direction, reason, f"beam{beam_width}",
                        len(problem.candidates))
