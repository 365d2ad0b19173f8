"""DT(max) (Hu et al. 2020): the most accurate decision tree within a depth or leaf bound.

``entry.find_most_accurate_tree`` is the one entry point: it takes the table as ``data.OrderedData``
(every column as ranks) and picks the search -- ``ordered`` (every threshold, interval search with
ConTree's pruning), ``binary`` (MurTree's compiled search when every column is 0/1), ``maxsat`` (Hu
et al.'s encoding, the paper's alternative) or the size-error frontier of
``trees.size_error.frontier`` under a leaf bound -- and returns a ``result.DtmaxResult``.
"""
