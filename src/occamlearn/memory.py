"""How much memory a fit may still take: one limit per process, read before each allocation.

Why. The searches keep memos, hash tables and MaxSAT encodings whose size grows with the data
and the time they run; each used to have its own cap (768 MB here, 2 GiB there, 4 GiB for an
encoding), and together they passed 2 GB on a 600-row table. Now there is one limit, the
resident memory of the whole process (imports and data included), ``DEFAULT_LIMIT`` unless a
fit asks for another (``limited``), and every large structure is sized from what is left of it
(``room``) before it is allocated: a memo gets a share of the room and stops growing at it (its
search then stops as at a time limit, "memory full"), an encoding predicted to need more than
the room is not built. A structure that may be followed by others takes only a share
(``share``), so the room is never promised twice.

* ``process_bytes()``: the resident bytes of this process now (``/proc/self/statm`` on Linux,
  else the peak so far, which is never below it).
* ``limit_bytes()``: the limit in force: the innermost ``limited(bytes)`` (a fit's
  ``memory_limit``), else ``OCCAMLEARN_MEMORY_LIMIT`` from the environment (bytes, or with a
  suffix K, M, G), else ``DEFAULT_LIMIT``.
* ``room()``: ``limit_bytes() - process_bytes()``, never below zero.

This module imports nothing else from the package, so every family may use it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys

__all__ = ["DEFAULT_LIMIT", "limit_bytes", "limited", "parse_bytes", "process_bytes", "room",
           "share", "table_capacity"]

DEFAULT_LIMIT = 2 * 2**30
_SUFFIXES = {"K": 2**10, "M": 2**20, "G": 2**30}
_limit: contextvars.ContextVar[int | None] = contextvars.ContextVar("occamlearn_memory_limit",
                                                                    default=None)


def _page_size() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 4096


def process_bytes() -> int:
    """Resident bytes of this process now (the peak so far where that cannot be read)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _page_size()
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:  # no way to tell: assume nothing is used
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere


def parse_bytes(value, name: str = "memory_limit") -> int:
    """``value`` as a number of bytes: a positive number, or a string with a suffix K, M or
    G (``"1.5G"``); a ValueError naming ``name`` otherwise."""
    amount = value
    if isinstance(value, str):
        text = value.strip().upper().removesuffix("B")
        scale = _SUFFIXES.get(text[-1:], 1)
        try:
            amount = float(text[:-1] if text[-1:] in _SUFFIXES else text) * scale
        except ValueError:
            amount = None
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not amount > 0:
        raise ValueError(f"{name} must be a number of bytes > 0 or a string such as '2G'; "
                         f"got {value!r}.")
    return int(amount)


def limit_bytes() -> int:
    """The resident-memory limit in force (see the module docstring)."""
    inner = _limit.get()
    if inner is not None:
        return inner
    environment = os.environ.get("OCCAMLEARN_MEMORY_LIMIT", "").strip()
    if environment:
        return parse_bytes(environment, "OCCAMLEARN_MEMORY_LIMIT")
    return DEFAULT_LIMIT


@contextlib.contextmanager
def limited(limit):
    """Within the block, ``limit`` bytes (or a string such as ``"1.5G"``; None keeps the
    limit in force) is the limit every structure is sized from."""
    token = _limit.set(None if limit is None else parse_bytes(limit)) if limit is not None \
        else None
    try:
        yield
    finally:
        if token is not None:
            _limit.reset(token)


def room() -> int:
    """Bytes this process may still take before it reaches the limit (0 when past it)."""
    return max(0, limit_bytes() - process_bytes())


def share(fraction: float, cap: int | None = None) -> int:
    """``fraction`` of the ``room`` (at most ``cap`` bytes): what one structure may take when
    others may follow it."""
    bytes_ = int(fraction * room())
    return bytes_ if cap is None else min(bytes_, int(cap))


def table_capacity(entry_bytes: int, current: int, cap: int, fraction: float = 0.5) -> int:
    """The capacity (a power of two, entries of ``entry_bytes``) a hash table of ``current``
    slots may grow to now: at most ``cap`` and at most what ``fraction`` of the ``room``
    holds (the old table lives on while its entries are moved), never below ``current``."""
    affordable = share(fraction) // max(1, int(entry_bytes))
    capacity = min(int(cap), 1 << max(0, affordable.bit_length() - 1))
    return max(int(current), capacity)
