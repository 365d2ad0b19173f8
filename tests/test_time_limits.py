"""``time_limit`` holds in every stage of the MaxSAT back-ends and of the MPDT search.

Each case once overran badly: LSU built a 18 M-clause totalizer after its first model
(46 s with ``time_limit=1`` on the pairs formula below, 107 s for a 60 s DT(max) fit on
mushr); loading and encodings were not checked. The limits here are ~1 s and the margins
generous (behaviour, not benchmarks: a CaDiCaL chunk or an inprocessing step may end after
the deadline).
"""

import itertools
import random
import time

import numpy as np
import pytest
import sklearn.tree  # noqa: F401  (imported here, not inside a timed call: 4 s under load)
from pysat.card import ITotalizer
from pysat.formula import WCNF
from pysat.solvers import Solver

from occamlearn.maxsat.counters import (
    add_counter,
    choose_counter,
    network_clauses,
    totalizer_clauses,
)
from occamlearn.maxsat.lsu import LinearSatUnsat
from occamlearn.maxsat.oracle import add_clauses
from occamlearn.maxsat.rc2 import RC2Backend
from occamlearn.stopping import Deadline, ProgressSink

LIMIT = 1.0
MARGIN = 2.0


def pigeonhole(holes: int, weighted: bool = False) -> WCNF:
    """holes + 1 pigeons, at most one per hole (hard), "pigeon p sits" soft: optimum 1, and
    proving it is a pigeonhole refutation (exponential for CDCL). ``weighted`` adds three
    free unit soft clauses of weight 100: an easy first weight level for RC2Stratified."""
    pigeons = holes + 1
    wcnf = WCNF()
    for h in range(holes):
        for p, q in itertools.combinations(range(pigeons), 2):
            wcnf.append([-(p * holes + h + 1), -(q * holes + h + 1)])
    for p in range(pigeons):
        wcnf.append([p * holes + h + 1 for h in range(holes)], weight=1)
    if weighted:
        for j in range(1, 4):
            wcnf.append([pigeons * holes + j], weight=100)
    return wcnf


def cost_of(wcnf: WCNF, model: list) -> int:
    true = set(model)
    assert all(any(lit in true for lit in clause) for clause in wcnf.hard)
    return sum(w for clause, w in zip(wcnf.soft, wcnf.wght) if not any(x in true for x in clause))


# -- cost counters -----------------------------------------------------------------------
@pytest.mark.parametrize("n, bound", [(1, 0), (2, 5), (7, 3), (33, 10), (60, 59), (101, 40)])
def test_totalizer_clause_count_is_exact(n, bound):
    with ITotalizer(lits=list(range(1, n + 1)), ubound=bound, top_id=n) as totalizer:
        assert totalizer_clauses(n, bound) == len(totalizer.cnf.clauses)


def test_the_network_replaces_only_huge_totalizers():
    assert choose_counter(60, 59) == "totalizer"  # every MPDT query is this small
    assert choose_counter(100_000, 3) == "totalizer"  # many inputs, small bound
    # mushr DT(max) depth 2: LSU's first model misclassifies 4,208 of 8,124 rows
    assert totalizer_clauses(8124, 4208) > 25_000_000
    assert network_clauses(8124, 4208) < 1_000_000
    assert choose_counter(8124, 4208) == "network"


@pytest.mark.parametrize("kind", ["totalizer", "network"])
def test_counter_outputs_bound_the_count(kind):
    """With the inputs fixed, "not out[i]" is satisfiable exactly when <= i inputs hold."""
    rng = random.Random(7)
    for _ in range(40):
        n, bound = rng.randint(1, 21), rng.randint(0, 22)
        lits = list(range(1, n + 1))
        with Solver(name="cadical195") as solver:
            counter = add_counter(solver, lits, bound, n, None, kind=kind)
            assert counter.kind == kind and len(counter.outputs) == min(bound + 1, n)
            for _ in range(3):
                inputs = [x if rng.random() < 0.5 else -x for x in lits]
                count = sum(x > 0 for x in inputs)
                for i, out in enumerate(counter.outputs):
                    assert solver.solve(assumptions=[*inputs, -out]) == (count <= i)


