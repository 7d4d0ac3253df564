"""Column-shape fidelity metrics wrapping SDMetrics: ``ks_complement`` and ``tv_complement``.

Specification: ``spec/metrics.md`` F1 (SDMetrics single-column metrics ``KSComplement`` and
``TVComplement``; the two "Column Shapes" metrics of the SDMetrics Quality Report).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec


class _ColumnShapeMetric(BaseMetric):
    """Mean over the columns of one kind of an SDMetrics single-column metric (T vs S).

    Each column's score is SDMetrics' ``compute(real[col], synthetic[col])`` (which drops NAs
    itself). A column SDMetrics cannot score (no non-NA value on one side) is listed in
    ``details["incomputable_columns"]`` and left out of the mean; the headline is the mean of
    the remaining columns, and ``details["columns"]`` maps every scored column to its value.
    """

    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    column_kinds: ClassVar[tuple[str, ...]] = ()
    kind_label: ClassVar[str] = ""

    def _sdmetrics_class(self) -> Any:
        raise NotImplementedError

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
        from sdmetrics.errors import IncomputableMetricError as SdmIncomputable

        columns = [c.name for c in spec.columns if c.kind in self.column_kinds and c.name in real.columns]
        if not columns:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has no {self.kind_label} column"
            )
        metric = self._sdmetrics_class()
        scores: dict[str, float] = {}
        incomputable: list[str] = []
        for name in columns:
            try:
                value = float(metric.compute(real[name], synthetic[name]))
            except SdmIncomputable:
                value = math.nan
            if math.isnan(value):
                incomputable.append(name)
            else:
                scores[name] = value
        if not scores:
            raise IncomputableMetricError(
                f"metric {self.name}: no {self.kind_label} column could be scored (all values missing)"
            )
        details: dict[str, Any] = {"columns": scores, "n_columns": len(scores)}
        if incomputable:
            details["incomputable_columns"] = incomputable
        return MetricResult(value=float(np.mean(list(scores.values()))), details=details)


class KSComplement(_ColumnShapeMetric):
    """Mean over numeric columns of SDMetrics ``KSComplement`` = 1 − KS statistic.

    ``spec/metrics.md`` F1. Numeric columns are the ``continuous`` and ``integer`` columns of
    the schema, plus ``datetime`` columns (as SDMetrics' Column Shapes property does). Per-column
    values are in ``details["columns"]``. Range [0, 1]; 1 = identical marginal distributions.
    """

    name: ClassVar[str] = "ks_complement"
    column_kinds: ClassVar[tuple[str, ...]] = ("continuous", "integer", "datetime")
    kind_label: ClassVar[str] = "numeric"

    def _sdmetrics_class(self) -> Any:
        from sdmetrics.single_column import KSComplement as SdmKSComplement

        return SdmKSComplement


class TVComplement(_ColumnShapeMetric):
    """Mean over categorical columns of SDMetrics ``TVComplement`` = 1 − ½Σ_ω|R_ω − S_ω|.

    ``spec/metrics.md`` F1. Categorical columns are the ``categorical`` and ``ordinal`` columns
    of the schema; SDMetrics drops NAs before computing frequencies. Per-column values are in
    ``details["columns"]``. Range [0, 1]; 1 = identical category frequencies.
    """

    name: ClassVar[str] = "tv_complement"
    column_kinds: ClassVar[tuple[str, ...]] = ("categorical", "ordinal")
    kind_label: ClassVar[str] = "categorical"

    def _sdmetrics_class(self) -> Any:
        from sdmetrics.single_column import TVComplement as SdmTVComplement

        return SdmTVComplement
