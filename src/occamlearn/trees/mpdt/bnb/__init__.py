"""The exact branch and bound over row sets for minimum pure trees.

``branch_and_bound.minimum_tree_branch_and_bound`` is the entry point (bounds and their proofs in
its docstring); ``engines`` holds the Python and compiled searches, ``kernels`` the numba
kernels, ``subsets`` the subset search (every subset's minimum bounds the whole set's).
"""
