"""numba kernels compiled on first use: whether their disk cache is complete, and the
background child process that builds it (the cache is keyed to the kernels' sources by the
top-level ``kernel_sources``, which the decision lists' kernels use too)."""
