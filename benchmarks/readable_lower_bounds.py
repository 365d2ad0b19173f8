"""Where the lower bound of a hard readable-default matrix comes from, and what else could give one.

For each matrix (``readable_matrices``, after the column reductions ``find_minimum_tree``
applies) this measures, in one process:

* the branch and bound alone (``find_minimum_tree_branch_and_bound``): the lower bound it has
  proven at each moment (one deepening step per 2 nodes) and its calls, up to ``--seconds``;
* the static bounds at the root: the incompatibility bound (pairwise leaf-incompatible rows)
  and Witty's pair bound (Staus, Komusiewicz, Sommer and Sorge): every pair of rows of
  different classes must be cut by a node whose column separates them, so the inner nodes
  are at least the fewest columns that separate every pair -- a set cover, bounded by its LP
  (HiGHS), solved exactly by a MIP within ``--mip-seconds``, and by a greedy packing of
  pairs with pairwise disjoint separating columns. Only the ``--pairs`` pairs with the
  fewest separating columns are used: a cover of fewer pairs is still a lower bound;
* the class-cover bound: the leaves of class k form a cover of its rows by sets whose
  smallest common subcube holds no row of another class (a leaf's path is such a subcube),
  so leaves >= the sum over classes of the fewest such sets; exact (over all subsets) for a
  class of at most ``--cover-rows`` rows, 1 for a larger one;
* plain witness branching (``witness_probe``): search nodes and seconds to refute each
  number of inner nodes s, up to ``--witness-seconds`` for one s;
* with ``--subsets-seconds``, the subset search alone (``subsets``, InferDT's incremental
  examples over the branch and bound): its bound over time and the subset that proved it;
* with ``--sat-nodes``, MinDT's question "a pure tree of exactly n nodes?" (the paper's
  encoding, one CaDiCaL call, ``--sat-seconds`` each): answer and seconds per n.

``--seconds 0``, ``--witness-seconds 0`` and ``--no-static`` skip those parts.

    python benchmarks/readable_lower_bounds.py --datasets back breast_cancer --seconds 60 \\
        --out benchmarks/results/readable_lower_bounds_data.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def pair_bounds(X: np.ndarray, y: np.ndarray, pairs: int, mip_seconds: float) -> dict:
    """Witty's pair bound at the root (in inner nodes): LP, MIP and greedy packing."""
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp
    from scipy.sparse import csr_matrix

    first, second = np.nonzero(y[:, None] < y[None, :])  # every pair of different classes
    apart = X[first] != X[second]
    order = np.argsort(apart.sum(axis=1), kind="stable")[:pairs]
    apart = apart[order]
    used, packed = np.zeros(X.shape[1], dtype=bool), 0
    for row in apart:
        if not (row & used).any():
            used |= row
            packed += 1
    matrix = csr_matrix(apart.astype(float))
    ones = np.ones(X.shape[1])
    start = time.perf_counter()
    lp = linprog(ones, A_ub=-matrix, b_ub=-np.ones(apart.shape[0]), bounds=(0, 1),
                 method="highs")
    lp_seconds = time.perf_counter() - start
    start = time.perf_counter()
    mip = milp(ones, constraints=LinearConstraint(matrix, lb=1), integrality=ones,
               bounds=Bounds(0, 1), options={"time_limit": mip_seconds})
    return {"pairs": int(apart.shape[0]), "greedy": packed,
            "lp": float(lp.fun), "lp_seconds": lp_seconds,
            "mip": float(mip.fun) if mip.fun is not None else None,
            "mip_dual": float(getattr(mip, "mip_dual_bound", None) or 0.0),
            "mip_optimal": mip.status == 0, "mip_seconds": time.perf_counter() - start}


