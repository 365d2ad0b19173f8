"""The fit's reserve after its search grows with the machine's load (``stopping``)."""

from __future__ import annotations

import pytest

from occamlearn import stopping
from occamlearn.stopping import Deadline, finishing_seconds, machine_slowdown


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
