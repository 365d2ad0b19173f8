"""External-program and hermax back-ends: same optimum as RC2/LSU, traces, time limits."""

import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from pysat.formula import WCNF

from occamlearn.datasets import load_dataset
from occamlearn.maxsat.external import ExternalBackend, model_cost, parse_solver_output
from occamlearn.maxsat.hermax_backend import BACKEND_CLASSES, HERMAX_SOLVERS, hermax_available
from occamlearn.maxsat.lsu import LinearSatUnsat
from occamlearn.maxsat.rc2 import RC2Backend
from occamlearn.stopping import Deadline, ProgressSink
from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt

FAKE = f"{sys.executable} {Path(__file__).parents[1] / 'fake_maxsat_solver.py'}"


@pytest.fixture(scope="module")
def corral():
    X, y = load_dataset("corral")
    y = np.unique(y.to_numpy(), return_inverse=True)[1]
    return encode_mpdt(X.to_numpy(), y, 2, 21)


@pytest.fixture(scope="module")
def optimum(corral):
    costs = {RC2Backend().solve(corral.wcnf).cost, LinearSatUnsat().solve(corral.wcnf).cost}
    assert len(costs) == 1
    return costs.pop()


def check_trace(trace):
    times, costs = [t for t, _ in trace], [c for _, c in trace]
    assert times == sorted(times) and all(a > b for a, b in pairwise(costs))


def weighted_formula():
    wcnf = WCNF()
    for clause in ([1, 2], [2, 3], [-1, -3]):
        wcnf.append(clause)
    for clause, weight in (([-1], 3), ([-2], 2), ([-3], 1), ([1, 3], 4)):
        wcnf.append(clause, weight=weight)
    return wcnf


@pytest.mark.parametrize("fmt", ["mse22", "legacy"])
@pytest.mark.parametrize("flags", ["", "--legacy-v"])
def test_external_round_trip_matches_rc2(corral, optimum, fmt, flags):
    calls = []
    backend = ExternalBackend(command=f"{FAKE} {flags} {{wcnf}}", format=fmt)
    result = backend.solve(corral.wcnf, deadline=Deadline.after(60),
                           progress=ProgressSink(lambda c, lower, s, m: calls.append(c)))
    assert (result.status, result.cost, result.lower_bound) == ("optimal", optimum, optimum)
    assert corral.decode(result.model).n_nodes == 2 * optimum - 1
    assert len(result.stats["o_lines"]) == 2  # the poor first model, then the optimum
    check_trace(result.trace)
    assert result.trace[-1][1] == optimum and calls == [optimum]


def test_external_weighted_non_unit_soft_clauses():
    wcnf = weighted_formula()
    expected = RC2Backend().solve(wcnf).cost
    result = ExternalBackend(command=FAKE).solve(wcnf)
    assert (result.status, result.cost) == ("optimal", expected)


def test_external_time_limit_terminates_and_keeps_best_model(corral):
    backend = ExternalBackend(command=f"{FAKE} --sleep 30 {{wcnf}}", kill_grace=2)
    result = backend.solve(corral.wcnf, deadline=Deadline.after(1.5))
    assert result.status == "feasible" and result.stats["killed"]
    assert result.stats["seconds"] < 6
    assert result.cost == model_cost(corral.wcnf, result.model)
    assert corral.decode(result.model).is_pure_on(corral.X, corral.y)


def test_external_kill_when_term_is_ignored(corral):
    backend = ExternalBackend(command=f"{FAKE} --sleep 30 --ignore-term {{wcnf}}", kill_grace=0.5)
    result = backend.solve(corral.wcnf, deadline=Deadline.after(1.5))
    assert result.status == "unknown" and result.model is None and result.stats["killed"]
    assert result.stats["seconds"] < 5
    assert len(result.trace) == 1  # the o line that arrived before the kill


def test_parse_both_model_formats_and_status():
    lines = [(0.1, "c hi"), (0.2, "o 5"), (0.3, "o 3"), (0.4, "s OPTIMUM FOUND"),
             (0.5, "v 101")]
    parsed = parse_solver_output(lines, 4)
    assert parsed["model"] == [1, -2, 3, -4] and parsed["status"] == "optimal"
    assert parsed["o_lines"] == [(0.2, 5), (0.3, 3)]
    legacy = parse_solver_output([(0, "s SATISFIABLE"), (0, "v -1 2"), (0, "v 3 0")], 3)
    assert legacy["model"] == [-1, 2, 3] and legacy["status"] == "feasible"


def test_external_rejects_bad_arguments(monkeypatch, corral):
    monkeypatch.delenv("OCCAMLEARN_MAXSAT_COMMAND", raising=False)
    with pytest.raises(ValueError, match="OCCAMLEARN_MAXSAT_COMMAND"):
        ExternalBackend()
    with pytest.raises(ValueError, match="format"):
        ExternalBackend(command=FAKE, format="old")
    with pytest.raises(ValueError, match="cannot run"):
        ExternalBackend(command="/no/such/solver {wcnf}").solve(corral.wcnf)


def test_model_breaking_a_hard_clause_is_refused():
    with pytest.raises(RuntimeError, match="hard clause"):
        model_cost(weighted_formula(), [-1, -2, -3])


needs_hermax = pytest.mark.skipif(not hermax_available(), reason="hermax not installed")


@needs_hermax
@pytest.mark.parametrize("name", sorted(HERMAX_SOLVERS))
def test_hermax_solvers_find_the_optimum(corral, optimum, name):
    result = BACKEND_CLASSES[name]().solve(corral.wcnf, deadline=Deadline.after(60))
    assert result.cost == optimum
    assert result.status == ("optimal" if HERMAX_SOLVERS[name][3] else "feasible")
    assert corral.decode(result.model).n_nodes == 2 * optimum - 1
    check_trace(result.trace)


@needs_hermax
@pytest.mark.parametrize("name", ["uwrmaxsat", "evalmaxsat"])
def test_hermax_exact_solvers_on_weighted_non_unit_soft(name):
    wcnf = weighted_formula()
    result = BACKEND_CLASSES[name]().solve(wcnf)
    assert (result.status, result.cost) == ("optimal", RC2Backend().solve(wcnf).cost)


@needs_hermax
def test_hermax_time_limits_are_enforced(bundled_binary):
    X, y, _ = bundled_binary("monks-1")
    wcnf = encode_mpdt(X[:250], y[:250], 2, 35).wcnf
    for name in ("uwrmaxsat", "evalmaxsat", "loandra"):
        result = BACKEND_CLASSES[name]().solve(wcnf, deadline=Deadline.after(1.0))
        assert result.stats["seconds"] < 8, name  # UWrMaxSAT polls its callback sparsely
        assert result.status in ("feasible", "unknown", "optimal"), name


def test_missing_hermax_names_the_extra(monkeypatch, corral):
    for module in [m for m in sys.modules if m.split(".")[0] == "hermax"] + ["hermax"]:
        monkeypatch.setitem(sys.modules, module, None)  # "import hermax" now fails
    with pytest.raises(ImportError, match=r"occamlearn\[solvers\]"):
        BACKEND_CLASSES["uwrmaxsat"]().solve(corral.wcnf)
