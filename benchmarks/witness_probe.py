"""How far plain witness-driven branching gets: a measuring probe, not an engine.

Witty (Staus, Komusiewicz, Sommer and Sorge, AAAI 2025) decides "is there a pure tree with at
most s inner nodes?" by growing a *witness tree*: every leaf holds a witness row and
predicts its class; a row whose leaf predicts another class is *dirty*. Pick one dirty row
e; the only moves are the one-step refinements for e: for a node v on e's path (its leaf
up to the root) and a column j on which e differs from every witness below v, insert a new
node testing j above v, whose other child is a new leaf with witness e. This probe is that
search over binary columns (threshold columns are binary columns here), in Python, with the
witness chosen as the dirty row with the fewest refinements and one lower bound, so that the
issue's question "would witness branching raise the 60 s lower bound on wide data?" is
answered by numbers (``benchmarks/results/readable_lower_bounds.md``).

Why the search is exhaustive (binary columns). Let T be a pure tree with at most s inner
nodes. Invariant: an injective map f from W's inner nodes to T's inner nodes with the same
columns such that, for every leaf l of W, the mapped nodes on the T-path of l's witness are
exactly the images of l's ancestors in W, in the same order. (It holds for the one-leaf W.)
Let e be dirty in leaf l with witness w; in T, e and w reach different leaves (different
classes), so their T-paths part at a node t, whose column separates them. t is no image: an
image on w's path is f of an ancestor of l, whose column e shares with w (it reaches l). Let
v be the first node on l's W-path whose image lies below t (the leaf l if none). Every
witness below v passes f(v) (or is w), hence t on w's side: t's column is a valid move at v,
and mapping the new node to t keeps the invariant (a witness outside v's subtree parts from
w above t; no witness below t is on e's side, else it would lie below v). So some branch
keeps a map into T; W has at most s inner nodes, as T has, and the search ends with a pure
W. The bound: two rows of different classes in one leaf part in T at a node that is no
image (the same argument), so a set of such pairs whose columns-of-difference are pairwise
disjoint needs that many new nodes; pairs (e, witness) are packed greedily, fewest
differences first. ``--check`` compares the decisions with brute force on tiny data.

    python benchmarks/witness_probe.py back --seconds 60
    python benchmarks/witness_probe.py --check
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


class OutOfTime(Exception):
    pass


def _bits(flags) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(flags))


class WitnessSearch:
    """``feasible(s)``: is there a pure tree of the distinct rows with at most s inner nodes."""

    def __init__(self, rows: np.ndarray, labels: np.ndarray, n_classes: int):
        X = np.asarray(rows) != 0
        self.n, self.d = X.shape
        self.labels = [int(k) for k in labels]
        self.row_columns = [_bits(X[i]) for i in range(self.n)]  # columns where row i is 1
        self.column_rows = [_bits(X[:, j]) for j in range(self.d)]  # rows where column j is 1
        self.class_rows = [_bits(np.asarray(labels) == k) for k in range(n_classes)]
        self.all_columns, self.all_rows = (1 << self.d) - 1, (1 << self.n) - 1
        self.nodes, self.stop_at = 0, None

    def feasible(self, s: int, witness: int = 0, seconds: float | None = None) -> bool:
        """Raises OutOfTime after ``seconds``."""
        self.nodes = 0
        self.stop_at = None if seconds is None else time.perf_counter() + seconds
        # node -> ("leaf", witness, rows reaching it) | ("inner", column, left, right)
        tree, parent = {0: ("leaf", witness, self.all_rows)}, {0: None}
        return self._refine(tree, parent, s)

    def _leaves_below(self, tree, v) -> list:
        stack, leaves = [v], []
        while stack:
            u = stack.pop()
            if tree[u][0] == "leaf":
                leaves.append(u)
            else:
                stack += [tree[u][2], tree[u][3]]
        return leaves

    def _moves(self, tree, parent, leaf, e) -> list:
        """(v, columns, leaves below v) for each node v from e's leaf up to the root."""
        mine, moves, v = self.row_columns[e], [], leaf
        while v is not None:
            leaves = self._leaves_below(tree, v)
            all_one, any_one = self.all_columns, 0
            for u in leaves:
                columns = self.row_columns[tree[u][1]]
                all_one &= columns
                any_one |= columns
            moves.append((v, (mine & ~any_one) | (~mine & all_one & self.all_columns), leaves))
            v = parent[v]
        return moves

    def _refine(self, tree, parent, remaining: int) -> bool:
        self.nodes += 1
        if self.stop_at is not None and self.nodes % 256 == 0 \
                and time.perf_counter() > self.stop_at:
            raise OutOfTime
        dirty = [(v, node[2] & ~self.class_rows[self.labels[node[1]]])
                 for v, node in tree.items() if node[0] == "leaf"]
        dirty = [(v, rows) for v, rows in dirty if rows]
        if not dirty:
            return True
        if remaining <= 0:
            return False
        differences = sorted((self.row_columns[e] ^ self.row_columns[tree[v][1]]
                              for v, rows in dirty for e in _members(rows)), key=int.bit_count)
        used, packed = 0, 0
        for difference in differences:
            if not difference & used:
                used, packed = used | difference, packed + 1
                if packed > remaining:
                    return False
        best = None
        for v, rows in dirty:
            for e in _members(rows):
                moves = self._moves(tree, parent, v, e)
                count = sum(columns.bit_count() for _, columns, _ in moves)
                if best is None or count < best[0]:
                    best = (count, e, moves)
        _, e, moves = best
        for v, columns, leaves in moves:
            reaching = 0
            for u in leaves:
                reaching |= tree[u][2]
            for j in _members(columns):
                one = (self.row_columns[e] >> j) & 1
                side = self.column_rows[j] if one else self.all_rows & ~self.column_rows[j]
                new_tree, new_parent = dict(tree), dict(parent)
                u, new_leaf = max(tree) + 1, max(tree) + 2
                for leaf in leaves:
                    kind, witness, rows = tree[leaf]
                    new_tree[leaf] = (kind, witness, rows & ~side)
                new_tree[new_leaf] = ("leaf", e, reaching & side)
                new_tree[u] = ("inner", j, v, new_leaf) if one else ("inner", j, new_leaf, v)
                above = parent[v]
                new_parent[u], new_parent[v], new_parent[new_leaf] = above, u, u
                if above is not None:
                    kind, column, left, right = tree[above]
                    new_tree[above] = (kind, column, u if left == v else left,
                                       u if right == v else right)
                if self._refine(new_tree, new_parent, remaining - 1):
                    return True
        return False


