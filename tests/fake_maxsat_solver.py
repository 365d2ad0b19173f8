"""A stand-in MaxSAT solver program for the external back-end's tests.

Usage: ``python fake_maxsat_solver.py FILE.wcnf [--sleep S] [--legacy-v] [--ignore-term]
[--no-model] [--unsat-answer]``. Reads the WCNF (either format, via PySAT), prints ``o`` for a
first model of the hard clauses, sleeps ``S`` seconds, then solves exactly with PySAT's RC2 and
prints ``o``, ``s OPTIMUM FOUND`` and ``v`` (compact bit string, or the legacy literal list
with ``--legacy-v``). On SIGTERM it prints its best model so far as ``s SATISFIABLE`` (the
MaxSAT Evaluation convention) unless ``--ignore-term``.
"""

import argparse
import signal
import sys
import time

from pysat.examples.rc2 import RC2
from pysat.formula import WCNF
from pysat.solvers import Solver


def cost_of(wcnf, model):
    true = set(model)
    return sum(w for c, w in zip(wcnf.soft, wcnf.wght) if not any(lit in true for lit in c))


def print_model(model, n_vars, legacy):
    true = set(model)
    if legacy:
        lits = [i if i in true else -i for i in range(1, n_vars + 1)]
        half = len(lits) // 2
        print("v " + " ".join(map(str, lits[:half])))  # two lines, as old solvers do
        print("v " + " ".join(map(str, lits[half:])) + " 0")
    else:
        print("v " + "".join("1" if i in true else "0" for i in range(1, n_vars + 1)))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wcnf")
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--legacy-v", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    args = parser.parse_args()
    wcnf = WCNF(from_file=args.wcnf)
    print("c fake solver: read", len(wcnf.hard), "hard and", len(wcnf.soft), "soft clauses")
    best = {}

    def on_term(signum, frame):
        if "model" in best:
            print("s SATISFIABLE")
            print_model(best["model"], wcnf.nv, args.legacy_v)
        else:
            print("s UNKNOWN", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, signal.SIG_IGN if args.ignore_term else on_term)
    with Solver(name="minisat22", bootstrap_with=wcnf.hard) as solver:
        solver.set_phases(range(1, wcnf.nv + 1))  # a poor first model: all variables true
        if not solver.solve():
            print("s UNSATISFIABLE", flush=True)
            return
        best["model"] = solver.get_model()
    print(f"o {cost_of(wcnf, best['model'])}", flush=True)
    time.sleep(args.sleep)
    with RC2(wcnf) as rc2:
        model = rc2.compute()
    if cost_of(wcnf, model) < cost_of(wcnf, best["model"]):
        print(f"o {rc2.cost}", flush=True)
    best["model"] = model
    print("s OPTIMUM FOUND")
    print_model(model, wcnf.nv, args.legacy_v)


if __name__ == "__main__":
    main()
