"""The MaxSAT route to minimum pure trees (Alós, Ansótegui and Torres, eqs. 1-26, Alg. 1).

``encoding`` builds the Partial MaxSAT formula from ``variables``, ``layout_clauses`` and
``discrimination``; ``size_search`` is the one size loop (re-encoding as the upper bound
falls) that ``search`` (the pure tree), ``mindt`` (the SAT baseline of Narodytska et al.) and
the error-budget search share; ``wcnf_file`` writes and reads instances for external solvers.
"""
