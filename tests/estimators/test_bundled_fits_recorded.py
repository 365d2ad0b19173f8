"""The readable binarisers and the default decision list make, on every bundled table and
scikit-learn's breast_cancer, exactly the matrices and lists recorded at commit 79adb41:
the binarisers' reading of DataFrame columns and the list's fixed costs were cut to change
the cost only. Each entry digests the readable literals (``RuleLiterals(ThresholdBinarizer())
.fit_transform``: the matrix and its feature names), the trees' label-aware thresholds
(``ThresholdBinarizer().fit(X, y).transform``) and, on two-class tables, the default list
(its rules' features and probabilities, default, shrinkage, direction and stop reason)."""


import functools
import hashlib
import warnings

import numpy as np
import pytest

from occamlearn import DecisionListClassifier
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.datasets import list_datasets, load_dataset
from occamlearn.estimators._list_literals import RuleLiterals


def _hashed(*parts) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
    return digest.hexdigest()[:16]


def _matrix(matrix, names) -> str:
    matrix = np.ascontiguousarray(matrix, dtype=np.uint8)
    return _hashed(matrix.shape, matrix.tobytes(), [str(n) for n in names])


@functools.cache
def tables() -> dict:
    out = {name: load_dataset(name) for name in list_datasets()}
    from sklearn.datasets import load_breast_cancer

    cancer = load_breast_cancer(as_frame=True)
    out["breast_cancer"] = (cancer.data, cancer.target)
    return out


def fits_digest(X, y) -> tuple:
    """The digests of the readable literals (``fit_transform``), the trees' label-aware
    thresholds (``fit(X, y).transform``) and, on two-class tables, the default list (its
    rules' features and probabilities, default, shrinkage, direction and stop reason)."""
    y = np.asarray(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        literals = RuleLiterals(ThresholdBinarizer())
        matrix = _matrix(literals.fit_transform(X), literals.get_feature_names_out())
        trees = ThresholdBinarizer().fit(X, y)
        thresholds = _matrix(trees.transform(X), trees.get_feature_names_out())
        decision_list = None
        if len(np.unique(y)) == 2:
            # no time limit: the default's 60 s include the first fit's compiling of the
            # search's kernels (seconds, minutes on a loaded machine with an empty cache), and
            # a list stopped by its limit is another list; within the limit they are the same
            model = DecisionListClassifier(time_limit=None).fit(X, y)
            decision_list = _hashed([(tuple(map(int, r.features)), r.probability)
                                     for r in model.rules_], model.default_probability_,
                                    model.shrinkage_, model.direction_,
                                    model.stop_reason_)
    return matrix, thresholds, decision_list


# table -> (literals, thresholds, list or None for more than two classes)
RECORDED = {
    "append": ("367fb07f5c4863eb", "6da154190d39b019", "2e55df364d531dc6"),
    "audio": ("71592849af4d96cc", "c2dbf18d263c0d4f", "a47170752b22ccc6"),
    "back": ("f45d1f0eda703ac1", "b425e8a7568407b3", "23e1b8e798f9c128"),
    "corral": ("8c46f382a63fdba7", "74034755d0e731b6", "1c6f207471e35427"),
    "h-votes": ("7375548e3a99ff29", "0ff12959515ec3fa", "d4cc0b25c8f0664c"),
    "haber": ("d557dde2f414a20f", "38d0fa6e8357dd46", "917eb473a3f963cc"),
    "hayes-r": ("ab8d4ebe472dcceb", "da921e3c5abdf57c", None),
    "hepa": ("24f0adf41ff9ca66", "61e063f8e8669171", "bcebd45c183376a4"),
    "iris": ("8a55ec6dc8cb1887", "79fa283b1e2d152c", None),
    "irish": ("c80a35850089e677", "57fb84294d4b03c2", "f0c49a16f3431a51"),
    "lympho": ("b5b69e5a33cd7dfb", "a0e09e44e0b63544", None),
    "monks-1": ("c87b1a7efd6a3424", "98face721213adf4", "4e602c9c3f7008dd"),
    "monks-3": ("bd4c74a42957b559", "1aa6b638ef53cbe2", "456ef8e208a8a35a"),
    "mushr": ("c51a6d1232777a33", "7d6471884259e411", "56c70899d7a4ad12"),
    "mux6": ("c5ad1238bb1a1b72", "37cf1b5c15490af7", "9f61b6a0f18992f5"),
    "new-thy": ("20f662091e169f9b", "1c6b014cd6c9a416", None),
    "spect": ("29bea9d7894bfc93", "3408a80b147e494e", "c5002957e3a5ad32"),
    "tic-tac-toe": ("c3c44b08f73f3694", "0af92086aed7561a", "3ae1ae1f20b04086"),
    "titanic": ("48c6990e05004136", "2a6d77f32c2d0092", "a3835de3a141fb48"),
    "wine": ("ef8f912ee215dab4", "2389782475030edb", None),
    "zoo": ("8f354862ffbd3736", "ce526baa2ecfc60a", None),
    "breast_cancer": ("14a6e6036df13e07", "211fba45b557e44a", "db5a97e92eb542ea"),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_fits_are_those_recorded(name):
    X, y = tables()[name]
    assert fits_digest(X, y) == RECORDED[name]
