"""The default fit and its held-out checks give, to the last bit, the lists the estimator gave
before its folds were searched on the packed rows and its rules grown in one compiled call
(values recorded at commit a2781a6, where each fold was re-packed and searched level by level
in Python, with scikit-learn's ``StratifiedKFold``). The rewrites were meant to change the
cost only; these cases pin that, on two tables where the rates are shrunk and the length is
checked on held-out rows."""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from occamlearn import DecisionListClassifier, load_dataset

CASES = [
    # table, parameters, shrinkage_, direction_, rules (features, probability before
    # shrinking), default probability (after), held_out_log_likelihoods_
    ("hepa", {}, 0.45, "positive",
     [((157, 238), 0.888888888888889), ((270,), 0.7496031746031746)], 0.4388888888888889,
     None),
    ("spect", {}, 0.6, "negative", [((34, 37, 38), 0.6400351185250219)], 0.894346087949743,
     None),
    ("hepa", {"validation_folds": 3}, 1.0, "positive", [], 0.797979797979798,
     (-49.91110690395812, -55.24772493299387, -58.13223149220849)),
    ("spect", {"validation_folds": 3}, 0.6, "negative", [((34, 37, 38), 0.6400351185250219)],
     0.894346087949743, (-86.47635395369129, -76.03406063632848)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("table", "params", "factor", "direction", "rules", "default",
                          "held_out"), CASES)
def test_the_lists_are_those_recorded(table, params, factor, direction, rules, default,
                                      held_out):
    X, y = load_dataset(table)
    X_train, _, y_train, _ = train_test_split(X, np.asarray(y), train_size=0.64,
                                              stratify=y, random_state=0)
    model = DecisionListClassifier(**params).fit(X_train, y_train)
    assert model.shrinkage_ == factor and model.direction_ == direction
    assert [(r.features, r.probability) for r in model.rules_] == rules
    assert model.default_probability_ == default
    assert model.held_out_log_likelihoods_ == held_out
