"""The exact branch and bound over row sets for minimum pure trees.

``branch_and_bound.find_minimum_tree_branch_and_bound`` is the entry point (bounds and their proofs
in its docstring); ``engines`` gathers the prepared rows (``prepared_rows``) and the Python and
compiled searches (``python_engine``, ``compiled_engine``), ``kernels`` the numba kernels,
``pair_bound`` the pair bound, ``subsets`` the subset search (every subset's minimum bounds the
whole set's).
"""
