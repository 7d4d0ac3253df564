"""``moment_frobenius``: distance between the first two moments of T and S (numeric columns).

Specification: ``spec/metrics.md`` F4 (``001_…`` §4.1, Fig. 3).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec


def numeric_matrix(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame[columns]`` as float64 (NA as NaN)."""
    return frame[columns].apply(pd.to_numeric, errors="coerce").astype(np.float64)


def mean_and_covariance(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Column means and sample covariance (ddof = 1) of a float frame.

    NAs are skipped: each mean over a column's present values, each covariance over the rows
    where both columns are present (pandas' pairwise rule).
    """
    return frame.mean().to_numpy(), frame.cov(ddof=1).to_numpy()


class MomentFrobenius(BaseMetric):
    """Norms of the differences of the mean vectors and covariance matrices of S and T.

    ``spec/metrics.md`` F4. On the ``continuous`` and ``integer`` columns, in original units:

    ``mean_norm``
        ‖μ_S − μ_T‖₂;
    ``cov_norm``
        ‖Σ_S − Σ_T‖_F with Σ the sample covariance (ddof = 1).

    Lower is better; 0 for S = T. NAs are skipped (pairwise for the covariances). The metric is
    incomputable without numeric columns or when a moment is undefined (fewer than two present
    values).
    """

    name: ClassVar[str] = "moment_frobenius"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = float("inf")

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
        columns = [c for c in spec.numeric_columns if c in real.columns]
        if not columns:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no numeric column")
        mu_t, cov_t = mean_and_covariance(numeric_matrix(real, columns))
        mu_s, cov_s = mean_and_covariance(numeric_matrix(synthetic, columns))
        if not all(np.isfinite(m).all() for m in (mu_t, cov_t, mu_s, cov_s)):
            raise IncomputableMetricError(
                f"metric {self.name}: a mean or covariance is undefined (a numeric column has fewer "
                "than two present values)"
            )
        details = {"columns": columns, "n_columns": len(columns)}
        return {
            "mean_norm": MetricResult(value=float(np.linalg.norm(mu_s - mu_t)), details=details),
            "cov_norm": MetricResult(value=float(np.linalg.norm(cov_s - cov_t, ord="fro")), details=details),
        }
