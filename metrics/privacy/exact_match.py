"""``exact_match``: copies and near-copies of training records in the release.

Specification: ``spec/metrics.md`` P6 (``004_…`` *Asymptotic Utility of Spectral Anonymization*
§4, "Matches" and EUC_A; SDNIST "unique exact matches" as cited by *A Comparison of SynDiffix
Multi-table Versus Single-table Synthetic Data*, Table 2; SDMetrics ``NewRowSynthesis`` as used
by *Tabular vs. Aggregated Data Sources*, §4.4).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numba
import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from harness.errors import ConfigError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_int
from harness.spec import DatasetSpec

DEFAULT_TOLERANCES: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))
NRS_NUMERIC_KINDS: frozenset[str] = frozenset({"continuous", "integer", "datetime"})


class ExactMatch(BaseMetric):
    """Exact and near-exact copies of training rows T in the release S.

    ``spec/metrics.md`` P6. Outputs (result ``variant``):

    ``matches_tol``
        share of S rows whose Euclidean distance to the nearest T row, over the numeric
        (``continuous``, ``integer``) columns in original units, is below ``delta``
        (``004_…`` *Spectral Anonymization*, "Matches"); lower is better.
    ``euc_mean``
        mean over S rows of that distance (EUC_A, unscaled); higher is better.
    ``row_copy_rate``
        share of S rows equal to some T row on every column (NA = NA); lower is better.
    ``unique_copy_rate``
        share of T rows that are unique in T and occur in S (SDNIST's full-record matches,
        as a share of all T rows: ``004_…`` *SynDiffix* Table 2 "relative to the total number
        of rows"); lower is better. The count and the share of T's unique rows are in
        ``details``.
    ``new_row_synthesis_tol{t}``, one per tolerance t
        SDMetrics ``NewRowSynthesis(numerical_match_tolerance=t)``: share of S rows that match
        no T row, where a numeric (and datetime, in nanoseconds) value r of T matches s when
        \\|r − s\\| <= \\|t·s\\|, categorical values match when equal, and NA matches NA only;
        higher is better.

    The first two are omitted when the dataset has no numeric column.

    Parameters
    ----------
    tolerances : list of float
        The ``numerical_match_tolerance`` sweep (each finite and >= 0, no repeats); default
        0, 0.1, …, 1.0 (*Tabular vs. Aggregated Data Sources*: "[0.0, 1.0]").
    delta : float
        Match threshold of ``matches_tol`` (> 0; the paper's δ = 1e-6).
    chunk_size : int
        S rows per nearest-neighbour query and per matching pass; memory is
        O(``chunk_size`` + |T|), never an |S| × |T| matrix.

    Notes
    -----
    *Euclidean distance.* A numeric NA is replaced by T's median of the column and a 0/1
    indicator coordinate is added (the imputation of ``spec/metrics.md`` §0.2 rule 3, unscaled),
    so NA matches NA and never a number. Values that are not numbers (a generalised release's
    interval labels in a numeric column) count as NA. The search is an exact KD-tree.

    *Row copies.* Rows are compared by value: numeric columns as float64 (``40`` equals
    ``40.0``), categorical columns as text labels; a label in a numeric column stays a label.

    *New rows.* A text label in a numeric column matches the same label only. SDMetrics evaluates one pandas query per synthetic row (hours for tens of
    thousands of rows, per tolerance); this is the same rule, exact in floating point (the
    threshold is computed as SDMetrics computes it, ``abs(t * s)``), evaluated once for all
    tolerances by a compiled branch-and-bound scan. ``tests/unit/test_exact_match.py`` checks
    equality with SDMetrics.
    """

    name: ClassVar[str] = "exact_match"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # euc_mean is a distance; the rest lie in [0, 1]

    def __init__(
        self,
        tolerances: Sequence[float] = DEFAULT_TOLERANCES,
        delta: float = 1e-6,
        chunk_size: int = 10_000,
    ) -> None:
        self.tolerances = tolerances
        self.delta = delta
        self.chunk_size = chunk_size

    def _validate_params(self) -> None:
        if isinstance(self.tolerances, (str, bytes)) or not isinstance(self.tolerances, Sequence):
            raise ConfigError(
                f"`tolerances` must be a non-empty list of numbers >= 0; got {self.tolerances!r}"
            )
        if not self.tolerances or not all(_is_number(t) and t >= 0 for t in self.tolerances):
            raise ConfigError(
                f"`tolerances` must be a non-empty list of numbers >= 0; got {list(self.tolerances)!r}"
            )
        if len({float(t) for t in self.tolerances}) != len(self.tolerances):
            raise ConfigError(f"`tolerances` must not repeat a value; got {list(self.tolerances)!r}")
        if not _is_number(self.delta) or self.delta <= 0:
            raise ConfigError(f"`delta` must be a number > 0; got {self.delta!r}")
        check_int("chunk_size", self.chunk_size, 1)

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        details: dict[str, Any] = {"n_release": len(synthetic), "n_train": len(real)}
        out: dict[str, MetricResult] = {}
        numeric = list(spec.numeric_columns)
        if numeric and len(real):
            nearest = self._nearest_distances(real[numeric], synthetic[numeric])
            n_matches = int(np.count_nonzero(nearest < float(self.delta)))
            extra = {"numeric_columns": numeric, "delta": float(self.delta), "n_matches": n_matches}
            out["matches_tol"] = MetricResult(value=n_matches / len(synthetic), details={**details, **extra})
            out["euc_mean"] = MetricResult(
                value=float(np.mean(nearest)), details={**details, **extra}, goal="maximise"
            )
        else:
            details["numeric_columns"] = []

        ids_train, ids_release = _row_ids(real, synthetic, spec)
        in_train = np.isin(ids_release, ids_train)
        n_copies = int(np.count_nonzero(in_train))
        out["row_copy_rate"] = MetricResult(
            value=n_copies / len(synthetic), details={**details, "n_copies": n_copies}
        )
        unique_ids, counts = np.unique(ids_train, return_counts=True)
        unique_train = unique_ids[counts == 1]
        n_unique_copies = int(np.count_nonzero(np.isin(unique_train, ids_release)))
        out["unique_copy_rate"] = MetricResult(
            value=n_unique_copies / len(real) if len(real) else 0.0,
            details={
                **details,
                "n_unique_copies": n_unique_copies,
                "n_unique_train": int(unique_train.size),
                "share_of_unique_train": n_unique_copies / unique_train.size if unique_train.size else 0.0,
            },
        )

        tolerances = sorted(float(t) for t in self.tolerances)
        levels = self._match_levels(real, synthetic, spec, np.asarray(tolerances))
        for k, tol in enumerate(tolerances):
            n_new = int(np.count_nonzero(levels > k))
            out[f"new_row_synthesis_tol{tol:g}"] = MetricResult(
                value=n_new / len(synthetic),
                details={**details, "numerical_match_tolerance": tol, "n_new_rows": n_new},
                goal="maximise",
            )
        return out

    # ------------------------------------------------------------------ helpers
    def _chunks(self, n: int) -> Iterator[slice]:
        for start in range(0, n, int(self.chunk_size)):
            yield slice(start, min(n, start + int(self.chunk_size)))

    def _nearest_distances(self, real: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
        """Euclidean distance (original units, NA imputed + indicator) from each S row to T."""
        train_values = _numeric_matrix(real)
        medians = np.zeros(train_values.shape[1])
        for j in range(train_values.shape[1]):
            finite = train_values[~np.isnan(train_values[:, j]), j]
            medians[j] = float(np.median(finite)) if finite.size else 0.0
        release_values = _numeric_matrix(synthetic)
        has_na = np.isnan(train_values).any(axis=0) | np.isnan(release_values).any(axis=0)

        def encode(values: np.ndarray) -> np.ndarray:
            isna = np.isnan(values)
            filled = np.where(isna, medians, values)
            return np.hstack([filled, isna[:, has_na].astype(np.float64)])

        index = NearestNeighbors(n_neighbors=1, algorithm="kd_tree").fit(encode(train_values))
        parts = [
            index.kneighbors(encode(release_values[rows]))[0][:, 0] for rows in self._chunks(len(synthetic))
        ]
        return np.concatenate(parts)

    def _match_levels(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, tolerances: np.ndarray
    ) -> np.ndarray:
        """Per S row, the index of the smallest tolerance at which some T row matches it
        (``len(tolerances)`` when none does) under SDMetrics' NewRowSynthesis rule."""
        numeric = [c for c in spec.table_columns if spec.kind(c) in NRS_NUMERIC_KINDS]
        categorical = [c for c in spec.table_columns if c not in numeric]
        whole = pd.concat([real, synthetic], ignore_index=True)
        keys = [_as_labels(whole[name]) for name in categorical]
        for name in numeric:  # a text label in a numeric column (generalised release) matches itself only
            col = whole[name]
            labels = col.notna() & pd.to_numeric(col, errors="coerce").isna()
            if labels.any() and not pd.api.types.is_datetime64_any_dtype(col):
                keys.append(_as_labels(col).where(labels, ""))
        codes = np.empty((len(whole), len(keys)), dtype=np.int32)
        for j, key in enumerate(keys):
            codes[:, j] = pd.factorize(key, use_na_sentinel=True)[0]
        train_num = _nrs_numeric(real[numeric])
        release_num = _nrs_numeric(synthetic[numeric])
        train_cat, release_cat = codes[: len(real)], codes[len(real) :]
        parts = [
            _match_level_kernel(
                np.ascontiguousarray(release_cat[rows]),
                np.ascontiguousarray(release_num[rows]),
                train_cat,
                train_num,
                tolerances,
            )
            for rows in self._chunks(len(synthetic))
        ]
        return np.concatenate(parts)


# ---------------------------------------------------------------------- encodings
def _numeric_matrix(frame: pd.DataFrame) -> np.ndarray:
    """Numeric columns as float64 (NaN for NA and for values that are not numbers)."""
    if frame.shape[1] == 0:
        return np.zeros((len(frame), 0))
    return np.column_stack(
        [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan) for c in frame]
    )


def _nrs_numeric(frame: pd.DataFrame) -> np.ndarray:
    """Columns SDMetrics compares with a tolerance: numbers, datetimes as nanoseconds (NaN = NA)."""
    cols = []
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_datetime64_any_dtype(col):
            ns = col.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(np.float64)
            cols.append(np.where(col.isna().to_numpy(), np.nan, ns))
        else:
            cols.append(pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan))
    return np.column_stack(cols) if cols else np.zeros((len(frame), 0))


