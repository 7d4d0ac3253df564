"""Feature preparation of the ML-utility metrics, fitted on the training side only.

The features are every table column except the target and ``identifier`` columns (and the
configured drops). :func:`feature_frame` turns a table into model input (numeric and datetime
columns as float64 — datetimes as seconds since the epoch —, categorical columns as strings
with NA kept); :func:`make_preprocessor` is the transformer fitted on the training table (S for
TSTR, T for TRTR) and applied to the test split:

* categorical columns: one-hot encoded, NA its own category, a category unseen at fit time
  an all-zero block (``handle_unknown="ignore"``);
* numeric columns: NA imputed with the training median plus a 0/1 indicator column
  (``spec/metrics.md`` §0.2 rule 3), then scaled per ``scaling``: ``standard`` (z-score),
  ``minmax`` (to [0, 1] with the training range; test values outside it are not clipped) or
  ``none`` (numeric columns stay numeric, the ``carvalho2024`` decision).

:func:`reference_label_encode` reproduces the ``000_…`` reference code's quirk instead: every
column (numeric included) label-encoded separately in each table, so codes are not aligned
between training and test tables (``spec/metrics.md`` U1, ``carvalho2024`` step 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler

from harness.spec import DatasetSpec

SCALINGS: tuple[str, ...] = ("standard", "minmax", "none")
ENCODINGS: tuple[str, ...] = ("onehot", "reference")
NA_CATEGORY = "<NA>"
"""Category of a missing categorical value."""
NUMERIC_FEATURE_KINDS: frozenset[str] = frozenset({"continuous", "integer", "datetime"})


@dataclass(frozen=True)
class FeatureColumns:
    """The feature columns of a dataset, in table order.

    Attributes
    ----------
    numeric : tuple of str
        ``continuous``, ``integer`` and ``datetime`` columns.
    categorical : tuple of str
        ``categorical`` and ``ordinal`` columns.
    dropped : tuple of str
        Requested drops that exist in the table (absent names are ignored).
    """

    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    dropped: tuple[str, ...] = ()

    @property
    def all(self) -> list[str]:
        """Numeric then categorical columns."""
        return [*self.numeric, *self.categorical]

    def __len__(self) -> int:
        return len(self.numeric) + len(self.categorical)


def feature_columns(spec: DatasetSpec, target: str | None, drop: Sequence[str] = ()) -> FeatureColumns:
    """Feature columns of ``spec``: every non-identifier column except ``target`` and ``drop``.

    Parameters
    ----------
    spec : DatasetSpec
    target : str or None
        The column predicted (excluded from the features).
    drop : sequence of str
        Further columns to leave out (e.g. Adult's ``fnlwgt`` for ``almeida2024``).
    """
    names = {c.name for c in spec.columns}
    dropped = tuple(d for d in drop if d in names and d != target)
    cols = [c for c in spec.columns if c.kind != "identifier" and c.name != target and c.name not in dropped]
    numeric = tuple(c.name for c in cols if c.kind in NUMERIC_FEATURE_KINDS)
    categorical = tuple(c.name for c in cols if c.is_categorical)
    return FeatureColumns(numeric, categorical, dropped)


def feature_frame(frame: pd.DataFrame, columns: FeatureColumns) -> pd.DataFrame:
    """Model input of ``frame``: numeric columns as float64, categorical ones as str.

    A missing categorical value becomes the category :data:`NA_CATEGORY`; numeric NA stays NaN
    (imputed by :func:`make_preprocessor`).

    Parameters
    ----------
    frame : DataFrame
    columns : FeatureColumns

    Returns
    -------
    DataFrame
        Columns ``columns.all`` with a fresh ``RangeIndex``.
    """
    out = frame[columns.all].copy().reset_index(drop=True)
    for name in columns.numeric:
        col = out[name]
        if pd.api.types.is_datetime64_any_dtype(col):
            out[name] = (col - pd.Timestamp(0, tz=getattr(col.dt, "tz", None))).dt.total_seconds()
        else:
            out[name] = pd.to_numeric(col, errors="coerce").astype("float64")
    for name in columns.categorical:
        col = out[name].astype(object)
        out[name] = col.where(col.isna(), col.astype(str)).where(col.notna(), NA_CATEGORY).astype(object)
    return out


def make_preprocessor(columns: FeatureColumns, scaling: str = "standard") -> ColumnTransformer:
    """The one-hot + impute + scale transformer (fit it on the training table only).

    Parameters
    ----------
    columns : FeatureColumns
    scaling : {"standard", "minmax", "none"}

    Returns
    -------
    ColumnTransformer
        Dense output.
    """
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {', '.join(SCALINGS)}; got {scaling!r}")
    steps: list[tuple[str, object]] = [("impute", SimpleImputer(strategy="median", add_indicator=True))]
    if scaling == "standard":
        steps.append(("scale", StandardScaler()))
    elif scaling == "minmax":
        steps.append(("scale", MinMaxScaler(clip=False)))
    numeric = Pipeline(steps)
    categorical = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    return ColumnTransformer(
        [("num", numeric, list(columns.numeric)), ("cat", categorical, list(columns.categorical))],
        remainder="drop",
        sparse_threshold=0.0,
    )


def reference_label_encode(features: pd.DataFrame) -> pd.DataFrame:
    """Label-encode every column of one table on its own (the ``000_…`` reference quirk).

    Each column's distinct values, sorted, get codes 0, 1, ...; a numeric NA gets −1. Applied to the
    training and the test table separately, so equal codes need not mean equal values.

    Parameters
    ----------
    features : DataFrame
        A :func:`feature_frame` output.

    Returns
    -------
    DataFrame
        float64 codes, same shape.
    """
    out = {}
    for name in features.columns:
        col = features[name]
        values = col.to_numpy(dtype=float) if pd.api.types.is_numeric_dtype(col) else col.astype(object)
        codes, _ = pd.factorize(pd.Series(values), sort=True)
        out[name] = codes.astype(np.float64)
    return pd.DataFrame(out, index=features.index)
