"""Objectives of the exact-search core, one short module each (see ``exact.search``).

* ``pure_size`` -- fewest leaves of a tree classifying every row correctly;
* ``size_within_budget`` -- fewest leaves with weighted errors at most a budget (a Pareto
  front of (leaves, errors) per row set, as STreeD handles constraints);
* ``accuracy_at_depth`` -- fewest weighted errors at depth <= d, then fewest decisions.
"""
