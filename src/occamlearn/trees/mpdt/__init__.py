"""Minimum pure decision trees (MPDT, Alcázar et al.): the smallest tree that classifies every
training row correctly, and with an error budget the smallest that errs on at most e rows.

``minimum.find_minimum_tree(X, y, k, method=...)`` is the family's entry point. The MaxSAT
route: ``encoding`` (eqs. 1-26, with ``variables``, ``layout_clauses``, ``discrimination``) ->
``search`` (greedy bound, Linear SAT-UNSAT with re-encoding); ``mindt`` (the SAT baseline);
``error_budget`` (+ ``error_budget_encoding``); ``enumerate``, ``layouts`` and
``minimum_trees`` (many optima, Sec. 6-7); ``selection`` (Alg. 3); ``wcnf_file`` (instances for
external solvers).
"""
