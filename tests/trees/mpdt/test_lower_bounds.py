"""Every lower bound reported on the minimum pure tree is proven: checked by brute force.

Sources: subsets of rows (``subset_bounds``), LSU's core-guided phase (``maxsat.lsu``), the
search with encoding variants (``encoding.KNOWN_EXTRAS``), and the class-count bound of the
MaxSAT search.
"""

import numpy as np
import pytest
from bruteforce import count_minimum_trees, minimum_tree_size, tiny_data
from hypothesis import HealthCheck, given, settings
from pysat.examples.rc2 import RC2
from pysat.solvers import Solver

import occamlearn.trees.mpdt.bnb.branch_and_bound  # noqa: F401 - sets the recursion limit first
from occamlearn.maxsat.lsu import LinearSatUnsat
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.bnb.subsets import complete_tree, find_minimum_tree_incremental
from occamlearn.trees.mpdt.maxsat_route.encoding import KNOWN_EXTRAS, encode_mpdt
from occamlearn.trees.mpdt.maxsat_route.search import find_minimum_tree_maxsat

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
VARIANTS = [frozenset({extra}) for extra in sorted(KNOWN_EXTRAS)] + [
    frozenset({"sibling", "unused-d", "leaf-count"})]


def _two_classes(y):
    return len(np.unique(y)) >= 2


def _check(result, X, y, size):
    assert result.lower_bound <= size <= result.upper_bound
    assert result.tree.n_nodes == result.upper_bound
    assert result.tree.is_pure_on(X, y)
    assert (result.status == "optimal") == (result.lower_bound == result.upper_bound)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_data())
def test_subset_search_agrees_with_brute_force(data):
    X, y, k = data
    size = minimum_tree_size(X, y)
    bounds = []
    for engine in ("bnb", "maxsat"):
        sink = ProgressSink()
        result = find_minimum_tree_incremental(
            X, y, k, engine=engine, per_class=1, max_added=2, seed=3, progress=sink)
        _check(result, X, y, size)
        assert result.status == "optimal" and result.upper_bound == size
        bounds += [(lower, upper) for _, upper, lower in sink.trace]
    assert bounds and all(lower <= size <= upper for lower, upper in bounds)
    if size >= 3:  # a bound from elsewhere: still the minimum, proven
        result = find_minimum_tree_incremental(X, y, k, engine="maxsat", lower_bound=int(size),
                                               per_class=1, max_added=1)
        _check(result, X, y, size)
        assert result.status == "optimal" and result.upper_bound == size


@SETTINGS
@given(tiny_data())
def test_stopped_subset_search_reports_a_proven_bound(data):
    X, y, k = data
    size = minimum_tree_size(X, y)
    stop = Deadline.after(None)
    sink = ProgressSink(lambda *report: stop.request_stop())  # stop at the first report
    result = find_minimum_tree_incremental(X, y, k, engine="bnb", per_class=1, max_added=1,
                                           deadline=stop, progress=sink)
    _check(result, X, y, size)


@SETTINGS
@given(tiny_data())
def test_every_subset_minimum_bounds_the_full_minimum(data):
    X, y, k = data
    size = minimum_tree_size(X, y)
    rng = np.random.default_rng(int(X.sum() + 7 * y.sum()))
    for _ in range(3):
        rows = np.flatnonzero(rng.random(len(y)) < 0.6)
        if len(rows):
            assert minimum_tree_size(X[rows], y[rows]) <= size


@SETTINGS
@given(tiny_data())
def test_completed_subset_tree_is_pure_on_all_rows(data):
    X, y, k = data
    if not _two_classes(y):
        return
    rows = np.arange(0, len(y), 2)
    sub = find_minimum_tree_incremental(X[rows], y[rows], k, engine="bnb").tree
    tree = complete_tree(sub, X, y, k)
    assert tree.is_pure_on(X, y)
    assert tree.n_nodes >= minimum_tree_size(X, y)


@SETTINGS
@given(tiny_data())
def test_encoding_variants_keep_the_optimum_and_one_model_per_tree(data):
    X, y, k = data
    if not _two_classes(y):
        return
    size = int(minimum_tree_size(X, y))
    for extras in VARIANTS:
        encoding = encode_mpdt(X, y, k, upper_bound=size + 4, extras=extras)
        with RC2(encoding.wcnf, solver="cadical195") as rc2:
            rc2.compute()
            assert rc2.cost == (size + 1) // 2, extras
        if "no-pruning" in extras:
            continue  # several layouts per tree without eqs. 19-23: not for enumeration
        exact = encode_mpdt(X, y, k, upper_bound=size, lower_bound=size, extras=extras)
        targets = set(exact.target_variables())
        trees = set()
        with Solver(name="cadical195", bootstrap_with=exact.wcnf.hard) as solver:
            while solver.solve():
                model = solver.get_model()
                trees.add(exact.decode(model).structure_key())
                solver.add_clause([-lit for lit in model if abs(lit) in targets])
        assert len(trees) == count_minimum_trees(X, y), extras


