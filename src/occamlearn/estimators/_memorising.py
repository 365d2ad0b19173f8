"""The warning a ``MinimumPureTreeClassifier`` fit gives when its pure tree memorises the
training rows (a leaf for many single rows), with the advice to ask for a tree that may err.
"""

from __future__ import annotations

import warnings

__all__ = ["warn_if_pure_tree_memorises"]

# A pure tree that needs more leaves than this share of the rows (and at least
# MIN_LEAVES_TO_WARN leaves) is memorising noise: ``fit`` says so once and points elsewhere.
LEAF_SHARE_TO_WARN = 0.10
MIN_LEAVES_TO_WARN = 16
# ... as is a tree at least half of whose leaves (and MIN_LEAVES_TO_WARN) hold at most this
# many training rows: a leaf for each stray row.
STRAY_LEAF_ROWS = 2


def warn_if_pure_tree_memorises(estimator, n_rows: int) -> None:
    """Warn when a pure tree memorises the training rows: the proven lower bound needs a
    leaf for more than ``LEAF_SHARE_TO_WARN`` of them, or the tree found (proven or not) has
    that many leaves, or has at least half of its leaves holding ``STRAY_LEAF_ROWS`` rows
    or fewer."""
    if estimator._may_err():
        return
    leaves = (int(estimator.lower_bound_) + 1) // 2
    advice = ("Ask for a tree that may err instead: max_errors=e (the smallest tree with at "
              "most e training errors) or MaxAccuracyTreeClassifier(max_depth=d) (the most "
              "accurate tree of depth <= d).")
    if leaves >= MIN_LEAVES_TO_WARN and leaves > LEAF_SHARE_TO_WARN * n_rows:
        warnings.warn(
            f"no pure tree has fewer than {estimator.lower_bound_} nodes ({leaves} leaves) on "
            f"these {n_rows} rows: more than {LEAF_SHARE_TO_WARN:.0%} of the rows need a leaf "
            f"of their own, so a pure tree mostly memorises noise. {advice}",
            UserWarning, stacklevel=3)
        return
    tree = estimator.tree_
    rows = tree.counts.sum(axis=1)[tree.is_leaf]
    stray = int((rows <= STRAY_LEAF_ROWS).sum())
    found = "the minimum" if estimator.status_ == "optimal" else "the best"
    if rows.size >= MIN_LEAVES_TO_WARN and rows.size > LEAF_SHARE_TO_WARN * n_rows:
        why = f"more leaves than {LEAF_SHARE_TO_WARN:.0%} of the rows"
    elif stray >= MIN_LEAVES_TO_WARN and 2 * stray >= rows.size:
        why = (f"{stray} of its leaves hold at most {STRAY_LEAF_ROWS} training rows, a leaf "
               "for each stray row")
    else:
        return
    warnings.warn(
        f"{found} pure tree found has {tree.n_nodes} nodes ({rows.size} leaves) on these "
        f"{n_rows} rows: {why}, so it mostly memorises noise. {advice}",
        UserWarning, stacklevel=3)
