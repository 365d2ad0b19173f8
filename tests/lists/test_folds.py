"""The held-out folds' searches on the full search's packed rows (``lists.folds``): the same
folds as scikit-learn draws, and the same lists as searching each fold's rows packed alone."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from list_options import draw_list_options
from sklearn.model_selection import StratifiedKFold

from occamlearn.lists import learn_decision_list
from occamlearn.lists.folds import FoldSearch, stratified_folds
from occamlearn.lists.shrinkage import fold_base_rates


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(15, 120), folds=st.integers(2, 5),
       labels=st.sampled_from(["01", "10", "text", "three"]), instance=st.booleans())
def test_the_folds_are_scikit_learns(seed, n, folds, labels, instance):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
    y[:folds], y[folds:2 * folds] = 0, 1
    rng.shuffle(y)
    if labels == "10":
        y = 1 - y  # the class seen first is numbered first, whatever its label
    elif labels == "text":
        y = np.where(y == 1, "yes", "no")
    elif labels == "three":  # classes numbered by first appearance, not by value
        y = np.where(rng.random(n) < 0.3, 2, y)
        y[2 * folds:3 * folds] = 2
        y = np.where(rng.random(n) < 0.5, y, 2 - y) if seed % 2 else y
    ours_state = np.random.RandomState(seed) if instance else seed
    theirs_state = np.random.RandomState(seed) if instance else seed
    ours = stratified_folds(y, folds, ours_state)
    splitter = StratifiedKFold(folds, shuffle=True, random_state=theirs_state)
    theirs = list(splitter.split(np.zeros((n, 1)), y))
    assert len(ours) == len(theirs)
    for (fit_a, check_a), (fit_b, check_b) in zip(ours, theirs):
        assert fit_a.tolist() == fit_b.tolist() and check_a.tolist() == check_b.tolist()
    if instance:  # the same draws were taken from the generator passed in
        assert ours_state.random_sample() == theirs_state.random_sample()


@st.composite
def fold_problems(draw):
    n = draw(st.integers(8, 150))
    d = draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    y = ((X[:, 0] & X[:, -1]) ^ (rng.random(n) < 0.25)).astype(np.uint8)
    rows = np.flatnonzero(rng.random(n) < draw(st.floats(0.3, 0.95)))
    options = draw_list_options(draw, d)
    return X, y, rows, options, draw(st.integers(1, 6))


@settings(max_examples=60, deadline=None)
@given(case=fold_problems())
def test_a_masked_fold_learns_the_list_of_its_rows_packed_alone(case):
    X, y, rows, options, max_rules = case
    searches = FoldSearch.on(X, y, **options)
    assert searches.masked
    masked = searches.fit_list(rows, max_rules)
    alone = learn_decision_list(X[rows], y[rows], max_rules=max_rules, **options).decision_list
    assert masked.to_dict() == alone.to_dict()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 5), n=st.integers(10, 40), folds=st.integers(2, 5),
       orders=st.lists(st.integers(0, 2**32 - 1), min_size=2, max_size=4))
def test_folds_kept_per_seed_and_class_counts_are_scikit_learns(seed, n, folds, orders):
    """Label arrays of the same class counts in other orders, with the same few seeds and
    fold counts drawn again and again (so most calls reuse a kept deal), still give
    scikit-learn's folds; and a caller cannot change a kept deal."""
    from occamlearn.lists.folds import _dealt_for_seed, fold_numbers

    base = np.zeros(n, dtype=int)
    base[: max(folds, n // 3)] = 1
    for order in orders:
        y = np.random.default_rng(order).permutation(base)
        splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
        theirs = np.empty(n, dtype=np.int64)
        for i, (_, check) in enumerate(splitter.split(np.zeros((n, 1)), y)):
            theirs[check] = i
        assert fold_numbers(y, folds, seed).tolist() == theirs.tolist()
        assert fold_numbers(y, folds, np.int64(seed)).tolist() == theirs.tolist()
    for for_class in _dealt_for_seed(seed, folds, (n - n // 3, n // 3)):
        with pytest.raises(ValueError):
            for_class[0] = 0


@settings(max_examples=40, deadline=None)
@given(case=fold_problems(), weighted=st.booleans())
def test_region_counts_are_the_held_out_rows_of_each_region(case, weighted):
    X, y, rows, options, max_rules = case
    weight = np.random.default_rng(len(rows)).integers(1, 4, len(y)).astype(float) \
        if weighted else None
    searches = FoldSearch.on(X, y, weight, **options)
    assert searches.masked != weighted  # weighted folds pack their rows alone
    held_out = np.setdiff1d(np.arange(len(y)), rows)
    fold_list = searches.fit_list(rows, max_rules)
    counts, positives = searches.region_counts(fold_list, held_out)
    k = len(fold_list.rules)
    w = np.ones(len(y)) if weight is None else weight
    for region in range(k + 1):
        inside = [r for r in held_out if _region(fold_list, X[r]) == region]
        assert counts[region] == pytest.approx(w[inside].sum())
        assert positives[region] == pytest.approx(w[inside][y[inside] == 1].sum())


def _region(decision_list, row):
    for k, rule in enumerate(decision_list.rules):
        if all(row[f] == 1 for f in rule.features):
            return k
    return len(decision_list.rules)


def test_enumerated_candidates_pack_each_fold_alone():
    """Enumerated candidates are filtered by their support over the packed rows, so a mask
    would keep candidates the fold's rows do not support: those folds are not masked."""
    rng = np.random.default_rng(3)
    X = (rng.random((60, 5)) < 0.5).astype(np.uint8)
    y = (X[:, 0] | X[:, 1]).astype(np.uint8)
    searches = FoldSearch.on(X, y, rule_search="enumerate", max_conjunction=2, min_support=5)
    assert not searches.masked
    rows = np.arange(0, 60, 2)
    alone = learn_decision_list(X[rows], y[rows], max_rules=3, rule_search="enumerate",
                                max_conjunction=2, min_support=5).decision_list
    assert searches.fit_list(rows, 3) == alone


def _rates_of_the_lists(searches, fold_of, folds, max_rules):
    """``fold_region_rates`` as the Python hill climb's ``DecisionList`` gives them."""
    rates = []
    for i in range(folds):
        fold_list = searches.fit_list(np.flatnonzero(fold_of != i), max_rules)
        n = np.array([r.n_covered for r in fold_list.rules] + [fold_list.n_default], float)
        counts, positives = searches.region_counts(fold_list, np.flatnonzero(fold_of == i))
        rates.append((n, fold_list.probabilities, counts, positives))
    return rates


@settings(max_examples=80, deadline=None)
@given(case=fold_problems(), direction=st.sampled_from(("positive", "negative", None)),
       compiled=st.booleans(), folds=st.integers(2, 5))
def test_fold_region_rates_of_one_compiled_call_are_the_lists(case, direction, compiled,
                                                              folds):
    """The compiled climbs (``FoldSearch._climbed``) give the same floats, bit for bit, as
    the hill climb's lists and ``region_counts``; any other search takes that path itself."""
    X, y, _, options, max_rules = case
    options = {**options, "direction": direction}
    if compiled:
        options.update(search="hill", rule_search="beam")
    if direction is None:
        options.pop("monotone", None)
    searches = FoldSearch.on(X, y, **options)
    fold_of = np.random.default_rng(len(y)).integers(0, folds, len(y))
    fast = searches.fold_region_rates(fold_of, folds, max_rules)
    if compiled:
        grid = searches._climbed(fold_of, folds, max_rules)
        assert grid is not None
        # the fit rows' rates it carries are fold_base_rates' floats
        bases = fold_base_rates(np.asarray(y), None, fold_of, folds)
        assert grid.fit_rates.tobytes() == np.asarray(bases, dtype=np.float64).tobytes()
    expected = _rates_of_the_lists(searches, fold_of, folds, max_rules)
    assert len(fast) == folds
    for ours_fold, their_fold in zip(fast, expected):
        for ours, theirs in zip(ours_fold, their_fold):
            assert ours.dtype == np.float64 and ours.tolist() == theirs.tolist()


@settings(max_examples=100, deadline=None)
@given(small=st.integers(0, 5000), extra=st.integers(0, 5000))
def test_a_folds_xlogx_table_is_the_prefix_of_a_larger_ones(small, extra):
    """The compiled folds take each fold's table as the prefix of the largest fold's:
    the same floats as the fold's own table."""
    from occamlearn.lists.likelihood import CountXLogX

    larger = CountXLogX(small + extra).table
    assert larger[:small + 1].tobytes() == CountXLogX(small).table.tobytes()


def _fold_rates_one_by_one(k, covered, positive, rest, held, held_positive, n_rows, n_positive):
    rates = []
    for i in range(len(k)):
        n_rest, pos_rest = int(rest[i, 0]), int(rest[i, 1])
        default = pos_rest / n_rest if n_rest else int(n_positive[i]) / max(int(n_rows[i]), 1)
        c, p = covered[i, :k[i]], positive[i, :k[i]]
        rates.append((np.append(c, n_rest).astype(np.float64), np.append(p / c, default),
                      held[i, :k[i] + 1].astype(np.float64),
                      held_positive[i, :k[i] + 1].astype(np.float64)))
    return rates


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), folds=st.integers(1, 6), max_rules=st.integers(1, 6),
       no_rest=st.booleans())
def test_the_folds_rates_in_arrays_are_the_fold_by_fold_floats(seed, folds, max_rules,
                                                               no_rest):
    """``_fold_grid``'s folds against the fold-by-fold quotients of Python ints, bit for bit, on
    drawn counts: rules of 1-999 rows, defaults with and without rows."""
    from occamlearn.lists.folds import _fold_grid

    rng = np.random.default_rng(seed)
    k = rng.integers(0, max_rules + 1, folds)
    covered = np.where(np.arange(max_rules)[None] < k[:, None],
                       rng.integers(1, 1000, (folds, max_rules)), 0)
    positive = rng.integers(0, 1000, (folds, max_rules)) % (covered + 1)
    rest = rng.integers(0, 1000, (folds, 2))
    rest[:, 1] %= rest[:, 0] + 1
    if no_rest:
        rest[rng.random(folds) < 0.5] = 0
    held = rng.integers(0, 50, (folds, max_rules + 1))
    held_positive = held // 2
    n_rows = rng.integers(0, 3000, folds)
    n_positive = rng.integers(0, 3000, folds) % (n_rows + 1)
    args = (k, covered, positive, rest, held, held_positive, n_rows, n_positive)
    grid = _fold_grid(*args)
    for ours, theirs in zip(grid.folds(), _fold_rates_one_by_one(*args), strict=True):
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == np.float64 and a.tobytes() == np.ascontiguousarray(b).tobytes()
    n_rows[rng.random(folds) < 0.3] = 0  # a fold without fit rows states 0.5
    fit_rates = _fold_grid(*args).fit_rates
    assert fit_rates.tolist() == [float(p) / float(n) if n > 0 else 0.5
                                  for n, p in zip(n_rows.tolist(), n_positive.tolist())]
