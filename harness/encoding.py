"""The shared encoding space ``E`` of ``spec/metrics.md`` §0.2.

:class:`TableEncoder` maps a table to a float64 matrix in which distances between records
are comparable across the training split T, the release S and the holdout H:

1. numeric columns (``continuous``, ``integer``; ``datetime`` as seconds since the epoch) are
   min–max scaled with T's minimum and maximum; values of other tables outside T's range are
   not clipped;
2. categorical columns (``categorical``, ``ordinal``) are one-hot encoded over the union of the
   categories seen in the fit tables (T and S, optionally H); NA is a category of its own;
3. a numeric NA is replaced by T's median (in scaled units) and a 0/1 indicator column is added
   for every numeric column that has an NA in any fit table.

Only T determines the numeric scaling and the imputed medians; the other fit tables only add
categories and NA indicators, so adding them never changes the encoding of T or S rows in
existing coordinates. A category not seen at fit time encodes as an all-zero block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

ColumnsMode = Literal["all", "numeric"]
COLUMNS_MODES: tuple[str, ...] = ("all", "numeric")
NA_LABEL = "<NA>"


@dataclass(frozen=True)
class _NumericBlock:
    name: str
    low: float
    scale: float
    median: float
    indicator: bool


@dataclass(frozen=True)
class _CategoricalBlock:
    name: str
    categories: tuple[str, ...]
    has_na: bool


class TableEncoder:
    """Encode tables into the shared space ``E`` (``spec/metrics.md`` §0.2).

    Parameters
    ----------
    spec : DatasetSpec
        Schema of the tables; it decides which columns are numeric and which categorical.
    columns : {"all", "numeric"}
        ``"all"``: every table column (numeric, datetime and categorical); ``"numeric"``: the
        ``continuous`` and ``integer`` columns only (the reference space of ``dcr_nndr``).
    exclude : sequence of str
        Columns left out of the encoding (e.g. the target).

    Attributes
    ----------
    feature_names : list of str
        Name of every output column after :meth:`fit`: ``col`` (scaled numeric),
        ``col__isna`` (NA indicator), ``col=value`` (one-hot; ``col=<NA>`` for missing).
    columns_used : list of str
        Table columns that enter the encoding, in table order.

    Examples
    --------
    >>> enc = TableEncoder(spec, columns="all").fit(train, synthetic)  # doctest: +SKIP
    >>> X_train, X_syn = enc.transform(train), enc.transform(synthetic)  # doctest: +SKIP
    """

    def __init__(self, spec: DatasetSpec, columns: str = "all", exclude: Sequence[str] = ()) -> None:
        if columns not in COLUMNS_MODES:
            raise ConfigError(f"`columns` must be one of {', '.join(COLUMNS_MODES)}; got {columns!r}")
        self.spec = spec
        self.columns = columns
        self.exclude = tuple(exclude)
        self._blocks: list[_NumericBlock | _CategoricalBlock] | None = None
        self.feature_names: list[str] = []
        self.columns_used: list[str] = self._select_columns()

    # ------------------------------------------------------------------ public API
    def fit(self, real: pd.DataFrame, *others: pd.DataFrame) -> TableEncoder:
        """Learn the encoding from T (and the categories / NA pattern of ``others``).

        Parameters
        ----------
        real : DataFrame
            The training split T: numeric minimum, maximum and median come from it.
        *others : DataFrame
            Further tables (the release S, optionally the holdout H) whose categories join
            T's in the one-hot vocabulary and whose numeric NAs add indicator columns.

        Returns
        -------
        TableEncoder
            ``self``, fitted.

        Raises
        ------
        DataError
            If a used column is missing from one of the tables.
        """
        tables = (real, *others)
        for table in tables:
            self._check_columns(table)
        blocks: list[_NumericBlock | _CategoricalBlock] = []
        names: list[str] = []
        for name in self.columns_used:
            if self._is_numeric(name):
                block = self._fit_numeric(name, real, others)
                blocks.append(block)
                names.append(name)
                if block.indicator:
                    names.append(f"{name}__isna")
            else:
                cat = self._fit_categorical(name, tables)
                blocks.append(cat)
                names.extend(f"{name}={c}" for c in cat.categories)
                if cat.has_na:
                    names.append(f"{name}={NA_LABEL}")
        self._blocks = blocks
        self.feature_names = names
        return self

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """Encode ``frame`` into a ``(len(frame), n_features)`` float64 matrix.

        Parameters
        ----------
        frame : DataFrame
            A table with (at least) the encoder's columns.

        Returns
        -------
        numpy.ndarray
            Rows in the order of ``frame``; columns as :attr:`feature_names`.
        """
        if self._blocks is None:
            raise RuntimeError("TableEncoder.transform called before fit")
        self._check_columns(frame)
        out = np.zeros((len(frame), len(self.feature_names)), dtype=np.float64)
        pos = 0
        for block in self._blocks:
            if isinstance(block, _NumericBlock):
                pos = self._transform_numeric(block, frame[block.name], out, pos)
            else:
                pos = self._transform_categorical(block, frame[block.name], out, pos)
        return out

    def fit_transform(self, real: pd.DataFrame, *others: pd.DataFrame) -> np.ndarray:
        """Fit on ``real`` (and ``others``) and return the encoding of ``real``."""
        return self.fit(real, *others).transform(real)

    @property
    def n_features(self) -> int:
        """Number of output columns (after :meth:`fit`)."""
        return len(self.feature_names)

    # ------------------------------------------------------------------ helpers
    def _select_columns(self) -> list[str]:
        if self.columns == "numeric":
            wanted = set(self.spec.numeric_columns)
        else:
            wanted = set(self.spec.numeric_columns) | set(self.spec.categorical_columns)
            wanted |= {c.name for c in self.spec.columns if c.kind == "datetime"}
        return [c for c in self.spec.table_columns if c in wanted and c not in self.exclude]

    def _is_numeric(self, name: str) -> bool:
        return self.spec.kind(name) in ("continuous", "integer", "datetime")

    def _check_columns(self, frame: pd.DataFrame) -> None:
        missing = [c for c in self.columns_used if c not in frame.columns]
        if missing:
            raise DataError(f"encoding: column(s) {', '.join(map(repr, missing))} not found in the table")

    def _fit_numeric(self, name: str, real: pd.DataFrame, others: tuple[pd.DataFrame, ...]) -> _NumericBlock:
        values = _as_float(real[name])
        finite = values[~np.isnan(values)]
        if finite.size == 0:
            low, scale, median = 0.0, 1.0, 0.0
        else:
            low, high = float(finite.min()), float(finite.max())
            scale = high - low if high > low else 1.0
            median = (float(np.median(finite)) - low) / scale
        has_na = bool(np.isnan(values).any()) or any(bool(t[name].isna().any()) for t in others)
        return _NumericBlock(name=name, low=low, scale=scale, median=median, indicator=has_na)

    @staticmethod
    def _fit_categorical(name: str, tables: tuple[pd.DataFrame, ...]) -> _CategoricalBlock:
        # distinct values converted to text once, as :func:`_category_codes` converts them
        seen: set[str] = set()
        has_na = False
        for table in tables:
            codes, uniques = pd.factorize(table[name], use_na_sentinel=True)
            has_na = has_na or bool((codes < 0).any())
            seen.update(str(value) for value in uniques)
        return _CategoricalBlock(name=name, categories=tuple(sorted(seen)), has_na=has_na)

    @staticmethod
    def _transform_numeric(block: _NumericBlock, col: pd.Series, out: np.ndarray, pos: int) -> int:
        scaled = (_as_float(col) - block.low) / block.scale
        isna = np.isnan(scaled)
        out[:, pos] = np.where(isna, block.median, scaled)
        if block.indicator:
            out[:, pos + 1] = isna
            return pos + 2
        return pos + 1

    @staticmethod
    def _transform_categorical(block: _CategoricalBlock, col: pd.Series, out: np.ndarray, pos: int) -> int:
        codes = _category_codes(col, block.categories)
        rows = np.flatnonzero(codes >= 0)
        out[rows, pos + codes[rows]] = 1.0
        width = len(block.categories)
        if block.has_na:
            out[:, pos + width] = col.isna().to_numpy()
            width += 1
        return pos + width


def _category_codes(col: pd.Series, categories: tuple[str, ...]) -> np.ndarray:
    """Position of each value's ``str`` label in ``categories`` (-1: NA or not listed).

    The distinct values are converted to text once (``pd.factorize``) instead of every row:
    the same codes as ``pd.Categorical(col.astype(str).where(col.notna()), categories)``, several times faster
    on the small tables a membership-inference audit encodes thousands of times.
    """
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    lookup = {label: i for i, label in enumerate(categories)}
    mapping = np.array([lookup.get(str(u), -1) for u in uniques] + [-1], dtype=np.int64)
    return mapping[codes]


def _as_float(col: pd.Series) -> np.ndarray:
    """Numeric (or datetime, in seconds since the epoch) column as float64 with NaN for NA."""
    if pd.api.types.is_datetime64_any_dtype(col):
        seconds = (col - pd.Timestamp(0, tz=getattr(col.dt, "tz", None))).dt.total_seconds()
        return seconds.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def canonical_row_order(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its rows sorted by a content hash, and a fresh ``RangeIndex``.

    Metrics whose library result depends on row order (a random forest's bootstrap, the
    tie-breaking of a neighbour search) apply this first, so their value depends on the rows
    and the seed only: any permutation of the same rows gives the same output (rows with
    equal content are interchangeable; a 64-bit hash collision falls back to input order).

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    DataFrame
    """
    hashes = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return frame.iloc[np.argsort(hashes, kind="stable")].reset_index(drop=True)
