"""Column-shape fidelity metrics wrapping SDMetrics: ``ks_complement`` and ``tv_complement``.

Specification: ``spec/metrics.md`` F1 (SDMetrics single-column metrics ``KSComplement`` and
``TVComplement``; the two "Column Shapes" metrics of the SDMetrics Quality Report).

:class:`SingleColumnMetric` is the shared base of every per-column SDMetrics wrapper (also
``range_coverage``, ``boundary_adherence``, ``statistic_similarity``, ``category_coverage`` and
``attribute_coverage``): it scores each column of the chosen kinds, lists the columns SDMetrics
cannot score and averages the rest (:func:`mean_of_scores`).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.sdmetrics_lazy import preload_sdmetrics, sdmetrics_module

NUMERIC_KINDS: tuple[str, ...] = ("continuous", "integer", "datetime")
"""Column kinds SDMetrics treats as numerical (its Column Shapes property scores datetimes too)."""
CATEGORICAL_KINDS: tuple[str, ...] = ("categorical", "ordinal")


def sdmetrics_incomputable_errors() -> tuple[type[Exception], ...]:
    """The SDMetrics exceptions that mean "this column (pair) cannot be scored"."""
    errors = sdmetrics_module("errors")
    return (errors.IncomputableMetricError, errors.ConstantInputError)


def mean_of_scores(
    metric_name: str, scores: dict[str, float], incomputable: list[str], what: str, label: str
) -> MetricResult:
    """Average per-column (or per-pair) scores into one :class:`MetricResult`.

    Parameters
    ----------
    metric_name : str
        For the error message.
    scores : dict of str to float
        Every scored column (pair) and its value; becomes ``details["columns"]`` (``what``).
    incomputable : list of str
        Columns (pairs) SDMetrics could not score; ``details["incomputable_<what>"]`` if any.
    what : {"columns", "pairs"}
        Key of the per-item values in ``details``.
    label : str
        Describes the items in the error message (e.g. ``"numeric column"``).

    Raises
    ------
    IncomputableMetricError
        If nothing could be scored.
    """
    if not scores:
        raise IncomputableMetricError(
            f"metric {metric_name}: no {label} could be scored (all values missing or constant)"
        )
    details: dict[str, Any] = {what: scores, f"n_{what}": len(scores)}
    if incomputable:
        details[f"incomputable_{what}"] = incomputable
    return MetricResult(value=float(np.mean(list(scores.values()))), details=details)


class SingleColumnMetric(BaseMetric):
    """Mean over the columns of some kinds of an SDMetrics single-column metric (T vs S).

    Each column's score is SDMetrics' ``compute(real[col], synthetic[col], **kwargs)`` (which
    drops NAs itself). A column SDMetrics cannot score (e.g. no non-NA value on one side, or a
    constant real column for a range-based metric) is listed in
    ``details["incomputable_columns"]`` and left out of the mean; the headline is the mean of
    the remaining columns, and ``details["columns"]`` maps every scored column to its value.

    Subclasses set ``column_kinds`` and ``kind_label`` and implement :meth:`_sdmetrics_class`
    (and :meth:`_sdmetrics_kwargs` for parametrised SDMetrics metrics); a subclass with its own
    ``__init__`` calls ``super().__init__()``, which imports SDMetrics (without torch,
    :mod:`metrics.fidelity.sdmetrics_lazy`) before any ``compute`` is timed.
    """

    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    column_kinds: ClassVar[tuple[str, ...]] = ()
    kind_label: ClassVar[str] = ""

    def __init__(self) -> None:
        preload_sdmetrics("single_column", "errors")

    def _sdmetrics_class(self, kind: str) -> Any:
        """The SDMetrics single-column metric class for a column of ``kind``."""
        raise NotImplementedError

    def _sdmetrics_kwargs(self) -> dict[str, Any]:
        """Extra keyword arguments of the SDMetrics ``compute`` call."""
        return {}

    def _columns(self, real: pd.DataFrame, spec: DatasetSpec) -> list[str]:
        return [c.name for c in spec.columns if c.kind in self.column_kinds and c.name in real.columns]

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
        columns = self._columns(real, spec)
        if not columns:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has no {self.kind_label} column"
            )
        errors = sdmetrics_incomputable_errors()
        kwargs = self._sdmetrics_kwargs()
        scores: dict[str, float] = {}
        incomputable: list[str] = []
        for name in columns:
            metric = self._sdmetrics_class(spec.kind(name))
            try:
                value = float(metric.compute(real[name], synthetic[name], **kwargs))
            except errors:
                value = math.nan
            if math.isnan(value):
                incomputable.append(name)
            else:
                scores[name] = value
        return mean_of_scores(self.name, scores, incomputable, "columns", f"{self.kind_label} column")


class KSComplement(SingleColumnMetric):
    """Mean over numeric columns of SDMetrics ``KSComplement`` = 1 − KS statistic.

    ``spec/metrics.md`` F1. Numeric columns are the ``continuous`` and ``integer`` columns of
    the schema, plus ``datetime`` columns (as SDMetrics' Column Shapes property does). Per-column
    values are in ``details["columns"]``. Range [0, 1]; 1 = identical marginal distributions.
    """

    name: ClassVar[str] = "ks_complement"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS
    kind_label: ClassVar[str] = "numeric"

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").KSComplement


class TVComplement(SingleColumnMetric):
    """Mean over categorical columns of SDMetrics ``TVComplement`` = 1 − ½Σ_ω|R_ω − S_ω|.

    ``spec/metrics.md`` F1. Categorical columns are the ``categorical`` and ``ordinal`` columns
    of the schema; SDMetrics drops NAs before computing frequencies. Per-column values are in
    ``details["columns"]``. Range [0, 1]; 1 = identical category frequencies.
    """

    name: ClassVar[str] = "tv_complement"
    column_kinds: ClassVar[tuple[str, ...]] = CATEGORICAL_KINDS
    kind_label: ClassVar[str] = "categorical"

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").TVComplement