def class_cover(X: np.ndarray, y: np.ndarray, k: int, cap: int) -> int | None:
    """Fewest sets of class-k rows, each with no other-class row in its smallest common
    subcube, that cover the class-k rows (None above ``cap`` rows). Such sets are closed
    under subsets, so the fewest cover is the fewest partition: a dynamic programme over
    the subsets (2^m consistency checks, 3^m partition steps)."""
    own, other = X[y == k], X[y != k]
    m = len(own)
    if m > cap:
        return None
    consistent = np.zeros(1 << m, dtype=bool)
    consistent[0] = True
    for mask in range(1, 1 << m):
        if not consistent[mask & (mask - 1)]:  # a superset of an inconsistent set
            continue
        members = [i for i in range(m) if mask >> i & 1]
        agree = (own[members] == own[members[0]]).all(axis=0)
        consistent[mask] = not (other[:, agree] == own[members[0], agree]).all(axis=1).any()
    fewest = np.zeros(1 << m, dtype=np.int64)
    for mask in range(1, 1 << m):
        low, rest = mask & -mask, mask & (mask - 1)
        best, sub = m, rest
        while True:
            if consistent[sub | low]:
                best = min(best, fewest[mask ^ (sub | low)] + 1)
            if sub == 0:
                break
            sub = (sub - 1) & rest
        fewest[mask] = best
    return int(fewest[-1])


def engine_trace(engine: str, X, y, n_classes, seconds: float) -> tuple[list, dict]:
    """One engine alone ("bnb": the branch and bound, "subsets": incremental examples): its
    (seconds, upper, lower) reports and its stats."""
    from occamlearn.stopping import Deadline, ProgressSink
    from occamlearn.trees.mpdt.bnb.branch_and_bound import find_minimum_tree_branch_and_bound
    from occamlearn.trees.mpdt.bnb.subsets import find_minimum_tree_incremental

    run = {"bnb": find_minimum_tree_branch_and_bound,
           "subsets": find_minimum_tree_incremental}[engine]
    trace = []
    sink = ProgressSink(lambda upper, lower, at, tree: trace.append((at, upper, lower)))
    found = run(X, y, n_classes, deadline=Deadline.after(seconds), progress=sink)
    return trace, found.stats


def exact_size_sat(X, y, n_classes, n_nodes: int, seconds: float) -> tuple:
    """MinDT's single SAT call for exactly ``n_nodes`` nodes: (answer, clauses, seconds);
    answer None when ``seconds`` ran out."""
    from pysat.solvers import Solver

    from occamlearn.maxsat.oracle import limited_solve
    from occamlearn.stopping import CLOCK, Deadline
    from occamlearn.trees.mpdt.maxsat_route.mindt import exact_size_query

    hard, _ = exact_size_query(X, y, n_classes, n_nodes)
    began = CLOCK()
    with Solver(name="cadical195", bootstrap_with=hard) as solver:
        answer = limited_solve(solver, "cadical195", [], Deadline.after(seconds))
    return answer, len(hard), CLOCK() - began


def bound_table(title: str, trace: list) -> list[str]:
    lines = [title, "", "| seconds | lower bound | smallest tree |", "|---|---|---|"]
    upper = None
    for at, up, lower in trace:
        upper = up if up is not None else upper
        if lower is not None:
            lines.append(f"| {at:.2f} | {lower} | {upper} |")
    return [*lines, ""]


