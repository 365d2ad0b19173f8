"""The compiled incompatibility bound: the greedy it promises, and a valid leaf bound.

``node_bounds.incompatibility_lower_bound`` scans a contiguous copy of the other classes'
rows and moves each witness to the front; a plain greedy over the rows in their given order
(below) must give the same number for every work cap, and the number never exceeds the
leaves of a minimum pure tree (brute force).
"""

import numpy as np
from bruteforce import minimum_tree_size, tiny_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from occamlearn.trees.exact.packed import pack_rows
from occamlearn.trees.mpdt.bnb.node_bounds import incompatibility_lower_bound

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def plain_greedy(X, labels, rows, n_classes, max_work):
    """Per class, take each row (in ``rows``' order) that no other-class row of ``rows``
    fails to separate from every row taken: a row c separates nothing if it agrees with a
    and b wherever they agree. Counts ``len(rows)`` work per pair tested and stops once past
    ``max_work``, as the kernel promises."""
    bits = [int("".join(str(int(v)) for v in X[q][::-1]) or "0", 2) for q in range(len(X))]
    total, work = 0, 0
    for k in range(n_classes):
        chosen = []
        for a in rows:
            if labels[a] != k:
                continue
            fits = True
            for b in chosen:
                work += len(rows)
                agree = ~(bits[a] ^ bits[b])
                if not any(labels[c] != k and (bits[c] ^ bits[a]) & agree == 0 for c in rows):
                    fits = False
                    break
            if fits:
                chosen.append(a)
            if work > max_work:
                return total + len(chosen)
        total += len(chosen)
    return total


@st.composite
def row_sets(draw):
    """A 0/1 matrix of up to 40 rows and 1-140 columns (one to three words), labels of 2-3
    classes, a subset of the rows in any order, and a work cap (sometimes tiny)."""
    n_rows = draw(st.integers(2, 40))
    n_features = draw(st.sampled_from([1, 3, 8, 63, 64, 65, 140]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.1, 0.5, 0.9]))
    X = (rng.random((n_rows, n_features)) < density).astype(np.uint8)
    n_classes = draw(st.sampled_from([2, 3]))
    labels = rng.integers(0, n_classes, n_rows).astype(np.int64)
    rows = rng.permutation(n_rows)[:draw(st.integers(1, n_rows))].astype(np.int64)
    max_work = draw(st.sampled_from([0, 5, 50, 500, 10**9]))
    return X, labels, rows, n_classes, max_work


@SETTINGS
@given(row_sets())
def test_bound_is_the_plain_greedy(case):
    X, labels, rows, n_classes, max_work = case
    expected = plain_greedy(X, labels, list(rows), n_classes, max_work)
    assert incompatibility_lower_bound(pack_rows(X), labels, rows, n_classes,
                                       max_work) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_data())
def test_bound_never_exceeds_the_minimum_leaves(data):
    X, y, n_classes = data
    y = np.asarray(y, dtype=np.int64)
    rows = np.arange(len(y), dtype=np.int64)
    bound = incompatibility_lower_bound(pack_rows(X), y, rows, n_classes, 10**9)
    assert bound <= (minimum_tree_size(X, y) + 1) // 2
