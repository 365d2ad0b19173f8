"""Cost counters for the Linear SAT-UNSAT loop (``maxsat.lsu``), built under a deadline.

LSU needs, over its n blocking literals, outputs out[0..bound] with "at least i+1 blocking
literals are true -> out[i]"; the unit clause or assumption -out[c] then says "cost <= c".
Only this upward direction is encoded: an upper bound needs nothing else.

Two encodings; ``choose_counter`` takes the totalizer unless it is both large and much
larger than the network:

* PySAT's ``ITotalizer`` (Bailleux & Boufkhad 2003): about n * bound clauses, built by one
  C call that cannot be interrupted. Fine for small bounds (every MPDT query); but for
  n = 8,124 and bound 4,208 (DT(max) of depth 2 on mushr: LSU's first model misclassifies
  4,208 rows) it has 25.4 M clauses, which took 36 s to build and 60 s to load.
* A cardinality network (Asín, Nieuwenhuis, Oliveras, Rodríguez-Carbonell, Constraints
  2011): the inputs in blocks of m (the least power of two > bound), each block sorted by
  Batcher's odd-even merge sort, blocks combined by "simplified merges" that keep the m
  largest outputs; half comparators (Eén & Sörensson 2006) give 3 clauses each. About
  n log^2 m clauses (0.96 M in the case above); built here clause by clause, so the build
  stops at the deadline.

Inputs padded to a power of two are the constant false (``None``): comparators with a
constant input pass the other one through and cost no clause.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from pysat.card import ITotalizer
from pysat.solvers import Solver

from occamlearn.maxsat.oracle import SearchTimeout, add_clauses, python_handles_sigint
from occamlearn.stopping import Deadline

__all__ = ["CostCounter", "add_counter", "choose_counter", "network_clauses",
           "totalizer_clauses"]

# Above this many clauses a totalizer is replaced by a network at least twice smaller.
TOTALIZER_MAX_CLAUSES = 250_000
# Measured rate of ``ITotalizer``'s C build (1.4 us per clause on mushr), rounded up: a
# totalizer that would not be built before the deadline is not started.
TOTALIZER_SECONDS_PER_CLAUSE = 2e-6
COMPARATORS_PER_CHECK = 5_000


@dataclass
class CostCounter:
    """``outputs[i]`` is implied by "at least i+1 inputs true" (i <= bound, i < n)."""

    outputs: list[int]
    top: int
    kind: str  # "totalizer" | "network"
    n_clauses: int


def totalizer_clauses(n: int, bound: int) -> int:
    """Exact clause count of ``ITotalizer(n literals, ubound=bound)`` (PySAT's itot_new: a
    queue merges the two front trees and appends the result)."""
    queue = deque([(1, 1)] * n)  # (inputs, outputs) of each tree
    total = 0
    while len(queue) > 1:
        (n_a, a), (n_b, b) = queue.popleft(), queue.popleft()
        k = min(bound + 1, n_a + n_b)
        i_max = min(k, a)
        plain = min(i_max, max(k - b, 0))  # ternary clauses for i = 1..i_max: min(k - i, b)
        ternary = plain * b + (i_max - plain) * k - (i_max * (i_max + 1)
                                                      - plain * (plain + 1)) // 2
        total += min(k, b) + i_max + ternary
        queue.append((n_a + n_b, k))
    return total


def _sorter_comparators(m: int) -> int:
    """Comparators of Batcher's odd-even merge sort of m = 2^p wires."""
    p = m.bit_length() - 1
    return 0 if m < 2 else (p * p - p + 4) * 2 ** (p - 2) - 1


