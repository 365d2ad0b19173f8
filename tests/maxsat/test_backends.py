"""MaxSAT back-ends: Linear SAT-UNSAT and RC2 agree, respect time limits, keep inputs intact."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.formula import WCNF

from occamlearn.maxsat.backends import make_backend
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt

BACKENDS = ("lsu", "rc2")  # the in-process PySAT back-ends this file covers


def small_wcnf(seed, n_vars=12, n_hard=30):
    rng = np.random.default_rng(seed)
    wcnf = WCNF()
    for _ in range(n_hard):
        lits = rng.choice(np.arange(1, n_vars + 1), size=3, replace=False)
        wcnf.append([int(v) if rng.random() < 0.5 else -int(v) for v in lits])
    for v in range(1, n_vars + 1):
        wcnf.append([v if rng.random() < 0.5 else -v], weight=1)
    wcnf.append([1, 2, -3], weight=1)  # a non-unit soft clause
    return wcnf


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_lsu_and_rc2_agree_and_leave_the_formula_untouched(seed):
    wcnf = small_wcnf(seed)
    before = (copy.deepcopy(wcnf.hard), copy.deepcopy(wcnf.soft), list(wcnf.wght), wcnf.nv)
    results = {}
    for name in BACKENDS:
        with make_backend(name) as backend:
            results[name] = backend.solve(wcnf)
        assert (wcnf.hard, wcnf.soft, wcnf.wght, wcnf.nv) == before
    lsu, rc2 = results["lsu"], results["rc2"]
    assert lsu.status == rc2.status
    if lsu.status == "optimal":
        assert lsu.cost == rc2.cost == lsu.lower_bound
        model = set(lsu.model)
        violated = sum(1 for c in wcnf.soft if not any(lit in model for lit in c))
        assert violated == lsu.cost
        assert all(any(lit in model for lit in c) for c in wcnf.hard)
        costs = [cost for _, cost in lsu.trace]
        assert costs == sorted(costs, reverse=True) and costs[-1] == lsu.cost


def test_unsatisfiable_hard_clauses():
    wcnf = WCNF()
    wcnf.extend([[1], [-1]])
    wcnf.append([2], weight=1)
    for name in BACKENDS:
        with make_backend(name) as backend:
            assert backend.solve(wcnf).status == "unsatisfiable"


def test_lsu_reports_every_improvement_through_the_callback():
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("mux6")
    encoding = encode_mpdt(X.to_numpy(), y.to_numpy(), 2, upper_bound=41)
    seen = []
    with make_backend("lsu") as backend:
        result = backend.solve(encoding.wcnf,
                               progress=ProgressSink(lambda c, lower, s, m: seen.append(c)))
    assert result.status == "optimal" and result.cost == 8
    assert seen == [cost for _, cost in result.trace]
    assert result.stats["sat_calls"] == len(seen) + 1


def test_lsu_solver_for_cost_holds_exactly_the_optima():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    encoding = encode_mpdt(X, y, 2, upper_bound=11)
    with make_backend("lsu") as backend:
        result = backend.solve(encoding.wcnf)
        solver, assumptions = backend.solver_for_cost(result.cost)
        trees = set()
        while solver.solve(assumptions=assumptions):
            model = solver.get_model()
            trees.add(encoding.decode(model).structure_key())
            solver.add_clause([-lit for lit in model
                               if abs(lit) in set(encoding.target_variables())])
        assert len(trees) == 2  # xor: test either feature first
        with pytest.raises(ValueError, match="cost must be an int in"):
            backend.solver_for_cost(result.cost + 1)


def test_time_limit_stops_both_backends():
    from occamlearn.datasets import load_dataset

    X, y = load_dataset("hayes-r")
    X = X.to_numpy()
    keep = np.unique(X, axis=0, return_index=True)[1]
    X = (X[keep][:, :, None] > np.arange(1, 4)).reshape(len(keep), -1).astype(int)
    y = np.unique(y.to_numpy()[keep], return_inverse=True)[1]
    X, rows = np.unique(X, axis=0, return_index=True)
    encoding = encode_mpdt(X, y[rows], 3, upper_bound=61)
    for name in BACKENDS:
        with make_backend(name) as backend:
            result = backend.solve(encoding.wcnf, deadline=Deadline.after(0.5))
        assert result.status in {"feasible", "unknown"}
        assert result.stats["seconds"] < 3.0


def test_unknown_backend_and_kissat_are_rejected():
    with pytest.raises(ValueError, match="Valid names: .*lsu.*rc2"):
        make_backend("maxhs")
    with pytest.raises(ValueError, match="kissat is not incremental"):
        make_backend("lsu", sat_solver="kissat404")
    with pytest.raises(ValueError, match="Unknown sat_solver 'cadical999'"):
        make_backend("lsu", sat_solver="cadical999")
    with pytest.raises(TypeError, match="deadline must be an occamlearn.stopping.Deadline"):
        make_backend("lsu").solve(WCNF(), deadline=0.5)  # seconds where a deadline belongs
    with pytest.raises(ValueError, match="time_limit must be a number of seconds >= 0"):
        Deadline.after(-1)
