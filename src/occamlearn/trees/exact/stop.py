"""The stop signal inside every exact search: one exception, one poll.

A search's recursion asks ``Poll.tick()`` once per call; every ``POLL_EVERY`` calls that looks
at the ``occamlearn.stopping.Deadline`` (its clock and its stop flag: a time limit, Ctrl-C
handled by the caller, or a portfolio partner that proved the optimum) and at an optional cap
on calls. A search unwinds with ``Stop`` (or ``OutOfCalls`` for a cap) and its driver keeps
the best tree found so far. One poll period for every search: a call of the Python searches
takes microseconds to a millisecond, so 16 calls keep a time limit within milliseconds for
well under 1 % of the time (a look at the clock is about 0.1 us).

Memory is a stop too, for a search that has a deadline (a driver that expects ``Stop``; a
search run without one, such as the subtree rebuild of a saturated memo, must finish): every
``MEMORY_LOOK_EVERY`` polls the poll reads the process's resident memory
(``occamlearn.memory``, about 10 us), and once the limit is reached the search stops as at a
time limit (``memory_full`` says why), with its best tree: the memos of the Python searches
grow by the call and are never evicted.
"""

from __future__ import annotations

from occamlearn import memory
from occamlearn.stopping import Deadline

__all__ = ["MEMORY_LOOK_EVERY", "POLL_EVERY", "OutOfCalls", "Poll", "Stop"]

POLL_EVERY = 16  # calls between two looks at the deadline
MEMORY_LOOK_EVERY = 64  # polls between two looks at the resident memory


class Stop(Exception):
    """Raised inside a search when its deadline expired or a stop was requested."""


class OutOfCalls(Exception):
    """Raised inside a search limited to a number of calls (``Poll.call_cap``)."""


class Poll:
    """Counts a search's calls and checks its deadline every ``POLL_EVERY`` of them."""

    __slots__ = ("call_cap", "calls", "deadline", "memory_full", "polls", "stop_when")

    def __init__(self, deadline: Deadline | None = None, stop_when=None):
        self.deadline = deadline  # None: no limit (no Deadline is made for it)
        self.stop_when = stop_when  # a callable also asked at each poll (an engine switch)
        self.calls = 0
        self.polls = 0
        self.memory_full = False
        self.call_cap: int | None = None

    def tick(self) -> None:
        """One more call; raises ``Stop`` / ``OutOfCalls`` at a poll that finds them due."""
        self.calls += 1
        if not self.calls % POLL_EVERY:
            self.check()

    def check(self) -> None:
        """Raise ``OutOfCalls`` past the cap, ``Stop`` once the deadline expired (or, looked
        at every ``MEMORY_LOOK_EVERY`` checks, the memory limit is reached)."""
        if self.call_cap is not None and self.calls >= self.call_cap:
            raise OutOfCalls
        if (self.deadline is not None and self.deadline.expired()) or (
                self.stop_when is not None and self.stop_when()):
            raise Stop
        self.polls += 1
        if self.deadline is not None and not self.polls % MEMORY_LOOK_EVERY:
            self.need_room(1)  # no byte left under the limit

    def need_room(self, needed: int) -> None:
        """Raise ``Stop`` as at the memory limit (``memory_full``) unless ``needed`` more
        bytes fit under it."""
        if needed > memory.room():
            self.memory_full = True
            raise Stop


