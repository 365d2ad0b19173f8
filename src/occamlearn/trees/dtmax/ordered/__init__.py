"""The ordered-column search: most accurate trees of bounded depth, exact over every threshold.

``kernels`` (compiled depth-1 solver, row splits), ``depth2`` (the one depth-2 solver, with
its pair-count mode in ``depth2_pairs``), ``bounds`` (a range of thresholds bounded from its
two ends), ``search`` (interval search over thresholds with neighbourhood and sub-interval
pruning, memo, anytime lower bound), ``solve`` (its driver, ``ordered_search``, called by
``trees.dtmax.entry``).
"""