def test_counter_construction_stops_at_the_deadline():
    lits = list(range(1, 6001))
    with Solver(name="cadical195") as solver:
        began = time.perf_counter()
        assert add_counter(solver, lits, 5999, 6000, Deadline.after(0.2), kind="network") is None
        assert time.perf_counter() - began < 1.0
    with Solver(name="cadical195") as solver:  # 18 M clauses: predicted too slow, not begun
        began = time.perf_counter()
        assert add_counter(solver, lits, 5999, 6000, Deadline.after(0.5),
                           kind="totalizer") is None
        assert time.perf_counter() - began < 0.3
        assert solver.nof_clauses() == 0


def test_add_clauses_loads_under_a_deadline():
    clauses = [[i, i + 1] for i in range(1, 50_001)]
    with Solver(name="cadical195") as solver:
        assert add_clauses(solver, clauses, Deadline.after(0)) is False
        assert solver.nof_clauses() == 0
        assert add_clauses(solver, clauses, None) is True
        assert solver.nof_clauses() == len(clauses)


# -- MaxSAT back-ends --------------------------------------------------------------------
def test_lsu_with_a_costly_first_model_returns_in_time():
    """The first model (phases: all true) costs 6,000: the totalizer for it would have 18 M
    clauses. LSU used to build it regardless (46 s); now it returns "feasible" in time."""
    n = 3000
    wcnf = WCNF()
    for i in range(1, n + 1):
        wcnf.append([i, i + n])
    for j in range(1, 2 * n + 1):
        wcnf.append([-j], weight=1)
    with LinearSatUnsat() as backend:
        began = time.perf_counter()
        result = backend.solve(wcnf, deadline=Deadline.after(LIMIT),
                               phases=list(range(1, 2 * n + 1)))
        elapsed = time.perf_counter() - began
    assert elapsed < LIMIT + MARGIN
    assert result.status == "feasible" and n <= result.cost <= 2 * n
    assert result.cost == cost_of(wcnf, result.model)
    assert [cost for _, cost in result.trace] == sorted({c for _, c in result.trace},
                                                        reverse=True)


@pytest.mark.parametrize("backend", [RC2Backend, LinearSatUnsat])
def test_pigeonhole_stops_both_backends_in_time(backend):
    wcnf = pigeonhole(12)
    began = time.perf_counter()
    result = backend().solve(wcnf, deadline=Deadline.after(LIMIT))
    assert time.perf_counter() - began < LIMIT + MARGIN
    if backend is RC2Backend:  # no model before the optimum, and no optimum in time
        assert result.status == "unknown" and result.model is None
    else:  # LSU finds cost 1 at once, and cannot prove it
        assert (result.status, result.cost) == ("feasible", cost_of(wcnf, result.model))
    assert result.lower_bound <= 1


def test_stratified_rc2_keeps_the_model_of_a_finished_weight_level():
    wcnf = pigeonhole(12, weighted=True)
    seen = []
    began = time.perf_counter()
    result = RC2Backend().solve(wcnf, deadline=Deadline.after(LIMIT),
                                progress=ProgressSink(lambda cost, lower, s, m: seen.append(cost)))
    assert time.perf_counter() - began < LIMIT + MARGIN
    assert result.status == "feasible" and result.lower_bound <= 1 <= result.cost
    assert result.cost == cost_of(wcnf, result.model) == seen[-1]
    assert [cost for _, cost in result.trace] == seen


def test_stratified_rc2_stops_when_its_inner_deadline_is_asked_to():
    """The size searches' re-encoding: a sink callback stops one solve through an inner
    deadline, and the outer deadline (the rest of the fit) runs on."""
    wcnf = pigeonhole(12, weighted=True)
    began = time.perf_counter()
    outer = Deadline.after(10 * LIMIT)
    query = outer.inner()
    result = RC2Backend().solve(wcnf, deadline=query,
                                progress=ProgressSink(lambda *report: query.request_stop()))
    assert time.perf_counter() - began < LIMIT
    assert result.status == "feasible" and result.stats["stopped_by_callback"]
    assert result.cost == cost_of(wcnf, result.model)
    assert query.expired() and not outer.expired()


# -- searches and estimators -------------------------------------------------------------
def test_minimum_tree_encodes_nothing_once_the_deadline_has_passed(bundled_binary):
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    X, y, k = bundled_binary("monks-1", unique=True)
    began = time.perf_counter()
    # the greedy bound
    result = find_minimum_tree(X, y, k, method="maxsat", deadline=Deadline.after(1e-3))
    assert time.perf_counter() - began < LIMIT + MARGIN
    assert result.status == "feasible" and result.stats["encodings"] == 0
    assert result.tree.n_nodes == result.stats["greedy_size"] == result.upper_bound
    assert result.tree.is_pure_on(X, y)


