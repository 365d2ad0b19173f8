"""Simulated data for the decision-list paper's experiments (Goessling and Kang, Sec. IV).

Two simulators:

* ``random_decision_list`` / ``sample_from_list`` -- Sec. IV-A. A random list of ``n_rules``
  rules, each condition a single binary feature drawn without replacement from a pool of
  ``n_features``; the ``n_rules + 1`` probabilities (rules and default) are drawn independently
  and uniformly from [0, 1]. A *general* list keeps them in drawn order; a *directional* list
  sorts them in decreasing order, so that p_k >= every later probability and hence
  p_k >= p_{>k} = P(y=1 | no rule among 1..k applies): inequality (1) in the positive direction.
  The paper does not say how the features are distributed. Here they are independent
  Bernoulli(q) with one ``feature_probability`` q for all features (default 0.2): rule k then
  covers q (1-q)^(k-1) of the rows -- 2.7 % for the tenth rule -- and the default 10.7 %, so every
  rule of the ground truth matters. (With q = 0.5 the tenth rule would cover 0.1 % of the rows, one
  training example in 1,000.) Labels are drawn from the ground-truth list's probabilities.

* ``manufacturing_like`` -- Sec. IV-C's data are not public; this builds a table of the same
  shape: ``n_rows`` parts in production order, ``n_columns`` numeric measurements and about 4 %
  defective parts (label 1). Measurements come in groups sharing a latent factor (like volumes
  measured at several pressure levels); defects are mostly announced by extreme values of a few
  "symptom" measurements (the paper's finding: extreme displaced volumes at some pressures), plus a
  small background rate of defects with no symptom. See ``ManufacturingSpec`` for the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from occamlearn.model.decision_list import DecisionList, Rule

__all__ = [
    "ManufacturingSpec",
    "is_directional",
    "manufacturing_like",
    "random_decision_list",
    "remainder_probabilities",
    "sample_features",
    "sample_from_list",
]

FAMILIES = ("general", "directional")
_UINT16_RANGE = 1 << 16


def _check_positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def _check_probability(name: str, value) -> float:
    if not isinstance(value, (int, float, np.floating)) or not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be a probability strictly between 0 and 1; got {value!r}")
    return float(value)


def random_decision_list(n_features: int = 1000, n_rules: int = 10, family: str = "general",
                         rng=None) -> DecisionList:
    """A random ground-truth list of ``n_rules`` single-feature rules (Sec. IV-A).

    ``family="general"``: probabilities i.i.d. uniform on [0, 1] in drawn order;
    ``family="directional"``: the same draws sorted in decreasing order (positive direction).
    The rules' training counts (``n_covered``, ``n_positive``) are 0: nothing was trained.
    """
    n_features = _check_positive_int("n_features", n_features)
    n_rules = _check_positive_int("n_rules", n_rules)
    if n_rules > n_features:
        raise ValueError(f"n_rules={n_rules} needs at least as many features; "
                         f"n_features is {n_features}")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    rng = np.random.default_rng(rng)
    features = rng.choice(n_features, size=n_rules, replace=False)
    probabilities = rng.random(n_rules + 1)
    if family == "directional":
        probabilities = np.sort(probabilities)[::-1]
    rules = tuple(Rule((int(f),), float(p), 0, 0) for f, p in zip(features, probabilities))
    return DecisionList(rules=rules, default_probability=float(probabilities[-1]),
                        n_features=n_features)


def sample_features(n_rows: int, n_features: int, feature_probability: float = 0.2,
                    rng=None) -> np.ndarray:
    """(n_rows, n_features) boolean matrix of independent Bernoulli(q) features.

    Drawn as 16-bit integers below round(q * 2**16) -- three times faster than comparing floats,
    so q is effectively rounded to a multiple of 2**-16 (0.2 becomes 0.199997).
    """
    n_rows = _check_positive_int("n_rows", n_rows)
    n_features = _check_positive_int("n_features", n_features)
    q = _check_probability("feature_probability", feature_probability)
    threshold = max(1, min(_UINT16_RANGE - 1, round(q * _UINT16_RANGE)))
    rng = np.random.default_rng(rng)
    X = np.empty((n_rows, n_features), dtype=bool)
    step = max(1, (1 << 23) // n_features)  # ~16 MB of draws at a time
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        draws = rng.integers(0, _UINT16_RANGE, size=(stop - start, n_features), dtype=np.uint16)
        np.less(draws, threshold, out=X[start:stop])
    return X


def sample_from_list(truth: DecisionList, n_rows: int, feature_probability: float = 0.2,
                     rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Features from ``sample_features`` and labels y ~ Bernoulli(truth's probability)."""
    rng = np.random.default_rng(rng)
    X = sample_features(n_rows, truth.n_features, feature_probability, rng)
    p = truth.predict_positive_probability(X)
    y = (rng.random(n_rows) < p).astype(np.int8)
    return X, y


