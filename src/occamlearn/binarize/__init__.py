"""Table -> binary matrix: scikit-learn transformers whose every output column is one
``Condition`` (see ``occamlearn.model.conditions``), plus the conflicting-example filter.

* ``FeatureBinarizer`` -- the MaxSAT paper's bit encoding (Sec. 8), one-hot or thresholds.
* ``ThresholdBinarizer`` -- the estimators' readable default (``binarizer="readable"``):
  thresholds between adjacent training values on numeric columns, one-hot on categories.
* ``QuantileBinarizer`` -- the decision-list paper's quantile indicators.
* ``ConditionBinarizer`` -- a fixed list of conditions (how a saved model reads new data).
* ``find_conflicts`` / ``resolve_conflicts`` -- identical rows with different labels, and the
  paper's majority filter.
* ``read_columns`` / ``clean_column`` / ``check_unique_names`` / ``date_between`` -- how every
  binariser reads a table's columns, published for the estimators that read columns themselves;
  ``restriction_text`` -- how a binariser says which thresholds it left out.
* ``fit_checks`` -- scikit-learn's bookkeeping at ``fit`` (parameter names, a DataFrame's
  feature names) without its per-call costs, for the binarisers and the estimators.
"""

from occamlearn.binarize._base import restriction_text
from occamlearn.binarize._clean_columns import clean_column
from occamlearn.binarize._columns import date_between, read_columns
from occamlearn.binarize._values import check_unique_names
from occamlearn.binarize.conditions import ConditionBinarizer
from occamlearn.binarize.conflicts import (
    conflict_message,
    find_conflicts,
    kept_rows,
    resolve_conflicts,
)
from occamlearn.binarize.feature import FeatureBinarizer
from occamlearn.binarize.quantile import QuantileBinarizer
from occamlearn.binarize.threshold import ThresholdBinarizer

__all__ = [
    "ConditionBinarizer",
    "FeatureBinarizer",
    "QuantileBinarizer",
    "ThresholdBinarizer",
    "check_unique_names",
    "clean_column",
    "conflict_message",
    "date_between",
    "find_conflicts",
    "kept_rows",
    "read_columns",
    "resolve_conflicts",
    "restriction_text",
]
