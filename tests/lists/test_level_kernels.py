"""The compiled levels of the rule growing give the numpy engine's lists, to the last bit.

Both engines run on the same problems and must agree on every rule, every log-likelihood,
every cost and the stop reason: on hypothesis data with every option the growing reads, and
on bundled tables with the estimator's defaults. The picks (``pick_top``) are compared on
scores with many ties. ``levels_for`` keeps numpy for weights, and when a deadline is too
short to load the kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from list_options import draw_list_options

from occamlearn import DecisionListClassifier, load_dataset
from occamlearn.lists import learn_decision_list, levels
from occamlearn.lists.problem import prepare
from occamlearn.lists.rules import pick_top
from occamlearn.stopping import Deadline


@pytest.fixture(scope="module")
def kernels():
    return levels.load_kernels()


def _with_engine(monkeypatch, engine, call):
    monkeypatch.setattr(levels, "ENGINE", engine)
    return call()


def _summary(result):
    return (result.decision_list.rules, result.decision_list.default_probability,
            result.log_likelihoods, result.costs, result.stop_reason, result.direction)


@st.composite
def grown_lists(draw):
    n = draw(st.integers(4, 90))
    d = draw(st.integers(1, 9))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    X = (rng.random((n, d)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    X[:, : d // 2] = X[:, : d // 2] & X[:, d - d // 2:]  # nested columns: repeated row sets
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    options = draw_list_options(draw, d)
    options["max_rules"] = draw(st.integers(1, 6))
    return X, y, options


@settings(max_examples=60, deadline=None)
@given(grown_lists())
def test_compiled_levels_grow_the_same_lists(monkeypatch_module, kernels, case):
    X, y, options = case
    found = [_summary(_with_engine(monkeypatch_module, engine,
                                   lambda: learn_decision_list(X, y, **options)))
             for engine in ("numpy", "compiled")]
    assert found[0] == found[1]


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.mark.parametrize("name", ["corral", "mux6", "tic-tac-toe", "monks-1"])
def test_compiled_levels_fit_the_same_models_on_bundled_tables(monkeypatch, kernels, name):
    X, y = load_dataset(name)
    fitted = [_with_engine(monkeypatch, engine, lambda: DecisionListClassifier().fit(X, y))
              for engine in ("numpy", "compiled")]
    assert [str(m.list_) for m in fitted[1:]] == [str(fitted[0].list_)]
    assert fitted[0].log_likelihoods_ == fitted[1].log_likelihoods_
    assert fitted[0].stop_reason_ == fitted[1].stop_reason_


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.integers(0, 12), st.integers(1, 12), st.integers(0, 1000))
def test_compiled_pick_top_breaks_ties_as_numpy(kernels, rows, columns, keep, seed):
    rng = np.random.default_rng(seed)
    score = rng.integers(-2, 3, size=(rows, columns)).astype(np.float64)
    score[rng.random(score.shape) < 0.2] = -np.inf
    eligible = rng.random(score.shape) < 0.7
    assert kernels.pick_top(score, eligible, keep).tolist() == \
        pick_top(score, eligible, keep).tolist()


def test_weights_and_short_deadlines_use_numpy(monkeypatch):
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
    y = np.array([0, 1, 1, 0], dtype=np.uint8)
    weighted = prepare(X, y, sample_weight=np.ones(4))
    assert levels.levels_for(weighted, "compiled") is levels.NUMPY_LEVELS
    loads = []
    monkeypatch.setattr(levels, "_loaded", {})  # as in a process that has not loaded them
    monkeypatch.setattr(levels, "load_kernels", lambda: loads.append(1))
    short = Deadline.after(levels.LOAD_MIN_SECONDS / 2)  # too short to load (or compile) them
    assert levels.levels_for(prepare(X, y), "auto", short) is levels.NUMPY_LEVELS
    assert loads == []


def test_the_searches_cache_is_keyed_to_the_level_kernels_source(kernels):
    """``grow_best``, ``climb`` and ``climb_folds`` hold the machine code of the level kernels
    they call (``level_scoring``): their disk cache is keyed to that file's content too, so an
    edit of a level kernel alone never loads a search compiled against the old one."""
    from numba.core.dispatcher import Dispatcher

    from occamlearn import kernel_sources

    name = kernels.__name__
    files = {path.name for path in kernel_sources.source_files(name)}
    assert {"level_kernels.py", "level_scoring.py"} <= files
    key = kernel_sources.sources_key(name)
    own = [value for value in vars(kernels).values() if isinstance(value, Dispatcher)
           and value.py_func.__module__ == name]
    assert {value.py_func.__name__ for value in own} >= {"grow_best", "climb", "climb_folds"}
    assert all(value._cache._cache_file._source_stamp[1] == key for value in own)
