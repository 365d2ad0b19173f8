"""Where the CPU of one ``MaxAccuracyTreeClassifier(max_depth=4, binarizer=None)`` fit goes,
stage by stage, on bundled 0/1 matrices: each stage's function is wrapped to add up its
``time.process_time``; a warm-up fit, then ``--repeats`` fits per table. Stages nest (the
search's set-up and ``solve_top`` are inside ``find_most_accurate_tree``).

    python benchmarks/dtmax_binary_stages.py --repeats 200 corral titanic mushr
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SPENT: collections.Counter = collections.Counter()
STAGES = {
    "occamlearn.estimators.dtmax": ("table_columns", "find_most_accurate_tree", "set_fitted"),
    "occamlearn.estimators._dtmax_columns": ("validate_table", "encode_labels",
                                             "check_binary_matrix", "column_chains"),
    "occamlearn.trees.dtmax.entry": ("greedy_tree", "integer_weights", "nested_errors"),
    "occamlearn.trees.dtmax.binary.solve": ("group_examples", "reduce_columns"),
}
METHODS = ("__init__", "solve_top", "_timer")


def _timed(function, name: str):
    def timed(*args, **kwargs):
        began = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[name] += time.process_time() - began
    return timed


def _wrap() -> None:
    import importlib

    from occamlearn.trees.dtmax.binary.search import CompiledDepthSearch
    from occamlearn.trees.dtmax.data import OrderedData

    for module_name, names in STAGES.items():
        module = importlib.import_module(module_name)
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _timed(getattr(module, name), name))
    for name in METHODS:
        if hasattr(CompiledDepthSearch, name):
            setattr(CompiledDepthSearch, name,
                    _timed(getattr(CompiledDepthSearch, name), f"search.{name}"))
    from_matrix = OrderedData.from_matrix.__func__
    OrderedData.from_matrix = classmethod(_timed(from_matrix, "from_matrix"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+")
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    sys.path.insert(0, HERE)
    from dtmax_continuous import training_table

    from occamlearn import MaxAccuracyTreeClassifier

    _wrap()
    print(f"load average {tuple(round(v, 2) for v in os.getloadavg())}; CPU ms per fit")
    for table in args.tables:
        X, y, _ = training_table(f"bundled:{table}")
        MaxAccuracyTreeClassifier(max_depth=4, time_limit=60, binarizer=None).fit(X, y)
        SPENT.clear()
        began = time.process_time()
        for _ in range(args.repeats):
            MaxAccuracyTreeClassifier(max_depth=4, time_limit=60, binarizer=None).fit(X, y)
        per_fit = (time.process_time() - began) / args.repeats * 1e3
        stages = ", ".join(f"{name} {spent / args.repeats * 1e3:.3f}"
                           for name, spent in SPENT.most_common())
        print(f"- {table}: {per_fit:.2f} ms a fit; {stages}")


if __name__ == "__main__":
    main()