def _simple_merge_comparators(m: int) -> int:
    return 1 if m == 1 else 2 * _simple_merge_comparators(m // 2) + m // 2


def network_clauses(n: int, bound: int) -> int:
    """Clause count of the cardinality network, before dropping constant comparators."""
    block = 1 << bound.bit_length()
    if block >= n:
        return 3 * _sorter_comparators(1 << max(n - 1, 0).bit_length())
    blocks = -(-n // block)
    return 3 * (blocks * _sorter_comparators(block)
                + (blocks - 1) * _simple_merge_comparators(block))


def choose_counter(n: int, bound: int) -> str:
    """"totalizer", unless it has over TOTALIZER_MAX_CLAUSES clauses and the network has
    less than half as many: then "network"."""
    totalizer = totalizer_clauses(n, bound)
    if totalizer <= TOTALIZER_MAX_CLAUSES or totalizer <= 2 * network_clauses(n, bound):
        return "totalizer"
    return "network"


class _Network:
    """Emits the half comparators of the network straight into a solver."""

    def __init__(self, solver: Solver, top: int, deadline: Deadline | None):
        self.solver, self.top, self.deadline = solver, top, deadline
        self.comparators, self._until_check = 0, COMPARATORS_PER_CHECK

    def compare(self, x, y):
        """(max, min) of two wires; None is the constant false."""
        if x is None:
            return y, None
        if y is None:
            return x, None
        high, low = self.top + 1, self.top + 2
        self.top = low
        add = self.solver.add_clause
        add([-x, high])
        add([-y, high])
        add([-x, -y, low])
        self.comparators += 1
        self._until_check -= 1
        if self._until_check == 0:
            self._until_check = COMPARATORS_PER_CHECK
            if self.deadline is not None and self.deadline.expired():
                raise SearchTimeout
        return high, low

    def sort(self, wires: list) -> list:
        """Odd-even merge sort, largest first (len(wires) a power of two)."""
        if len(wires) == 1:
            return wires
        half = len(wires) // 2
        return self.merge(self.sort(wires[:half]), self.sort(wires[half:]))

    def merge(self, a: list, b: list) -> list:
        """Batcher's odd-even merge of two sorted lists of equal power-of-two length."""
        if len(a) == 1:
            return list(self.compare(a[0], b[0]))
        odd, even = self.merge(a[0::2], b[0::2]), self.merge(a[1::2], b[1::2])
        merged = [odd[0]]
        for i in range(len(a) - 1):
            merged.extend(self.compare(odd[i + 1], even[i]))
        merged.append(even[-1])
        return merged

    def simple_merge(self, a: list, b: list) -> list:
        """The len(a) + 1 largest of two sorted lists of equal power-of-two length."""
        if len(a) == 1:
            return list(self.compare(a[0], b[0]))
        odd, even = self.simple_merge(a[0::2], b[0::2]), self.simple_merge(a[1::2], b[1::2])
        merged = [odd[0]]
        for i in range(len(a) // 2):
            merged.extend(self.compare(odd[i + 1], even[i]))
        return merged

    def count(self, lits: list[int], bound: int) -> list:
        block = 1 << bound.bit_length()
        if block >= len(lits):
            width = 1 << max(len(lits) - 1, 0).bit_length()
            return self.sort(list(lits) + [None] * (width - len(lits)))
        largest = None
        for begin in range(0, len(lits), block):
            wires = list(lits[begin:begin + block])
            wires += [None] * (block - len(wires))
            ranked = self.sort(wires)
            largest = ranked if largest is None else self.simple_merge(largest, ranked)[:block]
        return largest


def add_counter(solver: Solver, lits: list[int], bound: int, top: int,
                deadline: Deadline | None, kind: str | None = None) -> CostCounter | None:
    """Add a counter of ``lits`` up to ``bound`` to ``solver`` (fresh variables above
    ``top``); None if ``deadline`` passed first. The clauses added by then only define
    fresh variables, so they never remove a model. ``kind`` forces an encoding (tests)."""
    if bound < 0 or not lits:
        raise ValueError(f"a counter needs literals and a bound >= 0; got {len(lits)} "
                         f"literals and bound {bound!r}.")
    n_outputs = min(bound + 1, len(lits))
    kind = choose_counter(len(lits), bound) if kind is None else kind
    if kind == "totalizer":
        build_seconds = TOTALIZER_SECONDS_PER_CLAUSE * totalizer_clauses(len(lits), bound)
        if deadline is not None and build_seconds >= deadline.remaining():
            return None
        with python_handles_sigint(), ITotalizer(lits=lits, ubound=bound, top_id=top) as tot:
            clauses, outputs, top = tot.cnf.clauses, list(tot.rhs[:n_outputs]), tot.top_id
        if not add_clauses(solver, clauses, deadline):
            return None
        return CostCounter(outputs, top, kind, len(clauses))
    if kind != "network":
        raise ValueError(f"kind must be 'totalizer', 'network' or None; got {kind!r}.")
    network = _Network(solver, top, deadline)
    try:
        outputs = network.count(lits, bound)[:n_outputs]
    except SearchTimeout:
        return None
    return CostCounter(outputs, network.top, kind, 3 * network.comparators)
