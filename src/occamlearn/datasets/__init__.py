"""Bundled benchmark datasets of the two papers, usable with no network.

The CSV files and JSON sidecars under ``data/`` are copied from the project's shared
dataset folder; ``data/MANIFEST.md`` records, per dataset, its source (PMLB at commit
253138e2, CP4IM audiology via DL8.5, UCI zoo), licence and how it differs from the MaxSAT
paper's Table 4.

Column dtypes follow the MaxSAT paper's preprocessing (Sec. 8): the columns the paper treated
as continuous (stored as floats at the source, listed as ``paper_continuous`` in the sidecar)
are ``float64``; categorical and nominal columns are pandas ``category``; 0/1 columns are
``int64``; other integer columns (ordinal, discrete, integer-stored "continuous") keep their
ordered numeric domain as ``int64``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import pandas as pd

__all__ = ["DatasetInfo", "dataset_info", "list_datasets", "load_dataset"]

_UNORDERED_TYPES = {"categorical", "nominal"}


@dataclass(frozen=True)
class DatasetInfo:
    """What the sidecar says about one bundled dataset."""

    name: str
    source: str
    rows: int
    n_features: int
    classes: dict
    feature_types: dict
    paper_continuous: tuple
    conflicting_rows: int
    rows_after_majority_filter: int


def _data_dir():
    return resources.files(__name__) / "data"


@cache
def list_datasets() -> tuple[str, ...]:
    """Names of the bundled datasets, sorted."""
    return tuple(sorted(p.name[:-4] for p in _data_dir().iterdir() if p.name.endswith(".csv")))


def _check_name(name: str) -> None:
    if name not in list_datasets():
        raise ValueError(
            f"Unknown dataset {name!r}. Valid names: {', '.join(list_datasets())}."
        )


@cache
def _sidecar(name: str) -> dict:
    _check_name(name)
    return json.loads((_data_dir() / f"{name}.json").read_text())


def dataset_info(name: str) -> DatasetInfo:
    """The sidecar facts of dataset ``name`` (types, class counts, conflicts)."""
    meta = _sidecar(name)
    return DatasetInfo(
        name=name,
        source=meta["source"],
        rows=meta["rows"],
        n_features=meta["n_features"],
        classes=dict(meta["classes"]),
        feature_types=dict(meta["features"]),
        paper_continuous=tuple(meta.get("paper_continuous") or ()),
        conflicting_rows=meta["conflicting_duplicate_rows"],
        rows_after_majority_filter=meta["rows_after_majority_filter"],
    )


def _typed_column(values: pd.Series, kind: str, continuous: bool) -> pd.Series:
    if continuous:
        return values.astype("float64")
    if kind in _UNORDERED_TYPES or not pd.api.types.is_numeric_dtype(values):
        return values.astype("category")
    return values.astype("int64")


def load_dataset(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load bundled dataset ``name`` as ``(X, y)``.

    ``X`` is a DataFrame with the dtypes described in the module docstring; ``y`` is the
    ``target`` column as a Series. Unknown names raise ``ValueError`` listing valid names.
    """
    meta = _sidecar(name)
    with (_data_dir() / f"{name}.csv").open() as handle:
        frame = pd.read_csv(handle)
    target = meta.get("target", "target")
    y = frame.pop(target)
    continuous = set(meta.get("paper_continuous") or ())
    X = pd.DataFrame(
        {
            col: _typed_column(frame[col], meta["features"].get(col, "continuous"),
                               col in continuous)
            for col in frame.columns
        }
    )
    return X, y.rename(target)
