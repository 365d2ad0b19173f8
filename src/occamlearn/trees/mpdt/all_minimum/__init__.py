"""Many minimum trees and the choice among them (Alós, Ansótegui and Torres, Secs. 6-7).

``tree_space`` holds every minimum pure tree the branch and bound proves (counted exactly,
ranked, sampled, drawn diverse as MDSOL does), ``budget_tree_space`` every smallest tree within
an error budget; ``enumerate`` yields optimal trees by SAT (blocking clauses, or MDSOL, Alg. 2);
``layouts`` enumerates tree shapes; ``minimum_trees`` collects the trees of a fitted problem from
one of these sources; ``selection`` is Alg. 3 (pick among them on a validation split).
"""
