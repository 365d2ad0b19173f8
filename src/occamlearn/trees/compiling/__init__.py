"""numba kernels compiled on first use: the disk cache keyed to their sources, and the
background child process that builds it."""
