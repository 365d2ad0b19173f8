"""``occamlearn.stopping``: one Deadline and one ProgressSink, made once in ``fit`` and shared
by every search below it (the stop flag reaches the innermost loop, the sink's trace is what
``solve_stats_`` and ``plot("trace")`` show), on one clock."""

import re
from pathlib import Path

import numpy as np
import pytest

import occamlearn
from occamlearn import MaxAccuracyTreeClassifier, MinimumPureTreeClassifier
from occamlearn.estimators import mpdt as mpdt_estimator
from occamlearn.stopping import CLOCK, Deadline, ProgressSink
from occamlearn.trees.mpdt.minimum import find_minimum_tree

SRC = Path(occamlearn.__file__).parent


# -- Deadline ------------------------------------------------------------------------------
def test_within_turns_share_the_stop_flag_both_ways():
    fit = Deadline.after(None)
    first, second = fit.within(5.0), fit.within(5.0)
    assert first.limited and not fit.limited and first.remaining() <= 5.0
    first.request_stop()  # e.g. a portfolio turn that proved the optimum
    assert fit.expired() and second.expired() and second.remaining() == 0.0


def test_within_never_outlasts_its_parent():
    fit = Deadline.after(0.2)
    turn = fit.within(100.0)
    assert turn.at == fit.at and turn.started == fit.started
    assert fit.within(None).at == fit.at


def test_an_inner_deadline_stops_with_its_parent_but_not_the_other_way():
    fit = Deadline.after(None)
    query = fit.inner()
    query.request_stop()  # one MaxSAT query re-encodes: the rest of the fit runs on
    assert query.expired() and not fit.expired()
    again = fit.inner(10.0)
    turn = again.within(1.0)
    fit.request_stop()  # Ctrl-C: every deadline made from the fit's stops
    assert again.expired() and turn.expired()


def test_deadline_arguments_are_checked():
    with pytest.raises(ValueError, match="time_limit must be a number of seconds >= 0"):
        Deadline.after(-1)
    with pytest.raises(ValueError, match="time_limit"):
        Deadline.after("10")
    with pytest.raises(TypeError, match="deadline must be an occamlearn.stopping.Deadline"):
        find_minimum_tree(np.eye(3, dtype=int), np.array([0, 1, 1]), 2, deadline=10)
    assert Deadline.after(0).expired() and not Deadline.after(float("inf")).limited


# -- ProgressSink --------------------------------------------------------------------------
def test_sink_keeps_the_bounds_that_moved_and_chains():
    outer = ProgressSink()
    seen = []
    inner = ProgressSink(lambda *report: (seen.append(report), outer.report(*report)))
    inner.report(9, None, 0.1, "nine")
    inner.report(11, 2, 0.2, "eleven")  # only the lower bound moved: no model kept
    inner.report(9, 2, 0.3, "nine again")  # nothing moved: not forwarded
    inner.report(7, 7, 0.4, "seven")
    assert inner.trace == outer.trace == [(0.1, 9, None), (0.2, 9, 2), (0.4, 7, 7)]
    assert [report[2] for report in seen] == [0.1, 0.2, 0.4]
    assert inner.model == outer.model == "seven"
    assert inner.improvements() == [(0.1, 9), (0.4, 7)]
    inner.interrupted(0.5)
    assert inner.interrupted_at == 0.5 and outer.interrupted_at is None


# -- one deadline from fit to the innermost loop --------------------------------------------
@pytest.fixture
def deadlines_made(monkeypatch):
    """Every Deadline made from seconds (``Deadline.after``) while the test runs."""
    made = []
    after = Deadline.after.__func__

    def recording(cls, seconds, **kwargs):
        made.append(after(cls, seconds, **kwargs))
        return made[-1]

    monkeypatch.setattr(Deadline, "after", classmethod(recording))
    return made


FITS = {
    "auto": dict(method="auto"),
    "bnb": dict(method="bnb"),
    "maxsat": dict(method="maxsat"),
    "mindt": dict(method="mindt"),
    "budget": dict(method="auto", max_errors=3),
    "budget-maxsat": dict(method="maxsat", max_errors=3),
    "alg3": dict(method="auto", n_solutions=3, selection_size=0.25, random_state=0),
}


@pytest.mark.parametrize("options", FITS.values(), ids=FITS.keys())
def test_a_fit_turns_its_time_limit_into_a_deadline_once(options, bundled_binary,
                                                         deadlines_made):
    X, y, _ = bundled_binary("corral", unique=True)
    clf = MinimumPureTreeClassifier(binarizer=None, time_limit=60, **options).fit(X, y)
    assert clf.status_ == "optimal"
    assert len(deadlines_made) == 1 and deadlines_made[0].limited


