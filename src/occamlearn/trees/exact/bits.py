"""Row sets as bitsets over the (pattern, class) groups of the data, with weighted counts.

The searches that count errors (size within an error budget, and the tests' reference
search) represent a set of rows as a Python int whose bit g is group g of
``ExampleGroups`` (sorted by pattern, then class, so every set a tree makes holds all groups
of a pattern or none). The weight of a class in a set is a sum of popcounts over the *bit
planes* of the groups' integer weights (``ExampleGroups.count``, divided by their common
divisor):
``sum(popcount(S & plane_b) << b)`` -- one popcount per class when every group weighs one
unit, as many as the heaviest group has bits otherwise.
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.exact.data import ExampleGroups, bitset, column_bitsets, reduce_columns

__all__ = ["EXPAND_PER_GROUP", "GroupBits"]

EXPAND_PER_GROUP = 64  # a group is one bit per unit while units per group stay this few


def _planes(units: np.ndarray, members: np.ndarray) -> list[tuple[int, int]]:
    """``(b, bitset of the member groups whose weight has bit b)`` for each bit b in use."""
    planes = []
    for b in range(int(units[members].max()).bit_length() if members.any() else 0):
        plane = members & ((units >> b) & 1).astype(bool)
        if plane.any():
            planes.append((b, bitset(plane)))
    return planes


def _weigher(planes: list[list[tuple[int, int]]]):
    """A fast ``rows -> [weight of each plane set in rows]``."""
    if all(len(p) == 1 and p[0][0] == 0 for p in planes):
        sets = [p[0][1] for p in planes]
        return lambda rows: [(rows & s).bit_count() for s in sets]
    return lambda rows: [sum((rows & s).bit_count() << b for b, s in p) for p in planes]


class GroupBits:
    """The bitset view of ``groups``: ``columns`` (one per useful column, its groups with a
    1; original indices ``features``), ``class_weights(S)`` and ``forced_weight(S)`` (the
    weight of the groups that are not their pattern's heaviest class: errors every tree
    makes on S), in units of ``unit`` counts (their greatest common divisor).

    When the units are few (at most ``EXPAND_PER_GROUP`` per group on average, as with
    duplicated rows), a group of u units is u bits: every bit weighs one unit (``one_unit``),
    and the weights are the popcounts of ``S & class_sets[k]`` and ``S & minority``, which a
    search's hot loop may count inline. Otherwise a group is one bit and weights are summed
    over bit planes."""

    def __init__(self, groups: ExampleGroups, n_classes: int):
        self.groups = groups
        self.n_classes = n_classes
        self.unit = int(np.gcd.reduce(groups.count))  # counts are whole multiples of it
        self.units = groups.count // self.unit
        self.weights = np.zeros((groups.n_patterns, n_classes), dtype=np.int64)
        np.add.at(self.weights, (groups.pattern, groups.label), self.units)
        self.one_unit = int(self.units.sum()) <= EXPAND_PER_GROUP * groups.n_groups
        # the group of each bit
        group = (np.repeat(np.arange(groups.n_groups), self.units) if self.one_unit
                 else np.arange(groups.n_groups))
        bit_units = np.ones(len(group), dtype=np.int64) if self.one_unit else self.units
        label, pattern = groups.label[group], groups.pattern[group]
        self.n_bits = len(group)
        self.root = (1 << self.n_bits) - 1
        self.start = np.searchsorted(pattern, np.arange(groups.n_patterns))
        self.class_weights = _weigher([_planes(bit_units, label == k)
                                       for k in range(n_classes)])
        self.class_sets = [bitset(label == k) for k in range(n_classes)]
        majority = self.weights.argmax(axis=1)
        self.minority = bitset(label != majority[pattern])
        minority = _planes(bit_units, label != majority[pattern])
        self.forced_weight = lambda rows: sum((rows & p).bit_count() << b for b, p in minority)
        patterns = groups.patterns
        self.features = reduce_columns(patterns).column.tolist()
        self.columns = column_bitsets(patterns[pattern][:, self.features] == 1) \
            if self.features else []
        self.group_of_bit = group

    def to_units(self, count: int) -> int:
        """A count (a budget, in ``ExampleGroups.count`` terms) in whole units, rounded
        down."""
        return int(count) // self.unit

    def patterns_in(self, rows: int) -> np.ndarray:
        """Indices of the patterns whose groups are in ``rows``."""
        n_bytes = (self.n_bits + 7) // 8
        bits = np.unpackbits(np.frombuffer(rows.to_bytes(n_bytes, "little"), dtype=np.uint8),
                             bitorder="little")
        return np.flatnonzero(bits[self.start])