def remainder_probabilities(truth: DecisionList, feature_probability: float) -> np.ndarray:
    """Exact p_{>k} = P(y=1 | none of rules 1..k applies), k = 1..K, under the simulator.

    Rule conditions are distinct independent Bernoulli(q) features, so among the rows that
    reach rule j (j > k), a fraction q is covered by it: P(R_j | R_{>k}) = q (1-q)^(j-k-1), and the
    default gets (1-q)^(K-k). Needed because inequality (1) is a statement about these
    population probabilities, not about the rules' own probabilities alone.
    """
    q = _check_probability("feature_probability", feature_probability)
    for rule in truth.rules:
        if len(rule.features) != 1:
            raise ValueError("remainder_probabilities needs single-feature rules; rule "
                             f"{rule.features} is a conjunction")
    if len({r.features for r in truth.rules}) != len(truth.rules):
        raise ValueError("remainder_probabilities needs distinct rule features")
    p = truth.probabilities  # p_1..p_K, p_def
    n_rules = len(truth.rules)
    remainders = np.empty(n_rules)
    for k in range(1, n_rules + 1):
        later = np.arange(k, n_rules)  # 0-based indices of rules k+1..K
        weights = q * (1.0 - q) ** (later - k)
        remainders[k - 1] = weights @ p[later] + (1.0 - q) ** (n_rules - k) * p[-1]
    return remainders


def is_directional(truth: DecisionList, feature_probability: float,
                   direction: str = "positive") -> bool:
    """Whether ``truth`` satisfies inequality (1) (or its flip for ``"negative"``) for every k."""
    if direction not in ("positive", "negative"):
        raise ValueError(f"direction must be 'positive' or 'negative'; got {direction!r}")
    rules = np.array([r.probability for r in truth.rules])
    remainders = remainder_probabilities(truth, feature_probability)
    slack = 1e-12
    if direction == "positive":
        return bool(np.all(rules >= remainders - slack))
    return bool(np.all(rules <= remainders + slack))


@dataclass(frozen=True)
class ManufacturingSpec:
    """Shape of the manufacturing-like table (defaults: about 4 % defects, 200 measurements).

    n_rows : parts, in production order (the last ``test_fraction`` is the "third month")
    n_columns : numeric measurements; ``group_size`` consecutive columns share a latent factor
        with loading ``group_loading`` (like one quantity measured at several pressures)
    n_symptoms : measurements whose extreme values announce defects; a symptom fires when the
        measurement is beyond its ``symptom_quantile`` (upper tail for even, lower for odd
        symptoms) and then the part is defective with probability ``symptom_defect_rate``
    background_defect_rate : defect probability of a part with no symptom
    """

    n_rows: int = 30_000
    n_columns: int = 200
    group_size: int = 5
    group_loading: float = 0.7
    n_symptoms: int = 6
    symptom_quantile: float = 0.99
    symptom_defect_rate: float = 0.45
    background_defect_rate: float = 0.012
    test_fraction: float = 1 / 3

    def __post_init__(self):
        _check_positive_int("n_rows", self.n_rows, 10)
        _check_positive_int("n_columns", self.n_columns)
        _check_positive_int("group_size", self.group_size)
        _check_positive_int("n_symptoms", self.n_symptoms)
        if self.n_symptoms > self.n_columns:
            raise ValueError(f"n_symptoms={self.n_symptoms} exceeds n_columns={self.n_columns}")
        for name in ("group_loading", "symptom_quantile", "symptom_defect_rate",
                     "background_defect_rate", "test_fraction"):
            _check_probability(name, getattr(self, name))


def manufacturing_like(spec: ManufacturingSpec = ManufacturingSpec(), rng=None):
    """``(X_train, y_train, X_test, y_test, symptom_columns)`` of a manufacturing-like table.

    X are DataFrames of float measurements named ``m000``, ``m001``, ...; y are 0/1 arrays with
    1 = defective (NOK). Rows are split in production order: the first ``1 - test_fraction``
    train, the rest test, as the paper trains on two months and tests on the third.
    """
    if not isinstance(spec, ManufacturingSpec):
        raise TypeError(f"spec must be a ManufacturingSpec; got {type(spec).__name__}")
    rng = np.random.default_rng(rng)
    n, d = spec.n_rows, spec.n_columns
    n_groups = -(-d // spec.group_size)
    factors = rng.standard_normal((n, n_groups))
    own = np.sqrt(1.0 - spec.group_loading ** 2)
    X = (spec.group_loading * np.repeat(factors, spec.group_size, axis=1)[:, :d]
         + own * rng.standard_normal((n, d)))
    # measurements have their own scales and offsets, as real sensors do
    X = X * rng.uniform(0.5, 20.0, size=d) + rng.uniform(-50.0, 50.0, size=d)
    symptoms = np.sort(rng.choice(d, size=spec.n_symptoms, replace=False))
    fired = np.zeros(n, dtype=bool)
    for i, column in enumerate(symptoms):
        values = X[:, column]
        if i % 2 == 0:
            fired |= values > np.quantile(values, spec.symptom_quantile)
        else:
            fired |= values < np.quantile(values, 1.0 - spec.symptom_quantile)
    p = np.where(fired, spec.symptom_defect_rate, spec.background_defect_rate)
    y = (rng.random(n) < p).astype(np.int8)
    frame = pd.DataFrame(X, columns=[f"m{j:03d}" for j in range(d)])
    n_train = n - round(spec.test_fraction * n)
    if n_train < 1 or n_train >= n:
        raise ValueError(f"test_fraction={spec.test_fraction} leaves no training or test rows "
                         f"out of n_rows={n}")
    return (frame.iloc[:n_train].reset_index(drop=True), y[:n_train],
            frame.iloc[n_train:].reset_index(drop=True), y[n_train:],
            [frame.columns[j] for j in symptoms])