def test_the_portfolio_returns_a_tree_however_short_the_limit(bundled_binary):
    from occamlearn.trees.mpdt.minimum import find_minimum_tree

    X, y, k = bundled_binary("monks-1", unique=True)
    began = time.perf_counter()
    result = find_minimum_tree(X, y, k, method="auto", deadline=Deadline.after(1e-3))
    assert time.perf_counter() - began < LIMIT + MARGIN
    assert result.tree.is_pure_on(X, y) and result.upper_bound == result.tree.n_nodes
    assert result.lower_bound <= result.upper_bound
    assert result.status == ("optimal" if result.lower_bound == result.upper_bound
                             else "feasible")


def test_minimum_tree_skips_an_encoding_predicted_to_end_after_the_deadline(monkeypatch,
                                                                            bundled_binary):
    from occamlearn.trees.mpdt.maxsat_route import search

    monkeypatch.setattr(search, "ENCODE_SECONDS_PER_CELL", 1.0)  # hours per encoding
    X, y, k = bundled_binary("monks-1", unique=True)
    began = time.perf_counter()
    result = search.find_minimum_tree_maxsat(X, y, k, deadline=Deadline.after(30))
    assert time.perf_counter() - began < LIMIT + MARGIN
    assert result.status == "feasible" and result.stats["encodings"] == 0
    skipped = result.stats["encoding_skipped"]  # the reason, naming the size not encoded
    assert f"for {result.stats['greedy_size'] - 2} nodes" in skipped and "s left" in skipped


def test_dtmax_lsu_on_mushr_returns_in_time():
    """The fit that took 107 s with ``time_limit=60``: first model cost 4,208 of 8,124."""
    from occamlearn.datasets import load_dataset
    from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

    X, y = load_dataset("mushr")
    limit = 2.0
    began = time.perf_counter()
    model = MaxAccuracyTreeClassifier(max_depth=2, time_limit=limit, method="maxsat",
                                      solver="lsu").fit(X, y)
    assert time.perf_counter() - began < limit + MARGIN + 1.0  # + binarising the table
    assert model.status_ == "feasible"
    assert model.training_errors_ == int((model.predict(X) != np.asarray(y)).sum())


# -- DT(max) searches ------------------------------------------------------------------
@pytest.mark.parametrize("depth", [2, 3, 4])
def test_dtmax_returns_in_time_on_wide_data(depth, random_binary, within):
    """200 x 1,000 random bits: the search on 0/1 columns polls its deadline between slices
    of work; its count tables are planned before they are allocated."""
    from dtmax_helpers import max_accuracy_on_matrix

    X, y = random_binary(200, 1000)
    limit = 1.0
    began = time.perf_counter()
    result = max_accuracy_on_matrix(X, y, 2, depth, deadline=Deadline.after(limit))
    assert within(limit, time.perf_counter() - began)
    assert result.status in ("feasible", "optimal") and result.tree.depth <= depth
    assert result.training_errors == int((result.tree.predict(X) != y).sum())


def test_dtmax_with_a_tiny_time_limit(random_binary, within):
    """A deadline passed before the search starts leaves the greedy tree, "feasible"."""
    from dtmax_helpers import max_accuracy_on_matrix

    X, y = random_binary(300, 400, seed=1)
    for limit in (1e-6, 0.01, 0.3):
        began = time.perf_counter()
        result = max_accuracy_on_matrix(X, y, 2, 3, deadline=Deadline.after(limit))
        assert within(limit, time.perf_counter() - began)
        assert result.training_errors == int((result.tree.predict(X) != y).sum())


def test_dtmax_estimator_on_wide_data_returns_in_time(random_binary, within):
    from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier

    X, y = random_binary(200, 600, seed=2)
    limit = 2.0
    began = time.perf_counter()
    model = MaxAccuracyTreeClassifier(max_depth=3, time_limit=limit).fit(X, y)
    assert within(limit, time.perf_counter() - began)
    assert model.status_ in ("feasible", "optimal")
    assert model.training_errors_ == int((model.predict(X) != y).sum())


# -- Alg. 3: one deadline for the search and the drawing of trees --------------------------
@pytest.mark.parametrize("diverse, layouts", [(False, False), (True, False), (False, True),
                                              (True, True)])
