"""``quality_score``: the SDMetrics single-table Quality Report score.

Specification: ``spec/metrics.md`` F1 (SDMetrics ``QualityReport``, metadata from the
``DatasetSpec``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.sdmetrics_lazy import preload_sdmetrics, sdmetrics_module
from metrics.fidelity.sdmetrics_pairs import pair_key
from metrics.fidelity.subsample import check_optional_size, subsample_rows

TABLE = "table"
PROPERTIES: tuple[str, ...] = ("Column Shapes", "Column Pair Trends")


def _check_unit_interval(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ConfigError(f"`{name}` must be a number in [0, 1]; got {value!r}")


class QualityScore(BaseMetric):
    """The SDMetrics Quality Report score of S against T.

    ``spec/metrics.md`` F1: the mean of the report's Column Shapes property (``KSComplement``
    for numeric and datetime columns, ``TVComplement`` for categorical ones) and its Column
    Pair Trends property (``CorrelationSimilarity`` for numeric pairs, ``ContingencySimilarity``
    for the others, numeric columns binned). SDMetrics (≥ 0.2x) averages the Column Pair Trends
    only over the pairs whose real association passes a threshold (|Pearson ρ| above
    ``real_correlation_threshold``, Cramér's V above ``real_association_threshold``); the
    defaults are SDMetrics' own, 0 switches the filter off.

    The metadata is built from the :class:`DatasetSpec` (``generators.sdv_models.metadata_dict``:
    ``continuous`` / ``integer`` → numerical, ``categorical`` / ``ordinal`` → categorical,
    ``datetime`` → datetime), never auto-detected. SDMetrics' own row subsampling (unseeded) is
    switched off; ``max_rows`` draws a seeded subsample of T and of S instead (recorded in
    ``details``). ``details`` holds the two property scores, the per-column shape scores and
    the per-pair trend scores of the pairs that count.

    Parameters
    ----------
    real_correlation_threshold : float
        In [0, 1]; SDMetrics default 0.5.
    real_association_threshold : float
        In [0, 1]; SDMetrics default 0.3.
    max_rows : int or None
        Rows of T and of S each kept (seeded); None = all.
    """

    name: ClassVar[str] = "quality_score"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(
        self,
        real_correlation_threshold: float = 0.5,
        real_association_threshold: float = 0.3,
        max_rows: int | None = None,
    ) -> None:
        preload_sdmetrics()  # SDMetrics (without torch) imported when built, not in a timed compute
        self.real_correlation_threshold = real_correlation_threshold
        self.real_association_threshold = real_association_threshold
        self.max_rows = max_rows

    def _validate_params(self) -> None:
        _check_unit_interval("real_correlation_threshold", self.real_correlation_threshold)
        _check_unit_interval("real_association_threshold", self.real_association_threshold)
        check_optional_size("max_rows", self.max_rows, 2)

    def report(self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec) -> Any:
        """Generate the SDMetrics ``QualityReport`` of ``synthetic`` against ``real`` (no subsampling).

        Returns
        -------
        sdmetrics.reports.QualityReport
        """
        from generators.sdv_models import metadata_dict

        columns = list(spec.table_columns)
        report = sdmetrics_module("reports").QualityReport()
        report.num_rows_subsample = None
        report.real_correlation_threshold = float(self.real_correlation_threshold)
        report.real_association_threshold = float(self.real_association_threshold)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report.generate(
                {TABLE: real[columns]},
                {TABLE: synthetic[columns]},
                {"tables": {TABLE: metadata_dict(spec)}},
                verbose=False,
            )
        return report

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
        if not spec.table_columns:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no column")
        rng = np.random.default_rng(seed)
        real_used = subsample_rows(real, self.max_rows, rng)
        syn_used = subsample_rows(synthetic, self.max_rows, rng)
        report = self.report(real_used, syn_used, spec)
        score = float(report.get_score())
        if math.isnan(score):
            raise IncomputableMetricError(f"metric {self.name}: SDMetrics could not score any property")
        properties = report.get_properties()
        shapes = report.get_details("Column Shapes")
        trends = report.get_details("Column Pair Trends")
        counted = trends[trends["Meets Threshold?"].fillna(False).astype(bool) & trends["Score"].notna()]
        details: dict[str, Any] = {
            "properties": {
                str(p): (None if pd.isna(s) else float(s))
                for p, s in zip(properties["Property"], properties["Score"])
            },
            "columns": {str(c): float(s) for c, s in zip(shapes["Column"], shapes["Score"]) if pd.notna(s)},
            "pairs": {
                pair_key(str(a), str(b)): float(s)
                for a, b, s in zip(counted["Column 1"], counted["Column 2"], counted["Score"])
            },
            "n_pairs_total": len(trends),
            "n_rows_real": len(real_used),
            "n_rows_synthetic": len(syn_used),
            "max_rows": self.max_rows,
            "subsample_seed": seed,
        }
        return MetricResult(value=score, details=details)
