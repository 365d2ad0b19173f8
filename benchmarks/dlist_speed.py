"""Decision-list learning speed: 100,000 rows x 2,000 random binary features, 10 rules.

A directional 10-rule list is planted (conditions drawn from the features, probabilities drawn
uniformly from [0, 1] and sorted so that eq. (1) holds, as in the paper's simulation, Sec.
IV-A), labels are sampled from it, and we time

* packing the matrix into bit columns (``lists.bits.pack_columns``) and building the
  candidate set (``lists.prepare``);
* hill climbing (positive direction, undirected, both directions) and beam search of width 10;
* imodels' ``GreedyRuleListClassifier`` and wittgenstein's ``RIPPER`` (installed with pip for
  this benchmark only), on growing subsamples until one fit exceeds ``--peer-budget``
  seconds, with occamlearn's hill climb timed on the same subsample for the ratio.

These are the paper's searches over single features (``rule_search="enumerate"``, no
penalty); ``dlist_accuracy.py --speed`` times ``DecisionListClassifier()``'s default (rules
grown literal by literal under the description-length penalty) on the same data.

Run by hand (not part of the tests)::

    python benchmarks/dlist_speed.py --markdown benchmarks/results/dlist_speed.md
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import time

import numpy as np

from occamlearn.lists import prepare, search_problem
from occamlearn.lists.bits import pack_columns


def planted_data(n_rows: int, n_features: int, n_rules: int, density: float, seed: int):
    """Random binary X, a planted directional list and labels sampled from it."""
    rng = np.random.default_rng(seed)
    X = rng.random((n_rows, n_features)) < density
    features = rng.choice(n_features, size=n_rules, replace=False)
    probabilities = np.sort(rng.random(n_rules + 1))[::-1]  # p_1 >= ... >= p_K >= p_def
    p = np.full(n_rows, probabilities[-1])
    for feature, prob in zip(features[::-1], probabilities[-2::-1]):  # last rule first
        p[X[:, feature]] = prob
    y = (rng.random(n_rows) < p).astype(np.uint8)
    return X, y, features, probabilities


def best_of(repeats: int, run):
    """(fastest wall-clock seconds, CPU seconds of that run, result) over ``repeats`` runs.

    CPU seconds are reported too because the machine is shared: under load the wall clock
    also counts the time other processes held the cores.
    """
    best, result = (float("inf"), float("inf")), None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best[0], best[1], result


def _fit_peer(name, X, y, n_rules, queue):
    """Fit one peer in a child process and report the seconds of ``fit`` (imports excluded)."""
    if name == "imodels GreedyRuleListClassifier":
        from imodels import GreedyRuleListClassifier

        start, cpu = time.perf_counter(), time.process_time()
        GreedyRuleListClassifier(max_depth=n_rules).fit(X, y)
    else:
        import pandas as pd
        import wittgenstein

        frame = pd.DataFrame(X)
        start, cpu = time.perf_counter(), time.process_time()
        wittgenstein.RIPPER(max_rules=n_rules, random_state=0).fit(frame, y, pos_class=1)
    queue.put((time.perf_counter() - start, time.process_time() - cpu))


def time_peer(name, X, y, n_rules, budget):
    """(wall, CPU) seconds for one fit in a child process, or None if it exceeds ``budget``."""
    queue = mp.get_context("fork").Queue()
    process = mp.get_context("fork").Process(target=_fit_peer, args=(name, X, y, n_rules, queue))
    process.start()
    process.join(budget)
    if process.is_alive():
        process.terminate()
        process.join()
        return None
    return queue.get() if process.exitcode == 0 else (float("nan"), float("nan"))


PEERS = ("imodels GreedyRuleListClassifier", "wittgenstein RIPPER")
PEER_SIZES = ((1_000, 200), (10_000, 200), (10_000, 2_000), (100_000, 2_000))


def peer_rows(X, y, n_rules, budget):
    rows = []
    for name in PEERS:
        for n, d in PEER_SIZES:
            Xs, ys = X[:n, :d].astype(np.uint8), y[:n]
            ours = best_of(3, lambda Xs=Xs, ys=ys: search_problem(
                prepare(Xs, ys), "positive", "hill", max_rules=n_rules))[:2]
            seconds = time_peer(name, Xs, ys, n_rules, budget)
            rows.append((name, *Xs.shape, seconds, ours))
            print(f"{name} {n} x {d}: (wall, cpu) {seconds} s (occamlearn {ours})", flush=True)
            if seconds is None:
                break
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=2_000)
    parser.add_argument("--rules", type=int, default=10)
    parser.add_argument("--density", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-budget", type=float, default=120.0,
                        help="seconds allowed for one peer fit (0: skip the peers)")
    parser.add_argument("--markdown", metavar="OUT.md", help="write the results table here")
    args = parser.parse_args()

    X, y, planted, _probabilities = planted_data(args.rows, args.features, args.rules,
                                                args.density, args.seed)
    k = args.rules
    pack_s, pack_cpu, _ = best_of(args.repeats, lambda: pack_columns(X))
    prepare_s, prepare_cpu, problem = best_of(args.repeats, lambda: prepare(X, y))
    rows = [("pack columns (np.packbits in tiles)", pack_s, pack_cpu, ""),
            ("prepare (pack + candidates + labels)", prepare_s, prepare_cpu, "")]
    print(f"pack {pack_s:.3f} s, prepare {prepare_s:.3f} s", flush=True)
    for label, direction, search, width in (
            ("hill climbing, positive", "positive", "hill", 1),
            ("hill climbing, undirected", None, "hill", 1),
            ("hill climbing, both directions", "both", "hill", 1),
            ("beam search B=10, positive", "positive", "beam", 10),
            ("beam search B=10, undirected", None, "beam", 10)):
        seconds, cpu, result = best_of(args.repeats, lambda d=direction, s=search, w=width:
                                  search_problem(problem, d, s, w, max_rules=k))
        found = sorted({f for r in result.rules for f in r.features} & set(planted))
        note = (f"{len(result.rules)} rules, {len(found)}/{k} planted features, "
                f"LL {result.log_likelihood:.1f}")
        rows.append((label, seconds, cpu, note))
        print(f"{label}: {seconds:.3f} s ({note})", flush=True)
    peers = peer_rows(X, y, k, args.peer_budget) if args.peer_budget > 0 else []
    if args.markdown:
        write_markdown(args, rows, peers)


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("imodels", "wittgenstein"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} not installed")
    return ", ".join(found)


def write_markdown(args, rows, peers) -> None:
    lines = [
        "# Decision-list speed",
        "",
        (f"Command: `python benchmarks/dlist_speed.py --rows {args.rows} --features "
        f"{args.features} --rules {args.rules} --density {args.density} --seed {args.seed} "
        f"--peer-budget {args.peer_budget:g} --markdown benchmarks/results/dlist_speed.md`"),
        "",
        (f"Machine: {platform.machine()}, {mp.cpu_count()} cores (shared with other jobs), "
        f"Python {platform.python_version()}, numpy {np.__version__}. Best of {args.repeats}. "
        f"Load average when the run ended: {os.getloadavg()[0]:.1f}."),
        "",
        (f"Data: {args.rows:,} rows x {args.features:,} random binary features (P(1) = "
        f"{args.density}), labels sampled from a planted directional {args.rules}-rule list; "
        f"{args.rules} rules learned, single features as conditions."),
        "",
        "| step | wall seconds | CPU seconds | result |",
        "|---|---|---|---|",
        *[f"| {label} | {wall:.3f} | {cpu:.3f} | {note} |" for label, wall, cpu, note in rows],
    ]
    if peers:
        lines += ["", "## Other libraries (same data, first rows and columns)", "",
                  (f"Versions: {_versions()}; installed with pip for this benchmark only (not "
                  "occamlearn dependencies). imodels gets `max_depth=10` (10 rules), RIPPER "
                  "`max_rules=10`, both on the 0/1 matrix. A library is tried on growing "
                  "subsamples and not on larger ones after the first that exceeds the budget."),
                  "",
                  (f"Each peer fit runs in a child process, stopped after {args.peer_budget:g} s; "
                  "occamlearn = prepare + positive hill climb on the same subsample."), "",
                  ("| library | rows x features | wall s (CPU s) | occamlearn wall s (CPU s) "
                  "| ratio (wall, CPU) |"),
                  "|---|---|---|---|---|"]
        for name, n, d, seconds, ours in peers:
            if seconds is None:
                shown, ratio = f"> {args.peer_budget:g} (stopped)", ""
            else:
                shown = f"{seconds[0]:.2f} ({seconds[1]:.2f})"
                ratio = f"{seconds[0] / ours[0]:,.0f}x, {seconds[1] / max(ours[1], 1e-3):,.0f}x"
            lines.append(f"| {name} | {n:,} x {d:,} | {shown} | {ours[0]:.3f} ({ours[1]:.3f}) "
                         f"| {ratio} |")
    with open(args.markdown, "w") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