@pytest.mark.parametrize("max_errors", [None, 1])
def test_minimum_trees_with_selection_keeps_one_deadline(diverse, layouts, max_errors,
                                                        random_binary, within):
    """20 x 100 random bits have thousands of minimum trees: drawing a million after the
    search took 5.8 s with MDSOL and ``time_limit=2`` (the drawing had no limit of its own).
    Now the search and the drawing share the deadline."""
    from occamlearn.trees.mpdt.all_minimum.selection import find_minimum_trees_with_selection

    X, y = random_binary(20, 100, seed=4)
    limit = 1.5
    began = time.perf_counter()
    selected = find_minimum_trees_with_selection(X, y, 2, n_solutions=10**6, diverse=diverse,
                                                 layouts=layouts, deadline=Deadline.after(limit),
                                                 max_errors=max_errors, random_state=0)
    assert within(limit, time.perf_counter() - began)
    result = selected.result
    assert result.status in ("feasible", "optimal")
    assert selected.candidates and result.tree in selected.candidates
    for tree in selected.candidates:
        assert tree.n_nodes == selected.candidates[0].n_nodes
        assert int((tree.predict(X) != y).sum()) <= (max_errors or 0)
    assert not selected.complete or len(selected.candidates) < 10**6


def test_drawing_after_the_deadline_gives_the_search_tree(random_binary):
    """No time left after the search: the answer is the search's own tree, not complete."""
    from occamlearn.trees.mpdt.all_minimum.minimum_trees import trees_from_search
    from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch

    X, y = random_binary(20, 100, seed=4)
    search = MinimumTreeSearch(X, y, 2)
    try:
        search.run()
        for diverse, layouts in ((False, False), (True, False), (False, True)):
            began = time.perf_counter()
            drawn = trees_from_search(search, 50, diverse=diverse, layouts=layouts,
                                      deadline=Deadline.after(0.0), live=False)
            assert time.perf_counter() - began < 1
            assert drawn.trees == [search.result.tree] and not drawn.complete
    finally:
        search.close()


# -- error-budget encoding ---------------------------------------------------------------
def noisy_bits(n_rows, n_columns, seed=5):
    """Random bits with labels mostly from column 0: a big greedy tree, many conflicts."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_columns))
    y = np.where(rng.random(n_rows) < 0.8, X[:, 0], 1 - X[:, 0])
    return X, y


def assert_within_budget(result, X, y, budget):
    assert result.status in ("feasible", "optimal")
    assert int((result.tree.predict(X) != y).sum()) == result.stats["training_errors"]
    assert result.stats["training_errors"] <= budget


def test_error_budget_skips_an_encoding_over_the_memory_budget(within):
    """20,000 rows: the greedy tree has thousands of nodes, and n = size - 2 nodes x rows x
    columns is hundreds of GB of clauses. It is predicted and skipped, with or without a
    time limit (the bounding totalizer alone used to have n^2 / 2 clauses)."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget.maxsat_search import find_minimum_tree_with_errors

    X, y = noisy_bits(20_000, 24)
    budget = group_examples(X, y).forced_errors() + 5
    for limit in (None, 2.0):
        began = time.perf_counter()
        result = find_minimum_tree_with_errors(X, y, 2, budget, deadline=Deadline.after(limit))
        assert limit is None or within(limit, time.perf_counter() - began)
        assert "GiB" in result.stats["encoding_skipped"]
        assert result.stats["encode_seconds"] == 0.0
        assert_within_budget(result, X, y, budget)


def test_error_budget_skips_an_encoding_predicted_to_end_after_the_deadline(
        monkeypatch, bundled_binary):
    from occamlearn.trees.mpdt.error_budget import maxsat_search as error_budget

    monkeypatch.setattr(error_budget, "ENCODE_SECONDS_PER_LITERAL", 1.0)   # days
    X, y, k = bundled_binary("monks-1", unique=True)
    began = time.perf_counter()
    result = error_budget.find_minimum_tree_with_errors(X, y, k, 3, deadline=Deadline.after(30))
    assert time.perf_counter() - began < 5
    assert "s left" in result.stats["encoding_skipped"]
    assert result.tree.n_nodes == result.stats["greedy_size"]
    assert_within_budget(result, X, y, 3)


