"""DecisionListClassifier's literals and its numbers: negations evaluate as their conditions,
saved = fitted under weights, and weighted lists print the observed rate beside the weighted
one."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn import DecisionListClassifier, load_dataset, load_model, save_model
from occamlearn.binarize import ThresholdBinarizer
from occamlearn.estimators._list_literals import _OPPOSITE, RuleLiterals, negation
from occamlearn.export.decision_list import (
    export_graphviz,
    export_text,
    plot_probabilities,
    summary_line,
)
from occamlearn.model.conditions import Condition


@st.composite
def table_with_gaps(draw):
    n = draw(st.integers(4, 14))
    income = draw(st.lists(st.sampled_from([1.0, 2.5, 4.0, 7.0, None]), min_size=n,
                           max_size=n))
    colour = draw(st.lists(st.sampled_from(["red", "green", "blue", None]), min_size=n,
                           max_size=n))
    flag = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    size = draw(st.lists(st.sampled_from([3, 5, 8]), min_size=n, max_size=n))
    return pd.DataFrame({"income": income, "colour": colour, "flag": flag, "size": size})


@settings(max_examples=40, deadline=None)
@given(train=table_with_gaps(), new=table_with_gaps())
def test_every_literal_column_is_its_condition(train, new):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        literals = RuleLiterals(ThresholdBinarizer()).fit(train)
        for X in (train, new):
            columns = literals.transform(X)
            expected = np.zeros((len(X), len(literals.conditions_)), dtype=np.uint8)
            for k, condition in enumerate(literals.conditions_):
                expected[:, k] = condition.evaluate(X)
            assert np.array_equal(columns, expected)
        assert np.array_equal(RuleLiterals(ThresholdBinarizer()).fit_transform(train),
                              literals.transform(train))


def test_negations_read_as_their_comparisons():
    X = pd.DataFrame({"age": [20, 30, 40, 50], "colour": ["red", "green", "blue", "red"],
                      "sex": ["m", "f", "m", "f"], "flag": [0, 1, 1, 0]})
    names = list(RuleLiterals(ThresholdBinarizer()).fit(X).get_feature_names_out())
    for name in ("age < 30", "age >= 30", "colour != red", "flag != 1", "sex == m",
                 "sex == f"):
        assert name in names
    assert "sex != m" not in names  # a two-valued column's categories negate each other


def _weighted_titanic():
    X, y = load_dataset("titanic")
    rng = np.random.default_rng(0)
    return X, y, rng.integers(1, 4, len(y))


@settings(max_examples=200, deadline=None)
@given(op=st.sampled_from(["==", "!=", "<", ">=", "<=", ">"]),
       value=st.one_of(st.integers(-3, 3), st.floats(-1e4, 1e4), st.text(max_size=2),
                       st.just(np.float32(1.5)), st.just(np.int64(7))),
       index=st.one_of(st.none(), st.integers(0, 5), st.just(np.int64(2))),
       missing=st.sampled_from([None, True, False]), dates=st.booleans(),
       domain=st.sampled_from([None, (1, 2)]))
def test_a_negation_is_the_condition_its_constructor_makes(op, value, index, missing, dates,
                                                          domain):
    condition = Condition("c", op, value, index, domain=domain, missing=missing, dates=dates)
    made = Condition("c", _OPPOSITE[op], condition.value, condition.index,
                     missing=None if missing is None else not missing, dates=dates)
    negated = negation(condition)
    assert negated == made and hash(negated) == hash(made) and str(negated) == str(made)
    assert negated.__dict__ == made.__dict__ and type(negated) is Condition
    assert negated.to_dict() == made.to_dict()
    assert condition.op == op and condition.missing is missing  # the original untouched


@pytest.mark.parametrize("weights", ["class_weight", "sample_weight"])
def test_saved_list_predicts_what_the_fitted_one_did(weights, tmp_path):
    X, y, sample_weight = _weighted_titanic()
    if weights == "class_weight":
        model = DecisionListClassifier(class_weight="balanced").fit(X, y)
    else:
        model = DecisionListClassifier().fit(X, y, sample_weight=sample_weight)
    save_model(model, tmp_path / "list.json")
    loaded = load_model(tmp_path / "list.json")
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert loaded.list_ == model.list_ and loaded.list_.weighted
    assert str(loaded) == str(model)
    assert loaded.rule_costs_ == pytest.approx(model.rule_costs_)


def test_weighted_rules_print_the_observed_rate_and_label_the_weighted_one():
    X, y = load_dataset("titanic")
    model = DecisionListClassifier(class_weight="balanced").fit(X, y)
    decision_list = model.list_
    fired = model.apply(X)
    observed = [np.mean(np.asarray(y)[fired == k] == 1) for k in range(len(decision_list))]
    assert decision_list.observed_probabilities[:-1] == pytest.approx(observed)
    text = export_text(model)
    first = decision_list.rules[0]
    assert (f"THEN p={observed[0]:.2f} (n={first.n_covered}; "
            f"weighted {first.probability:.2f})") in text.splitlines()[0]
    assert first.probability != pytest.approx(observed[0], abs=0.01)
    assert summary_line(model).startswith("p = P(1), observed; predictions use the weighted p")
    assert f"weighted {first.probability:.2f}" in export_graphviz(model)
    plain = DecisionListClassifier().fit(X, y)
    assert "weighted" not in export_text(plain, summary=True) and not plain.list_.weighted


def test_predict_proba_is_the_weighted_probability_after_a_weighted_fit():
    X, y = load_dataset("titanic")
    model = DecisionListClassifier(class_weight="balanced").fit(X, y)
    fired = model.apply(X)
    weight = np.where(np.asarray(y) == 1, len(y) / (2 * np.sum(y == 1)),
                      len(y) / (2 * np.sum(y == 0)))
    first = fired == 0
    expected = weight[first] @ (np.asarray(y)[first] == 1) / weight[first].sum()
    assert model.predict_proba(X)[first, 1] == pytest.approx(expected)


def test_the_probability_plot_shows_the_observed_rate_and_marks_the_weighted_one():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    X, y = load_dataset("titanic")
    model = DecisionListClassifier(class_weight="balanced").fit(X, y)
    ax = plot_probabilities(model)
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx(model.list_.observed_probabilities)
    assert ax.get_ylabel().startswith("observed P(")
    ticks = np.asarray(ax.collections[0].get_offsets())[:, 1].tolist()
    assert ticks == pytest.approx(model.list_.probabilities)
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == [
        "observed", "weighted (predicts)"]
    plain = plot_probabilities(DecisionListClassifier().fit(X, y))
    assert plain.get_legend() is None and not plain.collections
    matplotlib.pyplot.close("all")


def test_a_short_deadline_thins_the_cuts_of_a_wide_table(monkeypatch):
    """Binarising every cut of a wide table would eat a short time limit: the plan keeps fewer
    cuts per column (and says so); without a deadline, or with time to spare, nothing changes
    but the binariser's own time limit (half the time left) on a table of several blocks."""
    from occamlearn.binarize import sorted_columns
    from occamlearn.estimators._list_literals import within_deadline
    from occamlearn.stopping import Deadline

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 100)), columns=[f"c{j}" for j in range(100)])
    literals = RuleLiterals(ThresholdBinarizer())
    assert within_deadline(literals, X, None) is literals
    assert within_deadline(literals, X, Deadline.after(3600)) is literals
    monkeypatch.setattr(sorted_columns, "SORT_BLOCK_BYTES", 8 * 80 * 99)  # 2 blocks
    spare = within_deadline(literals, X, Deadline.after(3600))
    assert spare.binarizer.max_thresholds == "auto"
    assert 1700 < spare.binarizer.time_limit <= 1800
    monkeypatch.undo()
    thinned = within_deadline(literals, X, Deadline.after(1e-6))
    assert thinned.binarizer.max_thresholds == 1
    fitted = thinned.fit(X)
    assert len(fitted.conditions_) == 2 * 100  # one cut and its negation per column
    assert fitted.binarizer_.thinned_columns_["c0"][0] == 1


