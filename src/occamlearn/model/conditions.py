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

__all__ = ["Condition", "Conjunction", "comparison", "condition_from_dict"]

_COMPARISONS = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}
_ORDERS = ("<", "<=", ">", ">=")
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<="}
_INTERVALS = ("in", "between")
OPERATORS = (*_COMPARISONS, *_INTERVALS, "bit", "missing")
_EPOCH = pd.Timestamp("1970-01-01", tz="UTC")
_SECONDS_PER_DAY = 86400.0


_PLAIN = (int, float, str, bool, type(None))


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
    """The 1-D values of ``column`` in a DataFrame or a dict of columns, or of position
    ``index`` in a 2-D array."""
    if isinstance(X, dict):
        if column not in X:
            raise ValueError(f"column {column!r} is not in the data (columns: "
                             f"{', '.join(map(str, X))})")
        return np.asarray(X[column])
    if isinstance(X, pd.DataFrame):
        if column in X.columns:
            return X[column].to_numpy()
        labelled = all(isinstance(c, str) for c in X.columns)
        if not labelled and index is not None and 0 <= index < X.shape[1]:
            return X.iloc[:, index].to_numpy()  # non-string labels (printed x[L]): by position
        raise ValueError(
            f"column {column!r} is not in the data (columns: {', '.join(map(str, X.columns))})"
        )
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"expected a DataFrame or a 2-D array, got an array of shape {X.shape}")
    if index is None:
        raise ValueError(f"condition on {column!r} has no column index: pass a DataFrame")
    if not 0 <= index < X.shape[1]:
        raise ValueError(f"column {column!r} is at index {index}, but X has {X.shape[1]} columns")
    return X[:, index]


def missing_mask(values) -> np.ndarray:
    """True where a value is missing: NaN, None, ``pd.NA`` or ``NaT``."""
    values = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if values.dtype.kind in "biu":
        return np.zeros(len(values), dtype=bool)
    if values.dtype.kind == "f":
        return np.isnan(values)
    return np.asarray(pd.isna(values), dtype=bool).reshape(len(values))


