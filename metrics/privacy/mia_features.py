"""Feature maps of the membership-inference attack (``spec/metrics.md`` P8; Stadler et al.).

The shadow-model attack classifies whole synthetic *tables* as trained with or without a
target record, so each table becomes one fixed-length vector. The map is fitted once on the
attacker's population (category lists and numeric ranges), so every table maps to the same
coordinates.

* ``naive``: numeric column → mean, median, variance; categorical column → most frequent
  code, least frequent code, number of distinct categories.
* ``histogram``: numeric column → normalised histogram over ``nbins`` equal-width bins of the
  population's range; categorical column → frequencies over the population's categories
  (plus missing).
* ``correlations``: numeric columns plus one-hot (first category dropped) categoricals,
  flattened upper triangle of the Pearson correlation matrix, NaN → 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.spec import DatasetSpec

FEATURE_SETS: tuple[str, ...] = ("naive", "histogram", "correlations")


def numeric_values(values: pd.Series) -> np.ndarray:
    """A column as float64 (datetimes in days since the epoch; missing → NaN)."""
    if pd.api.types.is_datetime64_any_dtype(values):
        stamps = values.to_numpy(dtype="datetime64[ns]")
        out = stamps.astype("int64").astype(float) / 8.64e13
        out[np.isnat(stamps)] = np.nan
        return out
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


@dataclass(frozen=True)
class FeatureMap:
    """Maps a table to the attack's feature vector (see the module docstring).

    Build it with :meth:`fit`; call :meth:`transform` on each synthetic table.
    """

    kind: str
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    categories: dict[str, tuple[str, ...]]
    ranges: dict[str, tuple[float, float]]
    nbins: int

    @classmethod
    def fit(cls, population: pd.DataFrame, spec: DatasetSpec, kind: str, nbins: int = 10) -> FeatureMap:
        """Fix the coordinates from the attacker's population."""
        numeric = tuple(
            c for c in spec.table_columns if spec.column(c).is_numeric or spec.kind(c) == "datetime"
        )
        categorical = tuple(c for c in spec.table_columns if c not in numeric)
        categories = {
            c: tuple(sorted({str(v) for v in population[c].dropna().unique()})) for c in categorical
        }
        ranges = {}
        for c in numeric:
            values = numeric_values(population[c])
            finite = values[np.isfinite(values)]
            ranges[c] = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
        return cls(kind, numeric, categorical, categories, ranges, int(nbins))

    def transform(self, table: pd.DataFrame) -> np.ndarray:
        """The feature vector of ``table`` (length fixed by the fitted coordinates)."""
        if self.kind == "naive":
            return self._naive(table)
        if self.kind == "histogram":
            return self._histogram(table)
        return self._correlations(table)

    def _codes(self, table: pd.DataFrame, col: str) -> np.ndarray:
        """Category codes over the population's list; unseen and missing → -1."""
        lookup = {v: i for i, v in enumerate(self.categories[col])}
        text = table[col].astype(object)
        return np.array(
            [-1 if pd.isna(v) else lookup.get(str(v), -1) for v in text.to_numpy()], dtype=np.int64
        )

    def _naive(self, table: pd.DataFrame) -> np.ndarray:
        parts: list[float] = []
        for col in self.numeric:
            values = numeric_values(table[col])
            values = values[np.isfinite(values)]
            parts += (
                [float(values.mean()), float(np.median(values)), float(values.var())]
                if len(values)
                else [0.0] * 3
            )
        for col in self.categorical:
            codes = self._codes(table, col)
            counts = np.bincount(codes[codes >= 0], minlength=len(self.categories[col]))
            present = np.flatnonzero(counts)
            if len(present) == 0:
                parts += [-1.0, -1.0, 0.0]
                continue
            most = present[np.argmax(counts[present])]
            least = present[np.argmin(counts[present])]
            parts += [float(most), float(least), float(len(present))]
        return np.asarray(parts, dtype=float)

    def _histogram(self, table: pd.DataFrame) -> np.ndarray:
        parts: list[np.ndarray] = []
        n = max(len(table), 1)
        for col in self.numeric:
            low, high = self.ranges[col]
            values = numeric_values(table[col])
            values = np.clip(values[np.isfinite(values)], low, high)
            hist, _ = np.histogram(values, bins=self.nbins, range=(low, high if high > low else low + 1.0))
            parts.append(hist / n)
        for col in self.categorical:
            codes = self._codes(table, col)
            counts = np.bincount(codes + 1, minlength=len(self.categories[col]) + 1)  # slot 0: missing/unseen
            parts.append(counts / n)
        return np.concatenate(parts) if parts else np.zeros(0)

    def _correlations(self, table: pd.DataFrame) -> np.ndarray:
        blocks: list[np.ndarray] = [numeric_values(table[c])[:, None] for c in self.numeric]
        for col in self.categorical:
            codes = self._codes(table, col)
            k = len(self.categories[col])
            if k > 1:
                blocks.append((codes[:, None] == np.arange(1, k)[None, :]).astype(float))
        if not blocks:
            return np.zeros(0)
        matrix = np.hstack(blocks)
        finite = np.isfinite(matrix)
        counts = finite.sum(axis=0)
        means = np.where(finite, matrix, 0.0).sum(axis=0) / np.maximum(counts, 1)
        matrix = np.where(finite, matrix, means[None, :])  # missing → column mean
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.corrcoef(matrix, rowvar=False) if len(matrix) > 1 else np.zeros((matrix.shape[1],) * 2)
        corr = np.nan_to_num(np.atleast_2d(corr), nan=0.0)
        upper = np.triu_indices(corr.shape[0], k=1)
        return corr[upper]
