"""Alarms: call a function after some seconds, from one thread the process keeps.

A compiled search runs without the GIL and polls a flag; something must set that flag at the
deadline. A ``threading.Timer`` per search starts a thread on every fit, and
``Thread.start`` waits until the new thread has run: on a loaded machine that is a wait for a
free core, paid by every fit (DT(max)'s 0/1 route: 0.1 ms of CPU a fit idle, up to a
millisecond of wall at load 7 on 2 cores). Here one daemon thread, started with the first
alarm, sleeps until the earliest alarm is due and calls it; setting and cancelling an alarm
take a lock and a notify. An action runs on that thread, outside the lock, so it must be
short (setting a flag) and must not wait for another alarm.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading

from occamlearn.stopping import CLOCK

__all__ = ["Alarm", "set_alarm"]


class Alarm:
    """A pending call of ``action`` at ``due`` (``stopping.CLOCK`` seconds)."""

    __slots__ = ("action", "due", "entry")

    def __init__(self, due: float, action):
        self.due, self.action, self.entry = due, action, None

    def cancel(self) -> None:
        """Drop the alarm if it has not rung; after this returns it will not ring (an action
        already running may still be finishing)."""
        with _STATE.condition:
            if self.entry is not None and self.entry in _STATE.due:
                _STATE.due.remove(self.entry)
                heapq.heapify(_STATE.due)
            self.entry = None


class _State:
    """The process's alarms: a heap of (due, sequence, alarm), its lock and its thread."""

    def __init__(self):
        self.condition = threading.Condition(threading.Lock())
        self.due: list = []
        self.sequence = itertools.count()
        self.thread: threading.Thread | None = None


_STATE = _State()


def _reset_after_fork() -> None:          # a forked child has the memory, not the thread
    global _STATE
    _STATE = _State()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def set_alarm(seconds: float, action) -> Alarm:
    """Call ``action()`` once ``seconds`` from now (at once if <= 0), unless cancelled."""
    alarm = Alarm(CLOCK() + max(0.0, float(seconds)), action)
    state = _STATE
    with state.condition:
        alarm.entry = (alarm.due, next(state.sequence), alarm)
        heapq.heappush(state.due, alarm.entry)
        if state.thread is None:
            state.thread = threading.Thread(target=_ring, args=(state,), daemon=True,
                                            name="occamlearn-alarms")
            state.thread.start()
        state.condition.notify()
    return alarm


def _ring(state: _State) -> None:
    while True:
        with state.condition:
            while True:
                if not state.due:
                    state.condition.wait()
                    continue
                left = state.due[0][0] - CLOCK()
                if left <= 0:
                    alarm = heapq.heappop(state.due)[2]
                    alarm.entry = None
                    break
                state.condition.wait(left)
        alarm.action()