@SETTINGS
@given(tiny_data())
def test_lsu_core_phase_bound_is_proven(data):
    X, y, k = data
    if not _two_classes(y):
        return
    size = int(minimum_tree_size(X, y))
    encoding = encode_mpdt(X, y, k, upper_bound=size + 4)
    lsu = LinearSatUnsat(core_share=0.5)
    try:
        answer = lsu.solve(encoding.wcnf, deadline=Deadline.after(5.0))
        assert answer.status == "optimal" and answer.cost == (size + 1) // 2
        assert answer.lower_bound == answer.cost
        if answer.stats.get("core_status") is not None:
            assert answer.stats["core_lower"] <= answer.cost
        solver, assumptions = lsu.solver_for_cost(answer.cost)  # still the optimal instance
        assert solver.solve(assumptions=assumptions)
        assert encoding.decode(solver.get_model()).n_nodes == size
    finally:
        lsu.close()


@SETTINGS
@given(tiny_data())
def test_maxsat_search_bounds_are_proven(data):
    X, y, k = data
    size = minimum_tree_size(X, y)
    result = find_minimum_tree_maxsat(X, y, k)
    _check(result, X, y, size)
    assert result.status == "optimal" and result.upper_bound == size


def test_lsu_reports_the_core_bound_when_stopped():
    """On a search the time limit stops, the core phase's bound is what LSU reports."""
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("mux6")
    encoding = encode_mpdt(X.to_numpy(), y.to_numpy(), 2, upper_bound=31)
    lsu = LinearSatUnsat(core_share=0.5)
    try:
        answer = lsu.solve(encoding.wcnf, deadline=Deadline.after(0.4))
    finally:
        lsu.close()
    assert answer.lower_bound <= 8  # optimum: 15 nodes, cost 8
    if answer.status != "optimal":
        assert answer.lower_bound == answer.stats["core_lower"]


def test_subset_search_proves_mux6_and_reports_rising_bounds():
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("mux6")
    sink = ProgressSink()
    result = find_minimum_tree_incremental(
        X.to_numpy(), y.to_numpy(), 2, deadline=Deadline.after(60), progress=sink)
    bounds = [lower for _, _, lower in sink.trace]
    assert result.status == "optimal" and result.tree.n_nodes == 15
    assert bounds == sorted(bounds) and bounds[-1] == 15
    assert result.stats["subset_rows"] < result.stats["distinct_rows"]


@pytest.mark.parametrize("kwargs, message", [
    ({"engine": "cp"}, "engine must be one of"),
    ({"per_class": 0}, "per_class must be a positive int"),
    ({"max_added": 0}, "max_added must be a positive int"),
])
def test_bad_arguments_are_rejected(kwargs, message):
    X, y = np.array([[0], [1]]), np.array([0, 1])
    with pytest.raises(ValueError, match=message):
        find_minimum_tree_incremental(X, y, 2, **kwargs)


def test_unknown_extras_are_rejected():
    with pytest.raises(ValueError, match="unknown extras"):
        encode_mpdt(np.array([[0], [1]]), np.array([0, 1]), 2, upper_bound=3,
                    extras={"magic"})


@SETTINGS
@given(data=tiny_data())
def test_maxsat_search_with_core_phase_agrees_with_brute_force(monkeypatch_core, data):
    X, y, k = data
    size = minimum_tree_size(X, y)
    result = find_minimum_tree_maxsat(X, y, k, deadline=Deadline.after(20.0))
    _check(result, X, y, size)
    assert result.status == "optimal" and result.upper_bound == size


@pytest.fixture(scope="module")
def monkeypatch_core():
    from occamlearn.maxsat import lsu

    saved, lsu.CORE_SHARE = lsu.CORE_SHARE, 0.5
    yield
    lsu.CORE_SHARE = saved


def test_an_upper_bound_below_the_lower_bound_does_not_overstate_the_bound():
    """upper_bound 13 < lower_bound 15 (mux6's minimum): nothing is asked; the greedy tree
    is returned as feasible with the lower bound 15, not as a proven optimum of its size."""
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("mux6")
    result = find_minimum_tree_maxsat(X.to_numpy(), y.to_numpy(), 2, upper_bound=13,
                                      lower_bound=15)
    assert result.upper_bound > 15
    assert result.status == "feasible" and result.lower_bound == 15
