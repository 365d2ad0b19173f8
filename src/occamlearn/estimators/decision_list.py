"""``DecisionListClassifier``: greedy (directional) decision lists as a scikit-learn estimator.

A facade over ``occamlearn.lists`` (Goessling and Kang, *Directional decision lists*, Sec.
II-III): table -> binariser (thresholds and categories, each with its negation:
``_list_literals.RuleLiterals``) -> binary matrix -> hill climbing or beam search
in the chosen direction, each rule's condition grown literal by literal and every rule
charged its description length (``lists.cost``), so that the data choose how many rules and
how many literals each -> ``DecisionList``, whose rates are shrunk by a factor held-out folds
choose (``lists.shrinkage``). The fitted estimator holds only plain data
(``list_`` is a frozen ``DecisionList``), so it pickles and exports.

Targets must have exactly two classes; ``positive_class`` names the one the list's
probabilities are about (y = 1 in the paper), by default the second of the sorted classes.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from occamlearn.binarize import ThresholdBinarizer
from occamlearn.binarize.fit_checks import ParamsCheckedOnce
from occamlearn.estimators._base import (
    BINARIZERS,
    CLASS_WEIGHT,
    DEFAULT_TIME_LIMIT,
    binarizer_to_fit,
    binary_matrix,
    no_limit_as_none,
    prepare_training_data,
    table_input_tags,
)
from occamlearn.estimators._display import ModelDisplayMixin
from occamlearn.estimators._list_literals import RuleLiterals, time_restriction, within_deadline
from occamlearn.estimators._process_exit import freeze_collector_at_exit
from occamlearn.estimators._record import fit_date
from occamlearn.lists import RULE_SEARCHES, prepare, search_problem
from occamlearn.lists.crossfit import choose_length, prefix
from occamlearn.lists.folds import FoldSearch
from occamlearn.lists.shrinkage import (
    SHRINKAGE_FOLDS,
    SHRINKAGE_MAX_ROWS,
    shrinkage_factor,
    shrunk,
)
from occamlearn.stopping import Deadline

__all__ = ["DecisionListClassifier"]

# What ``binarizer="readable"`` means for a list: the readable cuts and categories and their
# negations, so that one conjunction can say "between", "anything but" or "not set".
LIST_BINARIZERS = {**BINARIZERS, "readable": lambda: RuleLiterals(ThresholdBinarizer())}


class DecisionListClassifier(ParamsCheckedOnce, ClassifierMixin, ModelDisplayMixin, BaseEstimator):
    """Ordered probabilistic rules learned greedily, optionally all in one direction.

    Each rule is a conjunction of binary features (literals), grown literal by literal; the
    list and each condition stop growing where a rule's likelihood gain no longer pays for
    its description length (``penalty``), so their lengths are chosen on the data and
    ``max_rules`` / ``max_conjunction`` are ceilings.

    Parameters
    ----------
    direction : {"positive", "negative", "both"} or None, default="both"
        "positive" keeps p_k >= p_{>k} at every step (eq. 1: rules characterise the positive
        class), "negative" the reverse, "both" runs both and keeps the one with the higher
        penalised training log-likelihood, None learns a general (undirected) list.
    search : {"hill", "beam"}, default="hill"
        How the list is built: hill climbing, or a beam of ``beam_width`` lists.
    beam_width : int, default=10
        Lists kept per step by ``search="beam"`` (1 is hill climbing).
    rule_search : {"beam", "exact", "enumerate"}, default="beam"
        How each rule's condition is found: grown literal by literal by a beam of
        ``rule_beam_width`` conjunctions (no conjunction is built unless evaluated; greedy, so
        it may miss the best conjunction); "exact": the best-scoring conjunction of up to
        ``max_conjunction`` literals, by branch and bound (certified unless the time limit
        stops it); "enumerate": the best among every conjunction of ``min_conjunction`` to
        ``max_conjunction`` literals, materialised (the paper's setting; memory grows as
        d^k).
    rule_beam_width : int, default=5
        Conjunctions kept per literal added (1 is greedy).
    max_rules : int, default=10
        Most rules.
    min_conjunction, max_conjunction : int, default=1 and 4
        Fewest / most literals per condition (tic-tac-toe's paper list needs 2-3 and no single
        cells, with ``rule_search="enumerate"``).
    penalty : float >= 0 or None, default=1.0
        Weight of each rule's description cost, log(C(d, 1) + ... + C(d, k)) nats for k of
        d literals (the log of the number of conditions it was chosen from;
        ``occamlearn.lists.cost``): a rule joins only when its log-likelihood gain exceeds
        it. None or 0: no penalty (the paper's search, stopped by ``min_gain``, purity or
        ``max_rules``).
    min_support : int, default=1
        Fewest training rows a rule must cover (among those no earlier rule covers); with
        weights, the least total weight.
    min_gain : float, default=1e-8
        A rule must raise the training log-likelihood by more than this.
    monotone : bool, default=False
        Also require monotone rule probabilities (Sec. III-A); see ``stop_reason_``.
    mode : {"probabilistic", "classification"}, default="probabilistic"
        "classification" predicts the characterised class whenever any rule applies
        (the disjunction of Sec. III-B); it needs a direction.
    binarizer : {"readable", "threshold", "quantile", "binary", "onehot"}, transformer or None,
        default="readable"
        Turns the table into 0/1 features (cloned at fit): "readable" (the default) is
        ``ThresholdBinarizer()``'s ``col >= t`` between adjacent training values of numeric
        columns (at most 32 cuts per column) and one-hot categories, each with its negation
        (``col < t``, ``col != v``; ``_list_literals.RuleLiterals``); "quantile" is
        ``QuantileBinarizer()`` (the paper's manufacturing discretisation: tails and the
        inter-quartile band), the others ``FeatureBinarizer(encoding=...)`` ("threshold":
        ``col < edge`` at 8 uniform bins). None means X is already a 0/1 matrix.
    positive_class : label or None, default=None
        The class called positive (y = 1); None takes ``classes_[1]``.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}``, or "balanced"
        (``n_samples / (n_classes * np.bincount(y))``); they multiply ``sample_weight``.
    validation_folds : int >= 2 or None, default=None
        Also check the list's length on held-out rows (``occamlearn.lists.crossfit``): the
        same search runs on all but one of ``validation_folds`` stratified folds, every
        prefix of its list is scored on the fold left out (log-likelihood), and the list
        keeps the shortest prefix whose held-out score is within one standard error of the
        best; ``stop_reason_`` is then "validation". Costs ``validation_folds`` more
        searches, each stopped at the list's length. None (the default): the length is the
        penalty's alone (why: ``lists.crossfit``).
    shrinkage_folds : int >= 2, "auto" or None, default="auto"
        The list's probabilities are its training rates shrunk toward the training rate of
        all rows, b + lambda (p - b), by the factor lambda in (0, 1] under which lists
        learned on all but one of ``shrinkage_folds`` stratified folds best predict the fold
        left out (``occamlearn.lists.shrinkage``): a rule chosen among many conditions for its
        rate overstates that rate on rows it has not seen, and the folds measure by how
        much. ``shrinkage_`` is lambda; the text shows each rule's observed rate and the
        shrunk one it predicts with. Costs ``shrinkage_folds`` more searches, each in the
        list's direction and stopped at its length; a list of no rules needs none. "auto":
        5 folds on tables of at most ``SHRINKAGE_MAX_ROWS`` (10,000) rows, none on larger
        ones, where the folds cost seconds and a region's rate rests on enough rows that
        the search's choice hardly moves it (``lists.shrinkage``). None:
        the training rates as they are (then integer weights act exactly as repeated rows;
        the folds split rows, so a weighted row and its copies may fall in different folds).
    random_state : int, RandomState or None, default=0
        Shuffles the validation and shrinkage folds (the same folds for the same data and
        seed).
    time_limit : float or None, default=60
        Seconds ``fit`` may take; past it the list found so far is returned, with
        ``stop_reason_ == "time_limit"``. None or 0: no limit. A table so wide that
        binarising it would take over half the time left is binarised with fewer cuts per
        numeric column (``_list_literals.within_deadline``; the inner binariser's
        ``thinned_columns_`` says how many), and the columns it has no time to read are
        left out (its ``unread_columns_``), so that the search still has time for rules;
        ``features_over_`` and the printed summary say so.

    With ``sample_weight`` (in ``fit``) or ``class_weight`` every count of the search is a
    total weight: the log-likelihood, the rule probabilities (weighted frequencies, what
    ``predict_proba`` returns), ``min_support`` and the direction constraints. Integer weights
    act exactly as repeated rows and weight 0 as a dropped row (also for the binariser). The
    printed rules show the observed rate of their rows, then the weighted probability,
    labelled: ``p=0.11 (n=739; weighted 0.60)``.

    Attributes
    ----------
    list_ : DecisionList over the binary features (y = 1 means ``positive_class_``)
    rules_ : tuple of Rule, ``list_.rules``
    default_probability_ : float, P(positive) when no rule applies
    direction_ : the direction searched ("positive"/"negative"/None; for "both" the winner)
    log_likelihood_ : training log-likelihood of ``list_`` at its training rates (before
        they are shrunk)
    log_likelihoods_ : training log-likelihood after 0, 1, ..., K rules (the same rates)
    shrinkage_ : the factor lambda the rates were shrunk by (1.0: not shrunk; see
        ``shrinkage_folds``)
    rule_costs_ : description cost of each rule (nats; 0 without a penalty)
    stop_reason_ : why the list is not longer ("max_rules", "pure", "min_support",
        "min_gain", "monotone", "penalty", "validation" or "time_limit")
    held_out_log_likelihoods_ : summed held-out log-likelihood of the prefixes of 0, 1, ...
        rules (``validation_folds``), or None when no validation ran
    classes_, positive_class_, n_features_in_, feature_names_in_ (DataFrame input only)
    binarizer_ : the fitted binariser, or None
    features_over_ : what the binary features were restricted to, in words, when a time
        limit thinned the cuts or left columns unread
        (``_list_literals.time_restriction``, printed in the summary line), else None
    fitted_at_ : when ``fit`` ran (ISO 8601, UTC); ``to_record()`` holds it all as plain data
    feature_names_ : names of the binary features
    """

    _parameter_constraints: ClassVar[dict] = {
        "direction": [StrOptions({"positive", "negative", "both"}), None],
        "search": [StrOptions({"hill", "beam"})],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
        "rule_search": [StrOptions(set(RULE_SEARCHES))],
        "rule_beam_width": [Interval(Integral, 1, None, closed="left")],
        "max_rules": [Interval(Integral, 0, None, closed="left")],
        "min_conjunction": [Interval(Integral, 1, None, closed="left")],
        "max_conjunction": [Interval(Integral, 1, None, closed="left")],
        "penalty": [Interval(Real, 0, None, closed="left"), None],
        "min_support": [Interval(Integral, 1, None, closed="left")],
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "monotone": ["boolean"],
        "mode": [StrOptions({"probabilistic", "classification"})],
        "binarizer": [HasMethods(["fit", "transform"]), StrOptions(set(LIST_BINARIZERS)), None],
        "positive_class": "no_validation",
        "class_weight": CLASS_WEIGHT,
        "validation_folds": [Interval(Integral, 2, None, closed="left"), None],
        "shrinkage_folds": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"}),
                            None],
        "random_state": ["random_state"],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, *, direction="both", search="hill", beam_width=10, rule_search="beam",
                 rule_beam_width=5, max_rules=10, min_conjunction=1, max_conjunction=4,
                 penalty=1.0, min_support=1, min_gain=1e-8, monotone=False,
                 mode="probabilistic", binarizer="readable", positive_class=None,
                 class_weight=None, validation_folds=None,
                 shrinkage_folds="auto", random_state=0,
                 time_limit=DEFAULT_TIME_LIMIT):
        self.direction = direction
        self.search = search
        self.beam_width = beam_width
        self.rule_search = rule_search
        self.rule_beam_width = rule_beam_width
        self.max_rules = max_rules
        self.min_conjunction = min_conjunction
        self.max_conjunction = max_conjunction
        self.penalty = penalty
        self.min_support = min_support
        self.min_gain = min_gain
        self.monotone = monotone
        self.mode = mode
        self.binarizer = binarizer
        self.positive_class = positive_class
        self.class_weight = class_weight
        self.validation_folds = validation_folds
        self.shrinkage_folds = shrinkage_folds
        self.random_state = random_state
        self.time_limit = time_limit

    # -- fitting ----------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Learn the decision list on (X, y), rows weighted by ``sample_weight`` (and
        ``class_weight``); returns self."""
        deadline = Deadline.for_fit(no_limit_as_none(self.time_limit))
        freeze_collector_at_exit()  # the process's exit skips the collector
        if self.min_conjunction > self.max_conjunction:
            raise ValueError(f"min_conjunction={self.min_conjunction} exceeds max_conjunction="
                             f"{self.max_conjunction}: no condition can have between "
                             f"{self.min_conjunction} and {self.max_conjunction} features")
        binarizer = (LIST_BINARIZERS[self.binarizer]() if isinstance(self.binarizer, str)
                     else binarizer_to_fit(self.binarizer))
        if isinstance(binarizer, RuleLiterals):  # a time limit leaves the search time too
            binarizer = within_deadline(binarizer, X, deadline)
        data = prepare_training_data(self, X, y, binarizer=binarizer,
                                     on_conflict="relax",  # a probabilistic list keeps every row
                                     sample_weight=sample_weight,
                                     class_weight=self.class_weight,
                                     fresh_binarizer=binarizer is not self.binarizer)
        classes, y_index, X_bin = data.classes, data.y, data.X_bin
        positive = self._positive_index(classes)
        self.binarizer_ = data.binarizer
        self.features_over_ = time_restriction(data.binarizer)
        self.fitted_at_ = fit_date()
        self.feature_names_ = np.asarray([str(n) for n in data.feature_names], dtype=object)
        max_conjunction = min(self.max_conjunction, max(1, X_bin.shape[1]))
        labels = (y_index == positive).astype(np.uint8)
        min_conjunction = min(self.min_conjunction, max_conjunction)
        search = dict(
            direction=self.direction, search=self.search, beam_width=self.beam_width,
            min_support=self.min_support, min_gain=self.min_gain, monotone=self.monotone,
            mode=self.mode, rule_search=self.rule_search,
            rule_beam_width=self.rule_beam_width, penalty=self.penalty, deadline=deadline)
        problem = prepare(X_bin, labels, min_conjunction, max_conjunction, self.min_support,
                          None, self.feature_names_, data.weight)
        result = search_problem(problem, max_rules=self.max_rules, **search)
        # the held-out folds search in the direction the full search chose
        folds = FoldSearch(problem, X_bin, labels, data.weight,
                           {**search, "direction": result.direction,
                            "min_conjunction": min_conjunction,
                            "max_conjunction": max_conjunction})
        self._keep_validated_prefix(result, folds)
        self._shrink_rates(folds)
        self.classes_ = classes
        self.positive_class_ = classes[positive]
        self._positive_index_ = positive
        self.rules_ = self.list_.rules
        self.default_probability_ = self.list_.default_probability
        self.direction_ = result.direction
        self.log_likelihood_ = self.log_likelihoods_[-1]
        return self

    def _keep_validated_prefix(self, result, folds) -> None:
        """Set ``list_``, ``log_likelihoods_``, ``rule_costs_``, ``stop_reason_`` and
        ``held_out_log_likelihoods_``: the searched list, or its prefix chosen on held-out
        rows (``lists.crossfit``; the folds search in the direction the full search chose)."""
        decision_list, k, totals = result.decision_list, len(result.rules), None
        if self.validation_folds is not None and result.stop_reason != "time_limit":
            k, totals = choose_length(folds, len(result.rules), self.validation_folds,
                                      self.random_state, folds.options["deadline"])
            k = len(result.rules) if k is None else k
        self.held_out_log_likelihoods_ = None if totals is None else tuple(totals.tolist())
        self.list_ = prefix(decision_list, k, folds.X, folds.labels, folds.weight)
        self.log_likelihoods_ = tuple(result.log_likelihoods[:k + 1])
        self.rule_costs_ = tuple(result.costs[:k])
        self.stop_reason_ = (result.stop_reason if k == len(result.rules)
                             else "validation")

    def _shrink_rates(self, searches) -> None:
        """Set ``shrinkage_`` and shrink ``list_``'s rates by it (``lists.shrinkage``; the
        folds search in the list's direction, at most as many rules)."""
        factor, folds = None, self.shrinkage_folds
        if folds == "auto":
            folds = SHRINKAGE_FOLDS if len(searches.labels) <= SHRINKAGE_MAX_ROWS else None
        if folds is not None and self.stop_reason_ != "time_limit":
            factor, _ = shrinkage_factor(searches, len(self.list_.rules), folds,
                                         self.random_state, searches.options["deadline"])
        self.shrinkage_ = 1.0 if factor is None else factor
        self.list_ = shrunk(self.list_, self.shrinkage_, searches.labels, searches.weight)

    def _positive_index(self, classes) -> int:
        if len(classes) != 2:
            raise ValueError(
                "Only binary classification is supported: DecisionListClassifier needs exactly "
                f"two classes; got {len(classes)} class(es): {classes.tolist()}")
        if self.positive_class is None:
            return 1
        matches = np.flatnonzero(classes == self.positive_class)
        if len(matches) == 0:
            raise ValueError(f"positive_class={self.positive_class!r} is not one of the "
                             f"classes {classes.tolist()}")
        return int(matches[0])

    # -- prediction -------------------------------------------------------------------------
    def _binary(self, X) -> np.ndarray:
        check_is_fitted(self)  # before any fitted attribute is read
        return binary_matrix(self, X)

    def apply(self, X) -> np.ndarray:
        """Index of the rule that fires for each row (-1 when the default applies)."""
        X_bin = self._binary(X)
        return self.list_.apply(X_bin)

    def reasons(self, X) -> list:
        """For each row, the condition that fired (``"default"`` if none)."""
        X_bin = self._binary(X)
        return self.list_.reasons(X_bin)

    def predict_proba(self, X) -> np.ndarray:
        """Columns in the order of ``classes_``: the probability of the rule that fires, as
        the list states it (after a weighted fit the weighted frequency of its training rows,
        ``list_.weighted``; the observed rate is ``list_.observed_probabilities``)."""
        X_bin = self._binary(X)
        proba = self.list_.predict_proba(X_bin)
        return proba if self._positive_index_ == 1 else proba[:, ::-1]

    def predict(self, X) -> np.ndarray:
        """The positive class where the list predicts y = 1 (p >= 0.5, or any rule firing in
        classification mode towards the positive class), the other class elsewhere."""
        X_bin = self._binary(X)
        is_positive = self.list_.predict(X_bin) == 1
        negative = 1 - self._positive_index_
        return self.classes_[np.where(is_positive, self._positive_index_, negative)]

    def export_text(self, **kwargs) -> str:
        """The fitted list as ``IF ... THEN p=... ELSE ...`` text."""
        from occamlearn.export.decision_list import export_text

        check_is_fitted(self)
        return export_text(self, **kwargs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return table_input_tags(tags)
