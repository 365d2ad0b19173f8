"""How fast the proven lower bound of DT(max) rises: the bound on training errors reached after
given seconds of ``fit``, a checkout against its base, side by side in one run.

Cases:

* ``default_5000x30``: ``make_classification(5000, 30, random_state=0)``;
* the continuous tables of ``dtmax_continuous.py`` (64 % training split);

each with ``MaxAccuracyTreeClassifier(max_depth=d, time_limit=...)`` and its defaults (every
threshold, fewest errors then fewest nodes).

Each fit runs in its own process after a warm-up fit on 20 rows; the user's callback (the
three-argument form) records every rise of the bound, and the table shows the best bound
reported by each checkpoint, the best tree's errors at the end and whether it was proven.
``--base SRC`` runs the same fits with ``SRC`` first on ``PYTHONPATH``, alternating which of
the two runs first. Run by hand::

    python benchmarks/dtmax_anytime_bound.py --base /work/main/src --markdown out.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ("default_5000x30", "breast_cancer", "wine", "digits", "make_classification_5000",
         "make_classification_20000")


def worker(case: str, depth: int, limit: float) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    from occamlearn import MaxAccuracyTreeClassifier

    options = {}
    if case == "default_5000x30":
        from sklearn.datasets import make_classification

        X, y = make_classification(5000, 30, random_state=0)
    else:
        sys.path.insert(0, HERE)
        from dtmax_continuous import training_table

        X, y, _ = training_table(case)
    warm = np.r_[np.flatnonzero(y == y[0])[:10], np.flatnonzero(y != y[0])[:10]]
    MaxAccuracyTreeClassifier(max_depth=depth, time_limit=limit, **options).fit(X[warm], y[warm])
    trace = []

    def callback(tree, seconds, lower):
        trace.append((float(seconds), None if lower is None else float(lower)))

    model = MaxAccuracyTreeClassifier(max_depth=depth, time_limit=limit, callback=callback,
                                      **options)
    began = time.perf_counter()
    model.fit(X, y)
    return {"seconds": time.perf_counter() - began, "errors": float(model.training_errors_),
            "lower": float(model.errors_lower_bound_), "status": model.status_,
            "trace": trace}


def run(case: str, depth: int, limit: float, src: str | None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(src), env.get("PYTHONPATH", "")])
    command = [sys.executable, __file__, "--worker", case, str(depth), str(limit)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=2 * limit + 120)
    except subprocess.TimeoutExpired:
        return {"note": "killed"}
    if done.returncode != 0:
        return {"note": (done.stderr.strip().splitlines() or ["failed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def bound_at(result: dict, seconds: float) -> float:
    """The best bound reported by ``seconds`` (the final one once the fit has ended)."""
    if result.get("seconds", np.inf) <= seconds:
        return result["lower"]
    reached = [lower for at, lower in result["trace"] if at <= seconds and lower is not None]
    return max(reached, default=0.0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--checkpoints", type=float, nargs="+", default=[2.0, 5.0, 10.0])
    parser.add_argument("--base", help="src folder of a base checkout, run side by side")
    parser.add_argument("--markdown", help="write the table here")
    args = parser.parse_args(argv)
    if args.worker:
        case, depth, limit = args.worker
        print(json.dumps(worker(case, int(depth), float(limit))))
        return
    tools = [("head", None)] + ([("base", args.base)] if args.base else [])
    load_before = os.getloadavg()
    rows, turn = [], 0
    for case in args.cases:
        for depth in args.depths:
            order = tools if turn % 2 == 0 or len(tools) == 1 else tools[::-1]
            turn += 1
            results = {name: run(case, depth, args.time_limit, src) for name, src in order}
            rows.append((case, depth, results))
    header = " | ".join(f"bound at {c:g} s" for c in args.checkpoints)
    lines = ["# DT(max): the proven lower bound on training errors while `fit` runs\n",
             f"Command: `python benchmarks/dtmax_anytime_bound.py "
             f"{' '.join(argv or sys.argv[1:])}`  ",
             f"Time limit {args.time_limit:g} s per fit, one fit at a time, each in its own "
             f"process (head and base alternate which runs first). Load average (1, 5, 15 "
             f"min) before {tuple(round(v, 2) for v in load_before)}, after "
             f"{tuple(round(v, 2) for v in os.getloadavg())} on {os.cpu_count()} cores.\n",
             f"| case | depth | run | {header} | end: errors (bound), seconds |",
             "|---|---|---|" + "---|" * len(args.checkpoints) + "---|"]
    for case, depth, results in rows:
        for name, _ in tools:
            result = results[name]
            if "note" in result:
                lines.append(f"| {case} | {depth} | {name} | {result['note']} |")
                continue
            cells = " | ".join(f"{bound_at(result, c):g}" for c in args.checkpoints)
            proof = "optimal" if result["status"] == "optimal" else result["lower"]
            end = f"{result['errors']:g} ({proof}), {result['seconds']:.1f} s"
            lines.append(f"| {case} | {depth} | {name} | {cells} | {end} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