def _row_ids(real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids of the distinct rows of T and S (equal rows, NA = NA, get equal ids)."""
    whole = pd.concat([real, synthetic], ignore_index=True)
    parts: dict[str, np.ndarray] = {}
    for name in whole.columns:
        col = whole[name]
        if spec.kind(name) in ("continuous", "integer"):
            values = pd.to_numeric(col, errors="coerce")
            labels = col.notna() & values.isna()  # e.g. interval labels of a generalised release
            key: pd.Series = (
                values if not labels.any() else values.astype(object).where(~labels, _as_labels(col))
            )
        elif spec.kind(name) == "datetime":
            key = col
        else:
            key = _as_labels(col)
        parts[name] = pd.factorize(key, use_na_sentinel=True)[0]
    ids = pd.DataFrame(parts).groupby(list(parts), sort=False).ngroup().to_numpy()
    return ids[: len(real)], ids[len(real) :]


def _as_labels(col: pd.Series) -> pd.Series:
    """Values as ``str`` labels (object dtype), NA kept as NaN."""
    return col.astype(object).where(col.isna(), col.astype(str))


def _is_number(value: object) -> bool:
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


# ---------------------------------------------------------------------- kernel
@numba.njit(cache=True, nogil=True, parallel=True)
def _match_level_kernel(
    release_cat: np.ndarray,
    release_num: np.ndarray,
    train_cat: np.ndarray,
    train_num: np.ndarray,
    tolerances: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """For each release row, the smallest k such that a T row matches it at ``tolerances[k]``.

    A T row r matches release row s at t when every categorical code is equal and, for every
    numeric column, both are NaN or \\|r − s\\| <= abs(t·s) (SDMetrics' rule). The level of
    a pair is the max over columns of the per-column level, which is monotone in t.
    """
    n_release = release_cat.shape[0]
    n_train = train_cat.shape[0]
    n_cat = release_cat.shape[1]
    n_num = release_num.shape[1]
    n_tol = tolerances.size
    out = np.empty(n_release, dtype=np.int64)
    for i in numba.prange(n_release):
        thresholds = np.empty((n_tol, n_num))
        for k in range(n_tol):
            for j in range(n_num):
                thresholds[k, j] = abs(tolerances[k] * release_num[i, j])
        best = n_tol
        for r in range(n_train):
            level = 0
            for j in range(n_cat):
                if train_cat[r, j] != release_cat[i, j]:
                    level = n_tol
                    break
            if level >= best:
                continue
            for j in range(n_num):
                s_value = release_num[i, j]
                r_value = train_num[r, j]
                if np.isnan(s_value) or np.isnan(r_value):
                    if not (np.isnan(s_value) and np.isnan(r_value)):
                        level = n_tol
                else:
                    gap = abs(r_value - s_value)
                    while level < n_tol and gap > thresholds[level, j]:
                        level += 1
                if level >= best:
                    break
            if level < best:
                best = level
                if best == 0:
                    break
        out[i] = best
    return out
