"""The same search on all but one fold of the training rows, on rows packed once.

Both held-out checks of a fitted list (``shrinkage``, ``crossfit``) split the training rows
into stratified folds and learn a list on each fold's complement with the search that learned
the list itself. ``FoldSearch`` runs those searches on the full search's ``SearchProblem``:
the packed literal columns are shared, and a fold's problem differs only in ``all_rows`` and
``positives`` (the fold's rows, packed as a mask), its row and positive counts and their
``xlogx`` table (and it has no feature names: its lists are only scored). No row is copied,
validated or packed again.

Why the masked problem is the same search as the fold's rows packed alone: every number a
grown-rule search (``grow``, ``hill``, ``beam``) reads is a count of rows inside its remainder
-- popcounts of ``literal & rows`` and ``literal & positives`` -- and its remainder starts at
``all_rows`` and only loses rows (``Remainder.without``), so a bit of a literal column outside
the fold is ANDed away before anything counts it. Where a search compares row sets (rules and
beam members distinct in the rows they cover), two masked sets are equal exactly when the
fold's rows they hold are. The literals keep their indices, so ties go the same way. Hence
the same counts, the same floats, the same rules and rates (``tests/lists/test_folds.py``
checks it against packing the fold's rows alone). Two problems are not masked: enumerated
candidates (``rule_search="enumerate"`` or explicit ``conditions``) are filtered by their
support over all packed rows, and weighted counts are float sums whose order the mask could
change; those folds pack their rows alone, as before.

``stratified_folds`` is scikit-learn's ``StratifiedKFold(folds, shuffle=True,
random_state=...)`` in a few numpy calls (the same folds for the same seed, and the same draws
from a ``RandomState`` passed in; tested against scikit-learn), without its input checks,
which cost more than a small table's searches.
"""

from __future__ import annotations

import numbers
import threading
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from occamlearn.lists.bits import pack_rows, pack_vector, popcount_rows
from occamlearn.lists.cost import rule_cost
from occamlearn.lists.grow import COMPILED_MAX_WORDS
from occamlearn.lists.levels import SIGN, CompiledLevels, levels_of
from occamlearn.lists.problem import SearchProblem

__all__ = ["FoldSearch", "RegionGrid", "fold_numbers", "stratified_folds"]

# The options of ``learn_decision_list`` that shape the problem, not the search.
_PROBLEM_OPTIONS = ("min_conjunction", "max_conjunction", "conditions")


def stratified_folds(y, folds: int, random_state=None) -> list:
    """(fit rows, held-out rows) index arrays of each of ``folds`` stratified folds of the
    labels ``y``, shuffled with ``random_state``: what ``StratifiedKFold(folds, shuffle=True,
    random_state=random_state).split(X, y)`` yields. Every class needs at least ``folds``
    rows (the callers check)."""
    fold_of = fold_numbers(y, folds, random_state)
    return [(np.flatnonzero(fold_of != i), np.flatnonzero(fold_of == i))
            for i in range(folds)]


def fold_numbers(y, folds: int, random_state=None) -> np.ndarray:
    """The held-out fold of each row in ``stratified_folds(y, folds, random_state)``."""
    y = np.asarray(y)
    encoded = _by_first_appearance(y)
    counts = tuple(np.bincount(encoded).tolist())
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        dealt = _dealt_for_seed(random_state, folds, counts)
    else:
        dealt = _dealt(check_random_state(random_state), folds, counts)
    test_folds = np.empty(len(y), dtype=np.int64)
    for k, for_class in enumerate(dealt):
        test_folds[encoded == k] = for_class
    return test_folds


