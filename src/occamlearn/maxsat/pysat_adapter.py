"""Everything that reaches into PySAT beyond its documented API, in one place.

Checked against python-sat 1.8.dev* and 1.9.dev24 (CaDiCaL 1.9.5, RC2 of
``pysat.examples.rc2``). When PySAT changes, this is the module to re-check:

* ``SATInterrupt`` -- the exception PySAT's C extension (``pysolvers.error``) raises when Ctrl-C
  arrives inside a ``solve()`` call; it is not a ``KeyboardInterrupt``, and its message is the
  only way to tell an interrupt from another solver failure (``is_interrupt``).
* ``route_oracle_calls`` -- RC2 makes every SAT call through its private ``_call_oracle``;
  replacing it lets the back-end run each call in conflict-budget chunks under a deadline
  (PySAT's CaDiCaL cannot be interrupted from another thread).
* ``report_finished_levels`` -- ``RC2Stratified.finish_level`` is called when a weight level
  is done, with a model of every hard clause in the oracle; wrapping it gives the anytime
  models RC2 does not report itself.
"""

from __future__ import annotations

from collections.abc import Callable

from pysolvers import error as SATInterrupt

__all__ = ["SATInterrupt", "is_interrupt", "report_finished_levels", "route_oracle_calls"]


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C, raised by Python or by PySAT's solver extension."""
    return isinstance(exc, KeyboardInterrupt) or (
        isinstance(exc, SATInterrupt) and "keyboard interrupt" in str(exc).lower())


def route_oracle_calls(rc2, call: Callable) -> None:
    """Make ``rc2`` run each SAT call as ``call(assumptions=(), expect_interrupt=False)``."""
    rc2._call_oracle = call


def report_finished_levels(rc2, on_level: Callable[[list], None]) -> None:
    """Call ``on_level(model)`` with the oracle's model each time ``RC2Stratified`` finishes
    a weight level, before RC2 goes on."""
    finish_level = rc2.finish_level

    def finish_and_report():
        on_level(rc2.oracle.get_model())
        finish_level()

    rc2.finish_level = finish_and_report
