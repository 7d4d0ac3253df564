"""``missing_category_score``: training-data mass of the categories the release never produces.

Specification: ``spec/metrics.md`` F8 (``004_…`` *Evaluation of SDGs in Synthcity*, Table 3).
"""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.hellinger import category_frequencies
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS

MAX_LISTED = 20
"""Missing categories listed per column in ``details``."""


class MissingCategoryScore(BaseMetric):
    """Σ over categorical columns Σ over categories of T absent from S of their frequency in T.

    ``spec/metrics.md`` F8. Categorical columns are the ``categorical`` and ``ordinal``
    columns; NA is a category of its own (``spec/metrics.md`` §0.2), so a release without
    missing values loses T's NA share. 0 is best; the value may exceed 1 (one term per column).
    ``details["columns"]`` holds each column's term and ``details["missing"]`` up to
    ``MAX_LISTED`` missing categories per column (most frequent first).
    """

    name: ClassVar[str] = "missing_category_score"
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
    ) -> MetricResult:
        columns = [c.name for c in spec.columns if c.kind in CATEGORICAL_KINDS and c.name in real.columns]
        if not columns:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has no categorical column"
            )
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        per_column: dict[str, float] = {}
        missing: dict[str, list[str]] = {}
        for col in columns:
            p = category_frequencies(real[col])
            seen = set(category_frequencies(synthetic[col]).index)
            absent = p[[label not in seen for label in p.index]]
            per_column[col] = float(absent.sum())
            if len(absent):
                ranked = sorted(absent.items(), key=lambda kv: (-kv[1], str(kv[0])))
                missing[col] = [str(label) for label, _ in ranked[:MAX_LISTED]]
        details: dict[str, Any] = {"columns": per_column, "missing": missing, "n_columns": len(columns)}
        return MetricResult(value=float(sum(per_column.values())), details=details)
