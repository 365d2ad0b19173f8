"""Which columns a learner should not learn from, and how many categories a column may keep.

Two roles are decided here, once per column in ``fit``, after the column's kind is known
(``_columns.fit_column``); what a value *is* (number, category, constant) is decided there.

**Identifiers.** A column that names each row rather than describing it lets an exact learner
memorise the training rows: a minimum pure tree splits on ``customer_id != C00060``, a
decision list writes ``IF customer_id == C00017 THEN p=1.00 (n=1)``. Such a test is true of
one training row and of no new one. A column is identifier-like when the table has at least
``MIN_IDENTIFIER_ROWS`` rows and

* it is unordered (strings, categories: ids, names, dates written as text) and every value is
  distinct; or
* it holds integers that count the rows: every value distinct and each row's value one more
  than the previous row's (``0, 1, 2, ...``, ``1001, 1002, ...``: a row number or an index
  written to the file).

Numeric columns with distinct values are otherwise kept: they are ordered, so a threshold
on them generalises. The binarisers drop identifier-like columns with one ``UserWarning``
naming them all (``drop_identifiers=True``, the default); ``drop_identifiers=False`` keeps
them all, and a column named in ``categorical=``/``continuous=`` is kept on purpose.

**Category cap.** A categorical column with more than ``max_categories`` distinct values
(default 64) keeps a ``col == v`` test for its ``max_categories`` most frequent values (ties:
the column's own value order) and folds the rest into "other": every kept test is false for
them, exactly as for a category unseen in fit, so they are told apart from the kept values
but not from each other. A ``UserWarning`` names each capped column and how many categories
(and rows) were folded. This bounds the binary features -- and so time and memory of every
search -- whatever the data: 10,000 distinct strings make 64 features, not 10,000. (In the
paper's bit encoding, ``FeatureBinarizer(encoding="binary")``, a folded value has every bit
0, the code of the first kept category, as an unseen category does.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT_MAX_CATEGORIES",
    "MIN_IDENTIFIER_ROWS",
    "identifier_reason",
    "kept_categories",
    "warn_folded",
    "warn_identifiers",
]

MIN_IDENTIFIER_ROWS = 20  # below this, distinct values are as likely a small table as ids
DEFAULT_MAX_CATEGORIES = 64


def identifier_reason(spec, values: np.ndarray) -> str | None:
    """Why the column described by ``spec`` (values ``values``, its cleaned training data)
    looks like a row identifier, or None when it does not."""
    n_rows = len(values)
    if (n_rows < MIN_IDENTIFIER_ROWS or spec.kind not in ("categorical", "discrete")
            or len(spec.domain) < n_rows):
        return None
    if spec.kind == "categorical":
        return f"{n_rows} distinct values in {n_rows} rows"
    if spec.kind == "discrete":
        steps = np.diff(np.asarray(values, dtype=np.float64))
        if steps.size and np.all(steps == 1):
            first = values[0]
            first = int(first) if float(first).is_integer() else first
            return f"counts the rows ({first}, {first + 1}, ...)"
    return None


def warn_identifiers(reasons: dict[str, str], owner: str) -> None:
    """One warning naming every identifier-like column dropped, and how to keep them."""
    if not reasons:
        return
    named = "; ".join(f"{name!r} ({why})" for name, why in reasons.items())
    warnings.warn(
        f"{owner} dropped {len(reasons)} identifier-like column(s): {named}. A test on an "
        "identifier holds for one training row and no new one. To keep them, list them in "
        "categorical= or pass drop_identifiers=False (to an estimator: "
        f"{owner}(drop_identifiers=False) as its binarizer; CLI: --keep-identifiers).",
        UserWarning,
        stacklevel=4,
    )


def kept_categories(domain: tuple, values: np.ndarray, cap: int | None,
                    weight: np.ndarray | None = None) -> tuple:
    """The categories that keep their own test: all of ``domain`` when at most ``cap``,
    else the ``cap`` most frequent (by total ``weight`` when given, so integer weights act
    as repeated rows; ties in ``domain`` order), listed in ``domain`` order."""
    if cap is None or len(domain) <= cap:
        return domain
    index = pd.Index(domain)
    codes = index.get_indexer(pd.Index(values))
    known = codes >= 0
    counts = np.bincount(codes[known], weights=None if weight is None else weight[known],
                         minlength=len(domain))
    # stable sort on -count keeps domain order among equal counts
    chosen = np.sort(np.argsort(-counts, kind="stable")[:cap])
    return tuple(domain[i] for i in chosen)


def warn_folded(folded: dict[str, tuple[int, int]], cap: int, owner: str) -> None:
    """One warning naming every capped column with its folded categories and rows."""
    if not folded:
        return
    named = "; ".join(f"{name!r}: {n_categories} categories ({n_rows} rows)"
                      for name, (n_categories, n_rows) in folded.items())
    warnings.warn(
        f"{owner} keeps the {cap} most frequent categories of a column and folds the rest "
        f"into 'other' (every test on the column false): {named}. Pass max_categories=None "
        "(or a larger cap) to keep them all.",
        UserWarning,
        stacklevel=4,
    )