def measure(name: str, args) -> list[str]:
    from readable_matrices import load
    from witness_probe import probe

    from occamlearn.trees.mpdt.bnb import kernels
    from occamlearn.trees.mpdt.bnb.engines import prepare_rows
    from occamlearn.trees.mpdt.minimum import _column_reduction

    X, y, n_classes, _ = load(name)
    reduction = _column_reduction(X, y)
    X = reduction.reduce(X) if reduction is not None else X
    rows, labels, n_classes, kept = prepare_rows(X, y, n_classes)
    distinct = rows[:, kept] != 0
    lines = [f"## {name}", "",
             f"{X.shape[0]} rows ({len(labels)} distinct), {X.shape[1]} columns after the "
             f"reductions ({len(kept)} informative), classes {np.bincount(labels).tolist()}.",
             ""]
    kernels.warm_up()  # loaded (or compiled) before any timed part
    if args.static:
        lines += static_bounds(rows, labels, kept, distinct, n_classes, args)
    if args.seconds > 0:
        trace, stats = engine_trace("bnb", X, y, n_classes, args.seconds)
        lines += bound_table(f"Branch and bound alone, {args.seconds:.0f} s: "
                             f"{stats['calls']:,} calls, {stats['memo_entries']:,} memo "
                             "entries; bound (nodes) over time:", trace)
    if args.subsets_seconds > 0:
        trace, stats = engine_trace("subsets", X, y, n_classes,
                                    args.subsets_seconds)
        rounds = ", ".join(f"{r['rows']} rows: {r['lower']}" + ("" if r["optimal"] else
                                                                 " (stopped)")
                           for r in stats["round_log"])
        lines += bound_table(f"Subset search alone, {args.subsets_seconds:.0f} s (rounds, "
                             f"rows: bound in nodes: {rounds}); bound over time:", trace)
    if args.sat_nodes:
        lines += [f"MinDT's exact-size SAT call (CaDiCaL, at most {args.sat_seconds:.0f} s):",
                  "", "| nodes n | answer | clauses | seconds |", "|---|---|---|---|"]
        for n in args.sat_nodes:
            answer, clauses, seconds = exact_size_sat(X, y, n_classes, n, args.sat_seconds)
            text = {True: "a tree", False: "none", None: "stopped"}[answer]
            lines.append(f"| {n} | {text} | {clauses:,} | {seconds:.1f} |")
        lines.append("")
    if args.witness_seconds > 0:
        lines += ["Witness branching (``witness_probe``, at most "
                  f"{args.witness_seconds:.0f} s for one s):", "",
                  "| inner nodes s | answer | search nodes | seconds |", "|---|---|---|---|"]
        for s, answer, nodes, seconds in probe(name, args.witness_seconds):
            lines.append(f"| {s} | {answer} | {nodes:,} | {seconds:.1f} |")
            if answer == "stopped":
                break
        lines.append("")
    return lines


def static_bounds(rows, labels, kept, distinct, n_classes, args) -> list[str]:
    from occamlearn.trees.mpdt.bnb import kernels

    incompatibility = kernels.incompatibility_lower_bound(
        kernels.pack_rows(rows[:, kept]), labels, np.arange(len(labels)), n_classes,
        10**12)
    pairs = pair_bounds(distinct, labels, args.pairs, args.mip_seconds)
    covers = [class_cover(distinct, labels, k, args.cover_rows) for k in range(n_classes)]
    return ["Static bounds at the root, in leaves (nodes = 2 x leaves - 1):", "",
            f"* incompatibility bound: {incompatibility}",
            f"* pair bound over the {pairs['pairs']} pairs with the fewest separating "
            f"columns: greedy packing {pairs['greedy'] + 1}, LP {pairs['lp'] + 1:.2f} "
            f"({pairs['lp_seconds']:.1f} s), exact cover "
            + (f"{pairs['mip'] + 1:.0f}" if pairs["mip_optimal"] else
               f"not proven in {args.mip_seconds:.0f} s (its bound "
               f"{pairs['mip_dual'] + 1:.2f}, its best cover {pairs['mip'] + 1:.0f})")
            + f" ({pairs['mip_seconds']:.1f} s)",
            f"* class-cover bound: {sum(1 if c is None else c for c in covers)} (per class, "
            f"exact up to {args.cover_rows} rows, else 1: {covers})", ""]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["back", "breast_cancer"])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--witness-seconds", type=float, default=30.0)
    parser.add_argument("--mip-seconds", type=float, default=30.0)
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--cover-rows", type=int, default=14)
    parser.add_argument("--no-static", dest="static", action="store_false")
    parser.add_argument("--subsets-seconds", type=float, default=0.0)
    parser.add_argument("--sat-nodes", type=int, nargs="*", default=[])
    parser.add_argument("--sat-seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    command = "python benchmarks/readable_lower_bounds.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    lines = [f"Command: `{command}`", "",
             "# Lower bounds on the hard readable-default matrices: what each source gives",
             "", f"Load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
             "(2 cores, shared).", ""]
    for name in args.datasets:
        lines += measure(name, args)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
