"""``kendall_tau_error``: absolute differences of pairwise Kendall τ between T and S.

Specification: ``004_…`` *A Comparison of SynDiffix Multi-table Versus Single-table Synthetic
Data*, §4.3, Fig. 4 (left) and Table 3 "Correlation": SDNIST's Kendall correlation difference
matrix (``sdnist/report/plots/correlation.py``: ``Series.corr(method="kendall")`` on T and S);
the paper reports the median of |τ_S − τ_T| over the column pairs and their number N.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_column_list
from harness.spec import DatasetSpec

ORDERED_KINDS: tuple[str, ...] = ("continuous", "integer", "datetime", "ordinal")
N_WORST = 10


def ordered_values(col: pd.Series, kind: str, categories: tuple[str, ...] | None = None) -> np.ndarray:
    """A column as float64 for Kendall's τ (NaN = missing).

    Numbers and datetimes as they are; an ``ordinal`` column with declared ``categories`` by
    category position; other ``ordinal`` and ``categorical`` labels that are numeric codes
    as numbers, labels that are not (ACS ``N`` = not applicable) missing.
    """
    if kind == "datetime":
        stamps = pd.to_datetime(col)
        out = stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(np.float64)
        return np.where(stamps.isna().to_numpy(), np.nan, out)
    if kind in ("categorical", "ordinal"):
        labels = col.astype(object).where(col.isna(), col.astype(str))
        if kind == "ordinal" and categories:
            position = {label: float(i) for i, label in enumerate(categories)}
            return labels.map(position).to_numpy(dtype=np.float64, na_value=np.nan)
        return pd.to_numeric(labels, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b of the rows where both are present (NaN when undefined), as pandas."""
    from scipy.stats import kendalltau

    both = ~(np.isnan(x) | np.isnan(y))
    if both.sum() < 2:
        return float("nan")
    xs, ys = x[both], y[both]
    if np.all(xs == xs[0]) or np.all(ys == ys[0]):
        return float("nan")
    return float(kendalltau(xs, ys).statistic)


class KendallTauError(BaseMetric):
    """Median over column pairs of |τ_S − τ_T| (Kendall τ-b; SynDiffix paper §4.3, Table 3).

    Columns (default): the numeric and ordinal columns, and categorical columns whose labels
    are numeric codes (at least two distinct numbers in T; other labels missing) — SDNIST
    computes τ on the ACS codes. τ uses the rows where both columns are present.

    A pair whose τ is undefined in T (a constant column) is skipped, as the NaN cells of
    SDNIST's matrix; one undefined only in S counts τ_S = 0 (no association).

    Outputs: ``median_abs_diff`` (headline; Table 3 *med*) and ``mean_abs_diff``; goal
    ``minimise``, range [0, 2]. ``details``: N (pairs, Table 3 *N*), the columns and the
    pairs with the largest differences.

    Parameters
    ----------
    columns : list of str or None
        Columns to correlate; None = as above.
    """

    name: ClassVar[str] = "kendall_tau_error"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 2.0

    def __init__(self, columns: list[str] | None = None) -> None:
        self.columns = columns

    def _validate_params(self) -> None:
        check_column_list("columns", self.columns)

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
        values_t = {c: self._values(real, spec, c) for c in self._candidates(spec)}
        columns = [c for c, v in values_t.items() if np.unique(v[~np.isnan(v)]).size >= 2]
        if self.columns is None and len(columns) < 2:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has fewer than 2 ordered columns with 2+ values in T"
            )
        columns = list(self.columns) if self.columns is not None else columns
        values_s = {c: self._values(synthetic, spec, c) for c in columns}
        diffs: dict[str, float] = {}
        skipped = 0
        for a, b in combinations(columns, 2):
            tau_t = kendall_tau(values_t[a], values_t[b])
            if np.isnan(tau_t):
                skipped += 1
                continue
            tau_s = kendall_tau(values_s[a], values_s[b])
            diffs[f"{a}|{b}"] = abs((0.0 if np.isnan(tau_s) else tau_s) - tau_t)
        if not diffs:
            raise IncomputableMetricError(f"metric {self.name}: no column pair has a defined τ in T")
        values = np.array(list(diffs.values()))
        worst = sorted(diffs.items(), key=lambda kv: -kv[1])[:N_WORST]
        details: dict[str, Any] = {
            "n_pairs": len(diffs),
            "n_pairs_skipped": skipped,
            "columns": columns,
            "worst_pairs": dict(worst),
        }
        return {
            "median_abs_diff": MetricResult(value=float(np.median(values)), details=details),
            "mean_abs_diff": MetricResult(value=float(np.mean(values)), details=details),
        }

    @staticmethod
    def _values(frame: pd.DataFrame, spec: DatasetSpec, column: str) -> np.ndarray:
        return ordered_values(frame[column], spec.kind(column), spec.column(column).categories)

    def _candidates(self, spec: DatasetSpec) -> list[str]:
        if self.columns is not None:
            unknown = [c for c in self.columns if c not in spec.table_columns]
            if unknown:
                raise ConfigError(
                    f"metric {self.name}: `columns` names unknown column(s) {', '.join(unknown)} "
                    f"of dataset {spec.name!r}"
                )
            return list(self.columns)
        return [c for c in spec.table_columns if spec.kind(c) in (*ORDERED_KINDS, "categorical")]