def _members(bits: int):
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def probe(name: str, seconds: float) -> list:
    """[(s, answer or "stopped", search nodes, seconds)] for s = 1, 2, ... on a readable matrix
    until a tree is found or one s takes ``seconds``."""
    sys.path.insert(0, str(HERE))
    from readable_matrices import load

    from occamlearn.trees.mpdt.bnb.engines import prepare_rows

    X, y, n_classes, _ = load(name)
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    search = WitnessSearch(rows[:, kept], labels, n_classes)
    out = []
    for s in range(1, 64):
        start = time.perf_counter()
        try:
            answer = search.feasible(s, seconds=seconds)
        except OutOfTime:
            answer = "stopped"
        out.append((s, answer, search.nodes, time.perf_counter() - start))
        if answer is not False:
            return out
    return out


def check(instances: int = 300, seed: int = 1) -> int:
    """Instances where the probe's decision at the minimum, or one inner node below it,
    differs from brute force (tiny data with threshold and random binary columns)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    from bruteforce import minimum_tree_size

    from occamlearn.trees.mpdt.bnb.engines import prepare_rows

    rng, wrong = np.random.default_rng(seed), 0
    for _ in range(instances):
        n = int(rng.integers(3, 11))
        parts = []
        if rng.random() < 0.5:  # a numeric column cut at every threshold
            values = rng.integers(0, 5, n)
            parts += [(values >= t).astype(int) for t in range(1, 5)]
        parts += [rng.integers(0, 2, n) for _ in range(int(rng.integers(1, 6)))]
        X, n_classes = np.stack(parts, 1), int(rng.integers(2, 4))
        _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
        y = rng.integers(0, n_classes, n)[first][inverse.ravel()]
        if len(np.unique(y)) < 2:
            continue
        inner = (int(minimum_tree_size(X, y)) - 1) // 2
        rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
        search = WitnessSearch(rows[:, kept], labels, n_classes)
        for witness in range(len(labels)):
            if not search.feasible(inner, witness) or search.feasible(inner - 1, witness):
                wrong += 1
    return wrong


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["back"])
    parser.add_argument("--seconds", type=float, default=60.0, help="limit per s")
    parser.add_argument("--check", action="store_true", help="compare with brute force")
    args = parser.parse_args(argv)
    if args.check:
        wrong = check()
        print(f"decisions differing from brute force: {wrong}")
        return 1 if wrong else 0
    for name in args.datasets:
        for s, answer, nodes, seconds in probe(name, args.seconds):
            print(f"{name}: s={s} inner nodes: {answer}, {nodes} search nodes, {seconds:.1f} s",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