def test_a_dtmax_fit_turns_its_time_limit_into_a_deadline_once(bundled_binary,
                                                               deadlines_made):
    X, y, _ = bundled_binary("corral")
    for method in ("dp", "maxsat"):
        MaxAccuracyTreeClassifier(max_depth=2, binarizer=None, method=method,
                                  time_limit=60).fit(X, y)
    assert len(deadlines_made) == 2


@pytest.mark.parametrize("method", ["auto", "bnb", "maxsat", "mindt"])
def test_a_stop_requested_from_the_progress_sink_ends_the_search(method, random_binary,
                                                                 within):
    """No time limit, and a minimum of well over 100 nodes: only the stop flag, requested
    when the first tree is reported, can end the search. Each engine polls it."""
    X, y = random_binary(300, 30, n_classes=3, distinct=True)
    deadline = Deadline.after(None)
    asked = []

    def stop_at_first_tree(upper, lower, seconds, tree):
        if tree is not None and not asked:
            asked.append(CLOCK())
            deadline.request_stop()

    result = find_minimum_tree(X, y, 3, method=method, deadline=deadline,
                               progress=ProgressSink(stop_at_first_tree))
    assert asked and within(0, CLOCK() - asked[0])
    assert result.status == "feasible" and result.tree.is_pure_on(X, y)
    assert result.lower_bound < result.upper_bound == result.tree.n_nodes


def test_the_fits_own_deadline_reaches_the_innermost_search(random_binary, deadlines_made,
                                                            within):
    """The one Deadline made in ``fit``, stopped from a progress callback: the fit returns
    promptly with the best tree as "feasible" (no KeyboardInterrupt: nobody pressed Ctrl-C)."""
    X, y = random_binary(300, 30, n_classes=3, distinct=True)
    asked = []

    def stop(tree, seconds):
        if not asked:
            asked.append(CLOCK())
            deadlines_made[0].request_stop()

    clf = MinimumPureTreeClassifier(binarizer=None, callback=stop).fit(X, y)
    assert within(0, CLOCK() - asked[0])
    assert clf.status_ == "feasible" and clf.score(X, y) == 1.0
    assert "interrupted" not in clf.solve_stats_ or not clf.solve_stats_["interrupted"]


# -- the sink's trace is what the fitted estimator shows ------------------------------------
def test_bound_trace_and_plot_show_the_fits_sink(monkeypatch, bundled_binary):
    sinks = []
    make = mpdt_estimator.fit_progress

    def recording(user, **kwargs):
        sinks.append(make(user, **kwargs))
        return sinks[-1]

    monkeypatch.setattr(mpdt_estimator, "fit_progress", recording)
    X, y, _ = bundled_binary("tic-tac-toe", unique=True)
    user = ProgressSink()
    clf = MinimumPureTreeClassifier(binarizer=None, method="auto", callback=user,
                                    time_limit=60).fit(X, y)
    sink, = sinks
    assert clf.solve_stats_["bound_trace"] == sink.trace
    assert clf.solve_stats_["trace"] == sink.improvements()
    assert sink.trace[-1][1:] == (clf.upper_bound_, clf.lower_bound_)
    assert user.upper == clf.upper_bound_ and user.lower == clf.lower_bound_
    assert user.model.feature_names == clf.tree_.feature_names  # named trees reach the user
    seconds = [s for s, _, _ in sink.trace]
    assert seconds == sorted(seconds) and seconds[-1] <= clf.solve_stats_["total_seconds"]
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = clf.plot("trace")
    best, bound = ax.lines[0], ax.lines[1]
    assert list(best.get_ydata())[:-1] == [size for _, size in sink.improvements()]
    assert list(bound.get_ydata())[:-1] == [lower for _, _, lower in sink.trace]


# -- one clock ------------------------------------------------------------------------------
def test_the_package_reads_one_clock():
    """``stopping.CLOCK`` (perf_counter) is the clock of every deadline and trace: no module
    reads time.monotonic or time.time, whose values cannot be compared with it. (The age of
    a file, ``time.time() - st_mtime``, is wall-clock by nature and is not a deadline.)"""
    offenders = [f"{path.relative_to(SRC)}:{number}"
                 for path in SRC.rglob("*.py")
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if re.search(r"\btime\.(monotonic|time)\(|\bmonotonic\(\)", line)
                 and "st_mtime" not in line]
    assert offenders == []