def test_error_budget_encoding_stops_at_the_deadline(monkeypatch, within):
    """Predicted instant (rate 0), the encoding is built in slices and abandoned when the
    deadline passes, or ends and the solver stops in time; either way in time."""
    from occamlearn.trees.exact.data import group_examples
    from occamlearn.trees.mpdt.error_budget import maxsat_search as error_budget

    monkeypatch.setattr(error_budget, "ENCODE_SECONDS_PER_LITERAL", 0.0)
    X, y = noisy_bits(600, 30)                # greedy ~300 nodes: ~6 M literals, seconds
    budget = group_examples(X, y).forced_errors() + 3
    limit = 0.5
    began = time.perf_counter()
    result = error_budget.find_minimum_tree_with_errors(X, y, 2, budget,
                                                        deadline=Deadline.after(limit))
    assert within(limit, time.perf_counter() - began)
    assert "encoding_skipped" not in result.stats
    assert_within_budget(result, X, y, budget)


def test_bounded_totalizer_keeps_the_error_budget_exact():
    """The error bound is a totalizer with max_errors + 1 outputs (not PySAT's CardEnc one
    with all n): every assignment of the relaxation literals within the budget, and none
    over it, extends to a model of the bound's clauses."""
    from pysat.formula import IDPool

    from occamlearn.trees.exact.data import ExampleGroups
    from occamlearn.trees.mpdt.error_budget.encoding import _error_bound

    counts = np.array([1, 2, 1, 3, 1, 5])
    groups = ExampleGroups(np.zeros((6, 1), dtype=np.uint8), np.arange(6),
                           np.zeros(6, dtype=np.int64), counts)
    relax = np.arange(1, 7)
    for budget in (0, 1, 2, 4):
        pool = IDPool(start_from=7)
        clauses = _error_bound(groups, relax, budget, type("Var", (), {"pool": pool})())
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            for mask in range(64):
                lits = [int(v) if mask >> i & 1 else -int(v) for i, v in enumerate(relax)]
                errors = sum(int(c) for i, c in enumerate(counts) if mask >> i & 1)
                assert solver.solve(assumptions=lits) == (errors <= budget)
        assert pool.top >= max(abs(lit) for clause in clauses for lit in clause)


def test_relaxed_estimator_on_many_numeric_rows_returns_in_time(within):
    """``on_conflict="relax"`` on 20,000 x 20 numeric rows (at 50,000 rows, ``time_limit=10``
    was still encoding at 300 s with 21.8 GB)."""
    import pandas as pd

    from occamlearn.estimators.mpdt import MinimumPureTreeClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20_000, 20)).round(1),
                     columns=[f"x{i}" for i in range(20)])
    y = (X["x0"] + rng.normal(size=len(X)) > 0).astype(int)
    limit = 5.0
    began = time.perf_counter()
    model = MinimumPureTreeClassifier(on_conflict="relax", time_limit=limit).fit(X, y)
    assert within(limit, time.perf_counter() - began)
    assert model.status_ in ("feasible", "optimal")
    assert "encoding_skipped" in model.solve_stats_ or model.solve_stats_["encode_seconds"] > 0


@pytest.mark.parametrize("method", ["auto", "maxsat", "bnb"])
def test_time_limit_gives_a_pure_tree_with_consistent_bounds(method, random_binary, within):
    """400 random rows of 40 features, 3 classes: the minimum has well over 100 nodes. On any
    machine the fit ends in time with a pure tree; its status says whether the bounds met
    (a fast machine may prove the optimum, a slow one not)."""
    from occamlearn import MinimumPureTreeClassifier

    X, y = random_binary(400, 40, n_classes=3, distinct=True)
    # warm-up: a first "bnb"/"auto" fit in a process spends ~1.2 s importing numba and
    # loading the compiled kernels, outside any deadline check (reported to bnb's owner)
    MinimumPureTreeClassifier(binarizer=None, method=method).fit(X[:8], y[:8])
    limit = 0.5
    began = time.perf_counter()
    clf = MinimumPureTreeClassifier(binarizer=None, method=method, time_limit=limit).fit(X, y)
    assert within(limit, time.perf_counter() - began)
    assert clf.score(X, y) == 1.0 and clf.upper_bound_ == clf.n_nodes_
    if clf.status_ == "optimal":
        assert clf.lower_bound_ == clf.upper_bound_
    else:
        assert clf.status_ == "feasible" and 3 <= clf.lower_bound_ < clf.upper_bound_
