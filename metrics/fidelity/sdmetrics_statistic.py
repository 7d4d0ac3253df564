"""``statistic_similarity``: SDMetrics ``StatisticSimilarity`` over the numeric columns.

Specification: ``spec/metrics.md`` F1 (``000_…`` uses the ``mean``; Trindade et al. the
``median``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.params import check_choice
from metrics.fidelity.sdmetrics_lazy import sdmetrics_module
from metrics.fidelity.sdmetrics_shapes import NUMERIC_KINDS, SingleColumnMetric

STATISTICS: tuple[str, ...] = ("mean", "median", "std")


class StatisticSimilarity(SingleColumnMetric):
    """Mean over numeric columns of SDMetrics ``StatisticSimilarity(statistic=…)``.

    ``spec/metrics.md`` F1: per column max(0, 1 − |f(r) − f(s)| / (max_r − min_r)) with f the
    chosen statistic (SDMetrics drops NAs first). Numeric columns are the ``continuous``,
    ``integer`` and ``datetime`` columns; a column constant in T is listed in
    ``details["incomputable_columns"]``. Range [0, 1]; 1 = equal statistic.

    Parameters
    ----------
    statistic : {"mean", "median", "std"}
        The statistic f compared between T and S.
    """

    name: ClassVar[str] = "statistic_similarity"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS
    kind_label: ClassVar[str] = "numeric"

    def __init__(self, statistic: str = "mean") -> None:
        super().__init__()
        self.statistic = statistic

    def _validate_params(self) -> None:
        check_choice("statistic", self.statistic, STATISTICS)

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").StatisticSimilarity

    def _sdmetrics_kwargs(self) -> dict[str, Any]:
        return {"statistic": self.statistic}
