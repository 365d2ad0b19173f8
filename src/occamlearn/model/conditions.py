"""Conditions: the single source of a binary feature's meaning.

Every column a binariser produces, every test in a decision-tree node and every rule of a
decision list is a ``Condition`` (one column, one operator, one value) or a ``Conjunction`` of
conditions. The same object evaluates itself on data (``evaluate``) and describes itself
(``str``), so what is printed is exactly what is computed: there is no second copy of the
meaning to drift (imodels printed ``>`` for a rule it evaluated as ``>=``).

Operators (``v`` is the column's value):

* ``"=="``, ``"!="``, ``"<"``, ``"<="``, ``">"``, ``">="``: ``v op value``.
* ``"in"``: ``lo <= v < hi`` with ``value = (lo, hi)`` (a half-open bin, as in
  ``KBinsDiscretizer``); printed ``"lo <= col < hi"``.
* ``"between"``: ``lo <= v <= hi`` with ``value = (lo, hi)`` (a closed quantile band).
* ``"bit"``: bit ``value`` (0 = least significant) of the code of ``v``, the MaxSAT paper's
  binary encoding (Sec. 8). The code is the position of ``v`` in the ordered ``domain`` (an
  unordered column; a value outside the domain has every bit 0; a numeric domain is read as
  the intervals between its values), or, for an ordered column,
  the number of bin ``edges`` that are ``<= v`` (so every number has a code). Named
  ``"bit 2 of code(col)"``; ``describe`` spells out the values or intervals it selects.

``str(condition)`` is the binary feature's name; ``condition.describe(negate)`` is the text a
person reads in a tree: the condition (or its negation) as a comparison, a set of categories
or a union of intervals, e.g. ``petal-length < 2.5 or 4.8 <= petal-length < 5.1``.

Conditions are frozen (hashable, picklable) and round-trip through JSON with
``to_dict``/``from_dict``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Condition", "Conjunction", "condition_from_dict"]

_COMPARISONS = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<="}
_INTERVALS = ("in", "between")
OPERATORS = (*_COMPARISONS, *_INTERVALS, "bit")


def _plain(value):
    """Python scalar (or tuple of them) for numpy scalars, lists and tuples."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _column_values(X, column: str, index: int | None) -> np.ndarray:
    """The 1-D values of ``column`` in a DataFrame, or of position ``index`` in a 2-D array."""
    if isinstance(X, pd.DataFrame):
        if column not in X.columns:
            raise ValueError(
                f"column {column!r} is not in the data (columns: {', '.join(map(str, X.columns))})"
            )
        return X[column].to_numpy()
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"expected a DataFrame or a 2-D array, got an array of shape {X.shape}")
    if index is None:
        raise ValueError(f"condition on {column!r} has no column index: pass a DataFrame")
    if not 0 <= index < X.shape[1]:
        raise ValueError(f"column {column!r} is at index {index}, but X has {X.shape[1]} columns")
    return X[:, index]


def _compare(values: np.ndarray, op: str, value) -> np.ndarray:
    if values.dtype.kind in "biuf" and not (_is_number(value) or isinstance(value, bool)):
        # a number is never equal to a category label; order between them is undefined
        if op in ("==", "!="):
            return np.full(values.shape, op == "!=")
        raise TypeError(f"cannot compare numeric values with {value!r} using {op!r}")
    if values.dtype.kind == "O" and op in ("==", "!="):
        equal = np.fromiter((v == value for v in values), dtype=bool, count=len(values))
        return equal if op == "==" else ~equal
    return np.asarray(_COMPARISONS[op](values, value), dtype=bool)


