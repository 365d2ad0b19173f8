"""DT(max) (Hu et al. 2020): the most accurate decision tree of depth <= D.

``search.find_max_accuracy_tree`` is the entry point; ``dynamic_programme`` (+ ``dp_counts``)
is the exact MurTree/STreeD-style search, ``encoding`` and ``decode`` the MaxSAT route.
"""
