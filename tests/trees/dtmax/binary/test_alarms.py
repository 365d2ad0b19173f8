"""``alarms``: one thread rings every alarm once, at its time, in order; a cancelled alarm
never rings."""

from __future__ import annotations

import threading
import time

from occamlearn.trees.dtmax.binary.alarms import set_alarm


def test_alarms_ring_in_order_at_their_time():
    rung, done = [], threading.Event()
    began = time.monotonic()
    for seconds, name in ((0.15, "late"), (0.0, "now"), (0.05, "soon")):
        set_alarm(seconds, lambda n=name: rung.append((n, time.monotonic() - began)))
    set_alarm(0.2, done.set)
    assert done.wait(5)
    assert [name for name, _ in rung] == ["now", "soon", "late"]
    for (name, at), due in zip(rung, (0.0, 0.05, 0.15), strict=True):
        assert at >= due - 0.005, (name, at)


def test_a_cancelled_alarm_never_rings():
    rung, done = [], threading.Event()
    kept = set_alarm(0.05, lambda: rung.append("kept"))
    dropped = set_alarm(0.02, lambda: rung.append("dropped"))
    dropped.cancel()
    set_alarm(0.1, done.set)
    assert done.wait(5)
    kept.cancel()                                 # after ringing: nothing happens
    assert rung == ["kept"]


def test_one_thread_serves_every_alarm():
    done = threading.Event()
    for _ in range(50):
        set_alarm(60, lambda: None).cancel()
    set_alarm(0.0, done.set)
    assert done.wait(5)
    assert sum(t.name == "occamlearn-alarms" for t in threading.enumerate()) == 1