def _format(value) -> str:
    """Exact text of a value: floats print as their shortest round-trip repr."""
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Condition:
    """A test on one column; ``evaluate`` and ``str`` share this one definition.

    ``index`` is the column's position, used when evaluating on a 2-D array. ``domain`` (the
    ordered values whose position is the code) or ``edges`` (sorted bin edges) apply to
    ``op="bit"`` only.
    """

    column: str
    op: str
    value: object
    index: int | None = None
    domain: tuple | None = field(default=None)
    edges: tuple | None = field(default=None)

    def __post_init__(self):
        if self.op not in OPERATORS:
            raise ValueError(f"unknown operator {self.op!r}; expected one of {OPERATORS}")
        for name in ("value", "domain", "edges"):
            object.__setattr__(self, name, _plain(getattr(self, name)))
        if self.index is not None:
            object.__setattr__(self, "index", int(self.index))
        if self.op in _INTERVALS and not (isinstance(self.value, tuple) and len(self.value) == 2):
            raise ValueError(f"operator {self.op!r} needs value=(lo, hi), got {self.value!r}")
        if self.op == "bit":
            if not isinstance(self.value, int) or self.value < 0:
                raise ValueError(f"a bit condition needs a bit index >= 0, got {self.value!r}")
            if (self.domain is None) == (self.edges is None):
                raise ValueError("a bit condition needs exactly one of domain= or edges=")

    def evaluate(self, X) -> np.ndarray:
        """Boolean array, one entry per row of ``X`` (DataFrame by name, array by index)."""
        values = _column_values(X, self.column, self.index)
        if self.op in _COMPARISONS:
            return _compare(values, self.op, self.value)
        if self.op in _INTERVALS:
            lo, hi = self.value
            values = np.asarray(values, dtype=float)
            upper = values < hi if self.op == "in" else values <= hi
            return (values >= lo) & upper
        return (self.codes(values) >> self.value) & 1 == 1

    def codes(self, values) -> np.ndarray:
        """The integer codes of ``values`` that a ``"bit"`` condition reads its bit from."""
        if self.edges is not None:
            values = np.asarray(values, dtype=float)
            return np.searchsorted(np.asarray(self.edges, dtype=float), values, side="right")
        if all(_is_number(v) for v in self.domain):  # an ordered domain (older model files)
            position = np.searchsorted(np.asarray(self.domain, dtype=float),
                                       np.asarray(values, dtype=float), side="right") - 1
            return np.maximum(position, 0)  # an unseen number takes its interval's code
        codes = pd.Index(self.domain).get_indexer(pd.Index(values))
        return np.where(codes < 0, 0, codes)  # outside the domain: every bit 0

    def describe(self, negate: bool = False) -> str:
        """What the condition (``negate``: its negation) tests, in words a person reads.

        Comparisons print as themselves (negated: the opposite comparison); a ``bit`` of an
        ordered column prints the union of intervals whose code has that bit (``x < 2.5 or
        4.8 <= x < 5.1``), of an unordered column the set of values (``colour in {red,
        blue}``; negated ``colour not in {red, blue}``, which is also what an unseen value
        satisfies).
        """
        if self.op in _COMPARISONS:
            op = _NEGATED[self.op] if negate else self.op
            return f"{self.column} {op} {_format(self.value)}"
        if self.op in _INTERVALS:
            lo, hi = (_format(v) for v in self.value)
            if not negate:
                return str(self)
            upper = ">=" if self.op == "in" else ">"
            return f"{self.column} < {lo} or {self.column} {upper} {hi}"
        if self.domain is not None:
            chosen = [v for code, v in enumerate(self.domain) if (code >> self.value) & 1]
            values = ", ".join(_format(v) for v in chosen)
            if len(chosen) == 1:
                return f"{self.column} {'!=' if negate else '=='} {values}"
            return f"{self.column} {'not in' if negate else 'in'} {{{values}}}"
        return " or ".join(self._interval_text(lo, hi) for lo, hi in self.intervals(negate))

    def intervals(self, negate: bool = False) -> list[tuple]:
        """(lower, upper) edges of the half-open intervals ``[lower, upper)`` a ``bit``
        condition on an ordered column selects (merged where adjacent; None = unbounded)."""
        if self.op != "bit" or self.edges is None:
            raise ValueError(f"{self} has no intervals: only a bit of a binned column has")
        edges = self.edges
        wanted = [bool((code >> self.value) & 1) != negate for code in range(len(edges) + 1)]
        runs, start = [], None
        for code, hit in enumerate([*wanted, False]):
            if hit and start is None:
                start = code
            elif not hit and start is not None:
                runs.append((edges[start - 1] if start else None,
                             edges[code - 1] if code <= len(edges) else None))
                start = None
        return runs

    def _interval_text(self, lo, hi) -> str:
        if lo is None and hi is None:
            return f"{self.column} is any value"
        if lo is None:
            return f"{self.column} < {_format(hi)}"
        if hi is None:
            return f"{self.column} >= {_format(lo)}"
        return f"{_format(lo)} <= {self.column} < {_format(hi)}"

    def __str__(self) -> str:
        if self.op == "bit":
            return f"bit {self.value} of code({self.column})"
        if self.op == "in":
            lo, hi = self.value
            return f"{_format(lo)} <= {self.column} < {_format(hi)}"
        if self.op == "between":
            lo, hi = self.value
            return f"{_format(lo)} <= {self.column} <= {_format(hi)}"
        return f"{self.column} {self.op} {_format(self.value)}"

    def to_dict(self) -> dict:
        """JSON-ready dict; ``Condition.from_dict`` inverts it."""
        out = {"column": self.column, "op": self.op, "value": _jsonable(self.value)}
        for name in ("index", "domain", "edges"):
            if getattr(self, name) is not None:
                out[name] = _jsonable(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Condition:
        unknown = set(data) - {"column", "op", "value", "index", "domain", "edges"}
        if unknown or not {"column", "op", "value"} <= set(data):
            raise ValueError(f"not a condition dict: {data!r}")
        return cls(**data)


@dataclass(frozen=True)
class Conjunction:
    """All of ``conditions`` hold; printed ``"t1 == x & t2 == x"``."""

    conditions: tuple

    def __post_init__(self):
        conditions = tuple(self.conditions)
        if not conditions or not all(isinstance(c, Condition) for c in conditions):
            raise ValueError("a Conjunction needs one or more Condition objects")
        object.__setattr__(self, "conditions", conditions)

    def evaluate(self, X) -> np.ndarray:
        result = self.conditions[0].evaluate(X)
        for condition in self.conditions[1:]:
            result = result & condition.evaluate(X)
        return result

    def __str__(self) -> str:
        return " & ".join(str(c) for c in self.conditions)

    def describe(self, negate: bool = False) -> str:
        """Each condition as ``Condition.describe`` words it (unions parenthesised), joined
        by ``&``; negated, ``not (...)`` of that."""
        parts = [c.describe() for c in self.conditions]
        text = " & ".join(f"({p})" if " or " in p else p for p in parts)
        return f"not ({text})" if negate else text

    def to_dict(self) -> dict:
        return {"all": [c.to_dict() for c in self.conditions]}

    @classmethod
    def from_dict(cls, data: dict) -> Conjunction:
        if set(data) != {"all"}:
            raise ValueError(f"not a conjunction dict: {data!r}")
        return cls(tuple(Condition.from_dict(d) for d in data["all"]))


def condition_from_dict(data: dict) -> Condition | Conjunction:
    """Rebuild a ``Condition`` or ``Conjunction`` from its ``to_dict`` form."""
    return Conjunction.from_dict(data) if "all" in data else Condition.from_dict(data)


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
