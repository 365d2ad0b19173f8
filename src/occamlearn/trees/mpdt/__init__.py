"""Minimum pure decision trees (MPDT; Alós, Ansótegui and Torres, *Interpretable decision trees
through MaxSAT*): the smallest tree that classifies every training row correctly, and with an
error budget the smallest that errs on at most e rows.

``minimum.find_minimum_tree(X, y, k, method=...)`` is the family's entry point and its only
dispatch. One sub-package per idea:

* ``bnb/`` -- the exact branch and bound over row sets (and the subset search);
* ``maxsat_route/`` -- the Partial MaxSAT encoding (eqs. 1-26), the size loop, MinDT, WCNF files;
* ``error_budget/`` -- the smallest tree within ``max_errors`` (branch and bound and MaxSAT);
* ``all_minimum/`` -- all minimum trees: count, enumerate, sample, diverse (MDSOL, Alg. 2),
  and validation selection (Alg. 3).

``portfolio`` runs the branch and bound, the subset search and MaxSAT in turns for ``"auto"``.
The two branch and bounds stand on the exact-search core ``trees.exact`` (data view with
weights, split enumeration, stop/poll, tree rebuild, anytime loop). ``result`` holds
``MinimumTreeResult``, what every engine here returns.
"""
