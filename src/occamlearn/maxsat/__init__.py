"""WCNF -> optimum: problem-neutral MaxSAT back-ends behind one interface.

``MaxSATBackend.solve(wcnf, deadline, progress) -> MaxSATResult`` (``base``); the registry
``BACKENDS`` / ``make_backend`` (``backends``): our Linear SAT-UNSAT loop (``lsu``, Alg. 1 of
Alós, Ansótegui and Torres), PySAT's RC2 (``rc2``), hermax solvers and external solver programs.
Deadlines for PySAT's uninterruptible CaDiCaL live in ``oracle``; what reaches into PySAT internals
in ``pysat_adapter``. Nothing here knows about trees: this package imports nothing else from
occamlearn.
"""