def test_a_time_limit_on_a_wide_table_still_returns_rules():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 400)), columns=[f"c{j}" for j in range(400)])
    y = (X["c0"] > 0).astype(int)
    model = DecisionListClassifier(time_limit=2).fit(X, y)
    assert model.rules_, model.stop_reason_


def test_a_binariser_passed_in_is_cloned_and_a_named_one_fitted_itself():
    X, y = load_dataset("corral")
    mine = RuleLiterals(ThresholdBinarizer())
    model = DecisionListClassifier(binarizer=mine).fit(X, y)
    assert model.binarizer_ is not mine and not hasattr(mine, "binarizer_")
    named = DecisionListClassifier().fit(X, y)
    assert named.binarizer == "readable" and isinstance(named.binarizer_, RuleLiterals)
    assert named.feature_names_.tolist() == model.feature_names_.tolist()


def test_feature_names_out_need_a_fit():
    """Unfitted, ``get_feature_names_out`` raises scikit-learn's NotFittedError; fitted
    (``conditions_`` set), it names every literal, as ``check_is_fitted`` lets it."""
    from sklearn.exceptions import NotFittedError

    literals = RuleLiterals(ThresholdBinarizer())
    with pytest.raises(NotFittedError):
        literals.get_feature_names_out()
    literals.binarizer_ = ThresholdBinarizer()  # a fit that stopped before its conditions
    with pytest.raises(AttributeError, match="conditions_"):
        literals.get_feature_names_out()
    X = pd.DataFrame({"a": [0, 1, 2, 3], "b": [1, 0, 1, 0]})
    fitted = RuleLiterals(ThresholdBinarizer()).fit(X)
    assert fitted.get_feature_names_out().tolist() == [str(c) for c in fitted.conditions_]


