"""``covariance_contraction``: total variance of S relative to T (z-scored numeric columns).

Specification: ``spec/metrics.md`` F5 (``generators.md`` §5.3.1).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.moment_frobenius import numeric_matrix


class CovarianceContraction(BaseMetric):
    """α̂ = tr(Cov(S)) / tr(Cov(T)) on numeric columns z-scored with T's mean and sd.

    ``spec/metrics.md`` F5, a diagnostic (goal ``none``): α̂ < 1 means S is contracted towards
    the centre (e.g. by noise-then-shrink generators), α̂ > 1 inflated. The ``continuous`` and
    ``integer`` columns are z-scored with T's mean and sd (ddof = 1); a column constant in T
    (sd 0) cannot be z-scored and is listed in ``details["constant_columns"]``. Variances are
    sample variances (ddof = 1) over the present values. ``details["variance_ratios"]`` holds
    the per-column ratios var(S) / var(T) (α̂ is their mean, as tr(Cov(T_z)) counts 1 per
    column).
    """

    name: ClassVar[str] = "covariance_contraction"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "none"
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
    ) -> MetricResult:
        columns = [c for c in spec.numeric_columns if c in real.columns]
        if not columns:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no numeric column")
        t = numeric_matrix(real, columns)
        s = numeric_matrix(synthetic, columns)
        mean, sd = t.mean(), t.std(ddof=1)
        usable = [c for c in columns if np.isfinite(sd[c]) and sd[c] > 0]
        if not usable:
            raise IncomputableMetricError(
                f"metric {self.name}: every numeric column is constant (or undefined) in the training split"
            )
        tz = (t[usable] - mean[usable]) / sd[usable]
        sz = (s[usable] - mean[usable]) / sd[usable]
        var_t, var_s = tz.var(ddof=1), sz.var(ddof=1)
        if not (np.isfinite(var_t).all() and np.isfinite(var_s).all()):
            raise IncomputableMetricError(
                f"metric {self.name}: a variance is undefined (a numeric column has fewer than two present values)"
            )
        alpha = float(var_s.sum() / var_t.sum())
        details: dict[str, Any] = {
            "variance_ratios": {c: float(var_s[c] / var_t[c]) for c in usable},
            "n_columns": len(usable),
        }
        constant = [c for c in columns if c not in usable]
        if constant:
            details["constant_columns"] = constant
        return MetricResult(value=alpha, details=details)
