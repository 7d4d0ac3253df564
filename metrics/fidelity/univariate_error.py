"""``univariate_error``: SDNIST-style composite error of the counts of every feature value.

Specification: ``spec/metrics.md`` (``004_…`` *A Comparison of SynDiffix Multi-table Versus
Single-table Synthetic Data*, §4.2, Fig. 3, Table 3 "Univariate"): for each value v of each
column, C_o(v) and C_s(v) are its counts in T and S; the absolute error is
E_abs = |C_o − C_s|, the relative error E_rel = 100·|C_o − C_s|/C_o (percent) and the
composite error E_comp = min(E_abs, E_rel). The paper reports the median composite error
over all feature values (and N, their number).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_column_list, check_int
from harness.spec import DatasetSpec
from metrics.fidelity.kmarginal_tvd import apply_binning, fit_binning
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS, NUMERIC_KINDS

NA_LABEL = "<NA>"


def value_counts(real: pd.Series, synthetic: pd.Series) -> pd.DataFrame:
    """Counts of every value of a categorical column in T and S (union of values; NA a value).

    Returns
    -------
    DataFrame
        Index: the value labels (str); columns ``count_real`` and ``count_synthetic``.
    """

    def labels(col: pd.Series) -> pd.Series:
        return col.astype(object).where(col.isna(), col.astype(str)).fillna(NA_LABEL)

    counts = pd.concat(
        [labels(real).value_counts(sort=False), labels(synthetic).value_counts(sort=False)],
        axis=1,
        keys=["count_real", "count_synthetic"],
    )
    return counts.fillna(0).astype(np.int64)


def composite_errors(count_real: np.ndarray, count_synthetic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E_abs = |C_o − C_s| and E_comp = min(E_abs, 100·E_abs/C_o) per value (paper §4.2).

    A value absent from T (C_o = 0) has an infinite relative error, so E_comp = E_abs, as
    pandas' ``min`` over ``abs`` and ``rel`` in the reference code (``sdnist-summary``).
    """
    c_o = np.asarray(count_real, dtype=np.float64)
    e_abs = np.abs(c_o - np.asarray(count_synthetic, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e_rel = np.where(c_o > 0, 100.0 * e_abs / np.where(c_o > 0, c_o, 1.0), np.inf)
    return e_abs, np.minimum(e_abs, e_rel)


class UnivariateError(BaseMetric):
    """Median composite error of the univariate counts (``004_…`` SynDiffix paper, §4.2).

    Feature values: every category of a categorical / ordinal column (labels as text, NA a
    value of its own), and for a numeric (``continuous``, ``integer``, ``datetime``) column
    its ``bins`` quantile bins of T plus "outside T's range" and NA (the binning of
    ``kmarginal_tvd``). Values seen in T or S both count; one absent from T has E_comp = E_abs.
    Counts are raw (not rescaled to |T|), as SDNIST compares a release of |T| rows.

    Outputs: ``composite_median`` (headline; the paper's Table 3 *med*), ``composite_mean``
    and ``abs_median``; all goal ``minimise``, range [0, ∞). ``details`` holds N (the number
    of feature values, Table 3 *N*) and per-column medians.

    Parameters
    ----------
    columns : list of str or None
        Columns measured; None = every column of the table.
    bins : int
        Quantile bins of a numeric column (T's breaks).

    Notes
    -----
    **Decision:** SDNIST counts its ACS columns with its own data dictionary (some numeric
    columns per value, some in groups); the harness bins every numeric column the same way, so
    N differs from the paper's 499–510.
    """

    name: ClassVar[str] = "univariate_error"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = np.inf

    def __init__(self, columns: list[str] | None = None, bins: int = 10) -> None:
        self.columns = columns
        self.bins = bins

    def _validate_params(self) -> None:
        check_column_list("columns", self.columns)
        check_int("bins", self.bins, 1)

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
        columns = self._columns(spec)
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        numeric = [c for c in columns if spec.kind(c) in NUMERIC_KINDS]
        binned_real = binned_syn = None
        if numeric:
            binnings = fit_binning(real, spec, numeric, int(self.bins), None)
            binned_real = pd.DataFrame(apply_binning(real, spec, binnings), columns=numeric)
            binned_syn = pd.DataFrame(apply_binning(synthetic, spec, binnings), columns=numeric)
        e_abs_all, e_comp_all = [], []
        per_column: dict[str, float] = {}
        for col in columns:
            if col in numeric:
                assert binned_real is not None and binned_syn is not None
                counts = value_counts(binned_real[col], binned_syn[col])
            else:
                counts = value_counts(real[col], synthetic[col])
            e_abs, e_comp = composite_errors(
                counts["count_real"].to_numpy(), counts["count_synthetic"].to_numpy()
            )
            e_abs_all.append(e_abs)
            e_comp_all.append(e_comp)
            per_column[col] = float(np.median(e_comp))
        e_abs_flat, e_comp_flat = np.concatenate(e_abs_all), np.concatenate(e_comp_all)
        details: dict[str, Any] = {
            "n_values": int(e_comp_flat.size),
            "n_columns": len(columns),
            "bins": int(self.bins),
            "n_real": len(real),
            "n_synthetic": len(synthetic),
            "column_median_composite": per_column,
        }
        return {
            "composite_median": MetricResult(value=float(np.median(e_comp_flat)), details=details),
            "composite_mean": MetricResult(value=float(np.mean(e_comp_flat)), details=details),
            "abs_median": MetricResult(value=float(np.median(e_abs_flat)), details=details),
        }

    def _columns(self, spec: DatasetSpec) -> list[str]:
        kinds = NUMERIC_KINDS + CATEGORICAL_KINDS
        if self.columns is not None:
            unknown = [c for c in self.columns if c not in spec.table_columns]
            if unknown:
                raise ConfigError(
                    f"metric {self.name}: `columns` names unknown column(s) {', '.join(unknown)} "
                    f"of dataset {spec.name!r}"
                )
            return list(self.columns)
        columns = [c for c in spec.table_columns if spec.kind(c) in kinds]
        if not columns:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no column to count")
        return columns
