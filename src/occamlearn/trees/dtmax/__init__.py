"""DT(max) (Hu et al. 2020): the most accurate decision tree of depth <= D.

``search.find_max_accuracy_tree`` is the entry point; ``dynamic_programme`` is the exact
MurTree/STreeD-style search, with a compiled engine (``dp_compiled`` over ``dp_kernels``,
``dp_memo``, ``dp_pair_counts``) and a numpy one (``dp_numpy`` over ``dp_counts``); ``encoding`` and ``decode``
the MaxSAT route; ``ordered`` the search over every threshold of numeric columns.
"""
