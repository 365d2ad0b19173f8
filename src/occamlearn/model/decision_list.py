"""A fitted probabilistic decision list as plain, picklable data.

A decision list (Goessling and Kang, Sec. II) is

    IF cond_1 THEN p_1 ELSE IF cond_2 THEN p_2 ... ELSE p_def

where each condition is a conjunction of binary features (all must be 1) and ``p_k`` is the
probability of the positive class (y = 1) among the training examples that rule k covers,
i.e. that satisfy cond_k and none of the earlier conditions. The first condition that applies
gives the prediction and is its reason; rows no rule covers get ``p_def``.

``mode="classification"`` (Sec. III-B) reads the list as the disjunction
cond_1 OR ... OR cond_K: rows covered by any rule are predicted as ``target_class`` (the class
the rules characterise), all other rows as the other class. The probabilities are kept so that
``predict_proba`` stays meaningful.

A list learned with row weights (``sample_weight``, ``class_weight``) is ``weighted``: its
probabilities are weighted frequencies, which ``predict`` and ``predict_proba`` use, while the
counts ``n_covered`` / ``n_positive`` stay numbers of rows. Its text then prints both, each
labelled: the observed rate of the rows (``p=0.11 (n=739; weighted 0.60)``), so a reader
sees what happened in the data and what the weights made of it.

The list holds no search state: it can be pickled, compared and written to JSON exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DEFAULT_RULE", "DecisionList", "Rule", "check_list_dict", "counted_list"]

DEFAULT_RULE = -1  # the "reason" reported for rows that no rule covers
MODES = ("probabilistic", "classification")


@dataclass(frozen=True)
class Rule:
    """IF all of ``features`` are 1 THEN P(y=1) = ``probability``.

    ``n_covered`` / ``n_positive`` count the training examples this rule covers (those not
    covered by an earlier rule) and the positives among them.
    """

    features: tuple
    probability: float
    n_covered: int
    n_positive: int

    def __post_init__(self):
        features = tuple(int(f) for f in self.features)
        if not features:
            raise ValueError("a Rule needs at least one feature index; got an empty condition")
        if min(features) < 0:
            raise ValueError(f"Rule feature indices must be >= 0; got {features}")
        if not 0.0 <= float(self.probability) <= 1.0:
            raise ValueError(f"Rule probability must lie in [0, 1]; got {self.probability}")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "probability", float(self.probability))
        object.__setattr__(self, "n_covered", int(self.n_covered))
        object.__setattr__(self, "n_positive", int(self.n_positive))

    def covers(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of binary ``X`` that satisfy the condition."""
        return np.all(X[:, list(self.features)] != 0, axis=1)

    def to_dict(self) -> dict:
        return {"features": list(self.features), "probability": self.probability,
                "n_covered": self.n_covered, "n_positive": self.n_positive}

    @classmethod
    def from_dict(cls, data: dict) -> Rule:
        return cls(tuple(data["features"]), data["probability"], data["n_covered"],
                   data["n_positive"])


def counted_list(rules: list, n_default: int, n_default_positive: int, default: float,
                 n_features: int, feature_names: tuple, mode: str,
                 target_class: int) -> DecisionList:
    """``DecisionList(tuple(Rule(f, p / n, n, p) for f, n, p in rules), default, n_features,
    n_default, n_default_positive, feature_names, mode, target_class)`` for a search's
    unweighted counts, made without the constructors' checks when they cannot fail and
    their conversions change nothing: each rule's features a non-empty tuple of ints in
    [0, n_features), its counts ints with 0 <= p <= n and n >= 1 (so p / n is a float in
    [0, 1]); the default a float in [0, 1], the counts and ``n_features`` ints, the names
    a tuple of ``n_features`` str or empty, a known mode and a target of 0 or 1. Anything
    else goes through the constructors, and their errors."""
    plain = (type(default) is float and 0.0 <= default <= 1.0 and type(n_features) is int
             and type(n_default) is int and type(n_default_positive) is int
             and type(feature_names) is tuple and mode in MODES and target_class in (0, 1)
             and type(target_class) is int
             and (not feature_names or (len(feature_names) == n_features
                                        and all(type(n) is str for n in feature_names))))
    made = [] if plain else None
    for features, n, p in rules if plain else ():
        if not (type(features) is tuple and features and type(n) is int
                and type(p) is int and 0 <= p <= n and n >= 1
                and all(type(f) is int and 0 <= f < n_features for f in features)):
            made = None
            break
        rule = object.__new__(Rule)
        rule.__dict__.update(features=features, probability=p / n, n_covered=n, n_positive=p)
        made.append(rule)
    if made is None:
        return DecisionList(tuple(Rule(f, p / n, n, p) for f, n, p in rules), default,
                            n_features, n_default, n_default_positive, feature_names, mode,
                            target_class)
    made_list = object.__new__(DecisionList)
    made_list.__dict__.update(rules=tuple(made), default_probability=default,
                              n_features=n_features, n_default=n_default,
                              n_default_positive=n_default_positive,
                              feature_names=feature_names, mode=mode,
                              target_class=target_class, weighted=False, shrinkage=1.0)
    return made_list


