"""The fit's reserve after its search grows with the machine's load (``stopping``)."""

from __future__ import annotations

import pytest

from occamlearn import stopping
from occamlearn.stopping import Deadline, finishing_seconds, machine_slowdown


@pytest.fixture(autouse=True)
def _no_remembered_load(monkeypatch):
    """Each test reads the load its patched ``os.getloadavg`` gives."""
    monkeypatch.setattr(stopping, "_last_load", None)


@pytest.mark.parametrize(("load", "cores", "expected"),
                         [(0.3, 2, 1.0), (2.0, 2, 1.0), (5.0, 2, 2.5), (40.0, 2, 4.0),
                          (6.0, 8, 1.0)])
def test_slowdown_is_the_load_per_core_between_1_and_the_cap(monkeypatch, load, cores,
                                                             expected):
    monkeypatch.setattr(stopping.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(stopping, "machine_cores", lambda: cores)
    assert machine_slowdown() == expected


def test_the_fixed_part_of_the_reserve_scales_the_share_does_not():
    assert finishing_seconds(60.0, slowdown=2.0) == pytest.approx(0.6 + 1.2)
    assert finishing_seconds(60.0, slowdown=0.5) == finishing_seconds(60.0)  # never below idle
    for limit in (0.5, 1.0, 5.0, 10.0):  # the search keeps 90 % of small limits
        assert finishing_seconds(limit, slowdown=4.0) == pytest.approx(0.1 * limit)


def test_for_fit_reads_the_load_when_not_given(monkeypatch):
    monkeypatch.setattr(stopping.os, "getloadavg", lambda: (8.0, 8.0, 8.0))
    monkeypatch.setattr(stopping, "machine_cores", lambda: 2)
    loaded = Deadline.for_fit(60.0)
    assert loaded.at - loaded.started == pytest.approx(60.0 - 1.2 - 1.2)
    idle = Deadline.for_fit(60.0, slowdown=1.0)
    assert idle.at - idle.started == pytest.approx(60.0 - 1.5)
    assert Deadline.for_fit(None).at is None


def test_the_cores_are_os_cpu_count_read_once(monkeypatch):
    cores = stopping.machine_cores()
    assert cores == (stopping.os.cpu_count() or 1)
    monkeypatch.setattr(stopping.os, "cpu_count", lambda: 10**6)
    assert stopping.machine_cores() == cores  # remembered, not read again


def test_a_reading_younger_than_a_second_is_used_again(monkeypatch):
    """The load average is read again once ``LOAD_FRESH_SECONDS`` have passed on the clock
    (or the clock went back), not before."""
    now, reads = [100.0], []

    def load():
        reads.append(now[0])
        return (1.0 + 0.5 * len(reads), 0.0, 0.0)

    monkeypatch.setattr(stopping.os, "getloadavg", load)
    monkeypatch.setattr(stopping, "machine_cores", lambda: 1)
    monkeypatch.setattr(stopping, "CLOCK", lambda: now[0])
    assert machine_slowdown() == 1.5
    for now[0] in (100.0, 100.5, 100.0 + stopping.LOAD_FRESH_SECONDS - 1e-6):
        assert machine_slowdown() == 1.5  # remembered
    now[0] = 100.0 + stopping.LOAD_FRESH_SECONDS
    assert machine_slowdown() == 2.0  # read again
    now[0] = 99.0
    assert machine_slowdown() == 2.5  # the clock went back: read again
    assert reads == [100.0, 100.0 + stopping.LOAD_FRESH_SECONDS, 99.0]


@pytest.mark.parametrize("seconds", [0, 0.0, 1, 2.5, 10**6, float("inf"), None, True, -1,
                                     float("nan"), "1"])
def test_after_a_plain_number_is_the_checked_path(seconds):
    """``Deadline.after``'s shortcut for an int or float gives what the checked path gives
    (the same limit, the same errors)."""
    class Number(float):  # not float itself: the checked path
        pass

    wrapped = Number(seconds) if type(seconds) in (int, float) else seconds
    outcomes = []
    for given in (seconds, wrapped):
        try:
            d = Deadline.after(given)
        except ValueError as error:
            outcomes.append(str(error).replace(repr(given), "X"))
        else:
            outcomes.append(None if d.at is None else round(d.at - d.started, 6))
    assert outcomes[0] == outcomes[1]
