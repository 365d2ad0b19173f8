"""Table 6 data protocol and methods: what each method learns on the fixed training part.

Protocol (Sec. 8 and 9.2): each dataset is binarised with the paper's binary encoding
(``FeatureBinarizer(encoding="binary")``, fitted on the whole table as the paper's
preprocessing is), identical binary rows with different labels are reduced to their majority
label, and the rows are split once into 64 % training and 36 % held out (stratified,
``train_seed``). The training part is the same for all 50 splits; only the held-out part is
re-split each time into 16 % selection and 20 % test. Row counts follow Table 4: the test
part has ceil(0.2 n) rows and the selection part ceil(0.2 (n - test)) (iris 96/24/30, zoo
64/16/21, mux6 81/21/26), i.e. what two successive scikit-learn splits give. So every
method learns its candidate trees once per dataset, and each split only evaluates them.

A method is one entry of ``METHODS``: ``name -> function(data, settings, shared)`` returning
``MethodPool`` (its candidates' predictions on the held-out rows, their sizes, and facts to
report); adding a method is one line there (``_predict_all`` turns fitted predictors into
the predictions). ``shared`` is a per-dataset ``SharedSolve``: the minimum-tree search runs once and
every mpdt variant draws from it (Sec. 6 / ``trees_from_search``). The minimum is found by
the default portfolio (``trees.mpdt.portfolio``: branch and bound and MaxSAT). ``mpdt-nd`` and
``mpdt`` draw the trees from the branch and bound's tree space (every minimum tree counted;
the first k, or MDSOL's greedy step over the space: ``trees_from_space``), ``mpdt-sat-nd``,
``mpdt-sat`` and the layout variants from the MPDT encoding with n = that size (blocking
clauses, MDSOL over SAT: ``trees_from_search``).

``dtmax-2/3/4`` are DT(max) (Hu et al. 2020; end of Sec. 9.2): the most accurate tree of depth
<= d, one per dataset (``MaxAccuracyTreeClassifier``, ``dtmax_time_limit`` seconds per fit),
learned on the same 64 % training rows as every other method. The paper does not say more;
training on training + selection rows would need one fit per split and would give DT(max) rows
the other methods only use for choosing, so the selection part is left to choosing -- which,
with one candidate, it does not have to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from occamlearn.binarize import FeatureBinarizer, resolve_conflicts
from occamlearn.datasets import load_dataset
from occamlearn.estimators.dtmax import MaxAccuracyTreeClassifier
from occamlearn.experiments.baselines import BASELINES
from occamlearn.stopping import CLOCK, Deadline
from occamlearn.trees.mpdt.all_minimum.minimum_trees import trees_from_search, trees_from_space
from occamlearn.trees.mpdt.all_minimum.selection import Split, split_indices
from occamlearn.trees.mpdt.maxsat_route.search import MinimumTreeSearch
from occamlearn.trees.mpdt.minimum import find_minimum_tree

__all__ = [
    "DTMAX_DEPTHS",
    "METHODS",
    "MPDT_VARIANTS",
    "TEST_FRACTION",
    "TRAIN_FRACTION",
    "MethodPool",
    "SharedSolve",
    "Table6Data",
    "holdout_split",
    "prepare_dataset",
]

TRAIN_FRACTION, SELECTION_FRACTION, TEST_FRACTION = 0.64, 0.16, 0.20


@dataclass
class Table6Data:
    """One dataset under the protocol: training part and held-out part (binary, indices)."""

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_holdout: np.ndarray
    y_holdout: np.ndarray
    n_classes: int
    train_stratified: bool


def prepare_dataset(name: str, train_seed: int = 0) -> Table6Data:
    """Binarise, majority-filter and split ``name`` 64 % / 36 % (stratified if possible)."""
    X, y = load_dataset(name)
    X_bin = np.asarray(FeatureBinarizer(encoding="binary").fit_transform(X, y), dtype=np.uint8)
    X_bin, y = resolve_conflicts(X_bin, np.asarray(y), strategy="majority")
    classes, y_index = np.unique(np.asarray(y), return_inverse=True)
    n_test, n_selection = _holdout_counts(len(y_index))
    split = split_indices(y_index, n_test + n_selection, random_state=train_seed)
    return Table6Data(name, X_bin[split.first], y_index[split.first], X_bin[split.second],
                      y_index[split.second], len(classes), split.stratified)


def _holdout_counts(n_rows: int) -> tuple[int, int]:
    """(test rows, selection rows) of a dataset of ``n_rows`` (Table 4's counts)."""
    n_test = int(np.ceil(TEST_FRACTION * n_rows))
    share = SELECTION_FRACTION / (1.0 - TEST_FRACTION)
    return n_test, int(np.ceil(share * (n_rows - n_test)))


def holdout_split(data: Table6Data, split: int) -> Split:
    """Split number ``split`` of the held-out rows: ``first`` selection, ``second`` test."""
    n_rows = len(data.y_train) + len(data.y_holdout)
    n_test, _ = _holdout_counts(n_rows)
    return split_indices(data.y_holdout, n_test, random_state=split)


@dataclass
class MethodPool:
    """A method's candidates: predictions on the held-out rows (one row per candidate)."""

    predictions: np.ndarray
    sizes: list
    info: dict = field(default_factory=dict)

    def to_record(self) -> dict:
        return {"predictions": ["".join(map(chr, 48 + row)) for row in self.predictions],
                "sizes": [int(s) for s in self.sizes], "info": self.info}

    @classmethod
    def from_record(cls, record: dict) -> MethodPool:
        rows = [np.frombuffer(text.encode(), dtype=np.uint8).astype(np.int64) - 48
                for text in record["predictions"]]
        return cls(np.array(rows, dtype=np.int64).reshape(len(rows), -1),
                   list(record["sizes"]), dict(record.get("info", {})))


class SharedSolve:
    """The dataset's minimum-tree search, run on first use and shared by the mpdt methods."""

    def __init__(self, data: Table6Data, settings: dict, known_minimum=None):
        self.data, self.settings = data, settings
        self.known_minimum = known_minimum
        self._search = None
        self.seconds = 0.0
        self.live_used = False

    def search(self) -> MinimumTreeSearch:
        """The minimum found by the default portfolio (branch and bound and MaxSAT), adopted
        by a MaxSAT search whose formula with n = that size the mpdt variants draw from."""
        if self._search is None:
            began = CLOCK()
            data = self.data
            self._search = MinimumTreeSearch(data.X_train, data.y_train, data.n_classes)
            self._search.adopt(find_minimum_tree(
                data.X_train, data.y_train, data.n_classes, method="auto",
                deadline=Deadline.after(self.settings.get("solve_time_limit"))))
            self.seconds = CLOCK() - began
        return self._search

    def minimum_size(self) -> int:
        """The minimum size (from an earlier stage if known, else from the search)."""
        if self.known_minimum is not None:
            return int(self.known_minimum)
        return int(self.search().result.tree.n_nodes)

    def close(self) -> None:
        if self._search is not None:
            self._search.close()


def _predict_all(predictors, X) -> np.ndarray:
    if not len(predictors):
        return np.zeros((0, len(X)), dtype=np.int64)
    return np.vstack([np.asarray(p.predict(X), dtype=np.int64) for p in predictors])


def _mpdt_variant(data: Table6Data, settings: dict, shared: SharedSolve, *, k, diverse,
                  layouts, source="sat") -> MethodPool:
    search = shared.search()
    count = 1 if k == 1 else int(settings["k"])
    if source == "space":
        found = trees_from_space(search.result, data.X_train, data.y_train, data.n_classes,
                                 count, diverse=diverse,
                                 deadline=Deadline.after(settings.get("enum_time_limit")),
                                 random_state=0)
    else:
        live = not shared.live_used and not diverse and not layouts and count > 1
        shared.live_used |= live
        found = trees_from_search(search, count, diverse=diverse, layouts=layouts,
                                  layout_depth=int(settings.get("layout_depth", 3)),
                                  deadline=Deadline.after(settings.get("enum_time_limit")),
                                  live=live)
    info = {"status": found.result.status, "optimum": int(found.result.tree.n_nodes),
            "count": found.count,
            "lower_bound": int(found.result.lower_bound), "complete": bool(found.complete),
            "solve_seconds": round(shared.seconds, 3), "enum_seconds": round(found.seconds, 3),
            "n_layouts": len(found.layout_report) if layouts else 0}
    return MethodPool(_predict_all(found.trees, data.X_holdout),
                      [t.n_nodes for t in found.trees], info)


def _sklearn(data: Table6Data, settings: dict, shared: SharedSolve, *, kind) -> MethodPool:
    began = CLOCK()
    extra = {"minimum_size": shared.minimum_size()} if kind == "lsk" else {}
    pool = BASELINES[kind](data.X_train, data.y_train, int(settings["sk_seeds"]), **extra)
    info = {"fit_seconds": round(CLOCK() - began, 3), **extra}
    return MethodPool(_predict_all(pool.predictors, data.X_holdout), pool.sizes, info)


def _dtmax(data: Table6Data, settings: dict, shared: SharedSolve, *, depth) -> MethodPool:
    """DT(max) of depth <= ``depth`` on the training part: one candidate."""
    began = CLOCK()
    model = MaxAccuracyTreeClassifier(max_depth=depth, binarizer=None, prefer_small=False,
                                      time_limit=settings.get("dtmax_time_limit"))
    model.fit(data.X_train, data.y_train)
    info = {"status": model.status_, "training_errors": int(model.training_errors_),
            "errors_lower_bound": int(model.errors_lower_bound_),
            "fit_seconds": round(CLOCK() - began, 3)}
    return MethodPool(_predict_all([model], data.X_holdout), [model.n_nodes_], info)


DTMAX_DEPTHS = (2, 3, 4)

MPDT_VARIANTS = {
    "mpdt-1": dict(k=1, diverse=False, layouts=False),
    "mpdt-nd": dict(k=None, diverse=False, layouts=False, source="space"),
    "mpdt": dict(k=None, diverse=True, layouts=False, source="space"),
    "mpdt-sat-nd": dict(k=None, diverse=False, layouts=False),
    "mpdt-sat": dict(k=None, diverse=True, layouts=False),
    "mpdt-lay-nd": dict(k=None, diverse=False, layouts=True),
    "mpdt-lay": dict(k=None, diverse=True, layouts=True),
}

METHODS = {
    "psk": partial(_sklearn, kind="psk"),
    "lsk": partial(_sklearn, kind="lsk"),
    "ask": partial(_sklearn, kind="ask"),
    **{name: partial(_mpdt_variant, **spec) for name, spec in MPDT_VARIANTS.items()},
    **{f"dtmax-{d}": partial(_dtmax, depth=d) for d in DTMAX_DEPTHS},
}