def test_a_list_says_which_columns_its_time_limit_left_unread(monkeypatch, tmp_path):
    """Columns the binariser had no time to read are named in the fitted list, its printed
    summary and its saved file (reading's deadline already past: the first block alone)."""
    from occamlearn.binarize import _base, sorted_columns
    from occamlearn.stopping import Deadline

    monkeypatch.setattr(sorted_columns, "SORT_BLOCK_BYTES", 2 * 8 * 200)
    monkeypatch.setattr(_base, "reading_deadline",
                        lambda time_limit: None if time_limit is None else Deadline.after(0))
    rng = np.random.default_rng(0)
    X = rng.random((200, 12))
    y = (X[:, 0] > 0.5).astype(int)
    model = DecisionListClassifier(time_limit=30).fit(X, y)
    assert model.binarizer_.unread_columns_ == [f"x{j}" for j in range(2, 12)]
    assert "10 columns not read within the time limit: 'x2'" in model.features_over_
    assert f"features over {model.features_over_}" in str(model)
    save_model(model, tmp_path / "list.json")
    loaded = load_model(tmp_path / "list.json")
    assert loaded.features_over_ == model.features_over_ and str(loaded) == str(model)
    assert DecisionListClassifier(time_limit=None).fit(X, y).features_over_ is None


@pytest.mark.parametrize("seconds", [0.5, 2.0, 2.9, 5.0, 9.0, 40.0, 200.0])
def test_the_plan_keeps_the_most_cuts_its_cost_model_puts_within_the_share(monkeypatch, seconds):
    """With the pilots' timings fixed (t_all s for L_all literals at every cut, t_one s for
    L_one at one cut, on 64 columns), the cuts kept are the most whose predicted cost,
    COLUMN_SCALE x the per-column part plus LITERAL_SCALE x the per-literal part, scaled to
    the table's columns, fits in the share; "auto" when every cut fits (brute force over c)."""
    from occamlearn.estimators import _list_literals as plan
    from occamlearn.stopping import Deadline

    t_all, l_all, t_one, l_one, n_columns = 0.31, 4096, 0.015, 128, 3000
    timings = {"auto": (t_all, l_all), 1: (t_one, l_one)}
    monkeypatch.setattr(plan, "_binarising_time", lambda literals, X, n:
                        timings[literals.binarizer.max_thresholds])

    class Fixed(Deadline):  # always `seconds` left
        def remaining(self):
            return seconds

    X = np.zeros((10, n_columns))
    chosen = plan.within_deadline(RuleLiterals(ThresholdBinarizer()), X, Fixed(1.0), share=0.5)
    per_literal = (t_all - t_one) / (l_all - l_one)
    per_column = (t_one - per_literal * l_one) / 64

    def predicted(cuts):
        literals = l_one + (l_all - l_one) * (cuts - 1) / (plan.LABEL_BLIND_THRESHOLDS - 1)
        return n_columns * (plan.COLUMN_SCALE * per_column
                            + plan.LITERAL_SCALE * per_literal * literals / 64)

    within = [c for c in range(1, plan.LABEL_BLIND_THRESHOLDS + 1)
              if predicted(c) <= 0.5 * seconds + 1e-9]
    expected = 1 if not within else (
        "auto" if within[-1] == plan.LABEL_BLIND_THRESHOLDS else within[-1])
    assert chosen.binarizer.max_thresholds == expected
    assert chosen.binarizer.time_limit == pytest.approx(0.5 * seconds)