def _dealt(rng, folds: int, counts) -> list:
    """The folds dealt to the rows of each class, in row order, for classes of ``counts``
    rows (in order of first appearance), shuffled by ``rng`` as scikit-learn shuffles them.

    scikit-learn deals the sorted labels round robin: fold i gets positions i, i + folds,
    ... of them, so class k (positions start .. end - 1) gives fold i the positions
    congruent to i in that range, max(0, ceil((end - i) / folds)) less the same of start
    (Python ints: a few classes and folds cost less so than as arrays)."""
    every = np.arange(folds)
    dealt = []
    start = 0
    for count in counts:
        end = start + count
        for_class = every.repeat([max(0, (end - i + folds - 1) // folds)
                                  - max(0, (start - i + folds - 1) // folds)
                                  for i in range(folds)])
        rng.shuffle(for_class)
        dealt.append(for_class)
        start = end
    return dealt


@lru_cache(maxsize=256)
def _dealt_for_seed(seed, folds: int, counts: tuple) -> tuple:
    """``_dealt`` by a new ``RandomState(seed)``, kept per (seed, folds, class counts), as
    read-only arrays.

    Why kept: the folds depend on nothing else (the rows of each class are dealt in row
    order), and refits meet the same class counts again (the splits of one table,
    cross-validation, a grid search), while seeding a generator and its two shuffles took
    35-55 us of CPU per fit of a small table after another library's fit had cooled the
    caches. The generator is this thread's, re-seeded (``seed`` resets its state as the
    constructor does, without drawing the entropy a new generator's initial state takes);
    nothing reads its state after the draws, so a kept answer is the drawn one."""
    rng = getattr(_generators, "rng", None)
    if rng is None:
        rng = _generators.rng = np.random.RandomState()
    rng.seed(seed)
    dealt = _dealt(rng, folds, counts)
    for for_class in dealt:
        for_class.flags.writeable = False
    return tuple(dealt)


def _by_first_appearance(y) -> np.ndarray:
    """Each label's class number, classes numbered in the order they first appear."""
    other = y != y[0]
    rest = y[other]
    if not len(rest) or (rest == rest[0]).all():  # one or two classes: no sort needed
        return other.astype(np.int64)
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse.ravel()]


_generators = threading.local()


class FoldSearch:
    """The search ``options`` (``learn_decision_list``'s keywords but ``max_rules``) on
    subsets of the rows of ``problem``, the packed ``X_bin`` / ``labels`` / ``weight``."""

    def __init__(self, problem: SearchProblem, X_bin, labels, weight, options: dict):
        self.problem, self.X, self.labels, self.weight = problem, X_bin, labels, weight
        self.options = options
        self.masked = (problem.weight is None and problem.conditions is None
                       and options.get("rule_search", "enumerate") != "enumerate")

    @classmethod
    def on(cls, X_bin, labels, weight=None, **options) -> FoldSearch:
        """``FoldSearch`` over ``X_bin`` packed by ``problem.prepare`` with ``options``."""
        from occamlearn.lists import prepare

        problem = prepare(X_bin, labels, options.get("min_conjunction", 1),
                          options.get("max_conjunction", 1), options.get("min_support", 1),
                          options.get("conditions"), None, weight)
        return cls(problem, np.asarray(X_bin), np.asarray(labels), weight, options)

    def fit_list(self, rows, max_rules: int):
        """The list the search learns on the training rows ``rows`` (indices)."""
        from occamlearn.lists import learn_decision_list, search_problem

        if not self.masked:
            return learn_decision_list(
                self.X[rows], self.labels[rows], max_rules=max_rules,
                sample_weight=None if self.weight is None else self.weight[rows],
                **self.options).decision_list
        search = {k: v for k, v in self.options.items() if k not in _PROBLEM_OPTIONS}
        return search_problem(self._masked(rows), max_rules=max_rules,
                              **search).decision_list

    def fold_region_rates(self, fold_of, folds: int, max_rules: int, deadline=None):
        """For each fold i (the rows with ``fold_of == i`` held out), what its held-out
        check needs of the list the search learns on the other rows: the rows of each of
        the list's regions (rules, then the default), their rates (its ``probabilities``),
        and the held-out rows reaching each region and their positives (``region_counts``),
        as four float64 arrays; None when ``deadline`` passes before every fold is
        searched (it is read before each)."""
        grid = self.fold_region_grid(fold_of, folds, max_rules, deadline)
        return None if grid is None else grid.folds()

    def fold_region_grid(self, fold_of, folds: int, max_rules: int, deadline=None):
        """``fold_region_rates`` as one ``RegionGrid`` (fold i in row i), or None."""
        if deadline is not None and deadline.expired():
            return None
        climbed = self._climbed(fold_of, folds, max_rules)
        if climbed is not None:
            return climbed
        rates = []
        for i in range(folds):
            if i and deadline is not None and deadline.expired():
                return None
            fit_rows, check_rows = np.flatnonzero(fold_of != i), np.flatnonzero(fold_of == i)
            fold_list = self.fit_list(fit_rows, max_rules)
            n = np.array([r.n_covered for r in fold_list.rules] + [fold_list.n_default], float)
            rates.append((n, fold_list.probabilities,
                          *self.region_counts(fold_list, check_rows)))
        return RegionGrid.of(rates)

    def _climbed(self, fold_of, folds: int, max_rules: int):
        """``fold_region_grid`` from one compiled call (``level_kernels.climb_folds``)
        instead of a Python hill climb, a ``DecisionList`` and ``region_counts`` per fold;
        None where that call would not be the same search: a list beam, a rule search
        other than the beam, the numpy engine, or so many packed words that the climbs
        (which cannot look at the deadline) could do more work than ``COMPILED_MAX_WORDS``
        lets one compiled rule do.

        Why the same numbers: ``hill.hill_climb`` with a compiled rule search calls
        ``grow_best`` on its remainder for each rule (``grow._compiled_best``) and stops when
        the remainder is pure, none is found or ``max_rules`` are; the kernel runs that loop
        with the same arguments (``search_problem``'s cost, ``problem.xlogx`` of the fold's
        rows, the monotone constraint from the second rule on), and the rates are the
        quotients ``make_list`` forms, in float64 as Python's ints divide."""
        options, problem = self.options, self.problem
        direction = options.get("direction", "positive")
        if not self.masked or options.get("search", "hill") != "hill" \
                or options.get("rule_search") != "beam" or direction not in SIGN \
                or folds * max(max_rules, 1) * problem.literals.size > COMPILED_MAX_WORDS:
            return None
        levels = levels_of(problem, options.get("deadline"))
        if not isinstance(levels, CompiledLevels):
            return None
        held_out = pack_rows(fold_of[None] == np.arange(folds)[:, None])
        fit = problem.all_rows & ~held_out
        positive_rows = np.asarray(self.labels) == 1
        n_rows = len(fold_of) - np.bincount(fold_of, minlength=folds)
        n_positive = int(positive_rows.sum()) - np.bincount(fold_of[positive_rows],
                                                             minlength=folds)
        # fold i's CountXLogX(n_rows[i]).table, zeros after it: a prefix of the problem's
        # own table of all its rows (xlogx is elementwise, so the first n + 1 entries of
        # any longer table are CountXLogX(n).table)
        whole = problem.xlogx.table[:int(n_rows.max()) + 1]
        tables = np.where(np.arange(len(whole))[None] <= n_rows[:, None], whole[None], 0.0)
        cost = rule_cost(problem.n_features, options.get("penalty"))
        k, covered, positive, rest, held, held_positive = levels.kernels.climb_folds(
            problem.literals, fit, held_out, problem.positives, n_rows, n_positive, tables,
            SIGN[direction], float(options.get("min_support", 1)),
            float(options.get("min_gain", 1e-8)), cost.costs, bool(cost),
            problem.min_conjunction, min(problem.max_conjunction, problem.n_features),
            bool(options.get("monotone", False) and direction is not None),
            int(options.get("rule_beam_width", 5)), int(max_rules))
        return _fold_grid(k, covered, positive, rest, held, held_positive, n_rows, n_positive)

    def _row_mask(self, rows) -> np.ndarray:
        """The rows ``rows`` (indices) as a packed mask over the problem's rows."""
        inside = np.zeros(len(self.labels), dtype=bool)
        inside[rows] = True
        return pack_vector(inside)

    def _masked(self, rows) -> SearchProblem:
        problem = self.problem
        mask = self._row_mask(rows)
        positives = problem.positives & mask
        n_rows, n_positive = popcount_rows(np.stack([mask, positives]))
        # no feature names: a fold's lists are scored, never shown, and a DecisionList
        # checks its names (a str of each) at every construction
        return SearchProblem(int(n_rows), int(n_positive), mask, positives, problem.literals,
                             problem.n_features, (), problem.min_conjunction,
                             problem.max_conjunction, problem.min_support)

    def region_counts(self, decision_list, rows):
        """(rows, positives) of the rows ``rows`` (indices) reaching each rule of
        ``decision_list``, then its default, as float64 (totals of the weights when the
        search is weighted)."""
        k = len(decision_list.rules)
        if self.weight is not None:
            fired = decision_list.apply(self.X[rows])
            region = np.where(fired == -1, k, fired)
            w = self.weight[rows]
            return (np.bincount(region, weights=w, minlength=k + 1),
                    np.bincount(region, weights=w * (self.labels[rows] == 1), minlength=k + 1))
        left = self._row_mask(rows)
        literals = self.problem.literals
        sets = np.empty((2 * (k + 1), len(left)), dtype=np.uint64)
        for r, rule in enumerate(decision_list.rules):
            covered = left.copy()
            for f in rule.features:
                covered &= literals[f]
            sets[2 * r] = covered
            left &= ~covered
        sets[2 * k] = left
        sets[1::2] = sets[0::2] & self.problem.positives
        counts = popcount_rows(sets).astype(np.float64)
        return counts[0::2], counts[1::2]


class RegionGrid(NamedTuple):
    """``fold_region_rates`` of every fold in four (folds, width) float64 arrays: fold i's
    regions in the first ``sizes[i]`` columns of row i (its rules, then its default), zeros
    after them. ``held_out_scores`` scores all folds' regions in one pass over it."""

    rows: np.ndarray  # the rows of each region on the fold's fit rows
    rates: np.ndarray  # their rates, as the fold's list states them
    held: np.ndarray  # the held-out rows reaching each region
    held_positive: np.ndarray  # and their positives
    sizes: list  # regions of each fold (Python ints)
    # each fold's rate of its fit rows as ``shrinkage.fold_base_rates`` gives it, where the
    # rows are unweighted and counted (``_fold_grid``), else None
    fit_rates: np.ndarray | None = None

    def folds(self) -> list:
        """Fold i's four arrays, each a view of row i's first ``sizes[i]`` columns."""
        return [(self.rows[i, :size], self.rates[i, :size], self.held[i, :size],
                 self.held_positive[i, :size]) for i, size in enumerate(self.sizes)]

    @classmethod
    def of(cls, rates) -> RegionGrid:
        """The grid of ``fold_region_rates``' list (each fold's four arrays)."""
        sizes = [len(part[0]) for part in rates]
        grids = np.zeros((4, len(rates), max(sizes, default=0)))
        for i, part in enumerate(rates):
            grids[:, i, :sizes[i]] = part
        return cls(*grids, sizes)


def _fold_grid(k, covered, positive, rest, held, held_positive, n_rows,
               n_positive) -> RegionGrid:
    """``climb_folds``' counts as a ``RegionGrid``: for fold i, the rows of its ``k[i]``
    rules and its default (``rest[i, 0]``) and their rates as ``make_list`` forms them (a
    rule's positives over its rows; the default's, or with no row left the fold's base
    rate), and the held-out rows and positives of each region, as float64, in the first
    ``k[i] + 1`` columns (as many columns as the longest fold needs), and each fold's rate
    of its ``n_rows`` fit rows (``n_positive`` positives; 0.5 without a row, as
    ``shrinkage.fold_base_rates``). All folds in a few array operations. The counts are
    below 2 ** 53, so float64 holds them and each quotient is the correctly rounded one
    that Python's division of the two ints gives."""
    folds = covered.shape[0]
    width = int(k.max()) + 1
    most = width - 1
    counts = np.zeros((folds, width))
    counts[:, :most] = covered[:, :most]
    # a rule covers a row, so only the columns past k hold no row, and no positive there:
    # 0 / 1 = 0.0 (a division by ``where`` cost twice as much)
    rates = np.zeros((folds, width))
    rates[:, :most] = positive[:, :most] / np.maximum(covered[:, :most], 1)
    n_rest, pos_rest = rest[:, 0], rest[:, 1]
    fit_rate = n_positive / np.maximum(n_rows, 1)
    default = np.where(n_rest > 0, pos_rest / np.maximum(n_rest, 1), fit_rate)
    every = np.arange(folds)
    counts[every, k] = n_rest
    rates[every, k] = default
    return RegionGrid(counts, rates, held[:, :width].astype(np.float64),
                      held_positive[:, :width].astype(np.float64), (k + 1).tolist(),
                      np.where(n_rows > 0, fit_rate, 0.5))
