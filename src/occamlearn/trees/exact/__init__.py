"""The exact-search core of every tree family: what all exact tree searches share.

Following STreeD (van der Linden, de Weerdt and Demirović, NeurIPS 2023), a search is split
from its *objective*. The core holds the search side once:

* ``data`` -- the data view: distinct rows grouped by label with their (sample) weights in
  exact integer units, useful columns with complements merged, validation;
* ``reductions`` -- columns no minimum pure tree needs (equivalent and twin-covered columns,
  each rule with its proof), dropped before the search, and trees mapped back;
* ``bits`` -- row sets as bitsets over the (pattern, class) groups, weighted class counts;
* ``splits`` -- each distinct split of a row set once, and the greedy information-gain start;
* ``stop`` -- the one internal ``Stop`` exception and ``Poll`` over an
  ``occamlearn.stopping.Deadline``;
* ``nested`` -- rebuilding a tree from a search's memo as a nested tuple (``Tree.from_nested``);
* ``nesting`` (and its compiled steps ``nesting_kernels``) -- which side of one column
  contains a side of another (nested thresholds, one-hot categories), so that a bound
  proven for one side bounds every side containing it;
* ``anytime`` -- the driver's state: incumbent, proven bound, ``ProgressSink`` reports, status.

The generic memoised search that any separable objective plugs into (STreeD's design, one
short class per objective) is the tests' reference oracle, kept with the tests
(``reference_search.py``): it runs in Python, exhaustively, and no fit needs it.

The specialised engines stand on the same pieces: ``mpdt.bnb`` (pure size, compiled),
``mpdt.error_budget`` (size within a budget) and ``dtmax.entry`` (accuracy at
depth, closed-form depth-2 counts). Their memos differ by objective (a numba hash table of
exact values and bounds; per row set fronts of (leaves, errors); (rows, depth) costs), so the
memo's interface is the key each one uses: the row set (with the depth where it bounds) to
what the objective stores, which ``nested.rebuild`` follows back to a tree.
"""
