"""Which engine the branch and bound runs, and the switch from Python to compiled kernels.

The compiled engine (``CompiledRowSetSearch``) needs the numba kernels of ``bnb.kernels``: about a
second to load from the disk cache, seconds to tens of seconds to compile the first time.
``choose_engine`` takes the compiled engine when the cache is complete; otherwise the Python engine
(``RowSetSearch``, with the compiled incompatibility bound, a kernel that compiles in about a
second) searches while ``occamlearn.trees.compiling.kernel_cache`` compiles the rest in the
background. Its poll then also asks "are the kernels ready?", so the search stops at its next poll;
the caller switches to the compiled engine, which starts from the incumbent, the proven lower bound
and, through ``carry_over``, every row set the Python search solved or bounded. Why that is sound:
the memo of both engines maps a row set to the same thing (exact minimum leaves with a minimum split
column, or a proven lower bound), the split columns are indexed the same way (both engines take the
columns of ``prepare_rows`` in order), and a Python entry's bound always went through the
incompatibility bound when the search used it, which is what the compiled memo's BOUNDED flag
records.
"""

from __future__ import annotations

import numpy as np

from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch, RowSetSearch

__all__ = ["carry_over", "choose_engine", "new_search", "user_stop"]

# Whether the Python search compiles the incompatibility bound in the foreground while the
# background compile runs (else it searches with the class bound alone until the switch, and
# leaves the CPU to the compile). Measured under load (benchmarks/results/cold_start.md): with
# the bound the Python search proved lympho and h-votes before the compile ended; without it
# neither, and no compile ended sooner.
BOUND_WHILE_COMPILING = True


def choose_engine():
    """(engine, ready_check): "compiled" when the kernels are complete in the disk cache, else
    "python" with a ``KernelsWhenReady`` poll while a background process compiles them."""
    from occamlearn.trees.compiling import kernel_cache

    if kernel_cache.kernels_ready("bnb"):
        return "compiled", None
    return "python", kernel_cache.KernelsWhenReady("bnb")


def new_search(engine, rows, labels, n_classes, kept, options, deadline: Deadline | None,
               ready_check):
    """The search of ``engine`` once its kernels are loaded: (search, engine, seconds). If they
    fail to load (a broken cache, which ``kernel_cache.load`` resets), the Python search
    without the compiled bound, and a background compile rebuilds the cache for next time.
    A Python search with a ``ready_check`` also stops when the check says the kernels are
    ready (the caller then switches)."""
    from occamlearn.trees.compiling import kernel_cache

    if engine == "python" and getattr(ready_check, "started", False) and not (
            BOUND_WHILE_COMPILING and kernel_cache.foreground_compile_fits(deadline)):
        # the compile child builds the bound too: not compiling it here leaves the CPU to
        # that child (what the switch waits for), at the price of a weaker Python search;
        # with little time left the compile could outlast the deadline
        seconds, options = 0.0, {**options, "use_incompatibility": False}
    else:
        try:
            seconds = kernel_cache.load("bnb", search=engine == "compiled")
        except kernel_cache.KernelsUnavailable:
            kernel_cache.start_background_compile("bnb")
            engine, seconds = "python-only", 0.0
            options = {**options, "use_incompatibility": False}
    if engine == "python" and ready_check is not None:
        options = {**options, "stop_when": ready_check}
    search = (CompiledRowSetSearch if engine == "compiled" else RowSetSearch)(
        rows, labels, n_classes, kept, deadline=deadline, **options)
    return search, engine, seconds


def carry_over(python: RowSetSearch, compiled: CompiledRowSetSearch) -> int:
    """Copy the Python search's memo into the compiled engine's table; entries copied."""
    kernels = compiled.kernels
    bounded = kernels.BOUNDED if python.use_incompatibility else kernels.NO_FLAGS
    entries = [(rows, value, python.split_of.get(rows, -1), kernels.EXACT | kernels.BOUNDED)
               for rows, value in python.exact.items()]
    entries += [(rows, value, -1, bounded) for rows, value in python.lower.items()]
    if not entries:
        return 0
    capacity = compiled.table.shape[0]
    while capacity * 7 < len(entries) * 20 and capacity < compiled.max_capacity:
        # room for the entries at most 35 % full, growing as ``grow`` would (up to the cap)
        capacity = min(capacity * 4, compiled.max_capacity)
    if capacity > compiled.table.shape[0]:
        compiled.table = kernels.new_table(capacity, compiled.words)
        compiled.counters[kernels.GROWABLE] = capacity < compiled.max_capacity
    size = 8 * compiled.words
    keys = np.frombuffer(b"".join(rows.to_bytes(size, "little") for rows, *_ in entries),
                         dtype="<u8").astype(np.uint64).reshape(len(entries), compiled.words)
    values = np.fromiter((entry[1] for entry in entries), dtype=np.int64, count=len(entries))
    splits = np.fromiter((entry[2] for entry in entries), dtype=np.int64, count=len(entries))
    flags = np.fromiter((entry[3] for entry in entries), dtype=np.uint64, count=len(entries))
    kernels.insert(compiled.table, compiled.counters, keys, values, splits, flags)
    compiled.counters[kernels.FLAG] = 0  # a full table only drops entries: nothing to grow
    return int(compiled.counters[kernels.ENTRIES])


def user_stop(deadline: Deadline | None) -> bool:
    """True if the deadline passed or the caller asked to stop (not an engine switch)."""
    return deadline is not None and deadline.expired()
