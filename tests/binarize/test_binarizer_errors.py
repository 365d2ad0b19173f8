"""Every bad input raises an error naming the column and the offending value -- never a silent
wrong column."""

import numpy as np
import pandas as pd
import pytest

from occamlearn.binarize import FeatureBinarizer, QuantileBinarizer

BINARIZERS = [FeatureBinarizer(), FeatureBinarizer(encoding="onehot"), QuantileBinarizer()]
GOOD = pd.DataFrame(
    {"width": [0.5, 1.5, 2.5, 3.5], "color": ["red", "blue", "red", "green"], "n": [1, 2, 3, 2]}
)


def _with(column, row, value):
    frame = GOOD.astype({column: object}) if isinstance(value, str) else GOOD.copy()
    frame.loc[row, column] = value
    return frame


@pytest.mark.parametrize("binarizer", BINARIZERS)
@pytest.mark.parametrize(
    "bad, match",
    [
        (_with("width", 1, np.inf), r"column 'width' \(row 1\) contains inf"),
        (_with("width", 3, -np.inf), r"column 'width' \(row 3\) contains -inf"),
    ],
)
def test_infinite_values_in_fit_are_named_errors_and_ordered_later(binarizer, bad, match):
    """(Issue 20: missing values are learned now, and inf in new data is simply beyond every
    threshold; only inf in training data, where no cut can be placed next to it, is an
    error.)"""
    with pytest.raises(ValueError, match=match):
        binarizer.fit(bad)
    fitted = binarizer.fit(GOOD)
    assert fitted.transform(bad).shape == (4, len(fitted.conditions_))


@pytest.mark.parametrize("binarizer", BINARIZERS)
@pytest.mark.parametrize("bad", [_with("width", 2, np.nan), _with("color", 0, None)])
def test_missing_values_are_learned_and_warned_about_when_new(binarizer, bad):
    column = "width" if bad["width"].isna().any() else "color"
    fitted = binarizer.fit(bad)
    assert f"{column} is missing" in fitted.get_feature_names_out()
    fitted = binarizer.fit(GOOD)
    with pytest.warns(UserWarning, match=f"column '{column}' had no missing values in fit"):
        out = fitted.transform(bad)
    row = 2 if column == "width" else 0
    on_column = [k for k, c in enumerate(fitted.conditions_) if c.column == column]
    assert not out[row, on_column].any()  # every condition on it is false there


@pytest.mark.parametrize("binarizer", BINARIZERS)
def test_string_in_a_numeric_column(binarizer):
    fitted = binarizer.fit(GOOD)
    bad = GOOD.astype({"width": object})
    bad.loc[1, "width"] = "wide"
    with pytest.raises(ValueError, match=r"column 'width' \(row 1\) is numeric but contains "
                                         r"the string 'wide'"):  # fmt: skip
        fitted.transform(bad)
    # at fit, a column declared continuous must be numeric
    with pytest.raises(ValueError, match=r"column 'color' \(row 0\) is numeric but contains "
                                         r"the string 'red'"):  # fmt: skip
        binarizer.set_params(continuous=["color"]).fit(GOOD)
    # arrays: a column mixing numbers and strings is read as text, with a warning (issue 20)
    mixed = np.array([[1.0, "a"], [2.0, "b"], ["x", "a"]], dtype=object)
    with pytest.warns(UserWarning, match="column 'x0' mixes numbers and text"):
        binarizer.set_params(continuous=None).fit(mixed)
    assert binarizer.columns_[0].domain == ("1", "2", "x")


@pytest.mark.parametrize("binarizer", BINARIZERS)
def test_unseen_category(binarizer):
    fitted = binarizer.fit(GOOD)
    with pytest.warns(UserWarning, match=r"column 'color' has categories unseen in fit "
                                         r"\('purple'; first at row 1\)"):  # fmt: skip
        fitted.transform(_with("color", 1, "purple"))
    fitted.set_params(handle_unknown="error")
    with pytest.raises(ValueError, match=r"column 'color' \(row 1\) has value 'purple', unseen "
                                         r"in fit \(known: blue, green, red\)"):  # fmt: skip
        fitted.transform(_with("color", 1, "purple"))


