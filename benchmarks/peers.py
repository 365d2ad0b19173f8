"""Peer solvers for the minimum pure decision tree of a 0/1 matrix (benchmarks only).

Each runner takes the training matrix (X 0/1 ints, y class indices 0..K-1, K) and a time limit
in seconds and returns a dict: ``size`` (nodes of the smallest pure tree it found, None if
none), ``status`` ("optimal" when the peer's own answer certifies that size as the minimum,
"feasible" otherwise), ``lb`` (a lower bound on the minimum size that the peer's answers prove,
1 when none), ``seconds`` (wall time of the peer's calls) and ``note``. Every tree a peer
returns is checked pure on (X, y) here; an impure tree is reported, never counted.

Neither peer is a project dependency:

* STreeD -- the patched pystreed 1.4.0 wheel of ``../shared/tools`` (stock 1.4.0's depth-two
  terminal solver misses two-node solutions and over-reports sizes; see its README).
* GOSDT -- ``pip install gosdt`` (1.0.x, ``GOSDTClassifier``).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

STREED_MAX_DEPTH = 20  # pystreed's depth cap in the recipe below


def run_streed(X, y, k, time_limit):
    """Smallest perfect tree by increasing branch nodes b = K-1, K, ... (STreeD, accuracy task).

    ``STreeDClassifier(optimization_task="accuracy", upper_bound=0, max_num_nodes=b,
    max_depth=min(b, 20))``: a tree with b branch nodes has depth <= b, so for b <= 20 an
    answer "no zero-error tree" refutes every pure tree with b branch nodes and the first b that
    yields a tree is the minimum (size 2b + 1). For b > 20 the depth cap makes a refutation
    cover depth <= 20 only; the note says so when a proof relied on one. A call stopped by its
    own time limit refutes nothing: a "no tree" answer that took >= 95 % of the time the call
    was given is treated as a timeout (conservative: the bound then stays where it was).
    """
    from pystreed import STreeDClassifier

    start = time.perf_counter()
    note = ""
    for branches in range(k - 1, 10_000):
        lb = 2 * branches + 1  # every smaller size refuted
        left = time_limit - (time.perf_counter() - start)
        if left <= 0.5:
            return {"size": None, "status": "feasible", "lb": lb,
                    "seconds": time.perf_counter() - start, "note": note}
        given = max(1, int(left))
        model = STreeDClassifier(optimization_task="accuracy", upper_bound=0,
                                 max_num_nodes=branches,
                                 max_depth=min(branches, STREED_MAX_DEPTH), time_limit=given)
        call = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        spent = time.perf_counter() - call
        tree_found = model.is_fitted()
        if tree_found:
            pure = bool(np.all(model.predict(X) == y))
            if not pure:
                return {"size": None, "status": "feasible", "lb": lb,
                        "seconds": time.perf_counter() - start,
                        "note": f"IMPURE tree at b={branches}"}
            return {"size": 2 * branches + 1, "status": "optimal", "lb": 2 * branches + 1,
                    "seconds": time.perf_counter() - start, "note": note}
        if spent >= 0.95 * given:  # stopped by its time limit: nothing refuted
            return {"size": None, "status": "feasible", "lb": lb,
                    "seconds": time.perf_counter() - start, "note": note}
        if branches > STREED_MAX_DEPTH:
            note = f"refutations for b>{STREED_MAX_DEPTH} cover depth<={STREED_MAX_DEPTH} only"
    raise AssertionError("unreachable")


def _gosdt_leaves(node) -> int:
    if not hasattr(node, "feature"):
        return 1
    return _gosdt_leaves(node.left_child) + _gosdt_leaves(node.right_child)


def _gosdt_predict(node, X):
    """GOSDT's tree on the rows of X ("true" branch = feature is 1); leaf class indices."""
    out = np.empty(len(X), dtype=np.int64)
    for i, row in enumerate(X):
        current = node
        while hasattr(current, "feature"):
            current = current.left_child if row[current.feature] else current.right_child
        out[i] = current.prediction
    return out


def run_gosdt(X, y, k, time_limit):
    """GOSDT 1.0.x with a regularisation small enough that its optimum is the minimum pure tree.

    GOSDT minimises  errors/n + lambda * leaves.  With a pure tree of L_ub leaves known (a
    fully grown scikit-learn tree, pure because the matrix has no conflicting rows) and
    lambda = 0.5 / (n * L_ub), the smallest pure tree costs lambda * L* <= 0.5 / n, while any
    tree with an error costs > 1 / n: the optimum is pure, and among pure trees the one with
    fewest leaves. ``allow_small_reg=True`` (else GOSDT raises lambda to 1/n), no depth budget
    (unlimited), ``time_limit`` whole seconds. Certified ("optimal") iff GOSDT's status is
    CONVERGED, its lower and upper bounds on the objective agree (relative 1e-6), the returned
    tree is pure on (X, y) and lambda * leaves equals that objective. Size = 2 * leaves - 1.
    Lower bound when unproven: 2 * ceil(objective lower bound / lambda) - 1.
    """
    from gosdt import GOSDTClassifier
    from gosdt._libgosdt import Status
    from sklearn.tree import DecisionTreeClassifier

    n = len(y)
    greedy = DecisionTreeClassifier(random_state=0).fit(X, y)
    if not np.all(greedy.predict(X) == y):
        return {"size": None, "status": "feasible", "lb": 1, "seconds": 0.0,
                "note": "conflicting rows: no pure tree"}
    l_ub = int(greedy.get_n_leaves())
    lam = 0.5 / (n * l_ub)
    start = time.perf_counter()
    clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, depth_budget=None,
                          time_limit=max(1, int(time_limit)), verbose=False)
    try:
        clf.fit(X.astype(bool), y)
    except Exception as error:  # noqa: BLE001 - GOSDT raises on false convergence / timeouts
        return {"size": None, "status": "feasible", "lb": 1,
                "seconds": time.perf_counter() - start,
                "note": f"{type(error).__name__}: {error}"[:80]}
    seconds = time.perf_counter() - start
    result = clf.get_result()
    lower, upper = float(result["lower_bound"]), float(result["upper_bound"])
    lb_leaves = max(1, math.ceil(lower / lam - 1e-3))
    lb = max(2 * lb_leaves - 1, 2 * k - 1)
    try:
        tree = clf.trees_[0].tree
    except (AttributeError, IndexError):
        return {"size": None, "status": "feasible", "lb": lb, "seconds": seconds,
                "note": f"no tree ({result['status']})"}
    leaves = _gosdt_leaves(tree)
    pure = bool(np.all(clf.classes_[_gosdt_predict(tree, X)] == y))
    if not pure:  # its best tree has errors: it never reached a pure tree (a timeout)
        converged = result["status"] == Status.CONVERGED
        return {"size": None, "status": "feasible", "lb": lb, "seconds": seconds,
                "note": "IMPURE tree at CONVERGED" if converged
                else f"{str(result['status']).replace('Status.', '')}, best tree has errors"}
    objective_matches = math.isclose(lam * leaves, upper, rel_tol=1e-6)
    certified = (result["status"] == Status.CONVERGED and objective_matches
                 and math.isclose(lower, upper, rel_tol=1e-6))
    size = 2 * leaves - 1
    note = "" if certified else str(result["status"]).replace("Status.", "")
    return {"size": size, "status": "optimal" if certified else "feasible",
            "lb": size if certified else lb, "seconds": seconds, "note": note}


PEERS = {"streed": run_streed, "gosdt": run_gosdt}
