"""The size-error path: for every number of leaves, the fewest errors of a tree with at most
that many leaves (``find_size_error_frontier``), walked down the error-budget search."""
