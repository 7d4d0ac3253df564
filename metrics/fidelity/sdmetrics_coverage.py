"""Support-coverage fidelity metrics wrapping SDMetrics: ``range_coverage``,
``boundary_adherence``, ``category_coverage`` and ``attribute_coverage``.

Specification: ``spec/metrics.md`` F1 (SDMetrics single-column metrics ``RangeCoverage``,
``BoundaryAdherence`` and ``CategoryCoverage``; ``attribute_coverage`` after Trindade et al.,
``004_…`` *Synthetic Data Outliers: Navigating Identity Disclosure*).
"""

from __future__ import annotations

from typing import Any, ClassVar

from metrics.fidelity.sdmetrics_lazy import sdmetrics_module
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS, NUMERIC_KINDS, SingleColumnMetric


class RangeCoverage(SingleColumnMetric):
    """Mean over numeric columns of SDMetrics ``RangeCoverage``.

    ``spec/metrics.md`` F1: per column 1 − [max(0, (min_s − min_r)/(max_r − min_r)) +
    max(0, (max_r − max_s)/(max_r − min_r))], floored at 0: how much of T's range S covers.
    Numeric columns are the ``continuous``, ``integer`` and ``datetime`` columns; a column
    constant in T has no range and is listed in ``details["incomputable_columns"]``. Range
    [0, 1]; 1 = S reaches T's minimum and maximum.
    """

    name: ClassVar[str] = "range_coverage"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS
    kind_label: ClassVar[str] = "numeric"

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").RangeCoverage


class BoundaryAdherence(SingleColumnMetric):
    """Mean over numeric columns of SDMetrics ``BoundaryAdherence``.

    ``spec/metrics.md`` F1: per column, the share of S values within [min_r, max_r] (T's
    range). SDMetrics' NA rule applies: if T has a missing value, S's missing values are
    dropped first; otherwise they count as outside the range. Range [0, 1]; 1 = every value
    of S lies within T's range.
    """

    name: ClassVar[str] = "boundary_adherence"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS
    kind_label: ClassVar[str] = "numeric"

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").BoundaryAdherence


class CategoryCoverage(SingleColumnMetric):
    """Mean over categorical columns of SDMetrics ``CategoryCoverage``.

    ``spec/metrics.md`` F1: per column, the share of T's categories (NA not counted, as in
    SDMetrics) that occur in S. Categorical columns are the ``categorical`` and ``ordinal``
    columns. Range [0, 1]; 1 = every category of T occurs in S.
    """

    name: ClassVar[str] = "category_coverage"
    column_kinds: ClassVar[tuple[str, ...]] = CATEGORICAL_KINDS
    kind_label: ClassVar[str] = "categorical"

    def _sdmetrics_class(self, kind: str) -> Any:
        return sdmetrics_module("single_column").CategoryCoverage


class AttributeCoverage(SingleColumnMetric):
    """Attribute coverage: mean over all columns of their SDMetrics coverage score.

    ``spec/metrics.md`` F1 (Trindade et al.): numeric columns (``continuous``, ``integer``,
    ``datetime``) are scored with ``RangeCoverage``, categorical columns (``categorical``,
    ``ordinal``) with ``CategoryCoverage``; the headline is the mean over every scored column
    (``details["columns"]``), so each column weighs the same whatever its kind. Range [0, 1].
    """

    name: ClassVar[str] = "attribute_coverage"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS + CATEGORICAL_KINDS
    kind_label: ClassVar[str] = "numeric or categorical"

    def _sdmetrics_class(self, kind: str) -> Any:
        single_column = sdmetrics_module("single_column")
        return single_column.RangeCoverage if kind in NUMERIC_KINDS else single_column.CategoryCoverage
