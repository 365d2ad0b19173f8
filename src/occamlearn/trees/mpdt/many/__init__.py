"""Many minimum trees and the choice among them (Alós, Ansótegui and Torres, Secs. 6-7).

``enumerate`` yields optimal trees (blocking clauses, or MDSOL, Alg. 2, for diversity);
``layouts`` enumerates tree shapes; ``minimum_trees`` collects optimal trees for a fitted
problem; ``selection`` is Alg. 3 (pick among them on a validation split).
"""
