"""The training data's distinct rows and useful columns: kept under this name for the
encodings; the one implementation is ``trees.exact.data``."""

from occamlearn.trees.exact.data import (
    ExampleGroups,
    ReducedColumns,
    distinct_rows,
    group_examples,
    reduce_columns,
)

__all__ = ["ExampleGroups", "ReducedColumns", "distinct_rows", "group_examples",
           "reduce_columns"]