@dataclass(frozen=True)
class DecisionList:
    """Ordered rules plus a default probability, over ``n_features`` binary features.

    rules : tuple of Rule, in order
    default_probability : P(y=1) for rows no rule covers
    n_default, n_default_positive : training rows reaching the default, and positives among them
    mode : "probabilistic" (predict p >= 0.5) or "classification" (disjunction, Sec. III-B)
    target_class : 1 or 0, the class the rules characterise in classification mode
    weighted : the probabilities are weighted frequencies (fitted with row weights)
    shrinkage : the probabilities are the training rates shrunk toward the training rate of
        all rows by this factor in [0, 1] (1: not shrunk; ``lists.shrinkage``)
    """

    rules: tuple
    default_probability: float
    n_features: int
    n_default: int = 0
    n_default_positive: int = 0
    feature_names: tuple = field(default=())
    mode: str = "probabilistic"
    target_class: int = 1
    weighted: bool = False
    shrinkage: float = 1.0

    def __post_init__(self):
        rules = tuple(r if isinstance(r, Rule) else Rule.from_dict(r) for r in self.rules)
        object.__setattr__(self, "rules", rules)
        names = self.feature_names
        if type(names) is not tuple or set(map(type, names)) - {str}:  # else already so
            object.__setattr__(self, "feature_names", tuple(str(n) for n in names))
        object.__setattr__(self, "default_probability", float(self.default_probability))
        object.__setattr__(self, "weighted", bool(self.weighted))
        object.__setattr__(self, "shrinkage", float(self.shrinkage))
        if not 0.0 <= self.shrinkage <= 1.0:
            raise ValueError(f"shrinkage must lie in [0, 1]; got {self.shrinkage}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}; got {self.mode!r}")
        if self.target_class not in (0, 1):
            raise ValueError(f"target_class must be 0 or 1; got {self.target_class!r}")
        if self.feature_names and len(self.feature_names) != self.n_features:
            raise ValueError(f"feature_names has {len(self.feature_names)} entries; "
                             f"n_features is {self.n_features}")
        for rule in rules:
            if max(rule.features) >= self.n_features:
                raise ValueError(f"rule {rule.features} uses a feature index >= n_features="
                                 f"{self.n_features}")

    # -- structure ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.rules)

    @property
    def probabilities(self) -> np.ndarray:
        """p_1..p_K followed by p_def: what ``predict_proba`` returns (weighted frequencies
        when ``weighted``)."""
        return np.array([r.probability for r in self.rules] + [self.default_probability])

    @property
    def adjustment(self) -> str | None:
        """What makes the probabilities differ from the observed rates: "weighted",
        "shrunk", "weighted, shrunk", or None when they are the observed rates."""
        parts = [name for name, on in (("weighted", self.weighted),
                                       ("shrunk", self.shrinkage != 1.0)) if on]
        return ", ".join(parts) or None

    @property
    def observed_probabilities(self) -> np.ndarray:
        """The positive rate of the training rows each rule (then the default) covers,
        unweighted; ``probabilities`` for a list that states the observed rates (the same
        numbers when it was learned) and where no row is covered."""
        if self.adjustment is None:
            return self.probabilities
        counts = [(r.n_positive, r.n_covered) for r in self.rules]
        counts.append((self.n_default_positive, self.n_default))
        return np.array([pos / n if n else p
                         for (pos, n), p in zip(counts, self.probabilities)])

    def feature_name(self, index: int) -> str:
        return self.feature_names[index] if self.feature_names else f"x[{index}]"

    def condition_text(self, rule: Rule) -> str:
        return " & ".join(self.feature_name(f) for f in rule.features)

    # -- prediction ---------------------------------------------------------------------------
    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X has shape {X.shape}; this decision list expects "
                             f"{self.n_features} binary features")
        return X

    def apply(self, X) -> np.ndarray:
        """Index of the rule that fires for each row (``DEFAULT_RULE`` = -1 for the default)."""
        X = self._check_X(X)
        fired = np.full(X.shape[0], DEFAULT_RULE, dtype=np.int64)
        for k, rule in enumerate(self.rules):
            fired[(fired == DEFAULT_RULE) & rule.covers(X)] = k
        return fired

    def predict_positive_probability(self, X) -> np.ndarray:
        """P(y=1) for each row: the probability of the first rule that applies (weighted
        when the list is)."""
        return self.probabilities[self.apply(X)]  # index -1 is the default

    def predict_proba(self, X) -> np.ndarray:
        """(n, 2) array of P(y=0), P(y=1)."""
        p = self.predict_positive_probability(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """0/1 per row; in classification mode the disjunction of the conditions."""
        if self.mode == "classification":
            covered = self.apply(X) != DEFAULT_RULE
            return np.where(covered, self.target_class, 1 - self.target_class)
        return (self.predict_positive_probability(X) >= 0.5).astype(np.int64)

    def reasons(self, X) -> list:
        """For each row, the text of the condition that fired (``"default"`` if none)."""
        fired = self.apply(X)
        texts = [self.condition_text(r) for r in self.rules]
        return [texts[k] if k != DEFAULT_RULE else "default" for k in fired]

    def log_likelihood(self, X, y, epsilon: float = 0.0) -> float:
        """Sum of log P(y_i | x_i) under the list (natural log).

        Probabilities are clipped to [epsilon, 1 - epsilon]; with the default 0 a rule of
        probability 0 or 1 meeting the other label gives -inf (as on a test set it can).
        """
        if not 0.0 <= epsilon < 0.5:
            raise ValueError(f"epsilon must lie in [0, 0.5); got {epsilon!r}")
        p = np.clip(self.predict_positive_probability(X), epsilon, 1.0 - epsilon)
        y = np.asarray(y)
        with np.errstate(divide="ignore"):
            return float(np.sum(np.log(np.where(y == 1, p, 1.0 - p))))

    # -- rendering and serialisation ----------------------------------------------------------
    def to_text(self, decimals: int = 2, counts: bool = True) -> str:
        """``IF c1 THEN p=0.93 (n=120)`` / ``ELSE IF ...`` / ``ELSE p=0.04 (n=800)``; p is the
        observed rate, and a weighted (or shrunk) list adds the probability it predicts with:
        ``p=0.11 (n=739; weighted 0.60)``."""
        observed, label = self.observed_probabilities, self.adjustment

        def tail(k, n):
            notes = ([f"n={n}"] if counts else []) + (
                [f"{label} {self.probabilities[k]:.{decimals}f}"] if label else [])
            return f"p={observed[k]:.{decimals}f}" + (f" ({'; '.join(notes)})" if notes else "")

        lines = [f"{'IF' if k == 0 else 'ELSE IF'} {self.condition_text(r)} THEN "
                 f"{tail(k, r.n_covered)}" for k, r in enumerate(self.rules)]
        lines.append(f"ELSE {tail(-1, self.n_default)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {
            "rules": [r.to_dict() for r in self.rules],
            "default_probability": self.default_probability,
            "n_default": int(self.n_default),
            "n_default_positive": int(self.n_default_positive),
            "n_features": int(self.n_features),
            "feature_names": list(self.feature_names),
            "mode": self.mode,
            "target_class": int(self.target_class),
            **({"weighted": True} if self.weighted else {}),
            **({"shrinkage": self.shrinkage} if self.shrinkage != 1.0 else {}),
        }

    @classmethod
    def from_dict(cls, data: dict, where: str = "list") -> DecisionList:
        """Inverse of ``to_dict``; a malformed dict is a ValueError naming the field."""
        check_list_dict(data, where)
        return cls(
            rules=tuple(Rule.from_dict(r) for r in data["rules"]),
            default_probability=data["default_probability"],
            n_features=int(data["n_features"]),
            n_default=int(data.get("n_default", 0)),
            n_default_positive=int(data.get("n_default_positive", 0)),
            feature_names=tuple(data.get("feature_names", ())),
            mode=data.get("mode", "probabilistic"),
            target_class=int(data.get("target_class", 1)),
            weighted=bool(data.get("weighted", False)),
            shrinkage=float(data.get("shrinkage", 1.0)),
        )


# -- validation of a list read from a file ----------------------------------------------------
def _is_int(value) -> bool:
    """An integer that fits an int64."""
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and -(2**63) <= value < 2**63)