def test_unseen_value_of_an_integer_or_binary_column_is_ordered():
    fitted = FeatureBinarizer(handle_unknown="error").fit(GOOD.assign(flag=[0, 1, 1, 0]))
    seen = fitted.transform(GOOD.assign(flag=[0, 1, 1, 0], n=[3, 1, 2, 3]))
    unseen = fitted.transform(GOOD.assign(flag=[0, 1, 1, 0], n=[7, 1, 2, 3]))
    assert (seen == unseen).all()  # 7 lies above every training value, like 3
    fitted.transform(GOOD.assign(flag=[0, 1, 2, 0]))  # a number is never unknown


def test_constant_column_error_names_column_and_value():
    with pytest.raises(ValueError, match=r"column 'k' is constant \(every value is 'same'\)"):
        FeatureBinarizer(constant="error").fit(GOOD.assign(k="same"))
    with pytest.raises(ValueError, match=r"column 'z' is constant \(every value is 0.5\)"):
        FeatureBinarizer(constant="error").fit(GOOD.assign(z=0.5))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"encoding": "gray"}, "The 'encoding' parameter of FeatureBinarizer must be a str among"),
        ({"n_bins": 1}, "The 'n_bins' parameter of FeatureBinarizer must be an int in the range"),
        ({"strategy": "kmeans"}, "The 'strategy' parameter"),
        ({"constant": "keep"}, "The 'constant' parameter"),
        ({"handle_unknown": "warn"}, "The 'handle_unknown' parameter"),
        ({"continuous": ["size"]},
         r"continuous= names column 'size', which is not in X \(columns: width, color, n\)"),
        ({"categorical": [9]}, "categorical= refers to column index 9, but X has 3 columns"),
        ({"continuous": ["n"], "categorical": ["n"]}, "column 'n' is listed as both"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        FeatureBinarizer(**params).fit(GOOD)


@pytest.mark.parametrize("quantiles", [[], [0.0, 0.5], [1.5], ["a"]])
def test_bad_quantiles(quantiles):
    with pytest.raises(ValueError, match="quantiles must be numbers in \\(0, 1\\)"):
        QuantileBinarizer(quantiles=quantiles).fit(GOOD)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_wrong_columns_at_transform():
    fitted = FeatureBinarizer().fit(GOOD)
    with pytest.raises(ValueError, match="X has 2 features, but FeatureBinarizer is expecting 3"):
        fitted.transform(GOOD[["width", "color"]].to_numpy())
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing"):
        fitted.transform(GOOD[["width", "color"]])
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        fitted.transform(GOOD.rename(columns={"n": "count"}))
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        FeatureBinarizer().fit(GOOD.iloc[:0])
    with pytest.raises(ValueError, match="X repeats the column name\\(s\\) 'a'"):
        FeatureBinarizer().fit(pd.DataFrame([[1.0, 2.0], [2.0, 3.0]], columns=["a", "a"]))


@pytest.mark.parametrize("encoding", ["onehot", "threshold"])
def test_a_huge_integer_domain_makes_a_bounded_number_of_features(encoding):
    """10^5 distinct integers must not become 10^5 features (nor ask for GiBs)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.permutation(100_000), "b": rng.integers(0, 10**9, 100_000)})
    binarizer = FeatureBinarizer(encoding=encoding, max_values=16)
    B = binarizer.fit_transform(X)
    assert B.shape[1] <= 2 * 16
    new = pd.DataFrame({"a": [-1, 10**7], "b": [10**10, 3]})  # beyond the training range
    assert binarizer.transform(new).shape == (2, B.shape[1])
    assert len(FeatureBinarizer(encoding=encoding).fit(X).get_feature_names_out()) <= 2 * 32