def days_since_epoch(values) -> np.ndarray:
    """Dates (datetime64, ``pd.Timestamp``, ``datetime``; time-zone aware ones in UTC) as
    float days since 1970-01-01 UTC, NaN where missing; numbers pass through."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    if values.dtype.kind == "M":  # naive datetime64: read as UTC, NaT -> NaN
        nanoseconds = values.astype("datetime64[ns]")
        days = nanoseconds.view(np.int64) / (_SECONDS_PER_DAY * 1e9)
        return np.where(np.isnat(nanoseconds), np.nan, days)
    stamps = pd.to_datetime(pd.Series(values, dtype=object), utc=True, errors="coerce")
    return ((stamps - _EPOCH).dt.total_seconds() / _SECONDS_PER_DAY).to_numpy(np.float64)


def format_date(days: float) -> str:
    """A day count since 1970-01-01 as a date: ``2022-06-23`` on a midnight, else with the
    time of day to the second (``2022-06-23 12:30``, ``2022-06-23 12:30:15``) or beyond."""
    stamp = pd.Timestamp("1970-01-01") + pd.Timedelta(seconds=float(days) * _SECONDS_PER_DAY)
    second = stamp.round("s")
    if abs((stamp - second).total_seconds()) < 1e-3:
        stamp = second
        if stamp == stamp.normalize():
            return stamp.strftime("%Y-%m-%d")
        return stamp.strftime("%Y-%m-%d %H:%M" if stamp.second == 0 else "%Y-%m-%d %H:%M:%S")
    return stamp.isoformat(sep=" ")


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


def _format(value, dates: bool = False) -> str:
    """Exact text of a value: floats print as their shortest round-trip repr; day counts of a
    date column as dates."""
    if dates and _is_number(value):
        return format_date(value)
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Condition:
    """A test on one column; ``evaluate`` and ``str`` share this one definition.

    ``index`` is the column's position, used when evaluating on a 2-D array. ``domain`` (the
    ordered values whose position is the code) or ``edges`` (sorted bin edges) apply to
    ``op="bit"`` only. ``missing``: the condition's value on a missing row (None: the column
    had none; see the module docstring). ``dates``: the column holds dates.
    """

    column: str
    op: str
    value: object
    index: int | None = None
    domain: tuple | None = field(default=None)
    edges: tuple | None = field(default=None)
    missing: bool | None = field(default=None)
    dates: bool = field(default=False)

    def __post_init__(self):
        if self.op not in OPERATORS:
            raise ValueError(f"unknown operator {self.op!r}; expected one of {OPERATORS}")
        for name in ("value", "domain", "edges"):
            given = getattr(self, name)
            if type(given) not in _PLAIN:  # numpy scalars and sequences become plain
                object.__setattr__(self, name, _plain(given))
        if self.index is not None and type(self.index) is not int:
            object.__setattr__(self, "index", int(self.index))
        if self.op in _INTERVALS and not (isinstance(self.value, tuple) and len(self.value) == 2):
            raise ValueError(f"operator {self.op!r} needs value=(lo, hi), got {self.value!r}")
        if self.op == "bit":
            if not isinstance(self.value, int) or self.value < 0:
                raise ValueError(f"a bit condition needs a bit index >= 0, got {self.value!r}")
            if (self.domain is None) == (self.edges is None):
                raise ValueError("a bit condition needs exactly one of domain= or edges=")
        if self.op == "missing" and (self.value is not None or self.missing is not None):
            raise ValueError("a 'missing' condition takes value=None and no missing=")
        if self.missing is not None and not isinstance(self.missing, bool):
            raise ValueError(f"missing= must be True, False or None, got {self.missing!r}")
        if not isinstance(self.dates, bool):
            raise ValueError(f"dates= must be True or False, got {self.dates!r}")

    def evaluate(self, X) -> np.ndarray:
        """Boolean array, one entry per row of ``X`` (DataFrame by name, array by index)."""
        values = _column_values(X, self.column, self.index)
        absent = missing_mask(values)
        if self.op == "missing":
            return absent
        if self.dates:
            values = days_since_epoch(values)
        elif absent.any():  # compare the present values only; missing ones are set below
            values = values.copy()
            values[absent] = np.nan if values.dtype.kind == "f" else None
            if self.op not in ("==", "!=") and values.dtype.kind == "O":
                values = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(float)
        if self.op in _COMPARISONS:
            result = _compare(values, self.op, self.value)
        elif self.op in _INTERVALS:
            lo, hi = self.value
            values = np.asarray(values, dtype=float)
            upper = values < hi if self.op == "in" else values <= hi
            result = (values >= lo) & upper
        else:
            result = (self.codes(values) >> self.value) & 1 == 1
        if absent.any():
            result = np.array(result, dtype=bool)
            result[absent] = bool(self.missing)
        return result

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

        The side that holds on a missing value (``missing``) ends in ``or missing``:
        ``income < 30900 or missing``.
        """
        if self.op == "missing":
            return f"{self.column} is {'not ' if negate else ''}missing"
        text = self._present_text(negate)
        return f"{text} or missing" if self.missing is not None and self.missing != negate \
            else text

    def _present_text(self, negate: bool) -> str:
        """What the condition (or its negation) says about a present value."""
        if self.op in _COMPARISONS:
            op = _NEGATED[self.op] if negate else self.op
            return f"{self.column} {op} {self._text(self.value)}"
        if self.op in _INTERVALS:
            lo, hi = (self._text(v) for v in self.value)
            if not negate:
                closing = "<" if self.op == "in" else "<="
                return f"{lo} <= {self.column} {closing} {hi}"
            upper = ">=" if self.op == "in" else ">"
            return f"{self.column} < {lo} or {self.column} {upper} {hi}"
        if self.domain is not None:
            chosen = [v for code, v in enumerate(self.domain) if (code >> self.value) & 1]
            values = ", ".join(self._text(v) for v in chosen)
            if len(chosen) == 1:
                return f"{self.column} {'!=' if negate else '=='} {values}"
            return f"{self.column} {'not in' if negate else 'in'} {{{values}}}"
        return " or ".join(self._interval_text(lo, hi) for lo, hi in self.intervals(negate))

    def _text(self, value) -> str:
        return _format(value, self.dates)

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
            return f"{self.column} < {self._text(hi)}"
        if hi is None:
            return f"{self.column} >= {self._text(lo)}"
        return f"{self._text(lo)} <= {self.column} < {self._text(hi)}"

    def __str__(self) -> str:
        if self.op in _COMPARISONS:  # ``_present_text(False)`` in one step: the common case
            text = f"{self.column} {self.op} {_format(self.value, self.dates)}"
        elif self.op == "bit":
            text = f"bit {self.value} of code({self.column})"
        elif self.op == "missing":
            return f"{self.column} is missing"
        else:
            text = self._present_text(False)
        return f"{text} or missing" if self.missing else text

    def to_dict(self) -> dict:
        """JSON-ready dict; ``Condition.from_dict`` inverts it (``missing`` and ``dates``
        appear only when set, so files without them read as before)."""
        out = {"column": self.column, "op": self.op, "value": _jsonable(self.value)}
        for name in ("index", "domain", "edges", "missing"):
            if getattr(self, name) is not None:
                out[name] = _jsonable(getattr(self, name))
        if self.dates:
            out["dates"] = True
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Condition:
        unknown = set(data) - {"column", "op", "value", "index", "domain", "edges", "missing",
                               "dates"}
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


def comparison(column: str, op: str, value, index: int | None) -> Condition:
    """``Condition(column, op, value, index)`` for a comparison operator, made without
    ``__post_init__`` when ``value`` is None, a bool, an int, a float or a str and ``index``
    an int or None (a binariser's thresholds and flags, by the dozen per fit): then no check
    of ``__post_init__`` fails (the operator is known, not an interval, bit or missing test,
    ``missing`` is None and ``dates`` False) and none of its conversions changes a field
    (the value is plain, the index an int, ``domain`` and ``edges`` None). Any other
    ``value`` or ``index`` goes through the constructor."""
    if op not in _COMPARISONS or type(value) not in _PLAIN \
            or not (index is None or type(index) is int):
        return Condition(column, op, value, index)
    made = object.__new__(Condition)
    made.__dict__.update(column=column, op=op, value=value, index=index, domain=None,
                         edges=None, missing=None, dates=False)
    return made


def condition_from_dict(data: dict) -> Condition | Conjunction:
    """Rebuild a ``Condition`` or ``Conjunction`` from its ``to_dict`` form."""
    return Conjunction.from_dict(data) if "all" in data else Condition.from_dict(data)


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