def _is_probability(value) -> bool:
    return (isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
            and 0.0 <= float(value) <= 1.0)


def _count(data: dict, key: str, where: str, default=None) -> int:
    value = data.get(key, default)
    if not _is_int(value) or value < 0:
        raise ValueError(f'"{where}.{key}" = {value!r} is not a count')
    return value


def check_list_dict(data, where: str = "list") -> None:
    """ValueError naming the field unless ``data`` is ``DecisionList.to_dict`` of a valid list:
    rules with non-empty feature index lists below ``n_features``, probabilities in [0, 1],
    counts with ``n_positive <= n_covered``, a known mode and a 0/1 target class."""
    if not isinstance(data, dict):
        raise ValueError(f'"{where}" must be an object; got {type(data).__name__}')
    for key in ("rules", "default_probability", "n_features"):
        if key not in data:
            raise ValueError(f'"{where}" lacks the key "{key}"')
    n_features = _count(data, "n_features", where)
    if not _is_probability(data["default_probability"]):
        raise ValueError(f'"{where}.default_probability" = {data["default_probability"]!r} '
                         "is not a probability in [0, 1]")
    n_default = _count(data, "n_default", where, 0)
    if _count(data, "n_default_positive", where, 0) > n_default:
        raise ValueError(f'"{where}.n_default_positive" exceeds "{where}.n_default"')
    if data.get("mode", "probabilistic") not in MODES:
        raise ValueError(f'"{where}.mode" = {data.get("mode")!r} is not one of {MODES}')
    if not isinstance(data.get("weighted", False), bool):
        raise ValueError(f'"{where}.weighted" = {data.get("weighted")!r} is not true or false')
    if not _is_probability(data.get("shrinkage", 1.0)):
        raise ValueError(f'"{where}.shrinkage" = {data.get("shrinkage")!r} is not a factor in '
                         "[0, 1]")
    target = data.get("target_class", 1)
    if not _is_int(target) or target not in (0, 1):
        raise ValueError(f'"{where}.target_class" = {target!r} is not 0 or 1')
    names = data.get("feature_names", [])
    if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
        raise ValueError(f'"{where}.feature_names" must be a list of strings')
    if names and len(names) != n_features:
        raise ValueError(f'"{where}.feature_names" has {len(names)} entries; '
                         f'"{where}.n_features" is {n_features}')
    rules = data["rules"]
    if not isinstance(rules, list):
        raise ValueError(f'"{where}.rules" must be a list of rules')
    for k, rule in enumerate(rules):
        at = f"{where}.rules[{k}]"
        if not isinstance(rule, dict) or set(rule) != {"features", "probability", "n_covered",
                                                       "n_positive"}:
            raise ValueError(f'"{at}" must be an object with the keys features, probability, '
                             "n_covered and n_positive")
        features = rule["features"]
        if not isinstance(features, list) or not features:
            raise ValueError(f'"{at}.features" must be a non-empty list of feature indices')
        for i, f in enumerate(features):
            if not _is_int(f) or not 0 <= f < n_features:
                raise ValueError(f'"{at}.features[{i}]" = {f!r} is not a feature index below '
                                 f"n_features={n_features}")
        if not _is_probability(rule["probability"]):
            raise ValueError(f'"{at}.probability" = {rule["probability"]!r} is not a '
                             "probability in [0, 1]")
        if _count(rule, "n_positive", at) > _count(rule, "n_covered", at):
            raise ValueError(f'"{at}.n_positive" exceeds "{at}.n_covered"')
