"""The smallest tree with at most e training errors (``max_errors`` / ``on_conflict="relax"``).

``bnb`` is the branch and bound with an error budget (``bnb_engine``, ``bnb_kernels``);
``maxsat_search`` the MaxSAT route over ``encoding`` (the pure encoding with one soft
"misclassified" literal per row and a cardinality bound).
"""
