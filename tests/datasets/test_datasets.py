"""The bundled datasets load with the MaxSAT paper's column types."""

import pandas as pd
import pytest

from occamlearn.datasets import dataset_info, list_datasets, load_dataset


def test_list_datasets():
    names = list_datasets()
    assert names == tuple(sorted(names))
    assert {"iris", "mux6", "spect", "monks-3", "hayes-r", "audio", "titanic"} <= set(names)


@pytest.mark.parametrize("name", ["iris", "irish", "hepa", "mux6", "zoo", "tic-tac-toe"])
def test_dtypes_follow_the_sidecar(name):
    X, y = load_dataset(name)
    info = dataset_info(name)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series) and y.name == "target"
    assert X.shape == (info.rows, info.n_features) and len(y) == info.rows
    assert y.value_counts().to_dict() == {type(y.iloc[0])(k): v for k, v in info.classes.items()}
    for column in X.columns:
        kind = info.feature_types[column]
        if column in info.paper_continuous:
            assert X[column].dtype == "float64", column
        elif kind in ("categorical", "nominal") or X[column].dtype == "category":
            assert isinstance(X[column].dtype, pd.CategoricalDtype), column
        else:
            assert X[column].dtype == "int64", column


def test_known_column_types():
    X, _ = load_dataset("irish")
    assert X.dtypes.astype(str).to_dict() == {
        "Sex": "int64",
        "DVRT": "float64",
        "Educational_level": "category",
        "Prestige_score": "int64",
        "Type_school": "category",
    }
    X, _ = load_dataset("iris")
    assert (X.dtypes == "float64").all()


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match=r"Unknown dataset 'iris2'\. Valid names: append, .*iris"):
        load_dataset("iris2")
    with pytest.raises(ValueError, match="Unknown dataset 'nope'"):
        dataset_info("nope")
