"""One stop signal and one progress sink, made once in ``fit`` and passed down to every search.

Why one of each: a ``time_limit`` used to be turned from seconds into a deadline and back in
many places, on two clocks, and progress went through four callback shapes. Now:

* ``Deadline`` is a point on one clock (``time.perf_counter``) plus a stop flag. ``fit``
  makes it from ``time_limit`` (``Deadline.after(seconds)``; ``None`` means no limit), and
  every search asks it ``expired()`` / ``remaining()``. ``request_stop()`` (Ctrl-C, a portfolio
  partner that proved the optimum) makes every holder stop at its next poll; ``within(s)`` gives
  a shorter deadline for one turn of a portfolio that shares the parent's flag, so a stop
  reaches every turn. ``inner(s)`` is the same but with a stop of its own: a stop requested
  from outside still reaches it, its own ``request_stop()`` ends only the work it was given to
  (a portfolio whose engines met, a MaxSAT call whose model is small enough to re-encode),
  never the rest of ``fit``. Seconds are never turned into a deadline again below ``fit``.
  ``step_seconds()`` is the one rule for work that cannot look at the clock while it runs (a
  compiled kernel call, a library call): at most ``STEP_SHARE`` of the whole limit, and never
  more than is left, so that a search that checks the deadline between such steps overruns
  its limit by at most about 1 %. ``Deadline.for_fit(seconds)`` is the deadline of a whole
  ``fit``: its searches stop ``finishing_seconds(seconds)`` before the limit, the time kept
  for what a fit does after its search (see there), so that ``fit`` returns at the limit.
  ``KernelPace`` turns those seconds into the work units a compiled kernel counts (its call
  budget), at the pace its timed calls have shown.
* ``ProgressSink`` receives ``(upper, lower, seconds, model)`` -- the best size or cost found,
  the proven bound, the seconds since the deadline was made (``Deadline.elapsed()``), and
  optionally the model itself -- from every engine, keeps the best model and the trace, and
  forwards each report that moved a bound to its callback (the user's callback, the CLI's
  progress line, ``verbose``, or the ``report`` of an outer sink: sinks chain).
  ``interrupted()`` records a Ctrl-C.

This module imports nothing else from the package, so ``maxsat/``, ``model/`` and every tree
family may use it.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real

__all__ = ["CLOCK", "Deadline", "KernelPace", "ProgressSink", "finishing_seconds", "machine_cores",
           "machine_slowdown", "process_seconds"]

CLOCK = time.perf_counter  # the one clock of every deadline and every trace
# The longest share of a time limit that one step without a look at the deadline may take
# (``Deadline.step_seconds``): a kernel call predicted to take longer is cut into pieces,
# given a work budget, or skipped.
STEP_SHARE = 0.01
# What a fit keeps for itself after its search stops (``finishing_seconds``): a fixed part and
# a share of the limit, never more than ``FINISH_MOST`` of it.
FINISH_SECONDS = 0.3
FINISH_SHARE = 0.02
FINISH_MOST = 0.1
# The most ``machine_slowdown`` reports: past it the reserve is capped by ``FINISH_MOST``
# anyway on every limit up to 4 * FINISH_SECONDS / (FINISH_MOST - FINISH_SHARE) = 15 s.
SLOWDOWN_MOST = 4.0


def machine_slowdown() -> float:
    """How many times longer one thread's work takes now than on an idle machine, estimated as
    the machine's 1-minute load average per core: with more runnable threads than cores each
    gets that share of a core. At least 1, at most ``SLOWDOWN_MOST``; 1 where the load
    average cannot be read. A reading younger than ``LOAD_FRESH_SECONDS`` is used again."""
    global _last_load
    now = CLOCK()
    if _last_load is None or not 0.0 <= now - _last_load[0] < LOAD_FRESH_SECONDS:
        try:
            load = os.getloadavg()[0]
        except (OSError, AttributeError):  # pragma: no cover - not a Unix
            return 1.0
        _last_load = (now, load)
    return min(SLOWDOWN_MOST, max(1.0, _last_load[1] / machine_cores()))


# Linux recomputes its load averages every 5 seconds (LOAD_FREQ in kernel/sched/loadavg.c),
# so a reading taken less than a second ago is the current value or one update behind it;
# back-to-back fits of a few milliseconds then skip reading /proc/loadavg, which took 7-12 us
# of CPU per fit after another library's fit had cooled the caches.
LOAD_FRESH_SECONDS = 1.0
_last_load: tuple | None = None  # (CLOCK at the reading, the 1-minute load average read)


@functools.cache
def machine_cores() -> int:
    """The machine's cores (``os.cpu_count``, 1 if unknown), read once: ``os.cpu_count``
    reads a file at every call, which took 18 us of CPU inside a 1 ms fit."""
    return os.cpu_count() or 1


def finishing_seconds(seconds: float, slowdown: float = 1.0) -> float:
    """The seconds before a fit's limit at which its searches stop, kept for what follows them
    (``Deadline.for_fit``): ``FINISH_SECONDS * slowdown + FINISH_SHARE * seconds``, at most
    ``FINISH_MOST * seconds``; ``slowdown`` is ``machine_slowdown()`` when the fit starts.

    Why this much. After the deadline a search still (a) ends the step it is in, which takes
    at most ``STEP_SHARE`` of the limit (``Deadline.step_seconds``), (b) rebuilds its best tree
    from its memo (DT(max) re-runs the sub-searches of the chosen tests without a deadline: a
    stop in the middle of one would leave a tree with a hole), and (c) hands it to ``fit``,
    which decodes it, counts its training errors on every row and packages the model.
    Measured on a near-idle machine with no reserve (``benchmarks/results/limits_idle.md``),
    (a)-(c) took 0.0-0.6 s past the limit, the most on 5 s fits of DT(max) depth 3 on
    200 x 2,000 and on 10 s fits of 100,000 rows; the reserve covers that with 0.2 s to spare
    from 4 s limits up. Small limits keep 90 % of their time for the search (the cap), so a
    test's 1 s fit still searches.

    Under load. (b) and (c) are fixed work, which takes ``slowdown`` times longer on a loaded
    machine, so the fixed part grows with it; (a) does not, because a step's length is
    measured in wall seconds as the search goes (``KernelPace``). Measured without this rule
    with two busy loops beside each fit and the machine's load average at 6-14
    (``benchmarks/results/limits_loaded4_base.md``), (a)-(c) took 0.1-1.6 s past the
    searches' deadline on 10-60 s fits, and the fixed reserve left 10-30 s fits up to 0.9 s
    past their limit; at ``slowdown`` 4 the reserve of those limits is 1.0-1.8 s.

    >>> finishing_seconds(5.0), finishing_seconds(60.0), finishing_seconds(1.0)
    (0.4, 1.5, 0.1)
    >>> finishing_seconds(20.0, slowdown=4.0), finishing_seconds(5.0, slowdown=4.0)
    (1.6, 0.5)
    """
    seconds = float(seconds)
    return round(min(FINISH_SECONDS * max(1.0, float(slowdown)) + FINISH_SHARE * seconds,
                     FINISH_MOST * seconds), 6)


def process_seconds() -> float:
    """Seconds since this process started (its interpreter and imports included): what a
    command's time limit counts from (``occamlearn fit --time-limit``). From the process's
    start time in /proc on Linux; elsewhere from when this module was first imported."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as uptime:
            now = float(uptime.read().split()[0])
        return max(0.0, now - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return CLOCK() - _IMPORTED


_IMPORTED = CLOCK()


class _StopFlag:
    """Shared between a deadline and the shorter deadlines ``within`` makes from it; an
    ``inner`` deadline's flag also reads its parent's (a stop travels inwards, never out)."""

    __slots__ = ("_requested", "parent")

    def __init__(self, parent: _StopFlag | None = None):
        self._requested = False
        self.parent = parent

    @property
    def requested(self) -> bool:
        flag = self
        while flag is not None:
            if flag._requested:
                return True
            flag = flag.parent
        return False

    def set(self) -> None:
        self._requested = True


class Deadline:
    """When a search must stop: a time on ``CLOCK`` (or none) and a shared stop flag.

    >>> d = Deadline.after(None)
    >>> d.expired(), d.remaining()
    (False, inf)
    >>> d.request_stop(); d.expired()
    True
    """

    __slots__ = ("_flag", "at", "started")

    def __init__(self, at: float | None = None, *, started: float | None = None,
                 _flag: _StopFlag | None = None):
        self.at = None if at is None else float(at)
        self.started = CLOCK() if started is None else float(started)
        self._flag = _StopFlag() if _flag is None else _flag

    @classmethod
    def after(cls, seconds: float | None, *, name: str = "time_limit") -> Deadline:
        """A deadline ``seconds`` from now; ``None`` (or ``inf``) means no time limit. The one
        place where seconds become a deadline (``fit``, or a caller of a search function);
        ``name`` is the argument named by the ValueError for a negative or non-number."""
        now = CLOCK()
        if seconds is None:
            return cls(None, started=now)
        if (type(seconds) is float or type(seconds) is int) and 0 <= seconds < math.inf:
            return cls(now + float(seconds), started=now)  # the common case, checked as below
        if isinstance(seconds, bool) or not isinstance(seconds, Real) or not seconds >= 0:
            raise ValueError(f"{name} must be a number of seconds >= 0 or None; "
                             f"got {seconds!r}.")
        if math.isinf(seconds):
            return cls(None, started=now)
        return cls(now + float(seconds), started=now)

    @classmethod
    def for_fit(cls, seconds: float | None, *, slowdown: float | None = None) -> Deadline:
        """The deadline of a whole ``fit`` asked to take at most ``seconds`` (``None``: no
        limit): its searches stop ``finishing_seconds(seconds, slowdown)`` early, kept for
        the fit's work after them, so that the fit returns at its limit rather than past it.
        ``slowdown`` None: ``machine_slowdown()`` now.

        >>> d = Deadline.for_fit(5.0, slowdown=1.0); round(d.at - d.started, 6)
        4.6
        """
        deadline = cls.after(seconds)
        if deadline.at is not None:
            if slowdown is None:
                slowdown = machine_slowdown()
            deadline.at -= finishing_seconds(deadline.at - deadline.started, slowdown)
        return deadline

    @classmethod
    def coerce(cls, deadline: Deadline | None) -> Deadline:
        """``deadline`` itself, or a deadline without a limit for ``None``; a number (seconds
        given where a deadline belongs) is a TypeError."""
        if deadline is None:
            return cls.after(None)
        if not isinstance(deadline, Deadline):
            raise TypeError(f"deadline must be an occamlearn.stopping.Deadline or None (make "
                            f"one with Deadline.after(seconds)); got {deadline!r}.")
        return deadline

    def within(self, seconds: float | None) -> Deadline:
        """A deadline that ends ``seconds`` from now or at this one, whichever is first, and
        stops whenever this one is asked to stop (and stops this one when asked: one flag)."""
        return Deadline(self._sooner(seconds), started=self.started, _flag=self._flag)

    def inner(self, seconds: float | None = None) -> Deadline:
        """Like ``within``, but with a stop of its own: this deadline's stop reaches it, its
        ``request_stop()`` does not reach this one."""
        return Deadline(self._sooner(seconds), started=self.started,
                        _flag=_StopFlag(parent=self._flag))

    def _sooner(self, seconds: float | None) -> float | None:
        now = CLOCK()
        at = None if seconds is None or math.isinf(seconds) else now + max(0.0, float(seconds))
        if self.at is not None:
            at = self.at if at is None else min(at, self.at)
        return at

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, 0.0 once stopped)."""
        if self._flag.requested:
            return 0.0
        if self.at is None:
            return math.inf
        return max(0.0, self.at - CLOCK())

    def step_seconds(self) -> float:
        """The longest one step that does not look at this deadline may take: ``STEP_SHARE``
        of the whole limit (from ``started``), at most the seconds left; ``inf`` without a
        limit (0.0 once stopped).

        >>> Deadline(None).step_seconds()
        inf
        """
        left = self.remaining()
        if self.at is None or left <= 0.0:
            return left
        return min(left, STEP_SHARE * (self.at - self.started))

    def expired(self) -> bool:
        """True once the time is up or a stop was requested."""
        return self._flag.requested or (self.at is not None and CLOCK() >= self.at)

    def elapsed(self) -> float:
        """Seconds since the outermost deadline was made (the start of ``fit``)."""
        return CLOCK() - self.started

    def request_stop(self) -> None:
        """Make this deadline, and every deadline made from it, expire now."""
        self._flag.set()

    @property
    def stop_requested(self) -> bool:
        return self._flag.requested

    @property
    def limited(self) -> bool:
        """True when the deadline has a time (not only a stop flag)."""
        return self.at is not None

    def __repr__(self) -> str:
        left = self.remaining()
        return f"Deadline(remaining={left:.3f}s)" if math.isfinite(left) else "Deadline(None)"


class KernelPace:
    """Seconds per unit of work of one compiled kernel, which cannot read the clock: its
    calls get a budget of work units (``budget``), and each call's work and seconds are
    recorded (``record``) so the pace follows the machine. Until ``TIMED_WORK`` units have
    been timed, the pace is the slowest measured, given by the kernel's module.

    >>> pace = KernelPace(1e-8)
    >>> pace.budget(Deadline.after(None)) == KernelPace.NO_LIMIT
    True
    >>> pace.record(0.5, 10**8); round(pace.seconds_per_unit, 12)
    5e-09
    """

    NO_LIMIT = 1 << 62
    TIMED_WORK = 10**6

    def __init__(self, seconds_per_unit: float):
        self.assumed = float(seconds_per_unit)
        self.seconds = 0.0
        self.work = 0

    @property
    def seconds_per_unit(self) -> float:
        return self.seconds / self.work if self.work >= self.TIMED_WORK else self.assumed

    def budget(self, deadline: Deadline | None) -> int:
        """The work one call may do: ``deadline.step_seconds()`` at this pace (no limit
        without a deadline)."""
        step = math.inf if deadline is None else deadline.step_seconds()
        if math.isinf(step):
            return self.NO_LIMIT
        return int(min(step / self.seconds_per_unit, self.NO_LIMIT))

    def record(self, seconds: float, work: int) -> None:
        """A call that did ``work`` units took ``seconds``."""
        if work > 0:
            self.seconds += max(0.0, float(seconds))
            self.work += int(work)


Callback = Callable[[float | None, float | None, float, object], object]


@dataclass
class ProgressSink:
    """Where every engine reports its progress: ``report(upper, lower, seconds, model)``.

    ``trace`` keeps one ``(seconds, upper, lower)`` triple per report in which a bound moved;
    ``callback`` (if given) receives each such report with the same four arguments (so a
    sink's ``report`` can be another sink's callback); ``model`` is the model of the best
    ``upper``; ``interrupted_at`` is set by ``interrupted`` when Ctrl-C ended the search.

    >>> sink = ProgressSink()
    >>> sink.report(7, 3, 0.5, "tree of 7"); sink.report(9, None, 0.6); sink.report(5, 5, 0.9)
    >>> sink.trace, sink.model
    ([(0.5, 7, 3), (0.9, 5, 5)], None)
    """

    callback: Callback | None = None
    trace: list = field(default_factory=list)
    upper: float | None = None
    lower: float | None = None
    model: object = None
    interrupted_at: float | None = None

    def report(self, upper=None, lower=None, seconds: float = 0.0, model=None) -> None:
        """A new best ``upper`` (with its ``model``) and/or a new proven ``lower`` bound."""
        moved = False
        if upper is not None and (self.upper is None or upper < self.upper):
            self.upper, self.model, moved = upper, model, True
        if lower is not None and (self.lower is None or lower > self.lower):
            self.lower, moved = lower, True
        if not moved:
            return
        self.trace.append((float(seconds), self.upper, self.lower))
        if self.callback is not None:
            self.callback(upper, lower, float(seconds), model)

    def improvements(self) -> list:
        """``(seconds, upper)`` at each report that lowered ``upper``: the anytime curve."""
        steps, last = [], None
        for seconds, upper, _ in self.trace:
            if upper is not None and upper != last:
                steps.append((seconds, upper))
                last = upper
        return steps

    @classmethod
    def coerce(cls, sink: ProgressSink | None) -> ProgressSink:
        """``sink`` itself, or a sink that only keeps the trace for ``None``."""
        return cls() if sink is None else sink

    def interrupted(self, seconds: float) -> None:
        """Ctrl-C: remembered so that the caller can keep the best model and re-raise."""
        self.interrupted_at = float(seconds)
